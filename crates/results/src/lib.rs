//! What a result *is*: the data every command's `--json` writes and
//! every reader reads back, with serde only. A run of the node under test
//! ([`RunReport`] and its parts, [`ReportFile`]), who made a result and how
//! ([`meta`]), a whole-network simulation ([`network`]), a sweep's rows
//! ([`sweep`]), a figure's spread over repeats ([`spread`]), which figures
//! vary with thread timing ([`timing`]). How results are shown, compared
//! and read from disk is `tranche-report`'s; the command line's plumbing
//! is `tranche-terminal`'s. Nothing here links more than serde and
//! `tranche-records`, so a harness that only produces results (the node
//! under test's trait, `tranche-polkadot`) links no renderer or server.

pub mod meta;
pub mod network;
pub mod spread;
pub mod sweep;
pub mod timing;

pub use meta::Meta;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// When a block was approved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockReport {
    pub number: u32,
    /// Tick at which the node reported the block approved.
    pub approved_tick: Option<u64>,
    /// Milliseconds after the block's slot start (500 ms resolution under
    /// the virtual clock, wall-clock under the real one).
    pub approved_after_ms: Option<u64>,
}

/// CPU of one thread group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuRow {
    pub name: String,
    pub total_s: f64,
    pub per_block_s: f64,
    /// Whether the row is part of the node's total.
    pub node: bool,
}

/// Bytes of SCALE-encoded validation-protocol messages, no framing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NetworkReport {
    pub received_bytes: u64,
    pub sent_bytes: u64,
    pub received_kib_per_block: f64,
    pub sent_kib_per_block: f64,
}

/// Message counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    /// Distinct messages the peers sent.
    pub unique_messages: u64,
    /// Copies delivered to the node (duplicates included).
    pub deliveries: u64,
    /// Copies lost by the emulated network.
    pub lost: u64,
    /// Notifications the node sent.
    pub messages_from_node: u64,
    /// Approvals withheld to create no-shows.
    pub withheld_approvals: u64,
    /// Certificate and signature checks the node did.
    pub verifications: u64,
}

/// How the run's messages were obtained (fields added later read 0 in
/// older files).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GenerationReport {
    pub cache_file: String,
    pub cache_hit: bool,
    /// Generation (or cache load) wall time.
    pub time_s: f64,
    pub cache_bytes: u64,
    /// The process's CPU seconds meanwhile (all threads): `cpu_s / time_s`
    /// is how many cores were busy.
    pub cpu_s: f64,
}

/// The crypto floor and the node's CPU relative to it (`floor.rs`).
/// Without a floor (`--floor off`: `mode` `off`) its figures and the
/// ratios to it are not produced: absent from the JSON (0 is never a
/// measured floor), `-` in tables; read back as 0.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FloorReport {
    /// Assignment certificates in the run's unique messages.
    pub assignments: u64,
    /// Approval signatures in the run's unique messages.
    pub approvals: u64,
    /// The floor's CPU seconds: measured (`full`) or estimated from the
    /// sample (`sample`).
    #[serde(skip_serializing_if = "unmeasured")]
    pub cpu_s: f64,
    #[serde(skip_serializing_if = "unmeasured")]
    pub per_block_s: f64,
    /// Node CPU / floor CPU.
    #[serde(skip_serializing_if = "unmeasured")]
    pub node_ratio: f64,
    /// `sample`, `full` or `off` (empty in older files: `full`).
    pub mode: String,
    /// Unique messages of each kind the peers sent.
    pub assignment_messages: u64,
    pub approval_messages: u64,
    /// Of those, the messages verified.
    pub sampled_assignment_messages: u64,
    pub sampled_approval_messages: u64,
    /// The 95 % interval of `cpu_s`, seconds (a point with `full`).
    #[serde(skip_serializing_if = "unmeasured_interval")]
    pub interval_s: (f64, f64),
    /// The floor with approval signatures verified in batches (the
    /// cheapest primitive; certificates count as in `cpu_s`), and the node
    /// CPU against it (0 in older files).
    #[serde(skip_serializing_if = "unmeasured")]
    pub batched_cpu_s: f64,
    #[serde(skip_serializing_if = "unmeasured")]
    pub batched_per_block_s: f64,
    #[serde(skip_serializing_if = "unmeasured")]
    pub node_ratio_batched: f64,
}

