//! What the tool's commands read, and how: the objectives' YAML with
//! their checks and bounds — test sequences (this file and `parse/`) and
//! `tranche network`'s `!ApprovalNetwork` ([`approval_network`]) — the
//! other files the commands take: `tranche sweep network`'s
//! `!ApprovalSweep` ([`approval_sweep`]) and the model's cost table
//! ([`costs`]); a test sequence with its sizes replaced ([`resize`]); the
//! simulated node's shape ([`node_shape`]), the run's estimate ([`estimate`]),
//! the plain parameters generation is given ([`generation`]), the one
//! checked way a user file is read ([`input`]) and what an error line may
//! show of its text ([`text`]). The size bounds, session parameters,
//! clock and layouts it shares with the protocol are `tranche_records`'
//! (plain data: reading a file needs no crypto); generating from these
//! parameters is `tranche_workload`'s.
//!
//! # Test sequences
//!
//! Upstream subsystem-bench YAML files, checked and
//! normalised into one [`BenchStep`] per approval step (upstream
//! `polkadot/node/subsystem-bench/src/lib/configuration.rs` and
//! `.../src/lib/approval/mod.rs` `ApprovalsOptions`).
//!
//! Not to be confused with the timed approval-decision scenarios of
//! `tranche scenario` (crate `tranche-conformance`).
//!
//! # Format
//!
//! ```yaml
//! TestConfiguration:
//! - objective: !ApprovalVoting        # or !ApprovalsTest (G1)
//!     coalesce_mean: 3.0              # ApprovalsOptions
//!     ...
//!   n_validators: 500                 # TestConfiguration fields
//!   ...
//! ```
//!
//! The top level has the single key `TestConfiguration`, a list of steps.
//! Each step holds `objective`, an externally tagged enum in YAML tag
//! syntax, and the `TestConfiguration` fields beside it.
//!
//! * `!ApprovalVoting` steps use the G2/G3 schema (coalescing drawn from a
//!   normal distribution, session parameters configurable, optional
//!   `approval_voting_parallel_enabled`) with the newest (G3,
//!   Kusama-based) defaults.
//! * `!ApprovalsTest` steps use the G1 schema (uniform coalescing
//!   `min_coalesce..=max_coalesce`, `send_till_tranche`, the three pass/fail
//!   thresholds, `n_included_candidates`, `error`, latency either as
//!   `{min_latency, max_latency}` durations or `{mean_latency_ms, std_dev}`)
//!   with G1 defaults.
//! * Steps with another upstream objective (`DataAvailabilityRead`,
//!   `DataAvailabilityWrite`, `StatementDistribution`, `TestSequence`) are
//!   listed in [`BenchConfig::skipped`] without further checks: tranche
//!   benchmarks approvals only.
//!
//! # Unlike upstream
//!
//! * A key that belongs to no generation of the step's schema is an error
//!   naming the key and the file (upstream ignores unknown keys, so a typo
//!   silently became a default).
//! * Values no run can have are errors (see [`BenchStep`] for each bound),
//!   as are wrong types, a missing file and a malformed file; every error is
//!   one short line (upstream panics): a value, key or tag from the file is
//!   shown cut after 80 bytes with its length (`crate::text`), a file that
//!   is not a mapping is described by its size, never echoed, and an
//!   integer beyond 64 bits (`crate::yaml`) is too large for its key.
//!   Sizes and tick counts are bounded by `crates/records/src/limits.rs`: validators, `needed_approvals`,
//!   `max_validators_per_core` and `num_no_shows_per_candidate` by
//!   `MAX_VALIDATORS`; cores, `relay_vrf_modulo_samples` and coalescing by
//!   `MAX_CORES`; blocks by `MAX_BLOCKS`; `n_delay_tranches`,
//!   `zeroth_delay_tranche_width`, `coalesce_tranche_diff`,
//!   `last_considered_tranche` and `send_till_tranche` by
//!   `MAX_DELAY_TRANCHES`; `no_show_slots` by `MAX_NO_SHOW_SLOTS`.
//! * Files are read through `input::read_text` (regular files of at most
//!   `MAX_INPUT_FILE_BYTES`) and refused when nested deeper than
//!   [`MAX_DEPTH`], holding too many or too long values, before the YAML
//!   parser sees them ([`yaml::read`], `prescan.rs`).
//! * `ApprovalsOptions` fields fall back to upstream's CLI (clap) defaults
//!   when absent; upstream's serde required every one of them. Fields with
//!   no upstream default anywhere (`num_blocks`; `coalesce_tranche_diff`;
//!   G1: `n_validators`, `n_cores`, `n_included_candidates`,
//!   `workdir_prefix`) are required.
//!
//! # Defaults
//!
//! | key | `!ApprovalVoting` (G3) | `!ApprovalsTest` (G1) |
//! |---|---|---|
//! | `n_validators` | 300 | required |
//! | `n_cores` | 60 | required |
//! | `n_included_candidates` | — (all cores) | required |
//! | `num_blocks` | required | required |
//! | `needed_approvals` | 30 | 30 (constant, not a key) |
//! | `zeroth_delay_tranche_width` | 0 | 0 (constant) |
//! | `relay_vrf_modulo_samples` | 6 | 6 (constant) |
//! | `n_delay_tranches` | 89 | 89 (constant) |
//! | `no_show_slots` | 3 | 3 (constant) |
//! | `max_validators_per_core` | 5 | 5 (groups are single validators) |
//! | `min_pov_size`, `max_pov_size` (KiB) | 5120 | 5120 |
//! | `peer_bandwidth`, `bandwidth` (B/s) | 44 040 192 | 52 428 800 |
//! | `latency` | `{mean_latency_ms: 30, std_dev: 2.0}` | none |
//! | `connectivity` (%) | 90 | 100 |
//! | `error` (%) | — | 0 |
//! | `last_considered_tranche` | 89 | 89 |
//! | `coalesce_mean`, `coalesce_std_dev` | 1.0, 1.0 | — |
//! | `min_coalesce`, `max_coalesce` | — | 1, 1 |
//! | `coalesce_tranche_diff` | required | required |
//! | `enable_assignments_v2` | false | false |
//! | `send_till_tranche` | — (`last_considered_tranche`) | 89 |
//! | `stop_when_approved` | true | true |
//! | `workdir_prefix` | `/tmp` | required |
//! | `num_no_shows_per_candidate` | 0 | 0 |
//! | `approval_voting_parallel_enabled` | absent (`None`) | — |
//! | `blocks_per_session` (tranche's extension) | absent: one session | — |
//! | `approval_distribution_expected_tof`, `approval_distribution_cpu_ms`, `approval_voting_cpu_ms` | — | 6.0 each |

