//! One validator's messages for one block (upstream `message_generator.rs`, `generate_assignments` and `issue_approvals`): its
//! real assignments, each as its own message, and its approvals coalesced
//! into bundles. A bundle is a set of assignments plus the approvals that
//! cover exactly their candidates; it is released at the tranche of its
//! latest assignment.

use super::world::{World, NODE_UNDER_TEST};
use parity_scale_codec::{Decode, Encode};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use rand_distr::{Distribution, Normal};
use std::collections::BTreeSet;
use tranche_config::generation::GenerationParams;
use tranche_config::Coalescing;
use tranche_primitives::criteria::compute_assignments;
use tranche_primitives::vote::sign_approval;
use tranche_primitives::{
    ApprovalDistributionMessage, AssignmentCertKind, AssignmentItem, Block, CandidateBitfield,
    CandidateIndex, DelayTranche, IndirectAssignmentCert, IndirectSignedApprovalVote,
    ValidatorIndex,
};

/// One message of a peer, and who delivers it to the node under test.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
pub struct TestMessage {
    /// A single-item `Assignments` or `Approvals` message.
    pub message: ApprovalDistributionMessage,
    /// The tranche of the assignment (for approvals: the latest of the
    /// assignments it covers).
    pub tranche: DelayTranche,
    /// Validators that each deliver one copy to the node under test.
    pub sent_by: Vec<u32>,
    /// Candidate indices the message claims or approves.
    pub candidates: Vec<CandidateIndex>,
}

/// Assignments of one validator and the approvals that cover them.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
pub struct Bundle {
    /// Index of the block in the run (0-based).
    pub block: u32,
    pub validator: u32,
    pub assignments: Vec<TestMessage>,
    pub approvals: Vec<TestMessage>,
}

impl Bundle {
    /// The tranche at which the bundle is released: its latest message.
    pub fn tranche_to_send(&self) -> DelayTranche {
        self.assignments
            .iter()
            .chain(&self.approvals)
            .map(|m| m.tranche)
            .max()
            .unwrap_or(0)
    }

    /// Its earliest message's tranche.
    pub fn min_tranche(&self) -> DelayTranche {
        self.assignments
            .iter()
            .chain(&self.approvals)
            .map(|m| m.tranche)
            .min()
            .unwrap_or(0)
    }
}

/// The per-validator RNG: upstream seeds it with the validator index (big
/// endian) and zeros, the same for every block; we fold in the run seed.
fn validator_rng(v: u32, seed: u64) -> ChaCha20Rng {
    let mut key = [0u8; 32];
    key[..4].copy_from_slice(&v.to_be_bytes());
    key[4..12].copy_from_slice(&seed.to_le_bytes());
    ChaCha20Rng::from_seed(key)
}

struct Coalescer {
    rng: ChaCha20Rng,
    model: Coalescing,
}

impl Coalescer {
    fn next_len(&mut self) -> usize {
        match self.model {
            Coalescing::Normal { mean, std_dev } => Normal::new(mean, std_dev.max(0.0))
                .map(|d| d.sample(&mut self.rng).round())
                .unwrap_or(mean)
                .max(1.0) as usize,
            Coalescing::Uniform { min, max } => {
                let mut range: Vec<u32> = (min.min(max)..=max.max(min)).collect();
                let (pick, _) = range.partial_shuffle(&mut self.rng, 1);
                pick.first().copied().unwrap_or(1).max(1) as usize
            }
        }
    }
}

struct Queued {
    candidate: CandidateIndex,
    assignment: usize,
}