/// A floor figure left out of the JSON: 0, which no measured floor is
/// (`--floor off`).
pub fn unmeasured(v: &f64) -> bool {
    *v == 0.0
}

fn unmeasured_interval(v: &(f64, f64)) -> bool {
    unmeasured(&v.0) && unmeasured(&v.1)
}

impl FloorReport {
    /// Messages verified.
    pub fn sampled_messages(&self) -> u64 {
        self.sampled_assignment_messages + self.sampled_approval_messages
    }

    /// Unique messages of the run.
    pub fn population_messages(&self) -> u64 {
        self.assignment_messages + self.approval_messages
    }
}

/// What the node's state machines counted (the twins of upstream's
/// approval metrics); all zero in reports written before they existed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProtocolReport {
    /// Candidates imported with new blocks.
    pub imported_candidates: u64,
    /// Assignments accepted (ours and peers'), by certificate kind:
    /// `VRF Delay`, `VRF Modulo`, `VRF Modulo Compact`.
    pub assignments_imported: BTreeMap<String, u64>,
    /// Approval votes accepted (ours and peers').
    pub approvals_imported: u64,
    pub candidates_approved: u64,
    pub approved_by_one_third: u64,
    /// No-shows tolerated when candidates got approved.
    pub no_shows: u64,
    /// No-shows observed at any evaluation.
    pub observed_no_shows: u64,
    /// Reputation changes distribution gave peers, by kind (upstream's
    /// names, e.g. `Peer sent identical messages`), each counted once
    /// however they were aggregated before being reported.
    pub reputation_changes: BTreeMap<String, u64>,
}

/// The run's state at one moment, for plots over time. Sampled by the
/// driver every virtual tick (virtual clock) or about every 500 ms (real
/// clock).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Sample {
    /// Seconds since the first block's slot started: tick-based under the
    /// virtual clock, wall-clock under the real one.
    pub t_s: f64,
    pub tick: u64,
    /// Cumulative CPU seconds per thread group (the node's groups and
    /// `test-environment`).
    pub cpu_s: BTreeMap<String, f64>,
    /// Cumulative bytes the node received from and sent to peers.
    pub received_bytes: u64,
    pub sent_bytes: u64,
    /// The deepest each of the node's channels got since the previous
    /// sample, summed over its channels.
    pub queue_depth: u64,
    /// The deepest single channel of each kind since the previous sample
    /// (`channel_kind`): kinds with different channel counts stay apart.
    pub queue_depth_by_kind: BTreeMap<String, u64>,
    /// Cumulative CPU seconds of each thread that `thread_group` merges
    /// with others (the parallel layout's distribution workers).
    pub worker_cpu_s: BTreeMap<String, f64>,
    /// Blocks approved so far.
    pub approved_blocks: u32,
}

/// One benchmark run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    pub name: String,
    pub architecture: String,
    pub workers: usize,
    pub clock: String,
    pub seed: u64,
    pub n_validators: u32,
    pub n_cores: u32,
    pub num_blocks: u32,
    pub blocks: Vec<BlockReport>,
    pub network: NetworkReport,
    pub cpu: Vec<CpuRow>,
    pub node_cpu_s: f64,
    pub counts: Counts,
    pub generation: GenerationReport,
    pub crypto_floor: FloorReport,
    pub wall_time_s: f64,
    pub peak_memory_bytes: u64,
    /// Absent where the node kept no counters (`--node model`: the
    /// model keeps none; read back as zeros, shown as `-`).
    #[serde(default, skip_serializing_if = "ProtocolReport::is_empty")]
    pub protocol: ProtocolReport,
    /// The run over time (absent in older files).
    #[serde(default)]
    pub samples: Vec<Sample>,
    /// With `--repeat N`: the CPU of the N measured runs (the figures
    /// above are their medians); absent for a single run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<spread::Repeats>,
    /// With `--restart-at-block N`: the crash and restart of the node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart: Option<RestartReport>,
    /// With `--schedule useful-first`: what the reordering cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<ScheduleReport>,
    /// How the layout verified approval signatures: `batched` or
    /// `one-by-one` (empty in older files: the parallel layout batched,
    /// the classic one did not).
    #[serde(default)]
    pub signatures: String,
    /// Candidates of blocks never approved whose no-show the peers never
    /// covered, and why (`Stall`); empty when every block was approved.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stalls: Vec<Stall>,
    /// The approval database: its commits and its own CPU (absent in older
    /// files; with `--db memory`, which commits nothing, only the CPU of
    /// the writes; absent from the JSON where the node has none: `--node
    /// model`).
    #[serde(default, skip_serializing_if = "DatabaseReport::is_empty")]
    pub database: DatabaseReport,
    /// Where the checks ran: the classic layout's round trips to voting,
    /// and the certificates the parallel layout's workers checked back to
    /// back (absent in older files and where the node made neither:
    /// `--node model`).
    #[serde(default, skip_serializing_if = "ChecksReport::is_empty")]
    pub checks: ChecksReport,
    /// `real`: the node ran on threads; `model`: the simulation's model of
    /// it ran on its modelled CPU (`tranche run --node model`; its CPU is
    /// modelled, not measured). Older files: `real`.
    #[serde(default = "real_node")]
    pub node_under_test: String,
}