pub mod approval_network;
pub mod approval_sweep;
pub mod costs;
mod error;
pub mod estimate;
pub mod generation;
pub mod hostfile;
pub mod network_spec;
pub mod node_shape;
mod parse;
mod prescan;
pub mod resize;
pub mod resolve;
pub mod session;
pub mod sweep_grid;
pub mod yaml;

use std::path::Path;

use crate::generation::{GenerationParams, INITIAL_SLOT};
pub use error::{ConfigError, ConfigErrorKind};
pub use prescan::MAX_DEPTH;
use tranche_cli::input::{InputError, MAX_INPUT_FILE_BYTES};
use tranche_links::{Bandwidth, LatencyDirections, LatencyModel, NetworkConfig};
use tranche_records::time::DEFAULT_TICKS_PER_SLOT;

/// The embedded default test sequence (`tranche run` without a file):
/// 100 validators, 20 cores, 3 blocks, best case.
pub const DEFAULT_YAML: &str = include_str!("default.yaml");

/// The name errors and reports use for [`DEFAULT_YAML`].
pub const DEFAULT_SOURCE: &str = "default.yaml (embedded)";

/// The most blocks a run can have ([`tranche_records::limits::MAX_BLOCKS`]). Upstream's
/// block hashes repeat the block number in all 32 bytes, so its block 222
/// would collide with the parent of block 1; our generator hashes each
/// block (`crates/world/src/lib.rs`), so only the general
/// bound applies.
pub use tranche_records::limits::MAX_BLOCKS;

/// Which upstream schema a step follows, chosen by its objective tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schema {
    /// `!ApprovalsTest`: generation G1 (polkadot-sdk#2621).
    G1,
    /// `!ApprovalVoting`: generations G2 and G3.
    G2G3,
}

