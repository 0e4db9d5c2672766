//! The `!ApprovalNetwork` objective of `tranche network`: what a
//! whole-network simulation runs
//! (validators, cores, blocks, the session's approval parameters, the
//! network model of `!ApprovalVoting`, the behaviour knobs), read from YAML
//! with strict keys and bounded values. Every bad value is a one-line
//! [`NetworkSpecError`], never a panic.
//!
//! ```yaml
//! !ApprovalNetwork
//! n_validators: 100
//! n_cores: 20
//! num_blocks: 5
//! check_delay_ms: {mean: 1000, std_dev: 200}
//! no_show_fraction: 0.2
//! slow_fraction: 0.1
//! slow_factor: 3.0
//! offline: [{fraction: 0.05, at_block: 3}]
//! ```
//!
//! Every key is optional; the defaults are in [`NetworkSpec::default`].

use super::session::bound;
use std::path::Path;
use tranche_cli::input::{read_text, MAX_INPUT_FILE_BYTES};
use tranche_cli::text::bare;
use tranche_records::limits::{MAX_BLOCKS, MAX_CORES};

/// The embedded default (`tranche network` without a file): 100
/// validators, 20 cores, 5 blocks, no misbehaviour; about 4 s on 2 cores
/// in a release build.
pub const DEFAULT_YAML: &str = include_str!("approval_network.yaml");

/// The most validators a simulation may have: peer ids index the
/// distribution state's bitsets, and every node keeps a row of the latency
/// matrix, so the bound is far below `limits::MAX_VALIDATORS`.
pub const MAX_NETWORK_VALIDATORS: u32 = 2_000;

/// Most distinct offline groups.
pub const MAX_OFFLINE_GROUPS: usize = 16;

pub use crate::network_spec::{DelayMs, Latency, NetworkSpec, Offline, OfflineSpan};

/// A file or value that cannot be run.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum NetworkSpecError {
    #[error("{}: {message}", bare(file))]
    Read { file: String, message: String },
    #[error("{}: {hint}", bare(file))]
    OtherCommand { file: String, hint: &'static str },
    #[error("{}: `{key}` = {value}: {why}", bare(file))]
    Value {
        file: String,
        key: &'static str,
        value: String,
        why: String,
    },
}

/// Reads and checks a file (a regular text file of at most 64 MiB).
pub fn load(path: &Path) -> Result<NetworkSpec, NetworkSpecError> {
    let source = path.display().to_string();
    let text = read_text(path, MAX_INPUT_FILE_BYTES).map_err(|e| NetworkSpecError::Read {
        file: source.clone(),
        message: e.to_string(),
    })?;
    parse(&text, &source)
}

/// Parses and checks `!ApprovalNetwork` YAML; `source` names it in errors.
pub fn parse(text: &str, source: &str) -> Result<NetworkSpec, NetworkSpecError> {
    let other = match super::file_kind(text) {
        super::FileKind::TestSequence => Some(super::USE_RUN),
        super::FileKind::ApprovalSweep => Some(super::USE_SWEEP),
        super::FileKind::ApprovalNetwork | super::FileKind::Unknown => None,
    };
    if let Some(hint) = other {
        return Err(NetworkSpecError::OtherCommand {
            file: source.to_owned(),
            hint,
        });
    }
    let spec = super::parse::network_spec::read_network_spec(text).map_err(|kind| {
        NetworkSpecError::Read {
            file: source.to_owned(),
            message: kind.to_string(),
        }
    })?;
    spec.validate(source)?;
    Ok(spec)
}

/// The embedded default.
pub fn embedded_default() -> NetworkSpec {
    parse(DEFAULT_YAML, "<embedded default>").expect("the embedded default is valid")
}

/// A value out of bounds.
fn bad(source: &str, key: &'static str, value: String, why: &str) -> Result<(), NetworkSpecError> {
    Err(NetworkSpecError::Value {
        file: source.to_owned(),
        key,
        value,
        why: why.to_owned(),
    })
}

fn fraction_ok(f: f64) -> bool {
    (0.0..=1.0).contains(&f)
}

/// Bytes every validator holds whatever its blocks (its peers, their
/// views, the grid, its links), network-wide at 1 000 validators; it grows
/// as validators² (each validator knows every other). Fitted with the two
/// below to the runs of `BENCHMARKS.md`, "A thousand validators on one
/// machine", second pass.
const FIXED_BYTES_AT_1000: f64 = 1.0e9;