fn real_node() -> String {
    "real".into()
}

/// The approval database's share of a run (docs/durability.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DatabaseReport {
    /// Commits and fsyncs of a database on disk (redb, parity-db); absent
    /// (`-` in tables) with `--db memory`, which has neither.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commits: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fsyncs: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commits_per_block: Option<f64>,
    /// The voting thread's time in the database: buffering writes,
    /// committing, fsyncing (part of the voting thread's CPU).
    pub cpu_s: f64,
    pub cpu_per_block_s: f64,
}

/// How the node's checks ran.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ChecksReport {
    /// Classic: checks distribution handed to voting and waited for.
    pub round_trips: u64,
    /// Classic: what one round trip cost beyond the check itself
    /// (distribution's wait less voting's time checking), microseconds.
    pub round_trip_us: f64,
    /// Parallel: certificates checked back to back before their messages
    /// were handled, and of those, the ones never asked for.
    pub checked_ahead: u64,
    pub ahead_unused: u64,
}

/// A candidate of a block never approved with a no-show whose further
/// assignments upstream's generator rule held back (docs/quirks.md): the
/// peers send tranches only up to `max_tranche + no_shows` once
/// `needed_approvals + 1` assignments are out, which assumes every tranche
/// holds an assignment for the candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stall {
    /// The block's number.
    pub block: u32,
    pub candidate: u32,
    /// Approvals withheld for it (its no-shows).
    pub no_shows: u32,
    /// The highest tranche of the assignments counted towards
    /// `needed_approvals`.
    pub max_tranche: u32,
    /// The last tranche the rule sends: `max_tranche + no_shows`.
    pub window: u32,
    /// The highest tranche of its assignments that were sent.
    pub last_sent: u32,
    /// The first tranche of a generated assignment for it never sent.
    pub next_tranche: u32,
}

/// What `--schedule useful-first` did: how long messages waited in the
/// workers' backlogs from receipt to being handled (and so forwarded), for
/// those taken ahead because they could still change an approval and for
/// the rest, and the longest backlog a worker held.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScheduleReport {
    /// Each group's messages and their wait, p50 and p99 (absent where the
    /// group holds no message: no wait was measured).
    pub ahead_messages: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ahead_p50_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ahead_p99_ms: Option<f64>,
    pub rest_messages: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rest_p50_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rest_p99_ms: Option<f64>,
    pub backlog_peak: u64,
}

/// The crash and restart of `tranche run --restart-at-block N`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RestartReport {
    /// The block at whose slot start the node was stopped.
    pub block: u32,
    /// The tick it happened at.
    pub tick: u64,
    /// Milliseconds from the stop until the restarted node was idle again
    /// (restored, re-announced, reconnected).
    pub recover_ms: f64,
    /// Items (assignments and approvals) the restarted node sent while
    /// coming back: its own messages of the stored blocks, sent again.
    pub resent_items: u64,
}

impl ProtocolReport {
    /// Nothing counted: a node that keeps no counters (the model).
    pub fn is_empty(&self) -> bool {
        *self == ProtocolReport::default()
    }
}

impl DatabaseReport {
    /// No database: the model's node.
    pub fn is_empty(&self) -> bool {
        *self == DatabaseReport::default()
    }
}

impl ChecksReport {
    /// No round trip and nothing checked ahead.
    pub fn is_empty(&self) -> bool {
        *self == ChecksReport::default()
    }
}

impl RunReport {
    /// Whether the node under test was the simulation's model
    /// (`--node model`), which keeps no protocol counters, database or
    /// round trips: those figures are `-` in its tables.
    pub fn is_model(&self) -> bool {
        self.node_under_test == "model"
    }

