//! What a whole-network run cost, as plain data: wall time, CPU, checks,
//! moments and peak memory, process 0's own ([`RunCost`]), each
//! process's ([`ProcessCost`]) and their sums ([`CostTotal`]). The engine
//! (`tranche_simulation`) fills them in; `tranche_report::network` carries
//! them in the run's report, table and page.

use serde::{Deserialize, Serialize};

/// What the run cost. The flat fields keep their first meaning (scripts
/// read them): `wall_s`, `cpu_s`, `verified`, `reused` and `moments` are
/// process 0's own figures; `per_process` has every process's figures
/// (gathered by process 0 at the end of the run) and `total` their sums.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct RunCost {
    /// Wall time of process 0's run.
    pub wall_s: f64,
    /// CPU (user and system) of process 0 during the run.
    pub cpu_s: f64,
    pub threads: usize,
    pub processes: usize,
    /// Notifications delivered network-wide (a total).
    pub deliveries: u64,
    /// Checks run for real and verdicts reused (process 0's counts).
    pub verified: u64,
    pub reused: u64,
    /// Moments handled by process 0's workers.
    pub moments: u64,
    /// Process 0's peak resident memory, bytes (0 in older files).
    #[serde(default)]
    pub peak_rss_bytes: u64,
    /// Each process's own figures, in process order (one entry for a
    /// single process).
    #[serde(default)]
    pub per_process: Vec<ProcessCost>,
    /// The sums over `per_process` (`wall_s`: the longest).
    #[serde(default)]
    pub total: CostTotal,
}

/// What one process's share of the run cost.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct ProcessCost {
    /// The process's index (`--process`).
    pub process: usize,
    /// Wall time of its run, from setup to the end of its dataflow.
    pub wall_s: f64,
    /// CPU (user and system) it used during the run, all its threads.
    pub cpu_s: f64,
    /// Checks its workers ran for real.
    pub verified: u64,
    /// Verdicts its workers reused.
    pub reused: u64,
    /// Moments its workers handled.
    pub moments: u64,
    /// Its peak resident memory, bytes (0 in older files).
    #[serde(default)]
    pub peak_rss_bytes: u64,
}

/// Totals over every process: sums, except `wall_s`, the longest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct CostTotal {
    /// The longest wall time of any process.
    pub wall_s: f64,
    /// CPU of all processes together.
    pub cpu_s: f64,
    pub verified: u64,
    pub reused: u64,
    pub moments: u64,
    /// The peaks of every process added up: what the machines held at
    /// most, or more where the peaks fell at different times.
    #[serde(default)]
    pub peak_rss_bytes: u64,
}

impl RunCost {
    /// The peak resident memory of the whole run: every process's peak
    /// added up, or process 0's where the others' are not known.
    pub fn peak_rss_all(&self) -> u64 {
        self.total.peak_rss_bytes.max(self.peak_rss_bytes)
    }
}

impl CostTotal {
    /// The totals of `per_process`.
    pub fn of(per_process: &[ProcessCost]) -> CostTotal {
        CostTotal {
            wall_s: per_process.iter().map(|p| p.wall_s).fold(0.0, f64::max),
            cpu_s: per_process.iter().map(|p| p.cpu_s).sum(),
            verified: per_process.iter().map(|p| p.verified).sum(),
            reused: per_process.iter().map(|p| p.reused).sum(),
            moments: per_process.iter().map(|p| p.moments).sum(),
            peak_rss_bytes: per_process.iter().map(|p| p.peak_rss_bytes).sum(),
        }
    }
}
