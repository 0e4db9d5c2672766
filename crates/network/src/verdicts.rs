//! Crypto once per message, network-wide: the verdict of every assignment
//! certificate and approval signature is computed once, where the message
//! is made (its validator's process checks it as it leaves its node), and
//! shared — with every node of that process through this cache, and with
//! the other processes on the packets that carry the message
//! ([`crate::node::Packet::known`]), which fill the receiving process's
//! cache before its nodes look. A verdict is a pure function of the message
//! (its block fixes the session's keys and the candidates), so a shared
//! verdict is exactly what any honest node would compute; only the CPU
//! spent differs. A message whose verdict did not come with it (none that
//! honest nodes make) is checked by the first node of a process that needs
//! it. `Verify::Every` turns all sharing off and every node checks for
//! itself.

use parity_scale_codec::Encode;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
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

/// The shared verdicts of one process, keyed by the message's encoding.
#[derive(Default)]
pub struct Verdicts {
    mode: Verify,
    assignments: Mutex<HashMap<Vec<u8>, AssignmentVerdict>>,
    approvals: Mutex<HashMap<Vec<u8>, ApprovalVerdict>>,
    verified: AtomicU64,
    reused: AtomicU64,
    /// Several processes: verdicts travel with the packets.
    across: std::sync::atomic::AtomicBool,
}

impl Verdicts {
    pub fn new(mode: Verify) -> Self {
        Verdicts {
            mode,
            ..Verdicts::default()
        }
    }

    /// The verdict of an assignment certificate.
    pub fn assignment(&self, check: &AssignmentCheck) -> AssignmentVerdict {
        if self.mode == Verify::Every {
            self.verified.fetch_add(1, Ordering::Relaxed);
            return check.check();
        }
        let key = check.assignment.encode();
        if let Some(v) = self.assignments.lock().expect("not poisoned").get(&key) {
            self.reused.fetch_add(1, Ordering::Relaxed);
            return *v;
        }
        // Verified outside the lock; two threads may both verify a message
        // that arrives at both at once, and they agree.
        let verdict = check.check();
        self.verified.fetch_add(1, Ordering::Relaxed);
        self.assignments
            .lock()
            .expect("not poisoned")
            .insert(key, verdict);
        verdict
    }

    /// The verdict of an approval signature.
    pub fn approval(&self, check: &ApprovalCheck) -> ApprovalVerdict {
        if self.mode == Verify::Every {
            self.verified.fetch_add(1, Ordering::Relaxed);
            return check.check();
        }
        let key = check.vote.encode();
        if let Some(v) = self.approvals.lock().expect("not poisoned").get(&key) {
            self.reused.fetch_add(1, Ordering::Relaxed);
            return *v;
        }
        let verdict = check.check();
        self.verified.fetch_add(1, Ordering::Relaxed);
        self.approvals
            .lock()
            .expect("not poisoned")
            .insert(key, verdict);
        verdict
    }

    /// Run with several processes: verdicts travel with the packets.
    pub fn set_across_processes(&self, across: bool) {
        self.across.store(across, Ordering::Relaxed);
    }

    pub fn across_processes(&self) -> bool {
        self.shares() && self.across.load(Ordering::Relaxed)
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
        self.verified.fetch_add(1, Ordering::Relaxed);
        self.assignments
            .lock()
            .expect("not poisoned")
            .insert(item.encode(), verdict);
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
        self.verified.fetch_add(1, Ordering::Relaxed);
        self.approvals
            .lock()
            .expect("not poisoned")
            .insert(vote.encode(), verdict);
    }

    /// What a packet says of its assignment: valid, of this tranche.
    pub fn known_assignment(&self, item: &AssignmentItem) -> Option<DelayTranche> {
        let map = self.assignments.lock().expect("not poisoned");
        map.get(&item.encode()).and_then(|v| v.ok())
    }

    /// What a packet says of its approval: valid.
    pub fn known_approval(&self, vote: &IndirectSignedApprovalVote) -> bool {
        let map = self.approvals.lock().expect("not poisoned");
        map.get(&vote.encode()).is_some_and(|v| v.is_ok())
    }

    /// A valid verdict that came with a packet from another process.
    pub fn learn_assignment(&self, item: &AssignmentItem, tranche: DelayTranche) {
        let mut map = self.assignments.lock().expect("not poisoned");
        map.entry(item.encode()).or_insert(Ok(tranche));
    }

    pub fn learn_approval(&self, vote: &IndirectSignedApprovalVote) {
        let mut map = self.approvals.lock().expect("not poisoned");
        map.entry(vote.encode()).or_insert(Ok(()));
    }

    /// Checks run for real, and verdicts reused, so far in this process.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.verified.load(Ordering::Relaxed),
            self.reused.load(Ordering::Relaxed),
        )
    }
}