    /// Whether the node under test kept tranche's counters (protocol
    /// counters, database, round trips): tranche's own node on threads
    /// does; the simulation's model and Polkadot's node run by
    /// `tranche-polkadot` do not, and those figures are `-` in its tables.
    pub fn keeps_counters(&self) -> bool {
        self.node_under_test == "real"
    }

    /// Whether the run counted the node's signature and certificate
    /// checks (`counts.verifications`): tranche's node and its model do;
    /// Polkadot's node, run by `tranche-polkadot`, does not tell the
    /// harness (its figure is `-`, not 0).
    pub fn counts_checks(&self) -> bool {
        self.keeps_counters() || self.is_model()
    }

    /// Whether the run measured a crypto floor (not `--floor off`): else
    /// the floor and every ratio to it are `-`.
    pub fn has_floor(&self) -> bool {
        self.crypto_floor.mode != "off"
    }

    /// The node's CPU ÷ its own floor, where a floor was measured.
    pub fn own_floor_ratio(&self) -> Option<f64> {
        self.has_floor().then(|| self.floor_ratio())
    }

    /// Whether the layout verified approval signatures in batches, and so
    /// is judged against the batched floor (else the one-by-one floor).
    pub fn batches_signatures(&self) -> bool {
        match self.signatures.as_str() {
            "batched" => true,
            "one-by-one" => false,
            _ => self.architecture == "parallel",
        }
    }

    /// The node's CPU ÷ the floor this layout is judged against: the
    /// batched floor where it batches signatures, the one-by-one floor
    /// where it checks each alone (as Polkadot does).
    pub fn floor_ratio(&self) -> f64 {
        if self.batches_signatures() {
            self.crypto_floor.node_ratio_batched
        } else {
            self.crypto_floor.node_ratio
        }
    }

    /// `parallel/N` or `classic`: how runs are told apart in tables.
    pub fn layout(&self) -> String {
        if self.architecture == "parallel" {
            format!("parallel/{}", self.workers)
        } else {
            self.architecture.clone()
        }
    }
}

/// Block `i`'s approval time, ms after its slot, in each of `runs`
/// (`None`: never approved, or no such block): what the table's Approval
/// section and `tranche calibrate --check` set side by side.
pub fn block_approval_ms<'a>(
    runs: impl IntoIterator<Item = &'a RunReport>,
    i: usize,
) -> Vec<Option<f64>> {
    runs.into_iter()
        .map(|r| {
            r.blocks
                .get(i)
                .and_then(|b| b.approved_after_ms)
                .map(|ms| ms as f64)
        })
        .collect()
}

/// The thread group a node thread belongs to in plots: the parallel
/// layout's distribution workers together, every other thread alone.
pub fn thread_group(name: &str) -> String {
    match name.strip_prefix("approval-voting-parallel-") {
        Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            "approval-voting-parallel-workers".into()
        }
        _ => name.into(),
    }
}

/// The kind of a node channel in plots: its thread group, with `-prio`
/// for a priority channel (`wiring.rs` names channels after the worker
/// they feed).
pub fn channel_kind(name: &str) -> String {
    match name.strip_suffix("-prio") {
        Some(worker) => format!("{}-prio", thread_group(worker)),
        None => thread_group(name),
    }
}

/// What `--json` writes: every run of the invocation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportFile {
    pub tool: String,
    pub version: String,
    /// Who made the report, how, when and where (absent in files of
    /// result format 0.1.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    pub runs: Vec<RunReport>,
}

/// The `tool` of every report this program writes.
pub const TOOL: &str = "tranche";

/// The version of the `--json` result format (not of the program): bumped
/// when the layout of a report changes, so that `compare` refuses to judge
/// files it would misread.
pub const FORMAT_VERSION: &str = "0.2.0";

impl ReportFile {
    pub fn new(runs: Vec<RunReport>) -> Self {
        ReportFile {
            tool: TOOL.into(),
            version: FORMAT_VERSION.into(),
            meta: None,
            runs,
        }
    }

    /// The runs of one invocation with its metadata.
    pub fn with_meta(runs: Vec<RunReport>, meta: Meta) -> Self {
        ReportFile {
            meta: Some(meta),
            ..ReportFile::new(runs)
        }
    }
}

