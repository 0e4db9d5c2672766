//! The cost table: the virtual CPU time of each kind of work a simulated
//! validator does (checking a first-seen certificate or signature,
//! skipping a duplicate, voting's import, a block, our own assignments
//! and votes, a database commit, the parallel router, the classic round
//! trip), its defaults from the project's own measurements
//! (`BENCHMARKS.md`), and its YAML file: microseconds in, nanoseconds out.
//!
//! The file is a top-level mapping of cost names to microseconds; every
//! key is optional (a missing key keeps its default), an unknown key, a
//! value that is not a number, a negative or non-finite one, or one above
//! [`MAX_COST_US`] is refused naming the key. [`CostTable::to_yaml`]
//! writes a complete file that reads back to the same table.

use crate::yaml::too_large_integer;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use tranche_cli::input::{read_text, InputError, MAX_INPUT_FILE_BYTES};
use tranche_cli::text::quote;
use yaml_serde::Value;

// The defaults, µs. Figures are the best of two criterion runs
// ("Primitives microbenchmarks (issue 2)", its table "µs per operation")
// and the ranges of the component benches, all on the project's 2-core
// machine; the reference machine (same section, "Against reference crypto
// costs") is 1.1–1.6 × faster on crypto.

/// One assignment certificate check, whatever its kind:
/// `vrf_check/compact_modulo` 112.5 µs. `vrf_check/v1_modulo` (150.8) and
/// `vrf_check/delay` (120.3) measured slower, but the same section's
/// callgrind count shows the three checks do the same work (968–976 k
/// instructions), the difference being interference; the least disturbed
/// figure stands for all three.
pub const CHECK_CERTIFICATE_US: f64 = 112.5;
/// Distribution's handling of a first-seen assignment outside crypto:
/// "Approval-distribution handling (issue 4)", 2.0–4.3 µs at 500
/// validators (5.0–5.6 at 1 000), the midpoint at 500.
pub const FIRST_SEEN_ASSIGNMENT_US: f64 = 3.2;
/// Decoding one assignment: `wire_decode/assignment_delay` 0.358,
/// `assignment_compact` 0.482, a full batch 0.40 per item (issue 2).
pub const DECODE_ASSIGNMENT_US: f64 = 0.4;
/// One approval signature check: `vote/verify` 58.2 µs (issue 2), one by
/// one as upstream and the classic layout check; batched it is 22.4–25.9
/// per vote (`vote/verify_batch`).
pub const CHECK_SIGNATURE_US: f64 = 58.2;
/// One approval signature verified in a batch with the others a parallel
/// worker drained (`--signatures batched`, the node's default):
/// `vote/verify_batch` 22.4–25.9 µs per vote (issue 2), the upper end.
pub const CHECK_SIGNATURE_BATCHED_US: f64 = 25.9;
/// Distribution's handling of a first-seen approval outside crypto:
/// issue 4, 2.1–2.2 µs at 500 validators (2.3–2.9 at 1 000).
pub const FIRST_SEEN_APPROVAL_US: f64 = 2.2;
/// Decoding one approval: `wire_decode/approval` 0.109 (issue 2).
pub const DECODE_APPROVAL_US: f64 = 0.1;
/// Not measured: each candidate beyond the first adds a 32-byte hash to
/// the signed payload and a knowledge bit in distribution, well under a
/// microsecond; an estimate.
pub const APPROVAL_PER_CANDIDATE_US: f64 = 0.5;
/// A duplicate: issue 4, 0.44–0.56 µs at 500 validators (0.54–0.84 at
/// 1 000), about 0.5, plus decoding it (0.1–0.48, about 0.3).
pub const DUPLICATE_US: f64 = 0.8;
/// Voting's import of a checked assignment with redb (write batches):
/// "Approval-voting import (issue 3)", ≈ 2.7 µs.
pub const IMPORT_ASSIGNMENT_US: f64 = 2.7;
/// Voting's import of a checked approval with redb: issue 3, ≈ 0.86 µs.
pub const IMPORT_APPROVAL_US: f64 = 0.86;
/// Not measured: a new block in voting (a block entry, one candidate
/// entry per included candidate, written to the store) and in
/// distribution (its block entry and views). Up to 100 candidates at the
/// ≈ 1 µs per record of voting's import is about 100 µs; an estimate,
/// negligible next to the block's thousands of checks.
pub const BLOCK_IMPORT_US: f64 = 100.0;
/// One VRF evaluation of our own assignments: `vrf_compute/delay` 129.5
/// µs (one VRF sign, issue 2); a modulo certificate alone is ≈ 127 (v1)
/// and ≈ 131 (compact) by difference.
pub const OWN_ASSIGNMENT_US: f64 = 129.5;
/// Signing one approval: `vote/sign` 32.0 µs (issue 2).
pub const OWN_APPROVAL_US: f64 = 32.0;
/// One redb commit: "Both layouts near the floor (issue 21)", the voting
/// thread's per-check commits cost 10.9 CPU-s per block for 63 835 checks,
/// ≈ 171 µs each; "Durability (issue 13)" gives ≈ 158 (classic, 568
/// commits per block, 0.135 − 0.045 CPU-s with and without redb).
pub const DB_COMMIT_US: f64 = 171.0;
/// The parallel router per item: issue 21, the router's 0.18 CPU-s per
/// block at 500 × 100, over about 375 000 items received per block (46 210
/// KiB in per block, issues 5 and 6, at ≈ 126 bytes an item: the full
/// batches of issue 2) ≈ 0.48 µs.
pub const ROUTE_US: f64 = 0.5;
/// The classic layout's round trip per check on the voting thread, beyond
/// the check itself (taking the check, answering it): issue 21's hop,
/// 18.4 µs (39.6 on the real clock, where the voting thread is busy).
pub const ROUND_TRIP_US: f64 = 18.4;
/// The classic layout's round trip per check on the distribution thread:
/// handing the check over, blocking on the verdict and waking for it.
/// BENCHMARKS.md "The model against the node on the same work (issue
/// 29)": the real classic node's distribution thread, which checks
/// nothing, used 3.5 CPU-s per block for about 62 000 checks at 500 × 100
/// on the 2-core machine, ≈ 50 µs each beyond its own handling of items.
pub const ROUND_TRIP_DISTRIBUTION_US: f64 = 50.0;

