//! Time: `tick` runs every due timer of the `TimerTable` in its fixed
//! order (wakeups, then our finished checks, then signing deadlines, until
//! nothing is due), processes a pair's wakeup and triggers our own
//! assignment (upstream `process_wakeup` in
//! `polkadot/node/core/approval-voting/src/lib.rs`), launches and completes
//! our checks, and signs our approvals, coalesced up to the session's count
//! or until their deadline (upstream `issue_approval` and
//! `maybe_create_signature`, same file).

use super::entries::{ApprovalEntry, RunningCheck, Transition};
use super::interface::{Action, Output};
use super::{ApprovalVoting, Out};
use crate::approval_rules::{check_approval, tranches_to_approve, RequiredTranches};
use crate::bits::ValidatorSet;
use crate::store::{AssignmentRecord, OurApprovalRecord, WriteOp};
use crate::timer_table::{Pair, Timer, TimerKind};
use tranche_primitives::constants::MAX_APPROVAL_COALESCE_WAIT_TICKS;
use tranche_primitives::vote::sign_approval;
use tranche_primitives::{
    AssignmentCertKind, CandidateBitfield, CandidateHash, CandidateIndex, CoreIndex, DelayTranche,
    Hash, IndirectAssignmentCert, IndirectSignedApprovalVote, Tick, ValidatorIndex,
};

impl ApprovalVoting {
    /// Run everything due at or before `now`: wakeups, our finished checks,
    /// our coalescing deadlines.
    pub fn tick(&mut self, now: Tick) -> Output {
        let mut out = Out::default();
        loop {
            let mut progressed = false;
            for kind in TimerKind::PROCESSING_ORDER {
                while let Some(timer) = self.timers.pop_due(kind, now) {
                    progressed = true;
                    self.fire(&mut out, now, timer);
                }
            }
            if !progressed {
                break;
            }
        }
        self.finish(out)
    }

    /// Run at most one timer due at or before `now` (the first in
    /// processing order) and say whether another one is due: a runtime on
    /// a real clock interleaves due timers with incoming messages this way,
    /// as upstream's main loop takes one wakeup per iteration
    /// (`polkadot/node/core/approval-voting/src/lib.rs`, `run_loop`).
    pub fn tick_one(&mut self, now: Tick) -> (Output, bool) {
        let mut out = Out::default();
        for kind in TimerKind::PROCESSING_ORDER {
            if let Some(timer) = self.timers.pop_due(kind, now) {
                self.fire(&mut out, now, timer);
                break;
            }
        }
        let more = self.next_wakeup().is_some_and(|t| t <= now);
        (self.finish(out), more)
    }

    /// Run one due timer.
    fn fire(&mut self, out: &mut Out, now: Tick, timer: Timer) {
        match timer {
            Timer::Wakeup(pair) => {
                out.writes.push(WriteOp::DeleteWakeup(pair.0, pair.1));
                self.process_wakeup(out, now, pair);
                self.apply_wakeups(out);
            }
            Timer::CheckDone(c) => {
                self.complete_check(out, now, c);
                self.apply_wakeups(out);
            }
            Timer::Signing(b) => {
                if let Some(k) = self.keys.clone() {
                    if let Some(t) = self.maybe_create_signature(out, now, b, k.index) {
                        self.timers.schedule_signing(b, t);
                    }
                }
            }
        }
    }

