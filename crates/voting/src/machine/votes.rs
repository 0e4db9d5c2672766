//! Votes: importing checked assignments and approvals (upstream
//! `import_assignment` and `import_approval` in
//! `polkadot/node/core/approval-voting/src/lib.rs`) and `advance`, which
//! recomputes a pair's approval after a vote, our own approval or a
//! wakeup, reports no-shows and schedules the pair's next wakeup.

use super::entries::{status_of, ApprovalEntry, Transition};
use super::interface::{
    Action, ApprovalCheckError, ApprovalCheckResult, AssignmentCheckError, AssignmentCheckResult,
    CheckedApproval, CheckedAssignment, Output,
};
use super::{ApprovalVoting, Out};
use crate::approval_rules::{
    check_approval, min_prefer_some, Check, RequiredTranches, TranchesToApprove, APPROVAL_DELAY,
};
use crate::bits::ValidatorSet;
use crate::store::{AssignmentRecord, WriteOp};
use tranche_primitives::{Candidate, CandidateIndex, DelayTranche, Hash, Tick, ValidatorIndex};

impl ApprovalVoting {
    /// Finish a vote's import into `into`: its result as the first of the
    /// actions it appends, then what the import caused, then its writes;
    /// `out` goes back as the scratch lists, empty, for the next import.
    fn answer_into(&mut self, mut out: Out, result: Action, into: &mut Output) {
        self.apply_wakeups(&mut out);
        into.actions.push(result);
        into.actions.append(&mut out.actions);
        into.writes.ops.append(&mut out.writes.ops);
        into.next_wakeup = self.next_wakeup();
        self.scratch = out;
    }

    /// Import an assignment already checked by distribution (upstream
    /// `import_assignment` in `polkadot/node/core/approval-voting/src/lib.rs`).
    pub fn import_assignment(&mut self, now: Tick, a: CheckedAssignment) -> Output {
        let mut output = Output::default();
        self.import_assignment_into(now, a, &mut output);
        output
    }

    /// [`import_assignment`](Self::import_assignment) appending its actions
    /// and writes to `into` (after what `into` holds; its `next_wakeup`
    /// replaced): a caller importing many votes reuses one output's lists,
    /// with no allocation per import once they have grown.
    pub fn import_assignment_into(&mut self, now: Tick, a: CheckedAssignment, into: &mut Output) {
        let mut out = std::mem::take(&mut self.scratch);
        let result = self.import_assignment_inner(now, &a, &mut out);
        let (block, validator) = (a.block_hash, a.validator);
        let result = Action::AssignmentImported {
            block,
            validator,
            result,
        };
        self.answer_into(out, result, into);
    }

    fn import_assignment_inner(
        &mut self,
        now: Tick,
        a: &CheckedAssignment,
        out: &mut Out,
    ) -> AssignmentCheckResult {
        use AssignmentCheckError as E;
        use AssignmentCheckResult as R;
        let trigger_all = self.config.trigger_all_tranches;
        let Some(block) = self.blocks.get(&a.block_hash) else {
            return R::Bad(E::UnknownBlock(a.block_hash));
        };
        let info = &block.session.info;
        if a.claimed.len() > info.n_cores as usize {
            return R::Bad(E::InvalidBitfield(a.claimed.len()));
        }
        // Every claimed candidate is checked before anything changes.
        let mut claimed = false;
        for i in a.claimed.iter_ones() {
            let Some(Candidate { hash: h, .. }) = block.candidate(i) else {
                return R::Bad(E::InvalidCandidateIndex(i));
            };
            match self.candidates.get(h) {
                None => return R::Bad(E::InvalidCandidate(i, *h)),
                Some(c) if c.entry(&a.block_hash).is_none() => {
                    return R::Bad(E::Internal(a.block_hash, *h))
                }
                Some(_) => claimed = true,
            }
        }
        if !claimed {
            return R::Bad(E::InvalidCert(a.validator, "NullAssignment".into()));
        }
        if a.validator.0 as usize >= info.n_validators() {
            return R::Bad(E::InvalidCert(
                a.validator,
                "ValidatorIndexOutOfBounds".into(),
            ));
        }
        let block_hash = a.block_hash;
        let mut duplicate = true;
        for i in a.claimed.iter_ones() {
            let block = &self.blocks[&block_hash];
            let h = block.candidate(i).expect("checked above").hash;
            let cand = self.candidates.get_mut(&h).expect("checked above");
            let approvals = &cand.approvals;
            let ae = cand
                .entries
                .iter_mut()
                .find(|e| e.block == block_hash)
                .expect("checked above");
            duplicate &= ae.assigned.contains_validator(a.validator);
            let seq = ae.next_seq;
            ae.next_seq += 1;
            ae.push_assignment(a.tranche, a.validator, now);
            out.writes.push(WriteOp::PutAssignment(
                block_hash,
                i,
                seq,
                AssignmentRecord {
                    validator: a.validator,
                    tranche: a.tranche,
                    tick: now,
                },
            ));
            let status = status_of(block, ae, approvals, now, self.tps);
            note_no_shows(ae, &status, now, out);
            let wake = schedule_wakeup_action(ae, block.block_tick, now, status.required);
            let wake = with_trigger_all(trigger_all, ae, block.block_tick, wake);
            if let Some(t) = wake {
                self.schedule_wakeup(out, (block_hash, i), t);
            }
        }
        if duplicate {
            R::AcceptedDuplicate
        } else {
            R::Accepted
        }
    }

