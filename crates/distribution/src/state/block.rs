//! What distribution keeps per relay block (upstream `BlockEntry` in `approval-distribution/src/lib.rs`): the block's
//! metadata, which peers have it in view, and its messages. Each assignment
//! or approval we accepted gets a dense slot; per-peer knowledge is two
//! bitsets over peer ids per slot (sent to the peer, received from it), so a
//! duplicate costs a few word accesses whatever the number of peers.

use crate::action::AssignmentItem;
use crate::check::CheckToken;
use crate::random_routing::RandomRouting;
use crate::topology::RequiredRouting;
use std::sync::Arc;
use tranche_primitives::bitset::BitSet;
use tranche_primitives::{
    Block, BlockNumber, CandidateBitfield, IndirectSignedApprovalVote, ValidatorIndex,
};

/// Marks an empty slot reference.
pub(crate) const NONE: u32 = u32::MAX;

/// One accepted assignment (upstream's distribution-side `ApprovalEntry`).
pub(crate) struct AssignmentEntry {
    pub item: Arc<AssignmentItem>,
    pub routing: RequiredRouting,
    pub local: bool,
    pub random: RandomRouting,
    /// Seed of this message's random-routing draws.
    pub seed: u64,
    pub randomly_routed: BitSet,
    pub sent: BitSet,
    pub received: BitSet,
    /// Slots of the votes that cover candidates of this assignment.
    pub votes: Vec<u32>,
}

impl AssignmentEntry {
    pub fn peer_knows(&self, p: usize) -> bool {
        self.sent.contains(p) || self.received.contains(p)
    }
}

/// One accepted approval vote.
pub(crate) struct VoteEntry {
    pub vote: Arc<IndirectSignedApprovalVote>,
    pub sent: BitSet,
    pub received: BitSet,
    /// Next vote of the same validator with the same lowest candidate.
    pub next_same_first: u32,
}

impl VoteEntry {
    pub fn peer_knows(&self, p: usize) -> bool {
        self.sent.contains(p) || self.received.contains(p)
    }
}

/// The messages of one validator for one block.
#[derive(Default)]
pub(crate) struct ValidatorMessages {
    /// Per candidate: the first assignment covering it (upstream's
    /// `CandidateEntry::assignments`), or `NONE`.
    pub candidate_entry: Vec<u32>,
    /// All assignment slots of this validator.
    pub assignments: Vec<u32>,
    /// Per lowest candidate index: the first vote slot, chained.
    pub vote_head: Vec<u32>,
    /// Checks outstanding for messages of this validator.
    pub in_flight: Vec<CheckToken>,
}

pub(crate) struct BlockEntry {
    /// The block as approval voting announced it.
    pub block: Block,
    /// Peers that have this block in (or below) their view.
    pub known_by: BitSet,
    /// Indexed by validator, grown on demand (indices are bounds-checked
    /// against the session before anything is stored).
    pub validators: Vec<ValidatorMessages>,
    pub assignments: Vec<AssignmentEntry>,
    pub votes: Vec<VoteEntry>,
    pub last_resent_at: Option<BlockNumber>,
}

impl BlockEntry {
    pub fn new(block: Block) -> Self {
        BlockEntry {
            block,
            known_by: BitSet::new(),
            validators: Vec::new(),
            assignments: Vec::new(),
            votes: Vec::new(),
            last_resent_at: None,
        }
    }

    pub fn validator(&self, v: ValidatorIndex) -> Option<&ValidatorMessages> {
        self.validators.get(v.0 as usize)
    }

    pub fn validator_mut(&mut self, v: ValidatorIndex) -> &mut ValidatorMessages {
        let i = v.0 as usize;
        if i >= self.validators.len() {
            self.validators.resize_with(i + 1, Default::default);
        }
        &mut self.validators[i]
    }

    /// Every set bit names a candidate of this block.
    pub fn contains_candidates(&self, bits: &CandidateBitfield) -> bool {
        bits.iter_ones()
            .all(|i| (i as usize) < self.block.candidates.len())
    }

