//! Crypto once per message, network-wide: the verdict of every assignment
//! certificate and approval signature is computed once, where the message
//! is made (its validator's worker checks it as it leaves its node), and
//! shared — with the other processes on the packets that carry the message
//! ([`crate::packet::Packet::known`]), which fill the receiving process's
//! verdicts before its nodes look. A verdict is a pure function of the
//! message (its block fixes the session's keys and the candidates), so a
//! shared verdict is exactly what any honest node would compute; only the
//! CPU spent differs. A message whose verdict did not come with it (none
//! that honest nodes make) is checked by the first node of a process that
//! needs it. `Verify::Every` turns all sharing off and every node checks
//! for itself; `Verify::Model` runs no check at all (every verdict valid,
//! an assignment's tranche recorded by its maker).
//!
//! Two levels, so that no lock is on the hot path: each worker keeps its
//! own map (no lock: a worker is one thread) in front of the process's map
//! (behind a mutex). Every repeat look-up — the many nodes of a worker
//! checking the same message — is answered by the worker's map; the
//! process's map is touched once per message and worker, and where a
//! message is made.

use std::cell::{Cell, RefCell};
use std::hash::Hash;
/// The verdict maps hash whole messages on every look-up: aHash (already in
/// the dependency tree) rather than SipHash; nothing iterates them.
type HashMap<K, V> = std::collections::HashMap<K, V, ahash::RandomState>;
use crate::costs::CostTable;
use std::sync::{Arc, Mutex};
use tranche_distribution::{
    Action, ApprovalCheck, ApprovalVerdict, AssignmentCheck, AssignmentItem, AssignmentVerdict,
    Verifier,
};
use tranche_primitives::criteria::check_assignment_in_block;
use tranche_primitives::vote::verify_approval;
use tranche_primitives::ApprovalDistributionMessage;
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
    /// Nobody: every verdict is valid, an assignment's tranche the one its
    /// maker recorded (for large sweeps; the CPU model still charges each
    /// check at every node that handles it).
    Model,
}

/// The verdicts of one kind, keyed by the message itself (its validator,
/// block, claimed candidates and certificate or signature: a forged copy
/// is another key, never the honest one's), shared rather than copied:
/// the worker's own map in front of the process's.
struct Cache<K: Eq + Hash, V: Copy> {
    local: RefCell<HashMap<Arc<K>, V>>,
    process: Arc<Mutex<HashMap<Arc<K>, V>>>,
}

impl<K: Eq + Hash, V: Copy> Cache<K, V> {
    fn new(process: &Arc<Mutex<HashMap<Arc<K>, V>>>) -> Self {
        Cache {
            local: RefCell::default(),
            process: process.clone(),
        }
    }

    fn get(&self, key: &Arc<K>) -> Option<V> {
        if let Some(v) = self.local.borrow().get(&**key) {
            return Some(*v);
        }
        let v = *self.process.lock().expect("not poisoned").get(&**key)?;
        self.local.borrow_mut().insert(key.clone(), v);
        Some(v)
    }

    /// Keeps the first verdict of a message (they all agree).
    fn put(&self, key: &Arc<K>, v: V) {
        self.process
            .lock()
            .expect("not poisoned")
            .entry(key.clone())
            .or_insert(v);
        self.local.borrow_mut().entry(key.clone()).or_insert(v);
    }
}

/// The process's verdicts, shared by its workers' [`Verdicts`].
#[derive(Default)]
pub struct ProcessVerdicts {
    assignments: Arc<Mutex<HashMap<Arc<AssignmentItem>, AssignmentVerdict>>>,
    approvals: Arc<Mutex<HashMap<Arc<IndirectSignedApprovalVote>, ApprovalVerdict>>>,
}

/// The verdicts one worker knows.
pub struct Verdicts {
    mode: Verify,
    /// Several processes: verdicts travel with the packets.
    across: bool,
    assignments: Cache<AssignmentItem, AssignmentVerdict>,
    approvals: Cache<IndirectSignedApprovalVote, ApprovalVerdict>,
    verified: Cell<u64>,
    reused: Cell<u64>,
}