    /// Import an approval already checked by distribution (upstream
    /// `import_approval` in `polkadot/node/core/approval-voting/src/lib.rs`).
    pub fn import_approval(&mut self, now: Tick, v: CheckedApproval) -> Output {
        let mut output = Output::default();
        self.import_approval_into(now, v, &mut output);
        output
    }

    /// [`import_approval`](Self::import_approval) appending to `into`, as
    /// [`import_assignment_into`](Self::import_assignment_into) does.
    pub fn import_approval_into(&mut self, now: Tick, v: CheckedApproval, into: &mut Output) {
        let mut out = std::mem::take(&mut self.scratch);
        let result = self.import_approval_inner(now, &v, &mut out);
        let (block, validator) = (v.block_hash, v.validator);
        let result = Action::ApprovalImported {
            block,
            validator,
            result,
        };
        self.answer_into(out, result, into);
    }

    fn import_approval_inner(
        &mut self,
        now: Tick,
        v: &CheckedApproval,
        out: &mut Out,
    ) -> ApprovalCheckResult {
        use ApprovalCheckError as E;
        use ApprovalCheckResult as R;
        let Some(block) = self.blocks.get(&v.block_hash) else {
            return R::Bad(E::UnknownBlock(v.block_hash));
        };
        // Every claimed index names a candidate, or nothing changes.
        if let Some(i) = v
            .candidates
            .iter_ones()
            .find(|&i| block.candidate(i).is_none())
        {
            return R::Bad(E::InvalidCandidateIndex(i));
        }
        // Actions of earlier candidates are dropped when a later one fails
        // (their state changes and writes stay), as upstream: what this
        // import adds to `out` is cut back to where it began.
        let (actions, wakeups) = (out.actions.len(), out.wakeups.len());
        let dropped = |out: &mut Out| {
            out.actions.truncate(actions);
            out.wakeups.truncate(wakeups);
        };
        for i in v.candidates.iter_ones() {
            let h = self.blocks[&v.block_hash]
                .candidate(i)
                .expect("every index was checked")
                .hash;
            let Some(cand) = self.candidates.get(&h) else {
                dropped(out);
                return R::Bad(E::InvalidCandidate(i, h));
            };
            match cand.entry(&v.block_hash) {
                None => {
                    dropped(out);
                    return R::Bad(E::Internal(v.block_hash, h));
                }
                Some(e) if !e.assigned.contains_validator(v.validator) => {
                    dropped(out);
                    return R::Bad(E::NoAssignment(v.validator));
                }
                Some(_) => {}
            }
            self.advance(out, now, v.block_hash, i, Transition::Remote(v.validator));
        }
        R::Accepted
    }

