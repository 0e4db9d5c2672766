//! Crypto once per message, network-wide: the verdict of every assignment
//! certificate and approval signature is computed once, where the message
//! is made (its validator's worker checks it as it leaves its node), and
//! shared — with every node of that worker through the worker's own cache,
//! and with the other workers, in this process or another, on the packets
//! that carry the message ([`crate::node::Packet::known`]), which fill the
//! receiving worker's cache before its nodes look. Each worker owns its
//! cache: no lock, nothing shared between threads on the hot path. A
//! verdict is a pure function of the message (its block fixes the
//! session's keys and the candidates), so a shared verdict is exactly what
//! any honest node would compute; only the CPU spent differs. A message
//! whose verdict did not come with it (none that honest nodes make) is
//! checked by the first node of a worker that needs it. `Verify::Every`
//! turns all sharing off and every node checks for itself.

use parity_scale_codec::Encode;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use tranche_distribution::{
    ApprovalCheck, ApprovalVerdict, AssignmentCheck, AssignmentItem, AssignmentVerdict,
};
use tranche_primitives::criteria::check_assignment_in_block;
use tranche_primitives::vote::verify_approval;
use tranche_primitives::{Block, DelayTranche, IndirectSignedApprovalVote, Session};

/// Who verifies a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Verify {
    /// The first node of each process that receives it; the others reuse
    /// the verdict.
    #[default]
    Once,
    /// Every node that receives it (small networks only).
    Every,
}

/// The verdicts one worker knows, keyed by the message's encoding.
#[derive(Default)]
pub struct Verdicts {
    mode: Verify,
    /// This worker's index and the number of workers in all processes:
    /// validator `v` lives on worker `v mod workers`.
    worker: usize,
    workers: usize,
    assignments: RefCell<HashMap<Vec<u8>, AssignmentVerdict>>,
    approvals: RefCell<HashMap<Vec<u8>, ApprovalVerdict>>,
    verified: Cell<u64>,
    reused: Cell<u64>,
}

impl Verdicts {
    /// The cache of worker `worker` of `workers`.
    pub fn new(mode: Verify, worker: usize, workers: usize) -> Self {
        Verdicts {
            mode,
            worker,
            workers: workers.max(1),
            ..Verdicts::default()
        }
    }

    fn count(c: &Cell<u64>) {
        c.set(c.get() + 1);
    }

    /// The verdict of an assignment certificate.
    pub fn assignment(&self, check: &AssignmentCheck) -> AssignmentVerdict {
        if self.mode == Verify::Every {
            Self::count(&self.verified);
            return check.check();
        }
        let key = check.assignment.encode();
        if let Some(v) = self.assignments.borrow().get(&key) {
            Self::count(&self.reused);
            return *v;
        }
        let verdict = check.check();
        Self::count(&self.verified);
        self.assignments.borrow_mut().insert(key, verdict);
        verdict
    }

    /// The verdict of an approval signature.
    pub fn approval(&self, check: &ApprovalCheck) -> ApprovalVerdict {
        if self.mode == Verify::Every {
            Self::count(&self.verified);
            return check.check();
        }
        let key = check.vote.encode();
        if let Some(v) = self.approvals.borrow().get(&key) {
            Self::count(&self.reused);
            return *v;
        }
        let verdict = check.check();
        Self::count(&self.verified);
        self.approvals.borrow_mut().insert(key, verdict);
        verdict
    }

    /// Whether a notification to validator `to` carries its verdicts: it
    /// does when `to` lives on another worker.
    pub fn carries_to(&self, to: u32) -> bool {
        self.shares() && to as usize % self.workers != self.worker
    }

    /// Whether verdicts are shared (not `Verify::Every`).
    pub fn shares(&self) -> bool {
        self.mode == Verify::Once
    }

    /// Our own assignment, checked once where it is made: every later
    /// check of it, here or (through the packets) elsewhere, reuses this.
    pub fn made_assignment(&self, item: &AssignmentItem, block: &Block, session: &Session) {
        if !self.shares() {
            return;
        }
        let (cert, claimed) = item;
        let verdict =
            check_assignment_in_block(block, session, cert.validator, &cert.cert, claimed);
        Self::count(&self.verified);
        self.assignments.borrow_mut().insert(item.encode(), verdict);
    }

    /// Our own approval, checked once where it is made.
    pub fn made_approval(
        &self,
        vote: &IndirectSignedApprovalVote,
        block: &Block,
        session: &Session,
    ) {
        if !self.shares() {
            return;
        }
        let hashes: Vec<_> = vote
            .candidate_indices
            .iter_ones()
            .filter_map(|i| block.candidates.get(i as usize).map(|c| c.hash))
            .collect();
        let verdict = match session.validator_key(vote.validator) {
            Some(Some(key)) => verify_approval(key, &hashes, block.session, &vote.signature)
                .map_err(tranche_distribution::InvalidVote::from),
            Some(None) => Err(tranche_distribution::InvalidVote::InvalidKey),
            None => Err(tranche_distribution::InvalidVote::ValidatorIndexOutOfBounds),
        };
        Self::count(&self.verified);
        self.approvals.borrow_mut().insert(vote.encode(), verdict);
    }

    /// What a packet says of its assignment: valid, of this tranche.
    pub fn known_assignment(&self, item: &AssignmentItem) -> Option<DelayTranche> {
        let map = self.assignments.borrow();
        map.get(&item.encode()).and_then(|v| v.ok())
    }

    /// What a packet says of its approval: valid.
    pub fn known_approval(&self, vote: &IndirectSignedApprovalVote) -> bool {
        let map = self.approvals.borrow();
        map.get(&vote.encode()).is_some_and(|v| v.is_ok())
    }

    /// A valid verdict that came with a packet from another process.
    pub fn learn_assignment(&self, item: &AssignmentItem, tranche: DelayTranche) {
        let mut map = self.assignments.borrow_mut();
        map.entry(item.encode()).or_insert(Ok(tranche));
    }

    pub fn learn_approval(&self, vote: &IndirectSignedApprovalVote) {
        let mut map = self.approvals.borrow_mut();
        map.entry(vote.encode()).or_insert(Ok(()));
    }

    /// Checks run for real, and verdicts reused, so far on this worker.
    pub fn counts(&self) -> (u64, u64) {
        (self.verified.get(), self.reused.get())
    }
}