/// Bytes one block held unfinalized costs, network-wide, at 1 000
/// validators and 100 cores (1 000 × 100 × 10 blocks with finality, about
/// three held: 4.1 GiB peak); it grows as validators² × cores.
const BLOCK_BYTES_AT_1000X100: f64 = 1.1e9;

/// What `trigger_all_tranches` multiplies a block's memory by: every
/// validator is assigned every candidate. Fitted to the full-size run
/// (1 000 × 100 × 1 block: 9.3 GiB peak); it grows a little faster than
/// the cores, so the estimate errs high below (1 000 × 20 × 1: 2.1 GiB
/// measured, 2.6 estimated).
const TRIGGER_ALL_BYTES_FACTOR: f64 = 8.1;

/// CPU seconds of one simulated block at 1 000 validators (release
/// build): 88 s measured per block for 26 million deliveries (1 000 ×
/// 100 × 10 blocks with finality, `BENCHMARKS.md`). Deliveries grow as
/// validators² (each candidate's tranche-0 assignees grow as validators /
/// cores, times the cores); 5.9 s was measured at 300 validators × 60
/// cores, so the estimate errs high below 1 000.
const BLOCK_SECONDS_AT_1000: f64 = 90.0;

/// CPU seconds of one block with every tranche triggered at 200
/// validators × 40 cores, scaled down as validators² × cores from the
/// full-size run (1 000 × 100 × 1 block: 961 million deliveries, 3 111
/// CPU-s, `BENCHMARKS.md`). A delivery costs less in a smaller network
/// (2.2 µs at 400 × 40 against 3.2 µs there), so the estimate errs high
/// below it.
const TRIGGER_ALL_BLOCK_SECONDS_AT_200X40: f64 = 50.0;

/// Tranches whose assignments a block gets before finality prunes it,
/// with `finality: true` and every tranche triggered: GRANDPA votes two
/// blocks behind the best, so a block is finalized about 12 s after its
/// slot, 24 or 25 tranches of 500 ms (300 × 60 × 10 with finality: the
/// highest tranche 24 on every block, 12.8 million deliveries a block
/// against 47 million without finality, where all 89 come).
const TRANCHES_BEFORE_FINALITY: f64 = 25.0;

/// What the configuration knows of a network spec: its checks and the
/// estimates of what running it takes (the spec itself is plain data in
/// `tranche_records`).
pub trait SpecChecks {
    /// An estimate of the peak memory of a run, bytes, over all processes:
    /// every node's state per unfinalized block (all of them without
    /// `finality`, about three with it: GRANDPA votes two blocks behind
    /// the best, so a block is pruned as the second after it is
    /// imported), what every node holds whatever
    /// its blocks, the latency matrix, a fixed base.
    fn estimated_bytes(&self) -> u64;
    /// An estimate of the CPU seconds of a run over all processes
    /// (release build), and what it may reach when every tranche triggers
    /// — what no-shows, loss and offline validators lead to at worst, and
    /// what `trigger_all_tranches` asks for. Indicative: measured on a
    /// 2-core machine.
    fn estimated_cpu_seconds(&self) -> (f64, f64);
    /// An estimate of the notifications delivered network-wide, and what
    /// they may reach when every tranche triggers (as
    /// `estimated_cpu_seconds`): 2.6 million a block at 1 000 validators
    /// (26 million over 1 000 × 100 × 10 blocks, `BENCHMARKS.md`),
    /// growing as validators²; every tranche: 961 million at 1 000 × 100 ×
    /// 1 block, as validators² × cores.
    fn estimated_deliveries(&self) -> (f64, f64);
    /// Backing groups: `ceil(n_validators / max_validators_per_core)`.
    fn n_backing_groups(&self) -> u32;
    /// Checks every value against its bounds.
    fn validate(&self, source: &str) -> Result<(), NetworkSpecError>;
}

