//! The backlog of `--schedule useful-first`: the order in which a
//! distribution worker takes what waits in its
//! bounded input (`--schedule`). `fifo` is upstream's: arrival order.
//! `useful-first` drains the bounded input into a local [`Backlog`] of the
//! same bound and, while the backlog holds messages that arrived before the
//! current tick (the worker is behind), takes first those that can still
//! change an approval — for candidates voting has not yet approved —
//! lowest tranche first, and the rest in arrival order after them. Under
//! the virtual clock nothing waits past its tick, so both orders are the
//! same. Every message is still deduplicated and checked before it is
//! forwarded: only the order changes.
//!
//! The tranche of a message is known before its check only for a modulo
//! assignment (tranche 0); a delay assignment is taken to be of the tranche
//! its arrival tick says (honest peers send when their tranche comes), and
//! an approval of the tranche of the assignments this worker accepted from
//! its validator for the candidates it approves. An approval never goes
//! ahead of its assignments (distribution would refuse a vote whose
//! assignment it does not know yet): until this worker has accepted them
//! it waits in arrival order, and goes ahead once they are accepted. A
//! peer lying about timing only moves its messages in the queue; they are
//! checked and charged as always.

use crate::maps::{Map, Set};
use crate::messages::DistMsg;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::time::Instant;
use tranche_primitives::time::DEFAULT_TICKS_PER_SLOT;
use tranche_primitives::{
    ApprovalDistributionMessage, AssignmentCertKind, AssignmentItem, CandidateIndex, DelayTranche,
    Hash, Tick, ValidatorIndex,
};

/// What the worker knows to judge whether a message can still change an
/// approval.
#[derive(Default)]
pub(crate) struct Usefulness {
    /// Candidates voting reported approved, by block.
    approved: Map<Hash, Set<CandidateIndex>>,
    /// Slot-start tick of each block the worker has heard of.
    slot_tick: Map<Hash, Tick>,
    /// Tranche of the assignments accepted, by (block, validator,
    /// candidate).
    tranche: Map<(Hash, ValidatorIndex, CandidateIndex), DelayTranche>,
}

/// Where a message goes in the backlog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rank {
    /// It can still change an approval: ahead, by tranche.
    Ahead(DelayTranche),
    /// An approval whose assignments this worker has not accepted yet: in
    /// arrival order until they are.
    AwaitingAssignment(Hash, ValidatorIndex),
    /// Nothing it is about can change any more: arrival order.
    Behind,
}

impl Usefulness {
    pub fn block(&mut self, hash: Hash, slot: u64) {
        self.slot_tick.insert(hash, slot * DEFAULT_TICKS_PER_SLOT);
    }

    pub fn approved(&mut self, block: Hash, candidate: CandidateIndex) {
        self.approved.entry(block).or_default().insert(candidate);
    }

    pub fn assignment_accepted(
        &mut self,
        block: Hash,
        v: ValidatorIndex,
        claimed: impl Iterator<Item = CandidateIndex>,
        t: DelayTranche,
    ) {
        for c in claimed {
            let e = self.tranche.entry((block, v, c)).or_insert(t);
            *e = (*e).min(t);
        }
    }

    /// A block left (finalized and pruned, as distribution prunes).
    pub fn forget(&mut self, keep: impl Fn(&Hash) -> bool) {
        self.approved.retain(|h, _| keep(h));
        self.slot_tick.retain(|h, _| keep(h));
        self.tranche.retain(|(h, _, _), _| keep(h));
    }

    fn all_approved(&self, block: &Hash, mut candidates: impl Iterator<Item = u32>) -> bool {
        match self.approved.get(block) {
            None => false,
            Some(set) => candidates.all(|c| set.contains(&c)),
        }
    }

    fn arrival_tranche(&self, block: &Hash, arrived: Tick) -> DelayTranche {
        let start = self.slot_tick.get(block).copied().unwrap_or(arrived);
        arrived.saturating_sub(start).min(u64::from(u32::MAX)) as DelayTranche
    }