impl Schema {
    /// The YAML tag, with its `!`.
    pub fn tag(self) -> &'static str {
        match self {
            Schema::G1 => "!ApprovalsTest",
            Schema::G2G3 => "!ApprovalVoting",
        }
    }

    /// Upstream's objective name, used in benchmark names.
    pub fn objective_name(self) -> &'static str {
        match self {
            Schema::G1 => "ApprovalsTest",
            Schema::G2G3 => "ApprovalVoting",
        }
    }
}

/// How many candidates one signed approval covers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Coalescing {
    /// G1: uniform integer in `min..=max` (`min_coalesce`, `max_coalesce`;
    /// defaults 1, 1; `1 <= min <= max`).
    Uniform {
        /// Fewest candidates per approval.
        min: u32,
        /// Most candidates per approval.
        max: u32,
    },
    /// G2/G3: `max(1, round(Normal(mean, std_dev)))` (`coalesce_mean`,
    /// `coalesce_std_dev`; defaults 1.0, 1.0; finite, `std_dev >= 0`).
    /// `f32` as upstream: the cache key hashes their bits.
    Normal {
        /// Mean.
        mean: f32,
        /// Standard deviation.
        std_dev: f32,
    },
}

/// G1's pass/fail thresholds (the `*_cpu_ms` / `*_tof` assertions of upstream G1 example files). Kept for reference and reports;
/// the `_cpu_ms` ones are in fact CPU *seconds* per block (quirk Q17).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct G1Thresholds {
    /// `approval_distribution_expected_tof`, seconds (default 6.0).
    pub approval_distribution_expected_tof: f64,
    /// `approval_distribution_cpu_ms`, CPU s per block (default 6.0).
    pub approval_distribution_cpu_ms: f64,
    /// `approval_voting_cpu_ms`, CPU s per block (default 6.0).
    pub approval_voting_cpu_ms: f64,
}