/// The classic layout's wait per check beyond the voting thread's CPU for
/// it: the distribution thread, blocked on the verdict, is woken that much
/// later than voting answered (a delay, not CPU: the thread is held and
/// uses no core). `tranche calibrate` measures it as the node's
/// wall-clock wait per check less voting's side of the round trip; the
/// default is none (a machine where waking a thread is free), so a table
/// that does not give it models no wake-up delay.
pub const ROUND_TRIP_WAKE_US: f64 = 0.0;

/// The benchmark's test environment (its driver and emulated links) per
/// message it carries to or from the node under test, charged only by
/// `tranche run --node model` on a thread of its own that shares the
/// modelled cores, as the real run's driver shares the machine's: the
/// real parallel node's run of `examples/approvals_throughput_1000_100.yaml`
/// on the 2-core machine, 20.5 CPU-s for 7.83 M deliveries and 10.07 M
/// messages from the node, ≈ 1.15 µs each (BENCHMARKS.md, issue 29).
pub const ENVIRONMENT_MESSAGE_US: f64 = 1.15;

/// The largest cost a file may give, µs (1 000 s).
pub const MAX_COST_US: f64 = 1e9;

/// The cost table, built by `table!` below: the [`CostKind`] names, their
/// keys, defaults and descriptions, the accessors.
macro_rules! table {
    ($($variant:ident $key:ident = $default:expr, $about:literal;)*) => {
        /// One kind of work in the cost table.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum CostKind {
            $(#[doc = $about] $variant,)*
        }

        impl CostKind {
            /// Every cost, in the file's order.
            pub const ALL: &'static [CostKind] = &[$(CostKind::$variant,)*];

            /// Its key in the file.
            pub fn key(self) -> &'static str {
                match self {
                    $(CostKind::$variant => stringify!($key),)*
                }
            }

            /// Its default, µs.
            pub fn default_us(self) -> f64 {
                match self {
                    $(CostKind::$variant => $default,)*
                }
            }

            /// What it is, in one line.
            pub fn about(self) -> &'static str {
                match self {
                    $(CostKind::$variant => $about,)*
                }
            }
        }

        impl CostTable {
            $(
                #[doc = $about]
                #[doc = ""]
                #[doc = "Nanoseconds."]
                pub fn $key(&self) -> u64 {
                    self.get(CostKind::$variant)
                }
            )*
        }
    };
}

