//! Blocks: importing relay blocks (upstream `handle_new_head` in
//! `polkadot/node/core/approval-voting/src/import.rs`), finality and the
//! pruning it causes (upstream `canonicalize` in
//! `polkadot/node/core/approval-voting/src/ops.rs`).

use super::entries::{ApprovalEntry, BlockEntry, OurAssignment};
use super::interface::{Action, NewBlock, Output};
use super::{ApprovalVoting, Out};
use crate::bits::ValidatorSet;
use crate::maps::Set;
use crate::store::WriteOp;
use std::collections::BTreeMap;
use tranche_primitives::criteria;
use tranche_primitives::{
    Block, BlockNumber, Candidate, CandidateIndex, CoreIndex, DelayTranche, Hash, SessionInfo, Tick,
};

impl ApprovalVoting {
    /// Import a relay block (upstream `handle_new_head` in
    /// `polkadot/node/core/approval-voting/src/import.rs`). Ancestors must be
    /// imported first; a known block or one at or below the finalized
    /// height is ignored.
    pub fn import_block(&mut self, now: Tick, block: NewBlock) -> Output {
        let mut out = Out::default();
        self.import_block_inner(now, block, &mut out);
        self.finish(out)
    }

    fn import_block_inner(&mut self, now: Tick, new: NewBlock, out: &mut Out) {
        let NewBlock { block: nb, session } = new;
        if self.blocks.contains_key(&nb.hash) {
            return;
        }
        if self.finalized.is_some_and(|f| nb.number <= f) {
            return;
        }
        let info = &session.info;
        let session_index = info.session_index;
        debug_assert_eq!(nb.session, session_index, "a block's session and its info");
        if let std::collections::hash_map::Entry::Vacant(e) = self.sessions.entry(session_index) {
            e.insert(session.clone());
            out.writes.push(WriteOp::PutSession(info.clone()));
        }
        let session = self.sessions[&session_index].clone();
        let info = &session.info;
        let n_validators = info.n_validators();
        let n_candidates = nb.candidates.len();

        let approved = approved_at_import(info, &nb.candidates);
        let block_tick = nb.slot.saturating_mul(self.tps);
        let ours = self.our_assignments(info, &nb);

        let entry = BlockEntry {
            record: nb.clone(),
            session: session.clone(),
            block_tick,
            approved,
            distributed: ValidatorSet::new(n_candidates),
            pending_signature: BTreeMap::new(),
            children: Vec::new(),
        };
        out.writes.push(WriteOp::PutBlock(nb.clone()));
        out.writes
            .push(WriteOp::PutBlockState(nb.hash, entry.state_record()));
        self.range_start = Some(self.range_start.map_or(nb.number, |r| r.min(nb.number)));
        out.writes
            .push(WriteOp::PutFinalized(self.finalized, self.range_start));
        self.blocks_at_height
            .entry(nb.number)
            .or_default()
            .push(nb.hash);
        if let Some(parent) = self.blocks.get_mut(&nb.parent) {
            parent.children.push(nb.hash);
        }

        let mut our_wakeups = Vec::new();
        for (i, c) in nb.candidates.iter().enumerate() {
            let our = ours.get(&c.core).map(|a| OurAssignment {
                cert: a.cert.clone(),
                tranche: a.tranche,
                validator: a.validator_index,
                triggered: false,
                check_due: None,
            });
            if let Some(o) = &our {
                our_wakeups.push((
                    (nb.hash, i as CandidateIndex),
                    block_tick.saturating_add(o.tranche as Tick),
                ));
            }
            let ae = ApprovalEntry::new(nb.hash, i as CandidateIndex, n_validators, our);
            out.writes.push(WriteOp::PutApprovalEntry(
                nb.hash,
                i as CandidateIndex,
                ae.record(),
            ));
            self.add_approval_entry(c.hash, n_validators, ae);
        }
        let fully = entry.approved.is_full();
        for i in entry.approved.iter() {
            out.actions.push(Action::CandidateApproved {
                block: nb.hash,
                candidate_index: i as CandidateIndex,
                candidate: nb.candidates[i].hash,
                tick: now,
                tranche: now.saturating_sub(block_tick) as DelayTranche,
                one_third: false,
                tolerated_no_shows: 0,
                required: None,
            });
        }
        self.blocks.insert(nb.hash, entry);
        if fully {
            out.actions.push(Action::BlockApproved {
                block: nb.hash,
                number: nb.number,
                tick: now,
            });
        }
        out.actions.push(Action::NewBlock(nb));
        for (pair, tick) in our_wakeups {
            self.schedule_wakeup(out, pair, tick);
        }
    }