impl SpecChecks for NetworkSpec {
    /// An estimate of the peak memory of a run, bytes, over all processes:
    /// every node's state per unfinalized block (all of them without
    /// `finality`, about three with it: GRANDPA votes two blocks behind
    /// the best, so a block is pruned as the second after it is
    /// imported), what every node holds whatever
    /// its blocks, the latency matrix, a fixed base.
    fn estimated_bytes(&self) -> u64 {
        let n = f64::from(self.n_validators) / 1000.0;
        let fixed = FIXED_BYTES_AT_1000 * n * n;
        let mut per_block = BLOCK_BYTES_AT_1000X100 * n * n * f64::from(self.n_cores) / 100.0;
        if self.trigger_all_tranches {
            per_block *= TRIGGER_ALL_BYTES_FACTOR * self.trigger_all_share();
        }
        let held = if self.finality {
            self.num_blocks.min(3)
        } else {
            self.num_blocks
        };
        let matrix = 4.0 * f64::from(self.n_validators).powi(2);
        (fixed + per_block * f64::from(held) + matrix + 64e6) as u64
    }

    /// An estimate of the CPU seconds of a run over all processes
    /// (release build), and what it may reach when every tranche triggers
    /// — what no-shows, loss and offline validators lead to at worst, and
    /// what `trigger_all_tranches` asks for. Indicative: measured on a
    /// 2-core machine.
    fn estimated_cpu_seconds(&self) -> (f64, f64) {
        let blocks = f64::from(self.num_blocks);
        let n = f64::from(self.n_validators);
        let usual = BLOCK_SECONDS_AT_1000 * (n / 1000.0).powi(2) * blocks;
        let every = TRIGGER_ALL_BLOCK_SECONDS_AT_200X40
            * (n / 200.0).powi(2)
            * (f64::from(self.n_cores) / 40.0)
            * blocks
            * self.trigger_all_share();
        if self.trigger_all_tranches {
            (every, every)
        } else {
            let more = self.no_show_fraction > 0.0
                || self.loss_probability > 0.0
                || !self.offline.is_empty();
            (usual, if more { every.max(usual) } else { usual })
        }
    }

    /// An estimate of the notifications delivered network-wide, and what
    /// they may reach when every tranche triggers (as
    /// `estimated_cpu_seconds`): 2.6 million a block at 1 000 validators
    /// (26 million over 1 000 × 100 × 10 blocks, `BENCHMARKS.md`),
    /// growing as validators²; every tranche: 961 million at 1 000 × 100 ×
    /// 1 block, as validators² × cores.
    fn estimated_deliveries(&self) -> (f64, f64) {
        let blocks = f64::from(self.num_blocks);
        let n = f64::from(self.n_validators) / 1000.0;
        let usual = 2.6e6 * n * n * blocks;
        let every =
            961e6 * n * n * f64::from(self.n_cores) / 100.0 * blocks * self.trigger_all_share();
        let (cpu, most) = self.estimated_cpu_seconds();
        if self.trigger_all_tranches {
            (every, every)
        } else if most > cpu {
            (usual, every.max(usual))
        } else {
            (usual, usual)
        }
    }

    /// Backing groups: `ceil(n_validators / max_validators_per_core)`.
    fn n_backing_groups(&self) -> u32 {
        self.n_validators
            .div_ceil(self.max_validators_per_core.max(1))
    }

    /// Checks every value against its bounds.
    fn validate(&self, source: &str) -> Result<(), NetworkSpecError> {
        self.validate_chain(source)?;
        self.validate_model(source)
    }
}

/// The checks and shares the public ones are made of.
trait SpecParts {
    fn trigger_all_share(&self) -> f64;
    fn validate_chain(&self, source: &str) -> Result<(), NetworkSpecError>;
    fn validate_model(&self, source: &str) -> Result<(), NetworkSpecError>;
}

impl SpecParts for NetworkSpec {
    /// The share of a block's every-tranche load that a run sends: all
    /// of it without finality (the fitted figures' run saw every
    /// tranche), the tranches that come before finality with it. A
    /// network that falls behind approves and finalizes later and gets
    /// more; the estimate then errs low.
    fn trigger_all_share(&self) -> f64 {
        let tranches = f64::from(self.session.n_delay_tranches.max(1));
        if self.finality {
            (TRANCHES_BEFORE_FINALITY / tranches).min(1.0)
        } else {
            1.0
        }
    }