table! {
    AssignmentModulo assignment_modulo =
        CHECK_CERTIFICATE_US + FIRST_SEEN_ASSIGNMENT_US + DECODE_ASSIGNMENT_US,
        "A first-seen v1 RelayVRFModulo certificate: decode, check, distribution's bookkeeping.";
    AssignmentCompact assignment_compact =
        CHECK_CERTIFICATE_US + FIRST_SEEN_ASSIGNMENT_US + DECODE_ASSIGNMENT_US,
        "A first-seen v2 RelayVRFModuloCompact certificate: decode, check, bookkeeping.";
    AssignmentDelay assignment_delay =
        CHECK_CERTIFICATE_US + FIRST_SEEN_ASSIGNMENT_US + DECODE_ASSIGNMENT_US,
        "A first-seen RelayVRFDelay certificate: decode, check, bookkeeping.";
    Approval approval = CHECK_SIGNATURE_US + FIRST_SEEN_APPROVAL_US + DECODE_APPROVAL_US,
        "A first-seen approval vote (one signature, coalesced or not): decode, check, bookkeeping.";
    ApprovalBatched approval_batched =
        CHECK_SIGNATURE_BATCHED_US + FIRST_SEEN_APPROVAL_US + DECODE_APPROVAL_US,
        "A first-seen approval vote whose signature a parallel worker verifies in a batch (--signatures batched).";
    ApprovalPerCandidate approval_per_candidate = APPROVAL_PER_CANDIDATE_US,
        "Added to a first-seen approval for each candidate it covers.";
    Duplicate duplicate = DUPLICATE_US,
        "A message distribution already knows: decode and look up, no check.";
    ImportAssignment import_assignment = IMPORT_ASSIGNMENT_US,
        "Voting importing one checked assignment.";
    ImportApproval import_approval = IMPORT_APPROVAL_US,
        "Voting importing one checked approval.";
    BlockImport block_import = BLOCK_IMPORT_US,
        "A new block, in voting and distribution.";
    OwnAssignment own_assignment = OWN_ASSIGNMENT_US,
        "Our own assignments for a block, per VRF evaluation.";
    OwnApproval own_approval = OWN_APPROVAL_US,
        "Signing one approval of our own.";
    DbCommit db_commit = DB_COMMIT_US,
        "One database commit.";
    Route route = ROUTE_US,
        "The parallel layout's router, per item of a notification.";
    RoundTrip round_trip = ROUND_TRIP_US,
        "Classic layout: the voting thread's CPU per check handed to it, beyond the check.";
    RoundTripDistribution round_trip_distribution = ROUND_TRIP_DISTRIBUTION_US,
        "Classic layout: the distribution thread's CPU per check it hands to voting and waits for.";
    RoundTripWake round_trip_wake = ROUND_TRIP_WAKE_US,
        "Classic layout: the distribution thread's wait per check beyond voting's CPU for it (waking for the verdict); a delay, not CPU.";
    EnvironmentMessage environment_message = ENVIRONMENT_MESSAGE_US,
        "tranche run --node model: the test environment's CPU per message to or from the node, on the node's cores.";
}