    fn process_wakeup(&mut self, out: &mut Out, now: Tick, (block_hash, idx): Pair) {
        let tps = self.tps;
        let trigger_all = self.config.trigger_all_tranches;
        let Some((block, chash, cand)) = self.pair_mut(&block_hash, idx) else {
            return;
        };
        let approvals = &cand.approvals;
        let Some(ae) = cand.entries.iter_mut().find(|e| e.block == block_hash) else {
            return;
        };
        let clock = block.clock(now, tps);
        let status = tranches_to_approve(
            &ae.tranches,
            approvals,
            ae.assigned.len(),
            clock,
            block.session.info.needed_approvals as usize,
        );
        let trigger = if trigger_all {
            ae.our
                .as_ref()
                .is_some_and(|o| !o.triggered && o.tranche <= clock.tranche_now)
        } else {
            should_trigger(ae, approvals, status.required, clock.tranche_now)
        };
        let mut launch = None;
        if trigger {
            let our = ae
                .our
                .as_mut()
                .expect("should_trigger needs our assignment");
            our.triggered = true;
            let (cert, tranche, validator) = (our.cert.clone(), our.tranche, our.validator);
            let seq = ae.next_seq;
            ae.next_seq += 1;
            ae.push_assignment(tranche, validator, now);
            out.writes.push(WriteOp::PutAssignment(
                block_hash,
                idx,
                seq,
                AssignmentRecord {
                    validator,
                    tranche,
                    tick: now,
                },
            ));
            out.writes
                .push(WriteOp::PutApprovalEntry(block_hash, idx, ae.record()));
            if let Some(claimed) = claimed_candidates(&block.record, idx, &cert) {
                let distribute = if claimed.count_ones() > 1 {
                    let mut changed = false;
                    for i in claimed.iter_ones() {
                        changed |= !block.distributed.insert(i as usize);
                    }
                    changed
                } else {
                    true
                };
                out.writes
                    .push(WriteOp::PutBlockState(block_hash, block.state_record()));
                launch = Some((cert, validator, claimed, distribute));
            }
        }
        self.advance(out, now, block_hash, idx, Transition::Wakeup);
        if let Some((cert, validator, claimed, distribute)) = launch {
            if distribute {
                out.actions.push(Action::DistributeAssignment {
                    cert: IndirectAssignmentCert {
                        block_hash,
                        validator,
                        cert,
                    },
                    claimed,
                });
            }
            self.launch_check(out, now, chash, block_hash, idx, validator);
        }
    }

    fn launch_check(
        &mut self,
        out: &mut Out,
        now: Tick,
        chash: CandidateHash,
        block_hash: Hash,
        idx: CandidateIndex,
        validator: ValidatorIndex,
    ) {
        if self.checked.contains(&chash) {
            self.issue_approval(out, now, chash, block_hash, validator);
            return;
        }
        match self.checks.get_mut(&chash) {
            Some(f) => {
                if !f.blocks.contains(&block_hash) {
                    f.blocks.push(block_hash);
                }
            }
            None => {
                self.checks.insert(
                    chash,
                    RunningCheck {
                        validator,
                        blocks: vec![block_hash],
                    },
                );
                let due = now.saturating_add(self.config.check_delay_ticks);
                self.timers.schedule_check(chash, due);
            }
        }
        let due = self
            .timers
            .check_due(&chash)
            .expect("a check in flight has its completion timer");
        if let Some(ae) = self
            .candidates
            .get_mut(&chash)
            .and_then(|c| c.entry_mut(&block_hash))
        {
            if let Some(o) = ae.our.as_mut() {
                o.check_due = Some(due);
                out.writes
                    .push(WriteOp::PutApprovalEntry(block_hash, idx, ae.record()));
            }
        }
    }

    fn complete_check(&mut self, out: &mut Out, now: Tick, chash: CandidateHash) {
        let Some(f) = self.checks.remove(&chash) else {
            return;
        };
        self.checked.insert(chash);
        for b in f.blocks {
            self.issue_approval(out, now, chash, b, f.validator);
        }
    }

    /// Count our own approval and sign it now or by its coalescing deadline
    /// (upstream `issue_approval` and `maybe_create_signature` in
    /// `polkadot/node/core/approval-voting/src/lib.rs`).
    fn issue_approval(
        &mut self,
        out: &mut Out,
        now: Tick,
        chash: CandidateHash,
        block_hash: Hash,
        validator: ValidatorIndex,
    ) {
        let tps = self.tps;
        let Some(block) = self.blocks.get_mut(&block_hash) else {
            return;
        };
        let Some(idx) = block.record.candidates.iter().position(|c| c.hash == chash) else {
            return;
        };
        let idx = idx as CandidateIndex;
        let Some(cand) = self.candidates.get_mut(&chash) else {
            return;
        };
        let Some(ae) = cand.entry_mut(&block_hash) else {
            return;
        };
        let our_tranche = ae.our.as_ref().map_or(0, |o| o.tranche);
        if let Some(o) = ae.our.as_mut() {
            o.check_due = None;
        }
        let deadline = now.saturating_add(MAX_APPROVAL_COALESCE_WAIT_TICKS).min(
            block
                .block_tick
                .saturating_add(our_tranche as Tick)
                .saturating_add(block.no_show_duration(tps) / 2),
        );
        block.pending_signature.insert(idx, (chash, deadline));
        self.advance(out, now, block_hash, idx, Transition::Local(validator));
        if let Some(t) = self.maybe_create_signature(out, now, block_hash, validator) {
            self.timers.schedule_signing(block_hash, t);
        }
    }