    /// The sizes and the session's parameters.
    fn validate_chain(&self, source: &str) -> Result<(), NetworkSpecError> {
        let bad = |key, value, why| bad(source, key, value, why);
        let n = self.n_validators;
        if !(2..=MAX_NETWORK_VALIDATORS).contains(&n) {
            return bad("n_validators", n.to_string(), "must be 2..=2000");
        }
        if self.max_validators_per_core == 0 || self.max_validators_per_core > n {
            return bad(
                "max_validators_per_core",
                self.max_validators_per_core.to_string(),
                "must be 1..=n_validators",
            );
        }
        let most = self.n_backing_groups().min(MAX_CORES);
        if self.n_cores == 0 || self.n_cores > most {
            let why = if most == MAX_CORES {
                format!("must be 1..={most} (at most {MAX_CORES} cores)")
            } else {
                format!(
                    "must be 1..={most}: {} in groups of {} form {}, one per core",
                    tranche_cli::text::counted(n, "validator"),
                    self.max_validators_per_core,
                    tranche_cli::text::counted(most, "backing group")
                )
            };
            return bad("n_cores", self.n_cores.to_string(), why.as_str());
        }
        if self.num_blocks == 0 || self.num_blocks > MAX_BLOCKS {
            return bad(
                "num_blocks",
                self.num_blocks.to_string(),
                "must be 1..=10000",
            );
        }
        // The bounds of `config::session`, and what a simulation needs
        // beyond them: at least one of each, fewer approvals than
        // validators, the zeroth tranche within the delay tranches.
        for (key, value) in self.session.entries() {
            let b = bound(key);
            let (min, max) = match key {
                "zeroth_delay_tranche_width" => (0, self.session.n_delay_tranches),
                "needed_approvals" => (1, b.max.min(n - 1)),
                _ => (1, b.max),
            };
            if !(min..=max).contains(&value) {
                let why = match key {
                    "needed_approvals" => "must be 1..n_validators".to_owned(),
                    "zeroth_delay_tranche_width" => "must be at most n_delay_tranches".to_owned(),
                    _ => format!("must be 1..={max} ({})", b.why),
                };
                return bad(key, value.to_string(), &why);
            }
        }
        if self.max_approval_coalesce_count == 0 || self.max_approval_coalesce_count > MAX_CORES {
            return bad(
                "max_approval_coalesce_count",
                self.max_approval_coalesce_count.to_string(),
                "must be 1..=2000",
            );
        }
        Ok(())
    }