/// Why a cost table was refused.
#[derive(Debug, thiserror::Error)]
pub enum CostsError {
    #[error("cost table: {0}")]
    Yaml(String),
    #[error(
        "cost table: the top level must be a mapping of cost names to microseconds, found {0}"
    )]
    NotMapping(&'static str),
    #[error("cost table: a key must be a cost name, found {0}")]
    KeyNotName(&'static str),
    #[error("cost table: unknown key {} (known: {})", quote(key), known_keys())]
    UnknownKey { key: String },
    #[error("cost table: {key}: expected microseconds (a number), found {found}")]
    NotNumber {
        key: &'static str,
        found: &'static str,
    },
    #[error("cost table: {key}: {} is negative", shown(*value))]
    Negative { key: &'static str, value: f64 },
    #[error("cost table: {key}: {} is not a finite number", shown(*value))]
    NotFinite { key: &'static str, value: f64 },
    #[error(
        "cost table: {key}: {} µs is above the largest cost, {MAX_COST_US} µs",
        shown(*value)
    )]
    TooLarge { key: &'static str, value: f64 },
    #[error("cost table: the scale {0} is not a finite number above 0")]
    Scale(f64),
    #[error(transparent)]
    Read(#[from] InputError),
    #[error("{}: {error}", path.display())]
    File {
        path: PathBuf,
        /// Not a `source`: the one line says it all.
        error: Box<CostsError>,
    },
}

/// A number from the file as an error shows it: in full up to 12 digits,
/// in exponent form beyond (`1e300`, not 301 digits).
fn shown(value: f64) -> String {
    if value.is_finite() && value.abs() >= 1e12 {
        format!("{value:e}")
    } else {
        format!("{value}")
    }
}

fn known_keys() -> String {
    let keys: Vec<_> = CostKind::ALL.iter().map(|c| c.key()).collect();
    keys.join(", ")
}

/// What kind of YAML value `v` is, for errors.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a sequence",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

/// The virtual CPU time of each kind of work, nanoseconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CostTable {
    ns: Vec<u64>,
}

impl Default for CostTable {
    /// The measured defaults (the `*_US` constants).
    fn default() -> CostTable {
        CostTable {
            ns: CostKind::ALL
                .iter()
                .map(|c| us_to_ns(c.default_us()))
                .collect(),
        }
    }
}

/// Microseconds to whole nanoseconds, rounded to the nearest (`us` is
/// finite, not negative, at most [`MAX_COST_US`]).
fn us_to_ns(us: f64) -> u64 {
    (us * 1_000.0).round() as u64
}

impl CostTable {
    /// The cost of `cost`, ns.
    pub fn get(&self, cost: CostKind) -> u64 {
        self.ns[cost as usize]
    }

    /// This table with `cost` set to `ns`.
    pub fn with(mut self, cost: CostKind, ns: u64) -> CostTable {
        self.ns[cost as usize] = ns;
        self
    }

    /// A first-seen approval covering `candidates` candidates: the
    /// signature once (one by one, or in a batch), plus
    /// [`Self::approval_per_candidate`] for each.
    pub fn approval_covering(&self, candidates: usize, batched: bool) -> u64 {
        let each = self.approval_per_candidate();
        let n = u64::try_from(candidates).unwrap_or(u64::MAX);
        let one = if batched {
            self.approval_batched()
        } else {
            self.approval()
        };
        one.saturating_add(each.saturating_mul(n))
    }

    /// Every cost multiplied by `factor` (the node's `cpu_scale`), rounded
    /// to the nearest nanosecond (saturating at `u64::MAX`); `factor` must
    /// be finite and above 0.
    pub fn scaled(&self, factor: f64) -> Result<CostTable, CostsError> {
        if !(factor.is_finite() && factor > 0.0) {
            return Err(CostsError::Scale(factor));
        }
        let ns = self
            .ns
            .iter()
            .map(|&ns| (ns as f64 * factor).round() as u64)
            .collect();
        Ok(CostTable { ns })
    }

    /// A table from YAML text: the defaults, with the costs the file names.
    pub fn from_yaml_str(text: &str) -> Result<CostTable, CostsError> {
        let root = crate::yaml::read(text).map_err(|e| CostsError::Yaml(e.to_string()))?;
        let mut table = CostTable::default();
        let map = match &root {
            Value::Null => return Ok(table),
            Value::Mapping(m) => m,
            other => return Err(CostsError::NotMapping(kind(other))),
        };
        for (key, value) in map {
            let Value::String(name) = key else {
                return Err(CostsError::KeyNotName(kind(key)));
            };
            let Some(&cost) = CostKind::ALL.iter().find(|c| c.key() == name) else {
                let key = name.clone();
                return Err(CostsError::UnknownKey { key });
            };
            let key = cost.key();
            let us = match (value, too_large_integer(value)) {
                // An integer beyond 64 bits: a number, far above the bound.
                (_, Some(digits)) => digits.parse().unwrap_or(f64::NAN),
                (Value::Number(n), None) => n.as_f64().unwrap_or(f64::NAN),
                (other, None) => {
                    let found = kind(other);
                    return Err(CostsError::NotNumber { key, found });
                }
            };
            if us.is_nan() || us.is_infinite() {
                return Err(CostsError::NotFinite { key, value: us });
            }
            if us < 0.0 {
                return Err(CostsError::Negative { key, value: us });
            }
            if us > MAX_COST_US {
                return Err(CostsError::TooLarge { key, value: us });
            }
            table.ns[cost as usize] = us_to_ns(us);
        }
        Ok(table)
    }

    /// A table from a YAML file (a regular file of at most
    /// `MAX_INPUT_FILE_BYTES`); errors name the file.
    pub fn load(path: &Path) -> Result<CostTable, CostsError> {
        let in_file = |e: CostsError| CostsError::File {
            path: path.to_owned(),
            error: Box::new(e),
        };
        // A read error names the file already.
        let text = read_text(path, MAX_INPUT_FILE_BYTES)?;
        CostTable::from_yaml_str(&text).map_err(in_file)
    }

    /// The whole table as a YAML file, a comment header first, every cost
    /// in microseconds exact to the nanosecond.
    pub fn to_yaml(&self) -> String {
        let mut out = String::from(
            "# tranche cost table: the virtual CPU time, in microseconds, of each\n\
             # kind of work a simulated validator does (`tranche network`).\n\
             # Every key is optional (a missing one keeps its default); unknown\n\
             # keys are refused. Defaults and their sources: crates/config/src/costs.rs.\n",
        );
        for &cost in CostKind::ALL {
            let ns = self.get(cost);
            let _ = writeln!(out, "# {}", cost.about());
            let _ = writeln!(out, "{}: {}.{:03}", cost.key(), ns / 1_000, ns % 1_000);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> String {
        let message = CostTable::from_yaml_str(text).unwrap_err().to_string();
        assert!(!message.contains('\n'), "{message:?} spans lines");
        message
    }

    #[test]
    fn the_defaults_are_the_measured_figures_in_nanoseconds() {
        let t = CostTable::default();
        assert_eq!(t.assignment_modulo(), 116_100);
        assert_eq!(t.assignment_compact(), 116_100);
        assert_eq!(t.assignment_delay(), 116_100);
        assert_eq!(t.approval(), 60_500);
        assert_eq!(t.approval_batched(), 28_200);
        assert_eq!(t.approval_per_candidate(), 500);
        assert_eq!(t.duplicate(), 800);
        assert_eq!(t.import_assignment(), 2_700);
        assert_eq!(t.import_approval(), 860);
        assert_eq!(t.block_import(), 100_000);
        assert_eq!(t.own_assignment(), 129_500);
        assert_eq!(t.own_approval(), 32_000);
        assert_eq!(t.db_commit(), 171_000);
        assert_eq!(t.route(), 500);
        assert_eq!(t.round_trip(), 18_400);
        assert_eq!(t.round_trip_distribution(), 50_000);
        assert_eq!(t.round_trip_wake(), 0, "no wake-up delay unless measured");
        assert_eq!(t.environment_message(), 1_150);
        // Every key but the wake-up delay has a default above zero, and
        // every key a distinct name.
        for (i, &c) in CostKind::ALL.iter().enumerate() {
            assert!(t.get(c) > 0 || c == CostKind::RoundTripWake, "{}", c.key());
            assert!(CostKind::ALL[..i].iter().all(|o| o.key() != c.key()));
            assert_eq!(c as usize, i);
        }
    }

    #[test]
    fn missing_keys_keep_their_default_and_given_ones_are_microseconds() {
        let t = CostTable::from_yaml_str("approval: 41\nroute: 0.0015\nduplicate: 0\n").unwrap();
        assert_eq!(t.approval(), 41_000);
        assert_eq!(t.route(), 2);
        assert_eq!(t.duplicate(), 0);
        let d = CostTable::default();
        assert_eq!(t.assignment_delay(), d.assignment_delay());
        assert_eq!(
            t.clone()
                .with(CostKind::Approval, 60_500)
                .with(CostKind::Route, 500)
                .with(CostKind::Duplicate, 800),
            d
        );
        assert_eq!(CostTable::from_yaml_str("").unwrap(), d);
        assert_eq!(CostTable::from_yaml_str("{}").unwrap(), d);
    }

    #[test]
    fn the_written_file_reads_back_to_the_same_table() {
        let mut t = CostTable::default();
        for (i, &c) in CostKind::ALL.iter().enumerate() {
            t = t.with(c, 1 + 7_919 * i as u64 * i as u64);
        }
        let text = t.to_yaml();
        assert!(text.starts_with("# tranche cost table"));
        assert_eq!(
            text.lines().filter(|l| !l.starts_with('#')).count(),
            CostKind::ALL.len()
        );
        assert_eq!(CostTable::from_yaml_str(&text).unwrap(), t);
        let d = CostTable::default();
        assert!(d.to_yaml().contains("\nassignment_modulo: 116.100\n"));
        assert_eq!(CostTable::from_yaml_str(&d.to_yaml()).unwrap(), d);
    }

    #[test]
    fn unknown_keys_are_refused_naming_the_key() {
        let message = refused("approval: 1\napprovals: 2\n");
        assert!(
            message
                .starts_with("cost table: unknown key \"approvals\" (known: assignment_modulo, "),
            "{message}"
        );
        assert!(refused("\"a\\rb\": 1").contains("\"a\\rb\""));
        assert_eq!(
            refused("1: 2"),
            "cost table: a key must be a cost name, found a number"
        );
    }

    #[test]
    fn bad_values_are_refused_naming_the_key() {
        assert_eq!(
            refused("db_commit: -1"),
            "cost table: db_commit: -1 is negative"
        );
        assert_eq!(
            refused("route: .nan"),
            "cost table: route: NaN is not a finite number"
        );
        assert_eq!(
            refused("route: .inf"),
            "cost table: route: inf is not a finite number"
        );
        assert_eq!(
            refused("route: -.inf"),
            "cost table: route: -inf is not a finite number"
        );
        assert_eq!(
            refused("approval: fast"),
            "cost table: approval: expected microseconds (a number), found a string"
        );
        assert_eq!(
            refused("approval:"),
            "cost table: approval: expected microseconds (a number), found nothing"
        );
        assert_eq!(
            refused("approval: 1e10"),
            "cost table: approval: 10000000000 µs is above the largest cost, 1000000000 µs"
        );
    }

    #[test]
    fn a_file_that_is_not_a_mapping_or_not_yaml_is_refused_on_one_line() {
        assert_eq!(
            refused("- 1\n- 2"),
            "cost table: the top level must be a mapping of cost names to microseconds, found a sequence"
        );
        assert!(refused("approval: [1\n\n").starts_with("cost table: "));
        assert!(refused("approval: 1\napproval: 2\n").starts_with("cost table: "));
    }

    /// Issue 32: a 10 MB key was quoted whole, and an integer beyond 64
    /// bits was "invalid type: integer … as u128".
    #[test]
    fn a_huge_key_or_integer_is_refused_on_a_short_line() {
        let e = refused(&format!("? {}\n: 1\n", "k".repeat(60_000)));
        assert!(
            e.len() < 600 && e.contains("…\" (60 000 bytes)"),
            "{}",
            e.len()
        );
        // Issue 43: beyond the bound of every YAML input, refused before
        // parsing.
        let e = refused(&format!("? {}\n: 1\n", "k".repeat(10_000_000)));
        assert!(
            e.len() < 200 && e.contains("longer than 65536 bytes"),
            "{e}"
        );
        let e = refused("approval: 99999999999999999999999\n");
        assert!(e.contains("above the largest cost"), "{e}");
        // Issue 43: a large number is shown in exponent form.
        assert_eq!(
            refused("assignment_modulo: 1e300"),
            "cost table: assignment_modulo: 1e300 µs is above the largest cost, 1000000000 µs"
        );
        assert!(refused("approval: -1e300").contains("-1e300 is negative"));
        assert!(refused("approval: -99999999999999999999999\n").contains("negative"));
    }

    /// A deeply nested table is refused by the prescan of every YAML
    /// input, before the parser sees it, on one line.
    #[test]
    fn a_deeply_nested_table_is_refused_before_parsing() {
        let deep = format!("approval: {}1{}\n", "[".repeat(200), "]".repeat(200));
        let e = refused(&deep);
        assert!(
            e.starts_with("cost table: nesting deeper than 64 levels at line 1"),
            "{e}"
        );
    }

    #[test]
    fn scaling_multiplies_every_cost_and_refuses_a_bad_factor() {
        let d = CostTable::default();
        let half = d.scaled(0.5).unwrap();
        for &c in CostKind::ALL {
            assert_eq!(half.get(c), d.get(c).div_ceil(2), "{}", c.key());
        }
        assert_eq!(d.scaled(1.0).unwrap(), d);
        for f in [0.0, -2.0, f64::NAN, f64::INFINITY] {
            assert!(d
                .scaled(f)
                .unwrap_err()
                .to_string()
                .starts_with("cost table: the scale "));
        }
    }

    #[test]
    fn an_approval_counts_its_candidates_once_batched_or_not() {
        let t = CostTable::default();
        assert_eq!(t.approval_covering(3, false), 60_500 + 3 * 500);
        assert_eq!(t.approval_covering(3, true), 28_200 + 3 * 500);
        assert_eq!(t.approval_covering(0, false), t.approval());
    }

    #[test]
    fn load_names_the_file_in_its_errors() {
        let dir = std::env::temp_dir().join(format!("tranche-costs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("costs.yaml");
        std::fs::write(&path, "route: -3\n").unwrap();
        let message = CostTable::load(&path).unwrap_err().to_string();
        assert_eq!(
            message,
            format!("{}: cost table: route: -3 is negative", path.display())
        );
        std::fs::write(&path, CostTable::default().to_yaml()).unwrap();
        assert_eq!(CostTable::load(&path).unwrap(), CostTable::default());
        let missing = CostTable::load(&dir.join("absent.yaml"))
            .unwrap_err()
            .to_string();
        assert!(missing.contains("absent.yaml"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