impl Verdicts {
    /// A worker's verdicts over its process's.
    pub fn new(mode: Verify, across_processes: bool, process: &ProcessVerdicts) -> Self {
        Verdicts {
            mode,
            across: across_processes,
            assignments: Cache::new(&process.assignments),
            approvals: Cache::new(&process.approvals),
            verified: Cell::new(0),
            reused: Cell::new(0),
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
        if let Some(v) = self.assignments.get(&check.assignment) {
            Self::count(&self.reused);
            return v;
        }
        let verdict = check.check();
        Self::count(&self.verified);
        self.assignments.put(&check.assignment, verdict);
        verdict
    }

    /// The verdict of an approval signature.
    pub fn approval(&self, check: &ApprovalCheck) -> ApprovalVerdict {
        if self.mode == Verify::Model {
            Self::count(&self.reused);
            return Ok(());
        }
        if self.mode == Verify::Every {
            Self::count(&self.verified);
            return check.check();
        }
        if let Some(v) = self.approvals.get(&check.vote) {
            Self::count(&self.reused);
            return v;
        }
        let verdict = check.check();
        Self::count(&self.verified);
        self.approvals.put(&check.vote, verdict);
        verdict
    }

    /// Whether notifications carry their verdicts: with several processes.
    pub fn across_processes(&self) -> bool {
        self.shares() && self.across
    }

    /// Whether verdicts are shared (not `Verify::Every`).
    pub fn shares(&self) -> bool {
        self.mode != Verify::Every
    }

    /// Our own assignment, checked once where it is made: every later
    /// check of it, here or (through the packets) elsewhere, reuses this.
    /// Under `Verify::Model` the verdict is the tranche its maker holds
    /// (`tranche`), with no check.
    pub fn made_assignment(
        &self,
        item: &Arc<AssignmentItem>,
        tranche: Option<DelayTranche>,
        block: &Block,
        session: &Session,
    ) {
        if !self.shares() {
            return;
        }
        if self.mode == Verify::Model {
            if let Some(t) = tranche {
                self.assignments.put(item, Ok(t));
                return;
            }
        }
        let AssignmentItem { cert, claimed } = &**item;
        let verdict =
            check_assignment_in_block(block, session, cert.validator, &cert.cert, claimed);
        Self::count(&self.verified);
        self.assignments.put(item, verdict);
    }

    /// Our own approval, checked once where it is made.
    pub fn made_approval(
        &self,
        vote: &Arc<IndirectSignedApprovalVote>,
        block: &Block,
        session: &Session,
    ) {
        if self.mode != Verify::Once {
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
        self.approvals.put(vote, verdict);
    }

    /// What a packet says of its assignment: valid, of this tranche.
    pub fn known_assignment(&self, item: &Arc<AssignmentItem>) -> Option<DelayTranche> {
        self.assignments.get(item).and_then(|v| v.ok())
    }

    /// What a packet says of its approval: valid.
    pub fn known_approval(&self, vote: &Arc<IndirectSignedApprovalVote>) -> bool {
        self.approvals.get(vote).is_some_and(|v| v.is_ok())
    }

    /// A valid verdict that came with a packet from another process.
    pub fn learn_assignment(&self, item: &Arc<AssignmentItem>, tranche: DelayTranche) {
        self.assignments.put(item, Ok(tranche));
    }

    pub fn learn_approval(&self, vote: &Arc<IndirectSignedApprovalVote>) {
        self.approvals.put(vote, Ok(()));
    }

    /// The shared verdicts of a notification's items, to travel with it.
    pub fn known(&self, m: &ApprovalDistributionMessage) -> Vec<Option<u32>> {
        match m {
            ApprovalDistributionMessage::Assignments(items) => {
                items.iter().map(|i| self.known_assignment(i)).collect()
            }
            ApprovalDistributionMessage::Approvals(votes) => votes
                .iter()
                .map(|vote| self.known_approval(vote).then_some(0))
                .collect(),
        }
    }

    /// Take the verdicts that came with a notification into this
    /// process's cache (a packet from this process carries none).
    pub fn learn(&self, m: &ApprovalDistributionMessage, known: &[Option<u32>]) {
        if known.is_empty() {
            return;
        }
        match m {
            ApprovalDistributionMessage::Assignments(items) => {
                for (item, k) in items.iter().zip(known) {
                    if let Some(t) = k {
                        self.learn_assignment(item, *t);
                    }
                }
            }
            ApprovalDistributionMessage::Approvals(votes) => {
                for (vote, k) in votes.iter().zip(known) {
                    if k.is_some() {
                        self.learn_approval(vote);
                    }
                }
            }
        }
    }

    /// Checks run for real, and verdicts reused, so far on this worker.
    pub fn counts(&self) -> (u64, u64) {
        (self.verified.get(), self.reused.get())
    }
}
/// A simulated validator's verifier for distribution's settle loop
/// (`State::settle`): each verdict from the shared [`Verdicts`], each
/// check's CPU cost from the cost table (with the CPU model), or — the
/// classic layout's distribution thread, which leaves checks to voting —
/// every check deferred, kept as the action that asked for it.
pub(crate) struct Checking<'a> {
    pub verdicts: &'a Verdicts,
    pub costs: Option<&'a CostTable>,
    /// Defer every check instead of answering it.
    pub defer: bool,
    /// Approval signatures are verified in batches (the parallel layout's
    /// workers, `--signatures batched`): charged `approval_batched`.
    pub batched: bool,
    pub deferred: Vec<Action>,
    /// Checks answered, and their CPU cost (0 without the CPU model).
    pub checked: u64,
    pub cost: u64,
}

impl<'a> Checking<'a> {
    pub fn new(
        verdicts: &'a Verdicts,
        costs: Option<&'a CostTable>,
        defer: bool,
        batched: bool,
    ) -> Self {
        Checking {
            verdicts,
            costs,
            defer,
            batched,
            deferred: Vec::new(),
            checked: 0,
            cost: 0,
        }
    }
}

impl Verifier for Checking<'_> {
    type Error = std::convert::Infallible;

    fn assignment(
        &mut self,
        check: AssignmentCheck,
    ) -> Result<Option<AssignmentVerdict>, Self::Error> {
        if self.defer {
            self.deferred.push(Action::CheckAssignment(check));
            return Ok(None);
        }
        self.checked += 1;
        if let Some(costs) = self.costs {
            self.cost += crate::costs::assignment(costs, &check.assignment.cert.cert.kind);
        }
        Ok(Some(self.verdicts.assignment(&check)))
    }

    fn approval(&mut self, check: ApprovalCheck) -> Result<Option<ApprovalVerdict>, Self::Error> {
        if self.defer {
            self.deferred.push(Action::CheckApproval(check));
            return Ok(None);
        }
        self.checked += 1;
        if let Some(costs) = self.costs {
            let candidates = check.vote.candidate_indices.count_ones();
            self.cost += costs.approval_covering(candidates, self.batched);
        }
        Ok(Some(self.verdicts.approval(&check)))
    }
}