    /// The network model and the behaviour knobs.
    fn validate_model(&self, source: &str) -> Result<(), NetworkSpecError> {
        let bad = |key, value, why| bad(source, key, value, why);
        if self.peer_bandwidth < 10 {
            return bad(
                "peer_bandwidth",
                self.peer_bandwidth.to_string(),
                "must be at least 10 B/s",
            );
        }
        if let Some(l) = self.latency {
            let ok = l.mean_latency_ms.is_finite()
                && (0.0..=60_000.0).contains(&l.mean_latency_ms)
                && l.std_dev.is_finite()
                && l.std_dev >= 0.0;
            if !ok {
                return bad(
                    "latency",
                    format!(
                        "{{mean_latency_ms: {}, std_dev: {}}}",
                        l.mean_latency_ms, l.std_dev
                    ),
                    "mean must be 0..=60000 ms and std_dev finite and >= 0",
                );
            }
        }
        if !fraction_ok(self.loss_probability) {
            return bad(
                "loss_probability",
                self.loss_probability.to_string(),
                "must be 0.0..=1.0",
            );
        }
        let d = self.check_delay_ms;
        let delay_ok = d.mean.is_finite()
            && (0.0..=600_000.0).contains(&d.mean)
            && d.std_dev.is_finite()
            && d.std_dev >= 0.0;
        if !delay_ok {
            return bad(
                "check_delay_ms",
                format!("{{mean: {}, std_dev: {}}}", d.mean, d.std_dev),
                "mean must be 0..=600000 ms and std_dev finite and >= 0",
            );
        }
        let r = self.reconnect_delay_ms;
        if !(r.mean.is_finite()
            && (0.0..=600_000.0).contains(&r.mean)
            && r.std_dev.is_finite()
            && r.std_dev >= 0.0)
        {
            return bad(
                "reconnect_delay_ms",
                format!("{{mean: {}, std_dev: {}}}", r.mean, r.std_dev),
                "mean must be 0..=600000 ms and std_dev finite and >= 0",
            );
        }
        if !fraction_ok(self.no_show_fraction) {
            return bad(
                "no_show_fraction",
                self.no_show_fraction.to_string(),
                "must be 0.0..=1.0",
            );
        }
        if !fraction_ok(self.slow_fraction) {
            return bad(
                "slow_fraction",
                self.slow_fraction.to_string(),
                "must be 0.0..=1.0",
            );
        }
        if !(self.slow_factor.is_finite() && (1.0..=1000.0).contains(&self.slow_factor)) {
            return bad(
                "slow_factor",
                self.slow_factor.to_string(),
                "must be 1.0..=1000.0",
            );
        }
        if self.offline.len() > MAX_OFFLINE_GROUPS {
            return bad(
                "offline",
                format!("{} groups", self.offline.len()),
                "at most 16 groups",
            );
        }
        let mut total = self.no_show_fraction + self.slow_fraction;
        for o in &self.offline {
            if !fraction_ok(o.fraction) {
                return bad(
                    "offline",
                    o.fraction.to_string(),
                    "fraction must be 0.0..=1.0",
                );
            }
            if o.span.at_block == 0 || o.span.at_block > self.num_blocks {
                return bad(
                    "offline",
                    o.span.at_block.to_string(),
                    "at_block must be 1..=num_blocks",
                );
            }
            if let Some(u) = o.span.until_block {
                if u <= o.span.at_block || u > self.num_blocks {
                    return bad(
                        "offline",
                        u.to_string(),
                        "until_block must be after at_block and at most num_blocks",
                    );
                }
            }
            total += o.fraction;
        }
        if total > 1.0 + 1e-9 {
            return bad(
                "no_show_fraction + slow_fraction + offline",
                format!("{total}"),
                "the groups are disjoint: their fractions must sum to at most 1.0",
            );
        }
        if let Some(shape) = &self.node {
            if let Err(e) = crate::node_shape::validate(shape) {
                return bad(e.key(), e.found(), &e.expected());
            }
        }
        if self.run_after_last_block_secs > 3_600 {
            return bad(
                "run_after_last_block_secs",
                self.run_after_last_block_secs.to_string(),
                "must be at most 3600",
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::SessionParams;

    #[test]
    fn the_estimates_follow_the_measured_runs() {
        let at = |n_validators, n_cores, num_blocks| NetworkSpec {
            n_validators,
            n_cores,
            num_blocks,
            ..NetworkSpec::default()
        };
        let every_tranche = |n_validators, n_cores, num_blocks| NetworkSpec {
            trigger_all_tranches: true,
            ..at(n_validators, n_cores, num_blocks)
        };
        let big = at(1000, 100, 1);
        assert_eq!(big.estimated_cpu_seconds(), (90.0, 90.0));
        let gib = |s: &NetworkSpec| s.estimated_bytes() as f64 / f64::from(1 << 30);
        // Measured peaks (BENCHMARKS.md): 4.1 GiB for 10 blocks with
        // finality; with every tranche 9.3 GiB for 1 000 x 100 x 1 block
        // and 2.1 GiB for 1 000 x 20 (the estimate errs high there).
        let finalized = NetworkSpec {
            finality: true,
            ..at(1000, 100, 10)
        };
        assert!((3.9..4.6).contains(&gib(&finalized)), "{}", gib(&finalized));
        let full = every_tranche(1000, 100, 1);
        assert!((9.0..10.0).contains(&gib(&full)), "{}", gib(&full));
        let every = every_tranche(1000, 20, 1);
        assert!((2.0..2.8).contains(&gib(&every)), "{}", gib(&every));
        // Every tranche: 50 CPU-s a block at 200 x 40, 3 125 at full size
        // (3 111 measured).
        let all = every_tranche(200, 40, 10);
        let (cpu, most) = all.estimated_cpu_seconds();
        assert!((cpu - 500.0).abs() < 1e-6 && cpu == most, "{cpu}");
        let (cpu, _) = full.estimated_cpu_seconds();
        assert!((cpu - 3125.0).abs() < 1e-6, "{cpu}");
        // Every tranche with finality: a block pruned after about 25 of
        // its 89 tranches. 300 x 60 x 10 measured 128 million deliveries,
        // 356 CPU-s and a 650 MiB peak (BENCHMARKS.md).
        let pruned = NetworkSpec {
            finality: true,
            ..every_tranche(300, 60, 10)
        };
        let (deliveries, _) = pruned.estimated_deliveries();
        assert!((128e6..160e6).contains(&deliveries), "{deliveries}");
        let (cpu, _) = pruned.estimated_cpu_seconds();
        assert!((356.0..500.0).contains(&cpu), "{cpu}");
        assert!((0.5..0.7).contains(&gib(&pruned)), "{}", gib(&pruned));
        // No-shows may trigger every tranche: the worst case is said too.
        let lossy = NetworkSpec {
            loss_probability: 1.0,
            ..at(200, 40, 5)
        };
        let (cpu, most) = lossy.estimated_cpu_seconds();
        assert!((cpu - 18.0).abs() < 1e-6 && (most - 250.0).abs() < 1e-6);
    }

    #[test]
    fn the_default_parses() {
        let s = embedded_default();
        assert_eq!(s.n_validators, 100);
        assert_eq!(s.n_cores, 20);
    }

    #[test]
    fn knobs_parse() {
        let s = parse(
            "!ApprovalNetwork\nn_validators: 50\nn_cores: 10\nno_show_fraction: 0.2\n\
             offline: [{fraction: 0.1, at_block: 2}]\ncheck_delay_ms: {mean: 500, std_dev: 0}\n",
            "t",
        )
        .unwrap();
        assert_eq!(s.n_validators, 50);
        assert_eq!(s.offline[0].span.at_block, 2);
        assert_eq!(s.check_delay_ms.mean, 500.0);
    }

    #[test]
    fn an_unknown_key_is_an_error() {
        let e = parse("!ApprovalNetwork\nn_validatorz: 5\n", "t").unwrap_err();
        assert!(e.to_string().contains("n_validatorz"), "{e}");
        assert!(!e.to_string().contains('\n'));
    }

    #[test]
    fn a_bad_value_is_an_error() {
        let e = parse("!ApprovalNetwork\nno_show_fraction: 1.5\n", "t").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t: `no_show_fraction` = 1.5: must be 0.0..=1.0"
        );
        let e = parse("!ApprovalNetwork\nn_cores: 0\n", "t").unwrap_err();
        assert!(e.to_string().contains("n_cores"));
        let e = parse("!ApprovalVoting\nn_cores: 3\n", "t").unwrap_err();
        assert!(e.to_string().contains("not an `!ApprovalNetwork` file"));
    }

    #[test]
    fn the_field_reader_of_the_steps_names_every_bad_key_and_type() {
        let cases = [
            (
                "!ApprovalNetwork\nneeded_aprovals: 5\n",
                "t: unknown key `needed_aprovals` in an !ApprovalNetwork file: did you mean \
                 `needed_approvals`?",
            ),
            (
                "!ApprovalNetwork\nn_cores: \"4\"\n",
                "t: `n_cores` must be an unsigned integer, found string \"4\"",
            ),
            (
                "!ApprovalNetwork\noffline: [{fraction: 0.1}]\n",
                "t: missing key `offline[0].at_block` (an offline group needs `fraction` and \
                 `at_block`)",
            ),
            (
                "!ApprovalNetwork\ncheck_delay_ms: {mean: 5, sd: 1}\n",
                "t: unknown key `check_delay_ms.sd` in `check_delay_ms`",
            ),
            (
                "!ApprovalNetwork\nno_show_slots: 100000\n",
                "t: impossible `no_show_slots: 100000`: must be between 0 and 1000 (the most \
                 no-show slots, limits::MAX_NO_SHOW_SLOTS)",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(parse(text, "t").unwrap_err().to_string(), want, "{text}");
        }
    }

    #[test]
    fn the_session_parameters_sit_at_the_top_level_of_the_file() {
        let s = parse(
            "!ApprovalNetwork\nneeded_approvals: 7\nno_show_slots: 2\n",
            "t",
        )
        .unwrap();
        assert_eq!(s.session.needed_approvals, 7);
        assert_eq!(s.session.no_show_slots, 2);
        assert_eq!(
            s.session.n_delay_tranches,
            SessionParams::DEFAULT.n_delay_tranches
        );
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["needed_approvals"], 7);
        assert!(json.get("session").is_none());
        let back: NetworkSpec = serde_json::from_value(json).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn a_test_sequence_gets_the_hint_and_the_other_way_round() {
        let e = parse(crate::DEFAULT_YAML, "d.yaml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "d.yaml: this is an !ApprovalVoting file; use `tranche run`"
        );
        let e = crate::parse(DEFAULT_YAML, "n.yaml").unwrap_err();
        assert!(
            e.to_string()
                .contains("this is an !ApprovalNetwork file; use `tranche network`"),
            "{e}"
        );
    }
}