    /// Where `msg`, received at tick `arrived`, goes. Anything but a peer's
    /// message (new blocks, our own messages) goes first: `Ahead(0)`.
    fn rank(&self, msg: &DistMsg, arrived: Tick) -> Rank {
        let DistMsg::Peer { message, .. } = msg else {
            return Rank::Ahead(0);
        };
        let mut best: Option<DelayTranche> = None;
        let mut consider = |t: DelayTranche| best = Some(best.map_or(t, |b| b.min(t)));
        match message {
            ApprovalDistributionMessage::Assignments(items) => {
                for AssignmentItem { cert: a, claimed } in items.iter().map(|i| &**i) {
                    if self.all_approved(&a.block_hash, claimed.iter_ones()) {
                        continue;
                    }
                    consider(match a.cert.kind {
                        AssignmentCertKind::RelayVRFDelay { .. } => {
                            self.arrival_tranche(&a.block_hash, arrived)
                        }
                        _ => 0,
                    });
                }
            }
            ApprovalDistributionMessage::Approvals(items) => {
                for v in items {
                    if self.all_approved(&v.block_hash, v.candidate_indices.iter_ones()) {
                        continue;
                    }
                    let mut tranche: Option<DelayTranche> = Some(0);
                    for c in v.candidate_indices.iter_ones() {
                        tranche = match (tranche, self.tranche.get(&(v.block_hash, v.validator, c)))
                        {
                            (Some(t), Some(a)) => Some(t.max(*a)),
                            _ => None,
                        };
                    }
                    match tranche {
                        Some(t) => consider(t),
                        None => return Rank::AwaitingAssignment(v.block_hash, v.validator),
                    }
                }
            }
        }
        best.map_or(Rank::Behind, Rank::Ahead)
    }
}

/// A message taken from the bounded input, waiting here.
pub(crate) struct Waiting {
    pub msg: DistMsg,
    pub arrived: Tick,
    pub arrived_at: Instant,
    /// Taken out of arrival order because it could change an approval.
    pub useful: bool,
}

/// The local queue of `useful-first`.
pub(crate) struct Backlog {
    bound: usize,
    next_seq: u64,
    /// Everything waiting, by arrival.
    by_arrival: BTreeMap<u64, Waiting>,
    /// Useful messages by (tranche, arrival); entries already taken are
    /// skipped when they come up.
    useful: BinaryHeap<Reverse<(DelayTranche, u64)>>,
    /// Approvals waiting for their validator's assignments, by (block,
    /// validator).
    awaiting: Map<(Hash, ValidatorIndex), Vec<u64>>,
}

impl Backlog {
    pub fn new(bound: usize) -> Self {
        Backlog {
            bound: bound.max(1),
            next_seq: 0,
            by_arrival: BTreeMap::new(),
            useful: BinaryHeap::new(),
            awaiting: Map::default(),
        }
    }

    pub fn len(&self) -> usize {
        self.by_arrival.len()
    }

    pub fn is_full(&self) -> bool {
        self.len() >= self.bound
    }

