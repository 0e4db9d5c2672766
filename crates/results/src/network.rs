//! The results of a whole-network simulation (`tranche network`): what
//! each validator recorded ([`NodeRecord`], its behaviour and what it saw
//! of each block) and, built from those, per block when the validators
//! approved it (min, p50, p99, max and who was last), the assignments
//! triggered and the highest tranche reached network-wide, the no-shows
//! seen; per validator, distribution's bytes in and out; with the CPU
//! model, how busy each thread was ([`CpuSummary`]); the run's cost and
//! configuration. Its table and page are `tranche_report::network`'s.

use serde::{Deserialize, Serialize};
pub use tranche_records::cost::{CostTotal, ProcessCost, RunCost};
use tranche_records::network_spec::NetworkSpec;
pub use tranche_records::record::{Behaviour, BlockRecord, NodeRecord};
pub use tranche_records::run::NetworkRun;
use tranche_records::time::DEFAULT_SLOT_DURATION_MILLIS as SLOT_MS;

/// One block, network-wide.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlockSummary {
    /// Block number (1-based).
    pub number: u32,
    /// Validators expected to approve it (honest and slow ones).
    pub expected: u32,
    /// Of those, how many did.
    pub approved: u32,
    /// Approval time after the block's slot start, milliseconds, over the
    /// expected validators that approved.
    pub min_ms: Option<u64>,
    pub p50_ms: Option<u64>,
    pub p99_ms: Option<u64>,
    pub max_ms: Option<u64>,
    /// The expected validator that approved last (or first that never
    /// did).
    pub last: Option<u32>,
    /// Candidates claimed by assignments triggered network-wide.
    pub assignments: u64,
    /// Approval signatures sent network-wide.
    pub approvals: u64,
    /// Highest tranche of an assignment any validator imported.
    pub max_tranche: u32,
    /// Candidates claimed per tranche network-wide, as the validator that
    /// imported most of that tranche saw it (each misses only its own),
    /// and how many tranches had any.
    pub by_tranche: Vec<u32>,
    pub tranches_triggered: u32,
    /// Most no-shows one validator saw for this block, and the sum.
    pub no_shows_max: u32,
    pub no_shows_sum: u64,
    /// With `finality`: validators that finalized the block, and the
    /// median moment they did, milliseconds after the slot start (both
    /// absent without it: finality not simulated, as `spec.finality`
    /// says; a count the run does not produce is not 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finalized: Option<u32>,
    pub finalized_p50_ms: Option<u64>,
    /// Median moment the validators had gathered enough assignments for
    /// every candidate, milliseconds after the slot start.
    #[serde(default)]
    pub enough_p50_ms: Option<u64>,
}

/// Min, median, max and total of a per-validator figure over the
/// network's validators (not `crate::spread::Spread`, a run's figure over
/// repeats).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct ValidatorSpread {
    pub min: u64,
    pub p50: u64,
    pub max: u64,
    pub total: u64,
}

impl ValidatorSpread {
    pub fn of(mut v: Vec<u64>) -> ValidatorSpread {
        v.sort_unstable();
        if v.is_empty() {
            return ValidatorSpread::default();
        }
        ValidatorSpread {
            min: v[0],
            p50: v[v.len() / 2],
            max: v[v.len() - 1],
            total: v.iter().sum(),
        }
    }
}

/// A whole-network run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimulationReport {
    /// Who made the report, how, when and where (`meta.kind` `network`;
    /// set by the command line, absent in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<crate::Meta>,
    pub source: String,
    pub seed: u64,
    pub n_validators: u32,
    pub n_cores: u32,
    pub blocks: Vec<BlockSummary>,
    pub bytes_out: ValidatorSpread,
    pub bytes_in: ValidatorSpread,
    pub aggression_events: u64,
    /// Every honest (and slow) validator approved every block.
    pub all_approved: bool,
    pub cost: RunCost,
    /// The configuration simulated (every key with its value).
    #[serde(default)]
    pub spec: NetworkSpec,
    /// The tool's commit and the command line, for the page's header.
    #[serde(default)]
    pub commit: String,
    #[serde(default)]
    pub command: String,
    /// With the CPU model: each thread of the layout by name, how busy it
    /// was over the validators and where it saturated (`cpu`); absent
    /// without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuSummary>,
    pub validators: Vec<NodeRecord>,
}

