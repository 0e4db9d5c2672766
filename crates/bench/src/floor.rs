//! The crypto floor: the CPU this machine needs to verify just a run's
//! unique certificates and signatures, one after another on one thread,
//! with nothing else around them. The node's total CPU is reported as a
//! ratio to it.
//!
//! By default (`--floor sample`) the floor is estimated from a seeded
//! random sample of the unique messages, stratified by kind (assignments,
//! approvals: their checks cost differently): [`SAMPLE_PERCENT`] of each
//! kind, at least [`MIN_PER_KIND`] (or all, where there are fewer). The
//! estimate is the stratified total `Σ N_h · mean_h` with its 95 %
//! interval (normal approximation, finite-population correction).
//! `--floor full` verifies every message; `--floor off` none.
//!
//! The floor is given two ways: as Polkadot checks (every signature alone)
//! and with the cheapest primitive there is, batched signature verification
//! (the selected approvals verified in batches of the parallel layout's
//! batch size; VRF certificates cannot be batched on the wire format
//! Polkadot sends, so they count the same both ways). The classic layout is
//! judged against the first, the parallel one, which batches, against the
//! second.

use rand::SeedableRng;
use std::time::Duration;
use tranche_cli::progress::Phase;
use tranche_node::thread_cpu_time;
use tranche_primitives::criteria::check_assignment_in_block;
use tranche_primitives::vote::{approval_payload, verify_approval, verify_batch, BatchItem};
use tranche_primitives::{ApprovalDistributionMessage, AssignmentItem, Block, Session};
use tranche_report::FloorReport;
use tranche_workload::generate::bundles::TestMessage;
use tranche_workload::generate::world::World;

/// Per cent of each kind's unique messages the sample verifies.
pub const SAMPLE_PERCENT: f64 = 5.0;
/// The fewest messages of a kind the sample verifies (all if fewer).
pub const MIN_PER_KIND: usize = 20;
/// Votes per batch of the batched floor: the parallel layout's largest
/// batch (`tranche_node`'s `MAX_APPROVAL_BATCH`).
pub const BATCH: usize = 256;

/// How the floor is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloorMode {
    /// A seeded sample, stratified by kind; an estimate with its interval.
    Sample,
    /// Every unique message.
    Full,
    /// Not measured.
    Off,
}

impl FloorMode {
    /// `sample`, `full` or `off`, as reports name it.
    pub fn name(self) -> &'static str {
        match self {
            FloorMode::Sample => "sample",
            FloorMode::Full => "full",
            FloorMode::Off => "off",
        }
    }
}

/// The messages of each kind to verify: sorted positions in the run's
/// assignment messages and approval messages, in the order sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    pub assignments: Vec<usize>,
    pub approvals: Vec<usize>,
}

/// How many of `n` messages of a kind a sample verifies.
pub fn sample_size(n: usize) -> usize {
    let share = (n as f64 * SAMPLE_PERCENT / 100.0).ceil() as usize;
    share.max(MIN_PER_KIND).min(n)
}

/// Which of `n_assignments` and `n_approvals` messages `mode` verifies;
/// a sample is drawn from `seed` (one stream per kind).
pub fn select(n_assignments: usize, n_approvals: usize, mode: FloorMode, seed: u64) -> Selection {
    let pick = |n: usize, salt: u64| -> Vec<usize> {
        match mode {
            FloorMode::Off => Vec::new(),
            FloorMode::Full => (0..n).collect(),
            FloorMode::Sample => {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ salt);
                let mut v = rand::seq::index::sample(&mut rng, n, sample_size(n)).into_vec();
                v.sort_unstable();
                v
            }
        }
    };
    Selection {
        assignments: pick(n_assignments, 0x666c_6f6f_722d_6173),
        approvals: pick(n_approvals, 0x666c_6f6f_722d_6170),
    }
}

/// One stratum's estimate: `(total, variance of the total)` from the CPU
/// seconds of the `costs` verified out of `population` messages.
pub fn stratum_estimate(population: usize, costs: &[f64]) -> (f64, f64) {
    let n = costs.len();
    if n == 0 {
        return (0.0, 0.0);
    }
    let big_n = population as f64;
    let mean = costs.iter().sum::<f64>() / n as f64;
    let s2 = if n > 1 {
        costs.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / (n - 1) as f64
    } else {
        0.0
    };
    let fpc = 1.0 - n as f64 / big_n;
    (big_n * mean, big_n * big_n * fpc * s2 / n as f64)
}

/// What the floor measurement found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CryptoFloor {
    /// Assignment certificates and approval signatures in all the run's
    /// unique messages (verified or not).
    pub assignments: u64,
    pub approvals: u64,
    /// Unique messages of each kind, and how many of them were verified.
    pub assignment_messages: u64,
    pub approval_messages: u64,
    pub sampled_assignment_messages: u64,
    pub sampled_approval_messages: u64,
    /// Checks that failed (there should be none: generated messages are
    /// valid).
    pub failures: u64,
    /// The floor: measured, or estimated from the sample.
    pub cpu: Duration,
    /// The estimate's 95 % interval, seconds.
    pub interval_s: (f64, f64),
    /// The floor with approval signatures verified in batches.
    pub batched_cpu: Duration,
}

