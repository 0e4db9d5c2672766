//! Settling what the state machine asked for: the one loop that takes
//! distribution's [`Action`]s, runs the crypto checks among them through a
//! [`Verifier`] (which may also defer them and hand their verdicts back
//! later, when they are due), feeds the verdicts back and carries on with
//! what those cause, until only sends, imports for voting and reputation
//! changes are left — returned, in the order they came, as [`Settled`].
//!
//! Every runtime drains the checks through here: the node's distribution
//! workers (inline, checked ahead, batched signatures, the classic layout's
//! round trip to voting), every simulated validator (shared verdicts, the
//! CPU model's voting thread), `tranche calibrate`'s fixture, the tests and
//! the benches. A new action or check kind is handled here once; nothing
//! outside this crate feeds a verdict in.
//!
//! The order is breadth first, as the node has always run it: the actions
//! of one input in order, then those their verdicts caused, and so on;
//! then the deferred verdicts that are due ([`Verifier::due`]), each
//! settled in turn, what they cause grouped as the verifier says
//! ([`Settled::groups`]).

use crate::action::{Action, AssignmentItem, Outgoing, PeerId};
use crate::check::{
    ApprovalCheck, ApprovalVerdict, AssignmentCheck, AssignmentVerdict, CheckToken,
};
use crate::reputation::Rep;
use crate::state::State;
use std::sync::Arc;
use tranche_primitives::{DelayTranche, IndirectSignedApprovalVote, Tick};

/// Whatever runs distribution's crypto checks. A verdict returned now is
/// fed back at once; `None` means the verifier kept the check: either to
/// hand its verdict back through [`Verifier::due`] (a batch of
/// signatures), or as work for another [`State::settle`] (the classic
/// layout's checks left to the voting thread, settled there again as the
/// actions that asked for them).
pub trait Verifier {
    /// Why checking cannot go on (the thread that checks has stopped).
    type Error;

    fn assignment(
        &mut self,
        check: AssignmentCheck,
    ) -> Result<Option<AssignmentVerdict>, Self::Error>;

    fn approval(&mut self, check: ApprovalCheck) -> Result<Option<ApprovalVerdict>, Self::Error>;

    /// The verdicts of deferred checks that are due now, appended to
    /// `due` in the order they are to be fed back (none: nothing is due).
    /// [`State::settle`] asks once the work in hand is settled, feeds each
    /// verdict back, settles what it causes, and asks again until nothing
    /// is due. A verifier that never defers has nothing due.
    fn due(&mut self, due: &mut Vec<DeferredVerdict>) -> Result<(), Self::Error> {
        let _ = due;
        Ok(())
    }
}

/// The verdict of a check a [`Verifier`] deferred, handed back through
/// [`Verifier::due`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeferredVerdict {
    /// The token of the check it answers (an unknown one is ignored).
    pub token: CheckToken,
    pub verdict: CheckVerdict,
    /// What the consequences are grouped by: verdicts in a row with the
    /// same group settle into one group of [`Settled`] (the node: the
    /// message the check came from, so that what a message causes goes
    /// out as one group of notifications).
    pub group: u64,
}

/// A deferred check's verdict, of either kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckVerdict {
    Assignment(AssignmentVerdict),
    Approval(ApprovalVerdict),
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
/// order the state machine emitted them, cut into groups where deferred
/// verdicts were answered ([`Settled::groups`]). Reused from call to call
/// (the caller clears what it carried out).
#[derive(Debug, Default)]
pub struct Settled {
    pub sends: Vec<(PeerId, Outgoing)>,
    pub imports: Vec<Import>,
    pub reputations: Vec<(PeerId, Rep)>,
    /// Where each group but the last ends (the lengths then).
    ends: Vec<GroupSize>,
    /// The next generation of actions, kept for its allocation.
    scratch: Vec<Action>,
    /// The verdicts due, kept for their allocation.
    due: Vec<DeferredVerdict>,
}

/// How many of [`Settled`]'s sends, imports and reputation changes one
/// group holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GroupSize {
    pub sends: usize,
    pub imports: usize,
    pub reputations: usize,
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
        self.ends.clear();
    }

    /// The groups what settled falls into, in order, by size (they add up
    /// to everything there is). One group unless deferred verdicts were
    /// answered; then what came before them, then for each round of due
    /// verdicts one group per run of verdicts with the same
    /// [`DeferredVerdict::group`]. The groups hold until
    /// [`Settled::clear`]: take nothing out of the vectors in between.
    pub fn groups(&self) -> impl Iterator<Item = GroupSize> + '_ {
        let all = self.lengths();
        let mut start = GroupSize::default();
        self.ends.iter().copied().chain([all]).map(move |end| {
            let size = GroupSize {
                sends: end.sends - start.sends,
                imports: end.imports - start.imports,
                reputations: end.reputations - start.reputations,
            };
            start = end;
            size
        })
    }

    fn lengths(&self) -> GroupSize {
        GroupSize {
            sends: self.sends.len(),
            imports: self.imports.len(),
            reputations: self.reputations.len(),
        }
    }

    /// What settled so far is one group; what follows is the next.
    fn close_group(&mut self) {
        let end = self.lengths();
        self.ends.push(end);
    }
}

impl State {
    /// Carry out `work` (emptied on return) until no check is left that
    /// `verifier` answers now, nor any deferred verdict it has due: every
    /// verdict goes back into the state machine, and what it causes is
    /// settled too. Sends, imports and reputation changes are appended to
    /// `settled`. On the verifier's error the rest of the work is dropped.
    pub fn settle<V: Verifier>(
        &mut self,
        now: Tick,
        work: &mut Vec<Action>,
        verifier: &mut V,
        settled: &mut Settled,
    ) -> Result<(), V::Error> {
        let mut generation = std::mem::take(&mut settled.scratch);
        let mut due = std::mem::take(&mut settled.due);
        let result = self
            .settle_generations(now, work, &mut generation, verifier, settled)
            .and_then(|()| {
                self.settle_due(now, work, &mut generation, &mut due, verifier, settled)
            });
        generation.clear();
        work.clear();
        due.clear();
        settled.scratch = generation;
        settled.due = due;
        result
    }

    /// Feed back the deferred verdicts `verifier` has due, round after
    /// round until none are, settling what each causes: a new group of
    /// `settled` before each round and wherever the verdicts' group
    /// changes within one.
    fn settle_due<V: Verifier>(
        &mut self,
        now: Tick,
        work: &mut Vec<Action>,
        generation: &mut Vec<Action>,
        due: &mut Vec<DeferredVerdict>,
        verifier: &mut V,
        settled: &mut Settled,
    ) -> Result<(), V::Error> {
        loop {
            verifier.due(due)?;
            if due.is_empty() {
                return Ok(());
            }
            settled.close_group();
            let mut current = None;
            for answer in due.drain(..) {
                if current.is_some_and(|g| g != answer.group) {
                    settled.close_group();
                }
                current = Some(answer.group);
                match answer.verdict {
                    CheckVerdict::Assignment(v) => {
                        self.assignment_checked(now, answer.token, v, work)
                    }
                    CheckVerdict::Approval(v) => self.approval_checked(now, answer.token, v, work),
                }
                self.settle_generations(now, work, generation, verifier, settled)?;
            }
        }
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
