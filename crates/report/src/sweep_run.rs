//! The row of `tranche sweep run` (one run of the grid, summarised), read
//! back by `history`; the grid, its table and page are the `tranche`
//! binary's (`crates/bench/src/sweep.rs`).

use serde::{Deserialize, Serialize};

/// One run of a sweep, summarised.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSweepRow {
    pub n_validators: u32,
    pub n_cores: u32,
    /// `classic` or `parallel/N`.
    pub layout: String,
    pub schedule: String,
    pub all_approved: bool,
    /// The slowest block's approval, ms after its slot start.
    pub max_approval_ms: Option<u64>,
    pub node_cpu_per_block_s: f64,
    /// The crypto floor per block its layout is judged by (`floor`), and
    /// the node's CPU ÷ that floor (the run table's starred ratio).
    pub floor_per_block_s: f64,
    pub node_ratio: f64,
    /// `one-by-one` or `batched`: which floor (`RunReport::floor_ratio`).
    #[serde(default)]
    pub floor: String,
    pub wall_s: f64,
    pub peak_memory_mib: f64,
}