impl CryptoFloor {
    /// The floor as a report shows it (measured in `mode`), beside the
    /// node's CPU over `blocks` blocks: `tranche run`'s and
    /// `tranche-polkadot`'s.
    pub fn report(&self, mode: FloorMode, node_cpu: f64, blocks: f64) -> FloorReport {
        let floor_s = self.cpu.as_secs_f64();
        let batched = self.batched_cpu.as_secs_f64();
        let ratio = |floor: f64| if floor > 0.0 { node_cpu / floor } else { 0.0 };
        FloorReport {
            assignments: self.assignments,
            approvals: self.approvals,
            cpu_s: floor_s,
            per_block_s: floor_s / blocks,
            node_ratio: ratio(floor_s),
            mode: mode.name().into(),
            assignment_messages: self.assignment_messages,
            approval_messages: self.approval_messages,
            sampled_assignment_messages: self.sampled_assignment_messages,
            sampled_approval_messages: self.sampled_approval_messages,
            interval_s: self.interval_s,
            batched_cpu_s: batched,
            batched_per_block_s: batched / blocks,
            node_ratio_batched: ratio(batched),
        }
    }
}

/// The hashes of the candidates `vote` approves, in candidate order.
fn voted_hashes(
    block: &Block,
    vote: &tranche_primitives::IndirectSignedApprovalVote,
) -> Vec<tranche_primitives::CandidateHash> {
    vote.candidate_indices
        .iter_ones()
        .filter_map(|i| block.candidates.get(i as usize).map(|c| c.hash))
        .collect()
}

/// The votes of `messages` as one batch's items; votes whose validator has
/// no key are left out (they fail alone too).
fn batch_items<'a>(
    messages: &[(&'a Block, &'a TestMessage)],
    session: &'a Session,
) -> Vec<BatchItem<'a>> {
    let mut items = Vec::new();
    for (block, m) in messages {
        let ApprovalDistributionMessage::Approvals(votes) = &m.message else {
            continue;
        };
        for v in votes {
            let hashes = voted_hashes(block, v);
            if let Some(public) = session.validator_key(v.validator).flatten() {
                items.push(BatchItem {
                    public,
                    payload: approval_payload(&hashes, block.session),
                    signature: v.signature,
                });
            }
        }
    }
    items
}

/// CPU seconds to verify `messages`' votes in batches of `batch` votes,
/// and how many failed.
fn batched_cost(
    messages: &[(&Block, &TestMessage)],
    session: &Session,
    batch: usize,
) -> (f64, u64) {
    let items = batch_items(messages, session);
    let start = thread_cpu_time();
    let failures = items
        .chunks(batch.max(1))
        .map(|chunk| verify_batch(chunk).iter().filter(|v| v.is_err()).count() as u64)
        .sum();
    (
        thread_cpu_time().saturating_sub(start).as_secs_f64(),
        failures,
    )
}

/// Verify one message; `(checks, failures)`.
fn verify(block: &Block, session: &Session, m: &TestMessage) -> (u64, u64) {
    let mut failures = 0;
    match &m.message {
        ApprovalDistributionMessage::Assignments(items) => {
            for AssignmentItem { cert: a, claimed } in items.iter().map(|i| &**i) {
                let ok = check_assignment_in_block(block, session, a.validator, &a.cert, claimed)
                    .is_ok();
                failures += u64::from(!ok);
            }
            (items.len() as u64, failures)
        }
        ApprovalDistributionMessage::Approvals(votes) => {
            for v in votes {
                let hashes = voted_hashes(block, v);
                // The block's own session: every session of a run has the
                // same validators and keys, but its own index in the payload.
                let index = block.session;
                let ok = session
                    .validator_key(v.validator)
                    .flatten()
                    .is_some_and(|key| verify_approval(key, &hashes, index, &v.signature).is_ok());
                failures += u64::from(!ok);
            }
            (votes.len() as u64, failures)
        }
    }
}

/// The run's unique messages by kind, with the ones to verify.
pub struct FloorMessages<'a> {
    kinds: [Vec<(&'a Block, &'a TestMessage)>; 2],
    selection: Selection,
    floor: CryptoFloor,
}

impl<'a> FloorMessages<'a> {
    /// Sort `messages` (the run's unique messages with their block) by
    /// kind and select those `mode` verifies, the sample drawn from `seed`.
    pub fn new(
        world: &'a World,
        messages: impl IntoIterator<Item = (u32, &'a TestMessage)>,
        mode: FloorMode,
        seed: u64,
    ) -> FloorMessages<'a> {
        let mut kinds: [Vec<(&Block, &TestMessage)>; 2] = [Vec::new(), Vec::new()];
        let mut floor = CryptoFloor::default();
        for (block, m) in messages {
            let Some(block) = world.blocks.get(block as usize) else {
                continue;
            };
            match &m.message {
                ApprovalDistributionMessage::Assignments(items) => {
                    floor.assignments += items.len() as u64;
                    kinds[0].push((block, m));
                }
                ApprovalDistributionMessage::Approvals(votes) => {
                    floor.approvals += votes.len() as u64;
                    kinds[1].push((block, m));
                }
            }
        }
        let selection = select(kinds[0].len(), kinds[1].len(), mode, seed);
        floor.assignment_messages = kinds[0].len() as u64;
        floor.approval_messages = kinds[1].len() as u64;
        floor.sampled_assignment_messages = selection.assignments.len() as u64;
        floor.sampled_approval_messages = selection.approvals.len() as u64;
        FloorMessages {
            kinds,
            selection,
            floor,
        }
    }