    /// The assignment slot covering candidate `i` for `v`, if any.
    pub fn covering(&self, v: ValidatorIndex, i: u32) -> Option<u32> {
        let e = *self.validator(v)?.candidate_entry.get(i as usize)?;
        (e != NONE).then_some(e)
    }

    /// The slot of the assignment subject `(v, claimed)`. As upstream's
    /// knowledge, a single-candidate subject is also known when a
    /// multi-candidate assignment covers that candidate; it then resolves
    /// to the first assignment covering it.
    pub fn find_assignment(&self, v: ValidatorIndex, claimed: &CandidateBitfield) -> Option<u32> {
        let first = claimed.first_one()?;
        let e = self.covering(v, first)?;
        if self.assignments[e as usize].item.claimed == *claimed || claimed.count_ones() == 1 {
            return Some(e);
        }
        self.validator(v)?
            .assignments
            .iter()
            .copied()
            .find(|&s| self.assignments[s as usize].item.claimed == *claimed)
    }

    /// The slot of the approval subject `(v, bits)` (exact bitfield).
    pub fn find_vote(&self, v: ValidatorIndex, bits: &CandidateBitfield) -> Option<u32> {
        let first = bits.first_one()?;
        let mut k = *self.validator(v)?.vote_head.get(first as usize)?;
        while k != NONE {
            let e = &self.votes[k as usize];
            if e.vote.candidate_indices == *bits {
                return Some(k);
            }
            k = e.next_same_first;
        }
        None
    }

    /// Store an accepted assignment; returns its slot.
    pub fn insert_assignment(&mut self, entry: AssignmentEntry) -> u32 {
        let slot = self.assignments.len() as u32;
        let v = entry.item.cert.validator;
        let n = self.block.candidates.len();
        let claimed = entry.item.claimed.clone();
        self.assignments.push(entry);
        let vm = self.validator_mut(v);
        if vm.candidate_entry.len() < n {
            vm.candidate_entry.resize(n, NONE);
        }
        for i in claimed.iter_ones() {
            if let Some(c) = vm.candidate_entry.get_mut(i as usize) {
                if *c == NONE {
                    *c = slot;
                }
            }
        }
        vm.assignments.push(slot);
        slot
    }

    /// Store an accepted vote and link it to the assignments covering its
    /// candidates (upstream's `note_approval`). Returns the vote's slot, the
    /// combined routing of those assignments and the peers they were sent to
    /// at random; `None` (nothing stored) if a candidate has no assignment.
    pub fn insert_vote(
        &mut self,
        vote: Arc<IndirectSignedApprovalVote>,
    ) -> Option<(u32, RequiredRouting, BitSet)> {
        let v = vote.validator;
        let mut covering: Vec<u32> = Vec::with_capacity(2);
        for i in vote.candidate_indices.iter_ones() {
            let e = self.covering(v, i)?;
            if !covering.contains(&e) {
                covering.push(e);
            }
        }
        let first = vote.candidate_indices.first_one()?;
        let slot = self.votes.len() as u32;
        let n = self.block.candidates.len();
        let vm = self.validator_mut(v);
        if vm.vote_head.len() < n {
            vm.vote_head.resize(n, NONE);
        }
        let head = vm.vote_head.get_mut(first as usize)?;
        let next = *head;
        *head = slot;
        self.votes.push(VoteEntry {
            vote,
            sent: BitSet::new(),
            received: BitSet::new(),
            next_same_first: next,
        });
        let mut routing: Option<RequiredRouting> = None;
        let mut random = BitSet::new();
        for e in covering {
            let ae = &mut self.assignments[e as usize];
            ae.votes.push(slot);
            random.union_with(&ae.randomly_routed);
            routing = Some(routing.map_or(ae.routing, |r| r.combine(ae.routing)));
        }
        Some((slot, routing?, random))
    }

    /// Forget everything about peer `p` for this block.
    pub fn forget_peer(&mut self, p: usize) {
        self.known_by.remove(p);
        for e in &mut self.assignments {
            e.sent.remove(p);
            e.received.remove(p);
        }
        for e in &mut self.votes {
            e.sent.remove(p);
            e.received.remove(p);
        }
    }
}
