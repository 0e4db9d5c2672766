//! Settling what the state machine asked for: the one loop that takes
//! distribution's [`Action`]s, runs the crypto checks among them through a
//! [`Verifier`] (which may also defer them), feeds the verdicts back and
//! carries on with what those cause, until only sends, imports for voting
//! and reputation changes are left — returned, in the order they came, as
//! [`Settled`].
//!
//! Every runtime drains the checks through here: the node's distribution
//! workers (inline, checked ahead, batched signatures, the classic layout's
//! round trip to voting), every simulated validator (shared verdicts, the
//! CPU model's voting thread), `tranche calibrate`'s fixture, the tests and
//! the benches. A new action or check kind is handled here once.
//!
//! The order is breadth first, as the node has always run it: the actions
//! of one input in order, then those their verdicts caused, and so on.

use crate::action::{Action, AssignmentItem, Outgoing, PeerId};
use crate::check::{ApprovalCheck, ApprovalVerdict, AssignmentCheck, AssignmentVerdict};
use crate::reputation::Rep;
use crate::state::State;
use std::sync::Arc;
use tranche_primitives::{DelayTranche, IndirectSignedApprovalVote, Tick};

/// Whatever runs distribution's crypto checks. A verdict returned now is
/// fed back at once; `None` means the verifier kept the check to answer
/// later (a batch of signatures, another thread), through
/// [`State::assignment_checked`] / [`State::approval_checked`] and another
/// [`State::settle`].
pub trait Verifier {
    /// Why checking cannot go on (the thread that checks has stopped).
    type Error;

    fn assignment(
        &mut self,
        check: AssignmentCheck,
    ) -> Result<Option<AssignmentVerdict>, Self::Error>;

    fn approval(&mut self, check: ApprovalCheck) -> Result<Option<ApprovalVerdict>, Self::Error>;
}

/// A checked item for approval voting to import.
#[derive(Debug, Clone)]
pub enum Import {
    Assignment {
        assignment: Arc<AssignmentItem>,
        tranche: DelayTranche,
    },
    Approval {
        vote: Arc<IndirectSignedApprovalVote>,
    },
}

impl Import {
    /// The block the item is about.
    pub fn block_hash(&self) -> tranche_primitives::Hash {
        match self {
            Import::Assignment { assignment, .. } => assignment.cert.block_hash,
            Import::Approval { vote } => vote.block_hash,
        }
    }
}

/// What is left once every check has been answered or deferred: sends per
/// (peer, item), imports for voting and reputation changes, each in the
/// order the state machine emitted them. Reused from call to call (the
/// caller takes or clears what it carried out).
#[derive(Debug, Default)]
pub struct Settled {
    pub sends: Vec<(PeerId, Outgoing)>,
    pub imports: Vec<Import>,
    pub reputations: Vec<(PeerId, Rep)>,
    /// The next generation of actions, kept for its allocation.
    scratch: Vec<Action>,
}

impl Settled {
    /// Whether nothing is left to carry out.
    pub fn is_empty(&self) -> bool {
        self.sends.is_empty() && self.imports.is_empty() && self.reputations.is_empty()
    }

    /// Forget what was carried out, keeping the allocations.
    pub fn clear(&mut self) {
        self.sends.clear();
        self.imports.clear();
        self.reputations.clear();
    }
}

impl State {
    /// Carry out `work` (emptied on return) until no check is left that
    /// `verifier` answers now: every verdict goes back into the state
    /// machine, and what it causes is settled too. Sends, imports and
    /// reputation changes are appended to `settled`. On the verifier's
    /// error the rest of the work is dropped.
    pub fn settle<V: Verifier>(
        &mut self,
        now: Tick,
        work: &mut Vec<Action>,
        verifier: &mut V,
        settled: &mut Settled,
    ) -> Result<(), V::Error> {
        let mut generation = std::mem::take(&mut settled.scratch);
        let result = self.settle_generations(now, work, &mut generation, verifier, settled);
        generation.clear();
        work.clear();
        settled.scratch = generation;
        result
    }

    fn settle_generations<V: Verifier>(
        &mut self,
        now: Tick,
        work: &mut Vec<Action>,
        generation: &mut Vec<Action>,
        verifier: &mut V,
        settled: &mut Settled,
    ) -> Result<(), V::Error> {
        while !work.is_empty() {
            std::mem::swap(work, generation);
            for action in generation.drain(..) {
                match action {
                    Action::CheckAssignment(check) => {
                        let token = check.token;
                        if let Some(verdict) = verifier.assignment(check)? {
                            self.assignment_checked(now, token, verdict, work);
                        }
                    }
                    Action::CheckApproval(check) => {
                        let token = check.token;
                        if let Some(verdict) = verifier.approval(check)? {
                            self.approval_checked(now, token, verdict, work);
                        }
                    }
                    Action::ImportAssignment {
                        assignment,
                        tranche,
                    } => settled.imports.push(Import::Assignment {
                        assignment,
                        tranche,
                    }),
                    Action::ImportApproval { vote } => {
                        settled.imports.push(Import::Approval { vote })
                    }
                    Action::Send { peer, item } => settled.sends.push((peer, item)),
                    Action::Reputation { peer, rep } => settled.reputations.push((peer, rep)),
                }
            }
        }
        Ok(())
    }
}

/// A verifier from two functions that always answer now (tests, benches,
/// fixtures): `assignment` and `approval` give each check's verdict.
pub struct AnswerWith<A, B> {
    pub assignment: A,
    pub approval: B,
    /// Checks answered so far.
    pub checked: u64,
}

impl<A, B> AnswerWith<A, B>
where
    A: FnMut(&AssignmentCheck) -> AssignmentVerdict,
    B: FnMut(&ApprovalCheck) -> ApprovalVerdict,
{
    pub fn new(assignment: A, approval: B) -> Self {
        AnswerWith {
            assignment,
            approval,
            checked: 0,
        }
    }
}

impl<A, B> Verifier for AnswerWith<A, B>
where
    A: FnMut(&AssignmentCheck) -> AssignmentVerdict,
    B: FnMut(&ApprovalCheck) -> ApprovalVerdict,
{
    type Error = std::convert::Infallible;

    fn assignment(
        &mut self,
        check: AssignmentCheck,
    ) -> Result<Option<AssignmentVerdict>, Self::Error> {
        self.checked += 1;
        Ok(Some((self.assignment)(&check)))
    }

    fn approval(&mut self, check: ApprovalCheck) -> Result<Option<ApprovalVerdict>, Self::Error> {
        self.checked += 1;
        Ok(Some((self.approval)(&check)))
    }
}
