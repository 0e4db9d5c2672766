//! The metadata of every result (its `meta` object) and of the terminal
//! report's header: which program, which kind of result ([`kind`]), which
//! commit, which command, when, on what machine, and what decides whether
//! two results can be compared at all — the result format's version, the
//! database, the seed, the configuration's hash and a restart. Gathering
//! it (the command line, the clock, the machine, the configuration's
//! hash) is `tranche_report::meta`'s.

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

/// The machine a report was made on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Machine {
    /// CPUs this process may use.
    pub nproc: usize,
    /// `/proc/cpuinfo`'s first `model name` (empty where unknown).
    pub cpu_model: String,
    /// `/proc/meminfo`'s `MemTotal`.
    pub memory_bytes: u64,
}

/// The `meta.kind` of each result the tool writes: which command made it.
pub mod kind {
    /// `tranche run --json`.
    pub const RUN: &str = "run";
    /// `tranche network --json`.
    pub const NETWORK: &str = "network";
    /// `tranche sweep run --json`.
    pub const SWEEP_RUN: &str = "sweep-run";
    /// `tranche sweep network --json`.
    pub const SWEEP_NETWORK: &str = "sweep-network";
    /// `tranche calibrate --out` (the YAML's header).
    pub const CALIBRATE: &str = "calibrate";
    /// `tranche calibrate --check FILE --json`.
    pub const CALIBRATE_CHECK: &str = "calibrate-check";

    /// What a kind is, in a sentence's words: `a run report (tranche run
    /// --json)`.
    pub fn describe(kind: &str) -> String {
        match kind {
            RUN => "a run report (tranche run --json)".into(),
            NETWORK => "a network report (tranche network --json)".into(),
            SWEEP_RUN => "a sweep of runs (tranche sweep run --json)".into(),
            SWEEP_NETWORK => "a sweep of networks (tranche sweep network --json)".into(),
            CALIBRATE => "a cost table (tranche calibrate)".into(),
            CALIBRATE_CHECK => {
                "a comparison of the model with the node (tranche calibrate --check)".into()
            }
            other => format!("a `{other}` file"),
        }
    }
}

impl Machine {
    /// `2 CPUs, AMD EPYC, 23.5 GiB`.
    pub fn describe(&self) -> String {
        format!(
            "{} CPUs, {}, {:.1} GiB",
            self.nproc,
            if self.cpu_model.is_empty() {
                "unknown CPU"
            } else {
                &self.cpu_model
            },
            self.memory_bytes as f64 / (1u64 << 30) as f64
        )
    }
}

/// Who made a report, how, when and where.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Meta {
    /// Always [`super::TOOL`].
    pub tool: String,
    /// Which command wrote it ([`kind`]; empty in `run` files written
    /// before kinds existed).
    pub kind: String,
    /// The result format's version, [`super::FORMAT_VERSION`].
    pub version: String,
    /// The commit the binary was built from (`crates/bench/build.rs`).
    pub commit: String,
    /// The command line, as typed (arguments quoted where needed).
    pub command: String,
    /// When the invocation started, RFC 3339, UTC.
    pub date: String,
    pub machine: Machine,
    /// `redb`, `parity-db`, `memory` or `model` (`tranche run`); absent
    /// where the command runs no database (`network`, the sweeps).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub database: String,
    /// The build profile: `release` or `debug`.
    pub profile: String,
    pub seed: u64,
    /// A hash of the normalised configuration of every step (names
    /// excluded): two runs of one configuration have the same.
    pub config_hash: String,
    /// The normalised configuration the hash is taken of, one
    /// `step N field: value` a line, so that `compare` can say which field
    /// differs (empty in older files).
    pub config: Vec<String>,
    /// `tranche run --restart-at-block N`: the node under test crashed and
    /// restarted at the start of block N's slot (absent: it ran through).
    /// A restarted run is comparable only with one restarted at the same
    /// block (`compare::identity`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restart_at_block: Option<u32>,
}

impl Meta {
    /// The kind of result, `run` for files written before kinds existed.
    pub fn kind(&self) -> &str {
        if self.kind.is_empty() {
            kind::RUN
        } else {
            &self.kind
        }
    }

    /// The lines heading the terminal report.
    pub fn header(&self) -> String {
        let mut s = String::new();
        let m = &self.machine;
        let _ = writeln!(
            s,
            "{} (result format {}) at commit {}, {} build, {}",
            self.tool, self.version, self.commit, self.profile, self.date
        );
        let _ = writeln!(
            s,
            "machine: {}; database {}; seed {}; config {}",
            m.describe(),
            self.database,
            self.seed,
            self.config_hash
        );
        if let Some(n) = self.restart_at_block {
            let _ = writeln!(
                s,
                "restart: the node under test crashes at the start of block {n}'s slot and \
                 restarts on its database (--restart-at-block {n})"
            );
        }
        let _ = writeln!(s, "command: {}", self.command);
        s
    }
}

/// `t` as RFC 3339 in UTC, to the second (`2026-12-01T09:59:19Z`).
pub fn rfc3339(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}