/// The percentile `p` of sorted values, by the nearest rank.
pub fn percentile(sorted: &[u64], p: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

fn summarise_block(i: usize, records: &[NodeRecord], finality: bool) -> BlockSummary {
    let expected: Vec<&NodeRecord> = records.iter().filter(|r| r.behaviour.counts()).collect();
    let mut times: Vec<(u64, u32)> = expected
        .iter()
        .filter_map(|r| r.blocks[i].approved_after_ms.map(|t| (t, r.validator)))
        .collect();
    times.sort_unstable();
    let sorted: Vec<u64> = times.iter().map(|t| t.0).collect();
    let never = expected
        .iter()
        .find(|r| r.blocks[i].approved_after_ms.is_none())
        .map(|r| r.validator);
    let blocks = records.iter().map(|r| &r.blocks[i]);
    let mut by_tranche: Vec<u32> = Vec::new();
    for b in blocks.clone() {
        if by_tranche.len() < b.by_tranche.len() {
            by_tranche.resize(b.by_tranche.len(), 0);
        }
        for (t, c) in b.by_tranche.iter().enumerate() {
            by_tranche[t] = by_tranche[t].max(*c);
        }
    }
    let mut finals: Vec<u64> = blocks
        .clone()
        .filter_map(|b| b.finalized_after_ms)
        .collect();
    finals.sort_unstable();
    let mut enough: Vec<u64> = blocks.clone().filter_map(|b| b.enough_after_ms).collect();
    enough.sort_unstable();
    BlockSummary {
        number: i as u32 + 1,
        expected: expected.len() as u32,
        approved: times.len() as u32,
        min_ms: sorted.first().copied(),
        p50_ms: percentile(&sorted, 50.0),
        p99_ms: percentile(&sorted, 99.0),
        max_ms: sorted.last().copied(),
        last: never.or(times.last().map(|t| t.1)),
        assignments: blocks.clone().map(|b| u64::from(b.own_assignments)).sum(),
        approvals: blocks.clone().map(|b| u64::from(b.own_approvals)).sum(),
        max_tranche: blocks.clone().map(|b| b.max_tranche).max().unwrap_or(0),
        tranches_triggered: by_tranche.iter().filter(|&&c| c > 0).count() as u32,
        by_tranche,
        no_shows_max: blocks.clone().map(|b| b.no_shows).max().unwrap_or(0),
        no_shows_sum: blocks.map(|b| u64::from(b.no_shows)).sum(),
        finalized: finality.then_some(finals.len() as u32),
        finalized_p50_ms: percentile(&finals, 50.0).filter(|_| finality),
        enough_p50_ms: percentile(&enough, 50.0),
    }
}

impl SimulationReport {
    /// The report of the run the engine handed back
    /// (`tranche_simulation::simulate`): [`SimulationReport::new`] of its
    /// records and cost, with the CPU model's threads by name.
    pub fn of_run(
        source: &str,
        spec: &NetworkSpec,
        seed: u64,
        run: NetworkRun,
    ) -> SimulationReport {
        SimulationReport::new(source, spec, seed, run.records, run.cost)
            .with_cpu_threads(run.threads)
    }

    pub fn new(
        source: &str,
        spec: &NetworkSpec,
        seed: u64,
        validators: Vec<NodeRecord>,
        cost: RunCost,
    ) -> SimulationReport {
        let n_blocks = validators.first().map_or(0, |r| r.blocks.len());
        let blocks: Vec<BlockSummary> = (0..n_blocks)
            .map(|i| summarise_block(i, &validators, spec.finality))
            .collect();
        let all_approved = blocks.iter().all(|b| b.approved == b.expected);
        SimulationReport {
            meta: None,
            source: source.to_owned(),
            seed,
            n_validators: spec.n_validators,
            n_cores: spec.n_cores,
            bytes_out: ValidatorSpread::of(validators.iter().map(|r| r.bytes_out).collect()),
            bytes_in: ValidatorSpread::of(validators.iter().map(|r| r.bytes_in).collect()),
            aggression_events: validators.iter().map(|r| u64::from(r.aggression)).sum(),
            all_approved,
            blocks,
            cost,
            spec: spec.clone(),
            commit: String::new(),
            command: String::new(),
            cpu: None,
            validators,
        }
    }
}

/// Busy shares at or above this are saturated.
pub const SATURATED: f64 = 1.0;

/// How busy one thread (or the cores) was over the validators.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadBusy {
    /// The thread's name as the node names it (`approval-voting-parallel-0`),
    /// or `cores` for all threads together ÷ the cores.
    pub name: String,
    /// Its CPU per block ÷ the slot, the median and the largest over the
    /// validators (1.0: a whole slot per block).
    pub p50_busy: f64,
    pub max_busy: f64,
    /// The validators on which it was saturated (busy at least 1.0).
    pub saturated: Vec<u32>,
}