    /// Messages to verify.
    pub fn len(&self) -> usize {
        self.selection.assignments.len() + self.selection.approvals.len()
    }

    /// Whether nothing is to be verified (`--floor off`).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Verify the selected messages on the calling thread, each timed on
    /// its own, and estimate the floor.
    pub fn measure(self, session: &Session, phase: &Phase) -> CryptoFloor {
        let FloorMessages {
            kinds,
            selection,
            mut floor,
        } = self;
        let (mut total, mut variance, mut done) = (0.0, 0.0, 0);
        let mut batched_total = 0.0;
        for (k, (kind, picked)) in kinds
            .iter()
            .zip([&selection.assignments, &selection.approvals])
            .enumerate()
        {
            let mut costs = Vec::with_capacity(picked.len());
            for &i in picked {
                let (block, m) = kind[i];
                let start = thread_cpu_time();
                let (_, failures) = verify(block, session, m);
                costs.push(thread_cpu_time().saturating_sub(start).as_secs_f64());
                floor.failures += failures;
                done += 1;
                phase.set(done);
            }
            let (t, v) = stratum_estimate(kind.len(), &costs);
            total += t;
            variance += v;
            if k == 0 || picked.is_empty() {
                batched_total += t;
                continue;
            }
            // The same approvals again, in batches; scaled up as the sample.
            let chosen: Vec<_> = picked.iter().map(|&i| kind[i]).collect();
            let (cost, failures) = batched_cost(&chosen, session, BATCH);
            floor.failures += failures;
            batched_total += cost * kind.len() as f64 / picked.len() as f64;
        }
        let half = 1.96 * variance.sqrt();
        floor.batched_cpu = Duration::from_secs_f64(batched_total);
        floor.cpu = Duration::from_secs_f64(total);
        floor.interval_s = ((total - half).max(0.0), total + half);
        floor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_is_a_few_per_cent_of_each_kind_at_least_twenty() {
        let s = select(1000, 400, FloorMode::Sample, 7);
        assert_eq!(s.assignments.len(), 50, "5 % of 1000");
        assert_eq!(s.approvals.len(), 20, "5 % of 400 is under the minimum");
        let small = select(5, 0, FloorMode::Sample, 7);
        assert_eq!(small.assignments, vec![0, 1, 2, 3, 4], "fewer than 20: all");
        assert!(small.approvals.is_empty());
        for (v, n) in [(&s.assignments, 1000), (&s.approvals, 400)] {
            assert!(v.windows(2).all(|w| w[0] < w[1]), "sorted and distinct");
            assert!(v.iter().all(|&i| i < n));
        }
    }

    #[test]
    fn the_sample_follows_the_seed_and_the_modes_their_names() {
        let a = select(1000, 400, FloorMode::Sample, 7);
        assert_eq!(a, select(1000, 400, FloorMode::Sample, 7));
        let b = select(1000, 400, FloorMode::Sample, 8);
        assert_ne!(a.assignments, b.assignments);
        assert_ne!(a.approvals, b.approvals);
        // Spread over the run, not its first messages.
        assert!(*a.assignments.last().unwrap() > 500, "{:?}", a.assignments);
        let full = select(30, 3, FloorMode::Full, 7);
        assert_eq!(full.assignments, (0..30).collect::<Vec<_>>());
        assert_eq!(full.approvals, vec![0, 1, 2]);
        let off = select(30, 3, FloorMode::Off, 7);
        assert!(off.assignments.is_empty() && off.approvals.is_empty());
    }

    #[test]
    fn the_estimate_scales_the_sample_and_its_interval_shrinks_to_a_census() {
        // Equal costs: the total exactly, no spread.
        let (t, v) = stratum_estimate(100, &[0.5; 10]);
        assert!((t - 50.0).abs() < 1e-9 && v == 0.0);
        // Every message measured: the sum, no uncertainty.
        let (t, v) = stratum_estimate(4, &[1.0, 2.0, 3.0, 4.0]);
        assert!((t - 10.0).abs() < 1e-9 && v.abs() < 1e-12);
        // Half measured: the mean times the population, with a spread.
        let (t, v) = stratum_estimate(4, &[1.0, 3.0]);
        assert!((t - 8.0).abs() < 1e-9);
        assert!((v - 16.0 * 0.5 * 2.0 / 2.0).abs() < 1e-9, "{v}");
        assert_eq!(stratum_estimate(10, &[]), (0.0, 0.0));
    }
}