    /// A message that entered the bounded input at `arrived_at`, tick
    /// `arrived`.
    pub fn push(&mut self, msg: DistMsg, arrived: Tick, arrived_at: Instant, u: &Usefulness) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.place(seq, u.rank(&msg, arrived));
        self.by_arrival.insert(
            seq,
            Waiting {
                msg,
                arrived,
                arrived_at,
                useful: false,
            },
        );
    }

    fn place(&mut self, seq: u64, rank: Rank) {
        match rank {
            Rank::Ahead(t) => self.useful.push(Reverse((t, seq))),
            Rank::AwaitingAssignment(block, v) => {
                self.awaiting.entry((block, v)).or_default().push(seq)
            }
            Rank::Behind => {}
        }
    }

    /// This worker accepted an assignment of `v` for `block`: approvals of
    /// `v` waiting for it may go ahead now.
    pub fn assignment_accepted(&mut self, block: Hash, v: ValidatorIndex, u: &Usefulness) {
        let Some(seqs) = self.awaiting.remove(&(block, v)) else {
            return;
        };
        for seq in seqs {
            let Some(w) = self.by_arrival.get(&seq) else {
                continue; // taken already, in arrival order
            };
            let rank = u.rank(&w.msg, w.arrived);
            self.place(seq, rank);
        }
    }

    /// The next message to handle at tick `now`.
    pub fn take(&mut self, now: Tick, usefulness: &Usefulness) -> Option<Waiting> {
        let (_, oldest) = self.by_arrival.first_key_value()?;
        if oldest.arrived < now {
            while let Some(Reverse((_, seq))) = self.useful.pop() {
                let Some(w) = self.by_arrival.get(&seq) else {
                    continue; // taken already, in arrival order
                };
                // Voting may have approved its candidates meanwhile.
                if !matches!(usefulness.rank(&w.msg, w.arrived), Rank::Ahead(_)) {
                    continue;
                }
                let mut w = self.by_arrival.remove(&seq).expect("present");
                w.useful = true;
                return Some(w);
            }
        }
        let w = self.by_arrival.pop_first().map(|(_, w)| w);
        if self.by_arrival.is_empty() {
            self.useful.clear();
            self.awaiting.clear();
        } else if self.useful.len() > 2 * self.bound {
            // Entries taken in arrival order linger until they come up:
            // drop them before they outgrow the backlog.
            let live = &self.by_arrival;
            self.useful
                .retain(|Reverse((_, seq))| live.contains_key(seq));
        }
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tranche_distribution::PeerId;
    use tranche_primitives::{
        AssignmentCert, CandidateBitfield, IndirectAssignmentCert, IndirectSignedApprovalVote,
        ValidatorSignature, VrfSignature,
    };

    fn assignment(block: Hash, v: u32, claimed: u32, delay: bool) -> DistMsg {
        let kind = if delay {
            AssignmentCertKind::RelayVRFDelay {
                core_index: tranche_primitives::CoreIndex(claimed),
            }
        } else {
            AssignmentCertKind::RelayVRFModulo { sample: 0 }
        };
        DistMsg::Peer {
            peer: PeerId(v),
            message: ApprovalDistributionMessage::assignments([AssignmentItem {
                cert: IndirectAssignmentCert {
                    block_hash: block,
                    validator: ValidatorIndex(v),
                    cert: AssignmentCert {
                        kind,
                        vrf: VrfSignature {
                            pre_output: [0; 32],
                            proof: [0; 64],
                        },
                    },
                },
                claimed: CandidateBitfield::from_index(claimed),
            }]),
        }
    }

    fn approval(block: Hash, v: u32, candidate: u32) -> DistMsg {
        DistMsg::Peer {
            peer: PeerId(v),
            message: ApprovalDistributionMessage::approvals([IndirectSignedApprovalVote {
                block_hash: block,
                validator: ValidatorIndex(v),
                candidate_indices: CandidateBitfield::from_index(candidate),
                signature: ValidatorSignature([0; 64]),
            }]),
        }
    }

    fn sender(m: &DistMsg) -> u32 {
        match m {
            DistMsg::Peer { peer, .. } => peer.0,
            _ => u32::MAX,
        }
    }

    /// A backlog spanning ticks: the messages for a candidate not yet
    /// approved come first, lowest tranche first; those for an approved
    /// candidate after, in arrival order.
    #[test]
    fn behind_the_clock_useful_messages_come_first_lowest_tranche_first() {
        let b = Hash([1; 32]);
        let mut u = Usefulness::default();
        u.block(b, 10);
        let start = 10 * DEFAULT_TICKS_PER_SLOT;
        u.approved(b, 0);
        u.assignment_accepted(b, ValidatorIndex(7), [1].into_iter(), 2);
        let mut q = Backlog::new(100);
        q.push(approval(b, 1, 0), start + 1, Instant::now(), &u); // approved candidate
        q.push(assignment(b, 2, 1, true), start + 5, Instant::now(), &u); // tranche 5
        q.push(assignment(b, 3, 0, false), start + 5, Instant::now(), &u); // approved candidate
        q.push(approval(b, 7, 1), start + 6, Instant::now(), &u); // tranche 2 (its assignment)
        q.push(assignment(b, 4, 1, false), start + 6, Instant::now(), &u); // modulo: tranche 0
        let order: Vec<u32> = std::iter::from_fn(|| q.take(start + 7, &u))
            .map(|w| sender(&w.msg))
            .collect();
        assert_eq!(order, vec![4, 7, 2, 1, 3]);
    }

    /// An approval never overtakes its validator's assignment: it waits in
    /// arrival order until the worker accepts the assignment, then goes
    /// ahead of what is behind it.
    #[test]
    fn an_approval_goes_ahead_only_once_its_assignment_is_accepted() {
        let b = Hash([1; 32]);
        let mut u = Usefulness::default();
        u.block(b, 10);
        let start = 10 * DEFAULT_TICKS_PER_SLOT;
        let mut q = Backlog::new(100);
        q.push(assignment(b, 2, 1, true), start + 9, Instant::now(), &u); // tranche 9
        q.push(approval(b, 5, 1), start + 1, Instant::now(), &u); // no assignment yet
        q.push(assignment(b, 3, 1, true), start + 8, Instant::now(), &u); // tranche 8
        let first = q.take(start + 12, &u).unwrap();
        assert_eq!(sender(&first.msg), 3, "the approval may not go ahead yet");
        u.assignment_accepted(b, ValidatorIndex(5), [1].into_iter(), 0);
        q.assignment_accepted(b, ValidatorIndex(5), &u);
        let order: Vec<u32> = std::iter::from_fn(|| q.take(start + 12, &u))
            .map(|w| sender(&w.msg))
            .collect();
        assert_eq!(order, vec![5, 2]);
    }

    /// Not behind (everything arrived this tick): arrival order.
    #[test]
    fn on_time_the_order_is_arrival() {
        let b = Hash([1; 32]);
        let mut u = Usefulness::default();
        u.block(b, 10);
        u.approved(b, 0);
        let now = 10 * DEFAULT_TICKS_PER_SLOT + 3;
        let mut q = Backlog::new(100);
        q.push(approval(b, 1, 0), now, Instant::now(), &u);
        q.push(assignment(b, 2, 1, false), now, Instant::now(), &u);
        q.push(approval(b, 3, 1), now, Instant::now(), &u);
        let order: Vec<u32> = std::iter::from_fn(|| q.take(now, &u))
            .map(|w| sender(&w.msg))
            .collect();
        assert_eq!(order, vec![1, 2, 3]);
    }

    /// A candidate approved while its messages wait: they lose their place.
    #[test]
    fn approval_meanwhile_demotes_waiting_messages() {
        let b = Hash([1; 32]);
        let mut u = Usefulness::default();
        u.block(b, 10);
        let t = 10 * DEFAULT_TICKS_PER_SLOT;
        u.assignment_accepted(b, ValidatorIndex(1), [0].into_iter(), 0);
        u.assignment_accepted(b, ValidatorIndex(2), [1].into_iter(), 0);
        let mut q = Backlog::new(100);
        q.push(approval(b, 1, 0), t, Instant::now(), &u);
        q.push(approval(b, 2, 1), t, Instant::now(), &u);
        q.push(assignment(b, 3, 0, false), t, Instant::now(), &u);
        u.approved(b, 0);
        let order: Vec<u32> = std::iter::from_fn(|| q.take(t + 1, &u))
            .map(|w| sender(&w.msg))
            .collect();
        assert_eq!(order, vec![2, 1, 3]);
        assert!(q.len() == 0 && !q.is_full());
    }
}
