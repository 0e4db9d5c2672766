//! The rows of the two sweeps: [`SweepRow`], one network of `tranche sweep
//! network`, and [`RunSweepRow`], one run of `tranche sweep run`. Their
//! tables and pages are `tranche_report`'s.

use crate::network::{percentile, Behaviour, SimulationReport};
use serde::{Deserialize, Serialize};
use tranche_records::network_spec::NetworkSpec;

/// One network of a `tranche sweep network` grid, summarised.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    pub n_validators: u32,
    pub n_cores: u32,
    pub no_show_fraction: f64,
    pub slow_fraction: f64,
    pub all_approved: bool,
    /// Over the blocks: the median of the per-block p50 approval times,
    /// and the largest per-block p99 and max.
    pub p50_ms: Option<u64>,
    pub p99_ms: Option<u64>,
    pub max_ms: Option<u64>,
    /// Candidates claimed by triggered assignments, per block on average.
    pub assignments_per_block: f64,
    pub max_tranche: u32,
    pub no_shows_max: u32,
    /// Median bytes one validator sent.
    pub bytes_out_p50: u64,
    pub wall_s: f64,
    pub cpu_s: f64,
    /// When the honest validators, and the slow ones, sent their last
    /// approval of a block: the median over validators and blocks, ms
    /// after the slot start (`None`: no such validator, or older files).
    /// Slow validators' checks show here first: a block's approval times
    /// move only where their approvals are the ones it waits for.
    #[serde(default)]
    pub sent_p50_ms: Option<u64>,
    #[serde(default)]
    pub slow_sent_p50_ms: Option<u64>,
    /// How long the run went on after the last block's slot
    /// (`run_after_last_block_secs`; `None` in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_after_last_block_secs: Option<u64>,
}

/// The median time validators of `behaviour` sent their last approval of
/// a block, over validators and blocks.
pub fn sent_p50(r: &SimulationReport, behaviour: Behaviour) -> Option<u64> {
    let mut v: Vec<u64> = r
        .validators
        .iter()
        .filter(|n| n.behaviour == behaviour)
        .flat_map(|n| n.blocks.iter().filter_map(|b| b.last_approval_after_ms))
        .collect();
    v.sort_unstable();
    percentile(&v, 50.0)
}

impl SweepRow {
    pub fn of(spec: &NetworkSpec, r: &SimulationReport) -> SweepRow {
        let mut p50: Vec<u64> = r.blocks.iter().filter_map(|b| b.p50_ms).collect();
        p50.sort_unstable();
        SweepRow {
            n_validators: spec.n_validators,
            n_cores: spec.n_cores,
            no_show_fraction: spec.no_show_fraction,
            slow_fraction: spec.slow_fraction,
            all_approved: r.all_approved,
            p50_ms: p50.get(p50.len() / 2).copied(),
            p99_ms: r.blocks.iter().filter_map(|b| b.p99_ms).max(),
            max_ms: r.blocks.iter().filter_map(|b| b.max_ms).max(),
            assignments_per_block: r.blocks.iter().map(|b| b.assignments).sum::<u64>() as f64
                / r.blocks.len().max(1) as f64,
            max_tranche: r.blocks.iter().map(|b| b.max_tranche).max().unwrap_or(0),
            no_shows_max: r.blocks.iter().map(|b| b.no_shows_max).max().unwrap_or(0),
            bytes_out_p50: r.bytes_out.p50,
            wall_s: r.cost.wall_s,
            cpu_s: r.cost.cpu_s,
            sent_p50_ms: sent_p50(r, Behaviour::Honest),
            slow_sent_p50_ms: sent_p50(r, Behaviour::Slow),
            run_after_last_block_secs: Some(spec.run_after_last_block_secs),
        }
    }
}

/// One run of a `tranche sweep run` grid, summarised.
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
    /// the node's CPU ÷ that floor (the run table's starred ratio); absent
    /// without a floor (`--floor off`), read back as 0.
    #[serde(default, skip_serializing_if = "crate::unmeasured")]
    pub floor_per_block_s: f64,
    #[serde(default, skip_serializing_if = "crate::unmeasured")]
    pub node_ratio: f64,
    /// `one-by-one` or `batched`: which floor (`RunReport::floor_ratio`);
    /// absent without one (`--floor off`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub floor: String,
    pub wall_s: f64,
    pub peak_memory_mib: f64,
}