/// The CPU model's summary: one entry per thread, in the layout's thread
/// order (the order of every record's `cpu_busy_ms`), then the cores.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CpuSummary {
    pub threads: Vec<ThreadBusy>,
    pub cores: ThreadBusy,
}

/// The spread of one busy figure over the validators.
fn busy(name: &str, shares: &[(u32, f64)]) -> ThreadBusy {
    let mut sorted: Vec<f64> = shares.iter().map(|s| s.1).collect();
    sorted.sort_by(f64::total_cmp);
    let p50 = if sorted.is_empty() {
        0.0
    } else {
        sorted[sorted.len().div_ceil(2) - 1]
    };
    ThreadBusy {
        name: name.to_owned(),
        p50_busy: p50,
        max_busy: sorted.last().copied().unwrap_or(0.0),
        saturated: shares
            .iter()
            .filter(|s| s.1 >= SATURATED)
            .map(|s| s.0)
            .collect(),
    }
}

impl CpuSummary {
    /// The summary of `records` run on `cores` cores for `blocks` blocks,
    /// their threads named `names`; `None` where no record has CPU times.
    pub fn of(names: &[String], records: &[NodeRecord], blocks: usize, cores: u32) -> Option<Self> {
        if names.is_empty() || records.iter().all(|r| r.cpu_busy_ms.is_empty()) {
            return None;
        }
        let slots = (blocks.max(1) as u64 * SLOT_MS) as f64;
        let share = |ms: u64, cores: u32| ms as f64 / (slots * f64::from(cores.max(1)));
        let threads = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let shares: Vec<(u32, f64)> = records
                    .iter()
                    .filter_map(|r| Some((r.validator, share(*r.cpu_busy_ms.get(i)?, 1))))
                    .collect();
                busy(name, &shares)
            })
            .collect();
        let all: Vec<(u32, f64)> = records
            .iter()
            .map(|r| (r.validator, share(r.cpu_busy_ms.iter().sum(), cores)))
            .collect();
        Some(CpuSummary {
            threads,
            cores: busy("cores", &all),
        })
    }
}

impl SimulationReport {
    /// The report with its CPU model summarised, the layout's threads
    /// named `names` in the records' order (empty without the CPU model).
    pub fn with_cpu_threads(mut self, names: Vec<String>) -> SimulationReport {
        let cores = self.spec.node.map_or(1, |n| n.cores);
        self.cpu = CpuSummary::of(&names, &self.validators, self.blocks.len(), cores);
        self
    }
}