    /// Recompute a pair's approval after a vote, a local approval or a
    /// wakeup (upstream `advance_approval_state`).
    pub(super) fn advance(
        &mut self,
        out: &mut Out,
        now: Tick,
        block_hash: Hash,
        idx: CandidateIndex,
        tr: Transition,
    ) {
        let tps = self.tps;
        let trigger_all = self.config.trigger_all_tranches;
        let Some((block, chash, cand)) = self.pair_mut(&block_hash, idx) else {
            return;
        };
        let v = tr.validator();
        let was_set = v.map(|v| cand.approvals.insert(v.0 as usize));
        if !matches!(tr, Transition::Local(_)) && block.approved.contains(idx as usize) {
            // Upstream drops the updated candidate entry here: the vote is
            // not recorded.
            if let (Some(v), Some(false)) = (v, was_set) {
                cand.approvals.remove(v.0 as usize);
            }
            return;
        }
        let approvals = &cand.approvals;
        let Some(ae) = cand.entries.iter_mut().find(|e| e.block == block_hash) else {
            return;
        };
        let status = status_of(block, ae, approvals, now, tps);
        note_no_shows(ae, &status, now, out);
        let n_validators = ae.assigned.len();
        let check = check_approval(&ae.tranches, approvals, n_validators, status.required);
        let approved = check.is_approved(now.saturating_sub(APPROVAL_DELAY));
        if approved {
            let was_full = block.approved.is_full();
            let already = block.approved.insert(idx as usize);
            if !already {
                out.actions.push(Action::CandidateApproved {
                    block: block_hash,
                    candidate_index: idx,
                    candidate: chash,
                    tick: now,
                    tranche: now.saturating_sub(block.block_tick) as DelayTranche,
                    one_third: check == Check::ApprovedOneThird,
                    tolerated_no_shows: check.known_no_shows(),
                    required: Some(status.required),
                });
            }
            if block.approved.is_full() && !was_full {
                out.actions.push(Action::BlockApproved {
                    block: block_hash,
                    number: block.record.number,
                    tick: now,
                });
            }
            out.writes
                .push(WriteOp::PutBlockState(block_hash, block.state_record()));
        } else if matches!(tr, Transition::Local(_)) {
            out.writes
                .push(WriteOp::PutBlockState(block_hash, block.state_record()));
        }
        let newly = approved && !ae.approved;
        if approved {
            ae.approved = true;
        }
        if newly || matches!(tr, Transition::Local(_)) {
            out.writes
                .push(WriteOp::PutApprovalEntry(block_hash, idx, ae.record()));
        }
        let wake = schedule_wakeup_action(ae, block.block_tick, now, status.required);
        let wake = with_trigger_all(trigger_all, ae, block.block_tick, wake);
        let mut forks = Vec::new();
        if approved {
            if let Transition::Remote(v) = tr {
                for e in cand.entries.iter().filter(|e| e.block != block_hash) {
                    if !e.approved && e.assigned.contains_validator(v) {
                        forks.push((e.block, e.index));
                    }
                }
            }
        }
        if let (Some(v), Some(false)) = (v, was_set) {
            out.writes.push(WriteOp::PutApproval(chash, v));
        }
        if let Some(t) = wake {
            self.schedule_wakeup(out, (block_hash, idx), t);
        }
        for pair in forks {
            if self.timers.wakeup(&pair).is_none() && self.blocks.contains_key(&pair.0) {
                self.schedule_wakeup(out, pair, now.saturating_add(1));
            }
        }
    }
}

fn note_no_shows(ae: &mut ApprovalEntry, status: &TranchesToApprove, now: Tick, out: &mut Out) {
    if status.no_show_validators.is_empty() {
        return;
    }
    if ae.reported_no_shows.is_empty() {
        ae.reported_no_shows = ValidatorSet::new(ae.assigned.len());
    }
    let fresh: Vec<ValidatorIndex> = status
        .no_show_validators
        .iter()
        .copied()
        .filter(|v| !ae.reported_no_shows.insert(v.0 as usize))
        .collect();
    if !fresh.is_empty() {
        out.actions.push(Action::NoShowObserved {
            block: ae.block,
            candidate_index: ae.index,
            validators: fresh,
            tick: now,
        });
    }
}

/// With `trigger_all_tranches`, a pair also wakes when our untriggered
/// assignment's tranche comes, whatever the rules say.
fn with_trigger_all(
    trigger_all: bool,
    ae: &ApprovalEntry,
    block_tick: Tick,
    wake: Option<Tick>,
) -> Option<Tick> {
    if !trigger_all {
        return wake;
    }
    let ours = ae
        .our
        .as_ref()
        .filter(|o| !o.triggered)
        .map(|o| block_tick.saturating_add(o.tranche as Tick));
    min_prefer_some(wake, ours)
}

/// When a pair next needs looking at (upstream `schedule_wakeup_action`).
fn schedule_wakeup_action(
    ae: &ApprovalEntry,
    block_tick: Tick,
    now: Tick,
    required: RequiredTranches,
) -> Option<Tick> {
    if ae.approved {
        return None;
    }
    match required {
        RequiredTranches::All => None,
        RequiredTranches::Exact {
            next_no_show,
            last_assignment_tick,
            ..
        } => min_prefer_some(
            last_assignment_tick
                .map(|t| t.saturating_add(APPROVAL_DELAY))
                .filter(|t| *t > now),
            next_no_show,
        ),
        RequiredTranches::Pending {
            considered,
            next_no_show,
            clock_drift,
            ..
        } => {
            let announced = ae.tranches.tranche_numbers().find(|t| *t > considered);
            let ours = ae
                .our
                .as_ref()
                .filter(|o| !o.triggered && o.tranche > considered)
                .map(|o| o.tranche);
            let next_tranche = min_prefer_some(announced, ours);
            min_prefer_some(
                next_tranche.map(|t| {
                    (t as Tick)
                        .saturating_add(block_tick)
                        .saturating_add(clock_drift)
                }),
                next_no_show,
            )
        }
    }
}