/// One approval step of a test sequence, normalised: every field has its
/// value, given or default (see the module documentation's table), and has
/// been checked.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchStep {
    /// `"<file> #<step> <Objective>"`, as upstream names a benchmark.
    pub name: String,
    /// 1-based position in `TestConfiguration`.
    pub step: usize,
    /// The schema the step was read with.
    pub schema: Schema,

    // --- TestConfiguration ---
    /// `n_validators`: validators including the node under test (index 0).
    /// G3 default 300; G1 required. At least 2.
    pub n_validators: u32,
    /// `n_cores`: availability cores, one candidate each per block. G3
    /// default 60; G1 required. 1 ..= number of backing groups (G2/G3:
    /// `ceil(n_validators / max_validators_per_core)`; G1: one group per
    /// validator).
    pub n_cores: u32,
    /// G1 `n_included_candidates`: candidates included per block,
    /// `1..=n_cores` (required in G1). G2/G3: `n_cores`.
    pub n_included_candidates: u32,
    /// `num_blocks`: relay-chain blocks, one per slot. Required;
    /// `1..=MAX_BLOCKS`.
    pub num_blocks: u32,
    /// The session's approval parameters, `needed_approvals` (default
    /// 30), `zeroth_delay_tranche_width` (0), `relay_vrf_modulo_samples`
    /// (6), `n_delay_tranches` (89), `no_show_slots` (3): keys in G2/G3,
    /// constants in G1 (`config::session`).
    pub session: session::SessionParams,
    /// `max_validators_per_core`: backing-group size (default 5, >= 1).
    /// G1 ignores it for approvals: its groups are single validators.
    pub max_validators_per_core: u32,
    /// `min_pov_size`, KiB (default 5120); only part of upstream's cache
    /// key. `<= max_pov_size_kib`.
    pub min_pov_size_kib: u64,
    /// `max_pov_size`, KiB (default 5120).
    pub max_pov_size_kib: u64,
    /// `peer_bandwidth`: every peer's limit, bytes/s, both directions (G3
    /// default 44 040 192; G1 52 428 800). At least 10.
    pub peer_bandwidth: u64,
    /// `bandwidth`: the node's limit, bytes/s, both directions (defaults as
    /// `peer_bandwidth`). At least 10.
    pub bandwidth: u64,
    /// `latency`: per-peer latency, `None` for `latency: null` (G3 default
    /// normal 30 ms, sd 2.0; G1 default none).
    pub latency: LatencyModel,
    /// `connectivity`: percentage of the other validators connected to
    /// the node (G3 default 90; G1 100). At most 100, and at least one
    /// peer must end up connected.
    pub connectivity: u8,
    /// G1 `error`: message-loss probability in percent, 0..=100 (default
    /// 0; upstream never used it for approvals). 0 for G2/G3.
    pub error_percent: u8,

    // --- ApprovalsOptions ---
    /// Coalescing of approvals (`min/max_coalesce` or
    /// `coalesce_mean/std_dev`).
    pub coalescing: Coalescing,
    /// `coalesce_tranche_diff`: the most tranches between the oldest queued
    /// assignment and a new one before the queue is flushed. Required (no
    /// upstream default; the upstream examples use 12). At least 1.
    pub coalesce_tranche_diff: u32,
    /// `enable_assignments_v2`: compact multi-core tranche-0 assignments
    /// (default false).
    pub enable_assignments_v2: bool,
    /// `last_considered_tranche` (default 89). G1: assignments of a later
    /// tranche are dropped at generation. G2/G3: the last tranche sent when
    /// `stop_when_approved` is false.
    pub last_considered_tranche: u32,
    /// G1 `send_till_tranche` (default 89): the last tranche sent when
    /// `stop_when_approved` is false. `None` for G2/G3.
    pub send_till_tranche: Option<u32>,
    /// `stop_when_approved`: send only what approval needs, plus no-show
    /// handling (default true).
    pub stop_when_approved: bool,
    /// `workdir_prefix`: directory of the message cache (G3 default `/tmp`;
    /// G1 required). Not empty.
    pub workdir_prefix: String,
    /// `num_no_shows_per_candidate`: approvals withheld per candidate
    /// (default 0).
    pub num_no_shows_per_candidate: u32,
    /// `blocks_per_session` (tranche's extension of `!ApprovalVoting`, not
    /// upstream's): a new session — index, session info and gossip
    /// topology, generated like the first — every N blocks; `None`: one
    /// session for the whole run.
    pub blocks_per_session: Option<u32>,
    /// G3 `approval_voting_parallel_enabled`: `None` when absent (the CLI
    /// then decides); always `None` for G1.
    pub approval_voting_parallel_enabled: Option<bool>,
    /// G1 pass/fail thresholds; `None` for G2/G3.
    pub g1_thresholds: Option<G1Thresholds>,

    /// Keys that were absent and took their default, in schema order.
    pub defaulted: Vec<&'static str>,
}

/// A step whose objective is not an approval benchmark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedStep {
    /// 1-based position in `TestConfiguration`.
    pub step: usize,
    /// The upstream objective name, e.g. `DataAvailabilityRead`.
    pub objective: String,
}

/// A parsed test-sequence file.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchConfig {
    /// The file path as given, or [`DEFAULT_SOURCE`].
    pub source: String,
    /// The approval steps, in file order; never empty.
    pub steps: Vec<BenchStep>,
    /// Steps of other objectives, not run.
    pub skipped: Vec<SkippedStep>,
}

/// Reads and checks a test-sequence file: a regular file only (a FIFO is
/// not waited on, a device not drained) of at most
/// [`MAX_INPUT_FILE_BYTES`], through [`input::read_text`].
pub fn load(path: &Path) -> Result<BenchConfig, ConfigError> {
    parse(&read_sequence(path)?, &path.display().to_string())
}

/// The text of a test-sequence file, read as [`load`] reads it (its
/// errors are configuration errors naming the file).
pub fn read_sequence(path: &Path) -> Result<String, ConfigError> {
    let source = path.display().to_string();
    tranche_cli::input::read_text(path, MAX_INPUT_FILE_BYTES).map_err(|e| {
        let kind = match e {
            InputError::Io { source, .. } => ConfigErrorKind::Read(source),
            InputError::NotRegular { kind, .. } => ConfigErrorKind::NotRegular(kind),
            InputError::TooLarge { max, .. } => ConfigErrorKind::TooLarge { max },
            InputError::NotText { .. } => ConfigErrorKind::NotText,
        };
        ConfigError::new(&source, None, kind)
    })
}