/// A run report for tests: a parallel/4 run of two blocks (also for
/// other crates' tests, with the feature `fixture`).
#[cfg(any(test, feature = "fixture"))]
#[doc(hidden)]
pub mod fixture {
    use super::*;

    /// Nouns the reports count; `1` before any of their plurals is the
    /// "1 blocks" of issue 41.
    const PLURALS: [&str; 22] = [
        "blocks",
        "validators",
        "cores",
        "processes",
        "threads",
        "workers",
        "runs",
        "figures",
        "results",
        "files",
        "points",
        "records",
        "candidates",
        "no-shows",
        "approvals",
        "messages",
        "plots",
        "deliveries",
        "regressions",
        "steps",
        "addresses",
        "batches",
    ];

    /// Every count of one in `text` stands before a singular noun.
    pub fn assert_singular(text: &str) {
        let words: Vec<&str> = text.split_whitespace().collect();
        for pair in words.windows(2) {
            let noun = pair[1].trim_end_matches([',', ';', ':', ')', '.', '<']);
            let noun = noun.split('<').next().unwrap_or(noun);
            assert!(
                !(pair[0].rsplit(['>', '(']).next() == Some("1") && PLURALS.contains(&noun)),
                "`{} {}` in\n{text}",
                pair[0],
                pair[1]
            );
        }
    }

    pub fn run() -> RunReport {
        RunReport {
            name: "ci".into(),
            architecture: "parallel".into(),
            workers: 4,
            clock: "virtual".into(),
            seed: 0,
            n_validators: 60,
            n_cores: 12,
            num_blocks: 2,
            blocks: vec![
                BlockReport {
                    number: 1,
                    approved_tick: Some(12010),
                    approved_after_ms: Some(5000),
                },
                BlockReport {
                    number: 2,
                    approved_tick: Some(12020),
                    approved_after_ms: Some(4000),
                },
            ],
            network: NetworkReport {
                received_bytes: 1000,
                sent_bytes: 2000,
                received_kib_per_block: 0.5,
                sent_kib_per_block: 1.0,
            },
            cpu: vec![
                CpuRow {
                    name: "approval-voting-parallel-db".into(),
                    total_s: 1.0,
                    per_block_s: 0.5,
                    node: true,
                },
                CpuRow {
                    name: "other".into(),
                    total_s: 0.001,
                    per_block_s: 0.0005,
                    node: true,
                },
            ],
            node_cpu_s: 2.0,
            counts: Counts {
                unique_messages: 10,
                deliveries: 30,
                lost: 1,
                messages_from_node: 40,
                withheld_approvals: 0,
                verifications: 10,
            },
            generation: GenerationReport::default(),
            crypto_floor: FloorReport {
                mode: "sample".into(),
                assignment_messages: 6,
                approval_messages: 4,
                sampled_assignment_messages: 2,
                sampled_approval_messages: 2,
                ..Default::default()
            },
            wall_time_s: 1.0,
            peak_memory_bytes: 1 << 20,
            protocol: ProtocolReport {
                imported_candidates: 4,
                ..ProtocolReport::default()
            },
            samples: vec![],
            repeats: None,
            restart: None,
            schedule: None,
            // A real node's: it commits and checks ahead (the model's
            // have neither, and its JSON leaves them out).
            database: DatabaseReport {
                commits: Some(20),
                fsyncs: Some(4),
                commits_per_block: Some(10.0),
                ..DatabaseReport::default()
            },
            checks: ChecksReport {
                checked_ahead: 3,
                ..ChecksReport::default()
            },
            signatures: String::new(),
            stalls: vec![],
            node_under_test: "real".into(),
        }
    }

    /// A network report for tests: two validators, one block.
    pub fn network() -> crate::network::SimulationReport {
        use crate::network::{NodeRecord, RunCost};
        let spec = tranche_records::network_spec::NetworkSpec {
            n_validators: 2,
            ..Default::default()
        };
        let record = |v| NodeRecord {
            validator: v,
            blocks: vec![crate::network::BlockRecord {
                approved_after_ms: Some(7000 + u64::from(v)),
                ..Default::default()
            }],
            bytes_out: 100,
            ..Default::default()
        };
        let cost = RunCost {
            cpu_s: 1.0,
            deliveries: 1000,
            ..RunCost::default()
        };
        crate::network::SimulationReport::new(
            "x/n.yaml",
            &spec,
            0,
            vec![record(0), record(1)],
            cost,
        )
    }
}