    /// Our assignments in a block, per core: none unless our keys are the
    /// session's at our index — the assignment key among `assignment_keys`
    /// (which our certificates are checked against) and the validator key
    /// among `validators` (which our votes are) — as upstream's
    /// `compute_assignments` (`polkadot/node/core/approval-voting/src/criteria.rs`)
    /// finds our assignment key in the keystore.
    fn our_assignments(
        &self,
        info: &SessionInfo,
        nb: &Block,
    ) -> BTreeMap<CoreIndex, criteria::OurAssignment> {
        match &self.keys {
            Some(k)
                if info
                    .assignment_keys
                    .get(k.index.0 as usize)
                    .is_some_and(|id| *id == k.assignment.id())
                    && info
                        .validators
                        .get(k.index.0 as usize)
                        .is_some_and(|id| *id == k.approval.id()) =>
            {
                criteria::compute_assignments_with(
                    &k.assignment,
                    k.index,
                    &nb.relay_vrf_story,
                    info,
                    &nb.candidates,
                    self.config.own_proofs,
                )
                .0
            }
            _ => BTreeMap::new(),
        }
    }

    /// Block `hash` was finalized at height `number` (upstream
    /// `canonicalize` in `polkadot/node/core/approval-voting/src/ops.rs`):
    /// prune everything below it, every block at its height (itself
    /// included, as upstream) and the descendants of the other blocks at
    /// that height.
    pub fn finalize(&mut self, _now: Tick, hash: Hash, number: BlockNumber) -> Output {
        let mut out = Out::default();
        self.finalized = Some(number);
        let proceed = self.range_start.is_some_and(|r| r <= number);
        if proceed {
            let mut doomed: Vec<Hash> = Vec::new();
            let heights: Vec<BlockNumber> = self
                .blocks_at_height
                .range(..=number)
                .map(|(n, _)| *n)
                .collect();
            let mut frontier = Vec::new();
            for h in heights {
                let list = self.blocks_at_height.remove(&h).unwrap_or_default();
                for b in list {
                    if h == number && b != hash {
                        if let Some(e) = self.blocks.get(&b) {
                            frontier.extend(e.children.iter().copied());
                        }
                    }
                    doomed.push(b);
                }
            }
            let mut seen: Set<Hash> = Set::default();
            while let Some(b) = frontier.pop() {
                if !seen.insert(b) {
                    continue;
                }
                if let Some(e) = self.blocks.get(&b) {
                    frontier.extend(e.children.iter().copied());
                    if let Some(list) = self.blocks_at_height.get_mut(&e.record.number) {
                        list.retain(|x| *x != b);
                        if list.is_empty() {
                            self.blocks_at_height.remove(&e.record.number);
                        }
                    }
                    doomed.push(b);
                }
            }
            for b in doomed {
                self.remove_block(&b, &mut out);
            }
            self.range_start = Some(number.saturating_add(1));
        }
        out.writes
            .push(WriteOp::PutFinalized(self.finalized, self.range_start));
        self.finish(out)
    }

    fn remove_block(&mut self, hash: &Hash, out: &mut Out) {
        let Some(entry) = self.blocks.remove(hash) else {
            return;
        };
        let mut dropped = Vec::new();
        for Candidate { hash: c, .. } in &entry.record.candidates {
            if let Some(cand) = self.candidates.get_mut(c) {
                cand.entries.retain(|e| e.block != *hash);
                if cand.entries.is_empty() {
                    self.candidates.remove(c);
                    self.checked.remove(c);
                    self.checks.remove(c);
                    dropped.push(*c);
                    out.writes.push(WriteOp::DeleteCandidate(*c));
                }
            }
        }
        self.timers
            .remove_block(hash, entry.record.candidates.len() as u32, &dropped);
        if let Some(p) = self.blocks.get_mut(&entry.record.parent) {
            p.children.retain(|x| x != hash);
        }
        out.writes.push(WriteOp::DeleteBlock(*hash));
        out.actions.push(Action::BlockPruned {
            block: *hash,
            number: entry.record.number,
        });
    }
}

/// The candidates approved as soon as their block is imported: every one
/// when no approvals are needed, and those with fewer validators outside
/// their backing group than approvals needed (upstream `handle_new_head` in
/// `polkadot/node/core/approval-voting/src/import.rs`).
fn approved_at_import(info: &SessionInfo, candidates: &[Candidate]) -> ValidatorSet {
    let n_validators = info.n_validators();
    let mut approved = ValidatorSet::new(candidates.len());
    for (i, c) in candidates.iter().enumerate() {
        let group_len = info
            .validator_groups
            .get(c.group.0 as usize)
            .map_or(0, |g| g.len());
        if info.needed_approvals == 0
            || (n_validators.saturating_sub(group_len) as u64) < info.needed_approvals as u64
        {
            approved.insert(i);
        }
    }
    approved
}