/// Which command a file is for, from its top level: `!ApprovalNetwork`
/// (`tranche network`), `!ApprovalSweep` (`tranche sweep network`) or a
/// `TestConfiguration` list (`tranche run`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    TestSequence,
    ApprovalNetwork,
    ApprovalSweep,
    Unknown,
}

/// The kind of `yaml`, from its first line that is not blank or a comment.
pub fn file_kind(yaml: &str) -> FileKind {
    let first = yaml
        .lines()
        .map(str::trim_start)
        .find(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("---"));
    match first {
        Some(l) if l.starts_with("!ApprovalNetwork") => FileKind::ApprovalNetwork,
        Some(l) if l.starts_with("!ApprovalSweep") => FileKind::ApprovalSweep,
        Some(l) if l.starts_with("TestConfiguration") => FileKind::TestSequence,
        _ => FileKind::Unknown,
    }
}

/// The one-line hint for a file given to the wrong command.
pub const USE_NETWORK: &str = "this is an !ApprovalNetwork file; use `tranche network`";
pub const USE_RUN: &str = "this is an !ApprovalVoting file; use `tranche run`";
pub const USE_SWEEP: &str = "this is an !ApprovalSweep file; use `tranche sweep network`";

/// Parses and checks test-sequence YAML; `source` names it in errors and
/// benchmark names. Text beyond the bounds of every YAML input (nested
/// deeper than [`MAX_DEPTH`], too many or too long values) is refused
/// before the YAML parser sees it ([`yaml::read`]).
pub fn parse(yaml: &str, source: &str) -> Result<BenchConfig, ConfigError> {
    let other = match file_kind(yaml) {
        FileKind::ApprovalNetwork => Some(USE_NETWORK),
        FileKind::ApprovalSweep => Some(USE_SWEEP),
        FileKind::TestSequence | FileKind::Unknown => None,
    };
    if let Some(hint) = other {
        return Err(ConfigError::new(
            source,
            None,
            ConfigErrorKind::OtherCommand(hint),
        ));
    }
    parse::parse_sequence(yaml, source)
}

/// Refuses a configuration with a step in which every candidate is
/// approved at import (see [`BenchStep::vacuous_reason`]): such a run
/// measures nothing. The error names the first such step.
pub fn check_not_vacuous(config: &BenchConfig) -> Result<(), ConfigError> {
    for step in &config.steps {
        if let Some(reason) = step.vacuous_reason() {
            return Err(ConfigError::new(
                &config.source,
                Some(step.step),
                ConfigErrorKind::Vacuous { reason },
            ));
        }
    }
    Ok(())
}

/// The embedded default sequence ([`DEFAULT_YAML`]).
pub fn embedded_default() -> Result<BenchConfig, ConfigError> {
    parse(DEFAULT_YAML, DEFAULT_SOURCE)
}

impl BenchStep {
    /// Candidates per block: `n_included_candidates` (all cores in G2/G3).
    pub fn candidates_per_block(&self) -> u32 {
        self.n_included_candidates
    }

    /// Backing groups: G1 one per validator; G2/G3
    /// `ceil(n_validators / max_validators_per_core)`.
    pub fn n_backing_groups(&self) -> u32 {
        match self.schema {
            Schema::G1 => self.n_validators,
            Schema::G2G3 => self.n_validators.div_ceil(self.max_validators_per_core),
        }
    }

    /// Why every candidate of this step is approved as soon as its block is
    /// imported, if it is: voting approves a candidate at import when no
    /// approvals are needed, or when fewer validators than
    /// `needed_approvals` are outside its backing group
    /// (`crates/voting/src/machine/blocks.rs` `approved_at_import`, after
    /// upstream `polkadot/node/core/approval-voting/src/import.rs`). The
    /// smallest group (the last core's, `crates/world/src/lib.rs`
    /// `validator_groups`) leaves the most validators outside it.
    pub fn vacuous_reason(&self) -> Option<String> {
        if self.session.needed_approvals == 0 {
            return Some("needed_approvals is 0".into());
        }
        let per_core = match self.schema {
            Schema::G1 => 1,
            Schema::G2G3 => self.max_validators_per_core,
        };
        let last_start = u64::from(self.n_cores - 1) * u64::from(per_core);
        let smallest = u64::from(per_core).min(u64::from(self.n_validators) - last_start);
        let outside = u64::from(self.n_validators) - smallest;
        (outside < u64::from(self.session.needed_approvals)).then(|| {
            format!(
                "needed_approvals {} exceeds the {} outside a backing group of {smallest} \
                 among {}",
                self.session.needed_approvals,
                tranche_cli::text::counted(outside, "validator"),
                tranche_cli::text::counted(self.n_validators, "validator")
            )
        })
    }