/// All of validator `v`'s bundles for one block, in tranche order.
/// `random_senders` are the validators whose random routing delivers `v`'s
/// messages to the node; `grid_senders` its grid forwarders.
pub fn validator_block_bundles(
    params: &GenerationParams,
    world: &World,
    block_index: u32,
    block: &Block,
    v: ValidatorIndex,
    grid_senders: &[u32],
    random_senders: &[ValidatorIndex],
) -> Vec<Bundle> {
    let ours = compute_assignments(
        &world.assignment_pairs[v.0 as usize],
        v,
        &block.relay_vrf_story,
        &world.session,
        &block.candidates,
    );
    let sent_by: Vec<u32> = grid_senders
        .iter()
        .copied()
        .chain(random_senders.iter().map(|s| s.0))
        .filter(|s| *s != NODE_UNDER_TEST.0)
        .collect::<BTreeSet<u32>>()
        .into_iter()
        .collect();

    // One message per distinct certificate (a compact cert covers several
    // cores), ordered by tranche then core.
    let mut seen: BTreeSet<Vec<u32>> = BTreeSet::new();
    let mut assignments: Vec<TestMessage> = Vec::new();
    let mut ordered: Vec<_> = ours.iter().collect();
    ordered.sort_by_key(|(core, a)| (a.tranche, **core));
    for (core, a) in ordered {
        if params
            .generation_tranche_limit
            .is_some_and(|limit| a.tranche > limit)
        {
            continue;
        }
        let cores: Vec<u32> = match &a.cert.kind {
            AssignmentCertKind::RelayVRFModuloCompact { core_bitfield } => {
                core_bitfield.iter_ones().collect()
            }
            _ => vec![core.0],
        };
        if !seen.insert(cores.clone()) {
            continue;
        }
        let claimed: Vec<CandidateIndex> = block
            .candidates
            .iter()
            .enumerate()
            .filter(|(_, lc)| cores.contains(&lc.core.0))
            .map(|(i, _)| i as CandidateIndex)
            .collect();
        let Ok(bitfield) = CandidateBitfield::from_indices(&claimed) else {
            continue;
        };
        assignments.push(TestMessage {
            message: ApprovalDistributionMessage::assignments([AssignmentItem {
                cert: IndirectAssignmentCert {
                    block_hash: block.hash,
                    validator: v,
                    cert: a.cert.clone(),
                },
                claimed: bitfield,
            }]),
            tranche: a.tranche,
            sent_by: sent_by.clone(),
            candidates: claimed,
        });
    }

    let mut coalescer = Coalescer {
        rng: validator_rng(v.0, params.seed),
        model: params.coalesce,
    };
    let mut bundles = Vec::new();
    let mut queue: Vec<Queued> = Vec::new();
    let mut n = coalescer.next_len();
    for (i, m) in assignments.iter().enumerate() {
        if let Some(first) = queue.first() {
            let earliest = assignments[first.assignment].tranche;
            if queue.len() >= n || m.tranche - earliest >= params.coalesce_tranche_diff {
                bundles.push(sign_bundle(
                    world,
                    block_index,
                    block,
                    v,
                    &assignments,
                    std::mem::take(&mut queue),
                    n,
                ));
                n = coalescer.next_len();
            }
        }
        for c in &m.candidates {
            queue.push(Queued {
                candidate: *c,
                assignment: i,
            });
        }
    }
    if !queue.is_empty() {
        bundles.push(sign_bundle(
            world,
            block_index,
            block,
            v,
            &assignments,
            queue,
            n,
        ));
    }
    bundles
}

fn sign_bundle(
    world: &World,
    block_index: u32,
    block: &Block,
    v: ValidatorIndex,
    assignments: &[TestMessage],
    mut queue: Vec<Queued>,
    n: usize,
) -> Bundle {
    let pair = &world.pairs[v.0 as usize];
    let tranche = queue
        .iter()
        .map(|q| assignments[q.assignment].tranche)
        .max()
        .unwrap_or(0);
    let distinct: BTreeSet<usize> = queue.iter().map(|q| q.assignment).collect();
    queue.sort_by_key(|q| q.candidate);
    let mut approvals = Vec::new();
    for chunk in queue.chunks(n.max(1)) {
        let indices: Vec<CandidateIndex> = chunk.iter().map(|q| q.candidate).collect();
        let hashes: Vec<_> = indices
            .iter()
            .map(|i| block.candidates[*i as usize].hash)
            .collect();
        let signature = sign_approval(pair, &hashes, block.session);
        let sent_by: BTreeSet<u32> = chunk
            .iter()
            .flat_map(|q| assignments[q.assignment].sent_by.iter().copied())
            .collect();
        approvals.push(TestMessage {
            message: ApprovalDistributionMessage::approvals([IndirectSignedApprovalVote {
                block_hash: block.hash,
                candidate_indices: CandidateBitfield::from_indices(&indices)
                    .expect("non-empty chunk"),
                validator: v,
                signature,
            }]),
            tranche,
            sent_by: sent_by.into_iter().collect(),
            candidates: indices,
        });
    }
    Bundle {
        block: block_index,
        validator: v.0,
        assignments: distinct
            .into_iter()
            .map(|i| assignments[i].clone())
            .collect(),
        approvals,
    }
}