    fn maybe_create_signature(
        &mut self,
        out: &mut Out,
        now: Tick,
        block_hash: Hash,
        validator: ValidatorIndex,
    ) -> Option<Tick> {
        let block = self.blocks.get_mut(&block_hash)?;
        let earliest = block.pending_signature.values().map(|(_, t)| *t).min()?;
        let max = block.session.info.max_approval_coalesce_count as usize;
        if earliest > now && block.pending_signature.len() < max {
            return Some(earliest);
        }
        let keys = self.keys.as_ref()?;
        let indices: Vec<CandidateIndex> = block.pending_signature.keys().copied().collect();
        let hashes: Vec<CandidateHash> =
            block.pending_signature.values().map(|(h, _)| *h).collect();
        let signature = sign_approval(&keys.approval, &hashes, block.record.session);
        block.pending_signature.clear();
        out.writes
            .push(WriteOp::PutBlockState(block_hash, block.state_record()));
        let record = OurApprovalRecord {
            signature: signature.0,
            candidate_indices: indices.clone(),
        };
        for (i, h) in indices.iter().zip(hashes.iter()) {
            if let Some(ae) = self
                .candidates
                .get_mut(h)
                .and_then(|c| c.entry_mut(&block_hash))
            {
                ae.our_approval = Some(record.clone());
                out.writes
                    .push(WriteOp::PutApprovalEntry(block_hash, *i, ae.record()));
            }
        }
        let candidate_indices = CandidateBitfield::from_indices(&indices).ok()?;
        out.actions
            .push(Action::DistributeApproval(IndirectSignedApprovalVote {
                block_hash,
                candidate_indices,
                validator,
                signature,
            }));
        None
    }
}

/// Whether our untriggered assignment should be triggered now (upstream
/// `should_trigger_assignment` in
/// `polkadot/node/core/approval-voting/src/lib.rs`).
fn should_trigger(
    ae: &ApprovalEntry,
    approvals: &ValidatorSet,
    required: RequiredTranches,
    tranche_now: DelayTranche,
) -> bool {
    let Some(our) = &ae.our else { return false };
    if our.triggered {
        return false;
    }
    if our.tranche == 0 {
        return true;
    }
    match required {
        RequiredTranches::All => !check_approval(
            &ae.tranches,
            approvals,
            ae.assigned.len(),
            RequiredTranches::All,
        )
        .is_approved(Tick::MAX),
        RequiredTranches::Pending {
            maximum_broadcast,
            clock_drift,
            ..
        } => {
            let drifted = tranche_now.saturating_sub(clock_drift as DelayTranche);
            our.tranche <= maximum_broadcast && our.tranche <= drifted
        }
        RequiredTranches::Exact { .. } => false,
    }
}

/// The candidates of `block` our certificate for candidate `idx` claims
/// (upstream `get_assignment_core_indices` and `cores_to_candidate_indices`
/// in `polkadot/node/core/approval-voting/src/lib.rs`).
pub(super) fn claimed_candidates(
    block: &tranche_primitives::Block,
    idx: CandidateIndex,
    cert: &tranche_primitives::AssignmentCert,
) -> Option<CandidateBitfield> {
    let this_core = block.candidates.get(idx as usize)?.core;
    let cores: Vec<CoreIndex> = match &cert.kind {
        AssignmentCertKind::RelayVRFModuloCompact { core_bitfield } => {
            core_bitfield.iter_ones().map(CoreIndex).collect()
        }
        AssignmentCertKind::RelayVRFDelay { core_index } => vec![*core_index],
        AssignmentCertKind::RelayVRFModulo { .. } => vec![this_core],
    };
    let indices: Vec<u32> = cores
        .into_iter()
        .filter_map(|c| block.candidates.iter().position(|cand| cand.core == c))
        .map(|p| p as u32)
        .collect();
    CandidateBitfield::from_indices(&indices).ok()
}