    /// When `stop_when_approved` is false, bundles whose lowest tranche is
    /// at most this are sent: `send_till_tranche` (G1) or
    /// `last_considered_tranche` (G2/G3).
    pub fn send_limit_tranche(&self) -> u32 {
        self.send_till_tranche
            .unwrap_or(self.last_considered_tranche)
    }

    /// G1 drops generated assignments of a tranche above this; G2/G3 keep
    /// everything (`None`).
    pub fn generation_tranche_limit(&self) -> Option<u32> {
        match self.schema {
            Schema::G1 => Some(self.last_considered_tranche),
            Schema::G2G3 => None,
        }
    }

    /// How long after its last block's slot a run of this step may go on,
    /// in ticks, before the grace period. The driver
    /// (`crates/bench/src/run/driver.rs`) ends at `last_tick +
    /// n_delay_tranches + (2 + num_no_shows_per_candidate) × (no_show_window +
    /// n_delay_tranches) + GRACE_TICKS`, with `no_show_window = no_show_slots ×
    /// DEFAULT_TICKS_PER_SLOT`; this is that sum without `last_tick` and
    /// `GRACE_TICKS`. `None` on overflow, which the parse-time bounds
    /// exclude (checked when a step is read).
    pub fn drain_ticks(&self) -> Option<u64> {
        let tranches = u64::from(self.session.n_delay_tranches);
        let window = u64::from(self.session.no_show_slots).checked_mul(DEFAULT_TICKS_PER_SLOT)?;
        (2 + u64::from(self.num_no_shows_per_candidate))
            .checked_mul(window.checked_add(tranches)?)?
            .checked_add(tranches)
    }

    /// The tick of the last block's slot (the benchmark's blocks are numbered
    /// from [`INITIAL_SLOT`]); `None` on overflow.
    pub fn last_block_tick(&self) -> Option<u64> {
        INITIAL_SLOT
            .checked_add(u64::from(self.num_blocks).checked_sub(1)?)?
            .checked_mul(DEFAULT_TICKS_PER_SLOT)
    }

    /// Peers connected to the node: `floor((n_validators − 1) ×
    /// connectivity / 100)`, exact (see [`NetworkConfig::connected_count`]).
    pub fn connected_peers(&self) -> u32 {
        ((u64::from(self.n_validators) - 1) * u64::from(self.connectivity) / 100) as u32
    }

    /// What message generation needs of this step (with the run's seed):
    /// two steps with equal parameters generate the same messages.
    pub fn generation_params(&self, seed: u64) -> GenerationParams {
        GenerationParams {
            n_validators: self.n_validators,
            n_cores: self.n_cores,
            n_included_candidates: self.candidates_per_block(),
            num_blocks: self.num_blocks,
            session: self.session,
            max_validators_per_core: match self.schema {
                Schema::G1 => 1,
                Schema::G2G3 => self.max_validators_per_core,
            },
            coalesce: self.coalescing,
            coalesce_tranche_diff: self.coalesce_tranche_diff,
            enable_assignments_v2: self.enable_assignments_v2,
            generation_tranche_limit: self.generation_tranche_limit(),
            blocks_per_session: self.blocks_per_session,
            seed,
        }
    }

    /// The emulated network of this step: one peer per validator other
    /// than the node under test (peer `i` is validator `i + 1`), latency in
    /// both directions, `error` as the loss probability.
    pub fn network_config(&self, seed: u64) -> NetworkConfig {
        NetworkConfig {
            n_peers: self.n_validators - 1,
            node_bandwidth: Bandwidth::BytesPerSecond(self.bandwidth),
            peer_bandwidth: Bandwidth::BytesPerSecond(self.peer_bandwidth),
            latency: self.latency,
            latency_directions: LatencyDirections::Both,
            connectivity_percent: self.connectivity,
            loss_probability: f64::from(self.error_percent) / 100.0,
            seed,
        }
    }
}
