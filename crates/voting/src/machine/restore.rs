//! Restoring: rebuilding a state machine from a store's `Snapshot`, with
//! the same entries, votes, our pending work and timers as before it was
//! dropped.

use super::entries::{ApprovalEntry, BlockEntry, OurAssignment, RunningCheck};
use super::interface::{Config, LocalKeys};
use super::ApprovalVoting;
use crate::bits::ValidatorSet;
use crate::maps::Map;
use crate::store::{ApprovalEntryRecord, AssignmentRecord, BlockStateRecord, Snapshot, StoreError};
use std::sync::Arc;
use tranche_primitives::{
    Block, CandidateHash, CandidateIndex, Hash, Session, Tick, ValidatorIndex,
};

impl ApprovalVoting {
    /// Rebuild a state machine from what a store holds: the same entries,
    /// approvals, our pending work and wakeups as before it was dropped.
    pub fn restore(
        config: Config,
        keys: Option<LocalKeys>,
        snap: Snapshot,
    ) -> Result<Self, StoreError> {
        let mut m = ApprovalVoting::new(config, keys);
        for info in snap.sessions {
            m.sessions
                .insert(info.session_index, Arc::new(Session::new(info)));
        }
        (m.finalized, m.range_start) = snap.finalized;
        m.restore_blocks(snap.blocks, snap.block_states, snap.approval_entries)?;
        m.restore_votes(snap.assignments, snap.approvals)?;
        m.restore_timers(snap.wakeups)?;
        Ok(m)
    }

    /// The block, candidate and approval entries, and the block tree.
    fn restore_blocks(
        &mut self,
        blocks: Vec<Block>,
        block_states: Vec<(Hash, BlockStateRecord)>,
        approval_entries: Vec<(Hash, CandidateIndex, ApprovalEntryRecord)>,
    ) -> Result<(), StoreError> {
        let mut states: Map<Hash, BlockStateRecord> = block_states.into_iter().collect();
        let mut metas: Map<(Hash, CandidateIndex), ApprovalEntryRecord> = approval_entries
            .into_iter()
            .map(|(h, i, r)| ((h, i), r))
            .collect();
        for record in blocks {
            let session = self.sessions.get(&record.session).cloned().ok_or_else(|| {
                corrupt(format!(
                    "block {} refers to unknown session {}",
                    record.hash, record.session
                ))
            })?;
            let n = record.candidates.len();
            let n_validators = session.info.n_validators();
            let state = states
                .remove(&record.hash)
                .ok_or_else(|| corrupt(format!("block {} has no state record", record.hash)))?;
            let approved = ValidatorSet::from_bytes(n, &state.approved)
                .ok_or_else(|| corrupt(format!("block {}: bad approved bits", record.hash)))?;
            let distributed = ValidatorSet::from_bytes(n, &state.distributed)
                .ok_or_else(|| corrupt(format!("block {}: bad distributed bits", record.hash)))?;
            if let Some((i, _, _)) = state
                .pending_signature
                .iter()
                .find(|(i, _, _)| *i as usize >= n)
            {
                return Err(corrupt(format!(
                    "block {}: pending signature for candidate {i} of {n}",
                    record.hash
                )));
            }
            let pending_signature = state
                .pending_signature
                .iter()
                .map(|(i, h, t)| (*i, (*h, *t)))
                .collect();
            for (i, c) in record.candidates.iter().enumerate() {
                let meta = metas.remove(&(record.hash, i as u32)).ok_or_else(|| {
                    corrupt(format!(
                        "block {} candidate {i} has no approval entry",
                        record.hash
                    ))
                })?;
                let mut ae = ApprovalEntry::new(record.hash, i as u32, n_validators, None);
                ae.approved = meta.approved;
                ae.our_approval = meta.our_approval;
                ae.our = meta.our_assignment.map(|o| OurAssignment {
                    cert: o.cert,
                    tranche: o.tranche,
                    validator: o.validator,
                    triggered: o.triggered,
                    check_due: o.check_due,
                });
                self.add_approval_entry(c.hash, n_validators, ae);
            }
            self.blocks_at_height
                .entry(record.number)
                .or_default()
                .push(record.hash);
            let block_tick = record.slot.saturating_mul(self.tps);
            self.blocks.insert(
                record.hash,
                BlockEntry {
                    record,
                    session,
                    block_tick,
                    approved,
                    distributed,
                    pending_signature,
                    children: Vec::new(),
                },
            );
        }
        if let Some(((h, i), _)) = metas.into_iter().next() {
            return Err(corrupt(format!("approval entry {h} {i} without a block")));
        }
        let links: Vec<(Hash, Hash)> = self
            .blocks
            .values()
            .map(|b| (b.record.parent, b.record.hash))
            .collect();
        for (parent, child) in links {
            if let Some(p) = self.blocks.get_mut(&parent) {
                p.children.push(child);
            }
        }
        Ok(())
    }

    /// The assignments and approvals received.
    fn restore_votes(
        &mut self,
        assignments: Vec<(Hash, CandidateIndex, u32, AssignmentRecord)>,
        approvals: Vec<(CandidateHash, ValidatorIndex)>,
    ) -> Result<(), StoreError> {
        for (h, i, seq, r) in assignments {
            let chash = self
                .blocks
                .get(&h)
                .and_then(|b| b.candidate(i))
                .map(|c| c.hash)
                .ok_or_else(|| {
                    corrupt(format!("assignment for unknown block {h} candidate {i}"))
                })?;
            let ae = self
                .candidates
                .get_mut(&chash)
                .and_then(|c| c.entry_mut(&h))
                .ok_or_else(|| corrupt(format!("assignment without approval entry {h} {i}")))?;
            if r.validator.0 as usize >= ae.assigned.len() {
                return Err(corrupt(format!(
                    "assignment from validator {} out of range",
                    r.validator
                )));
            }
            ae.push_assignment(r.tranche, r.validator, r.tick);
            ae.next_seq = ae.next_seq.max(seq.saturating_add(1));
        }
        for (c, v) in approvals {
            let cand = self
                .candidates
                .get_mut(&c)
                .ok_or_else(|| corrupt(format!("approval for unknown candidate {c}")))?;
            if v.0 as usize >= cand.approvals.len() {
                return Err(corrupt(format!("approval from validator {v} out of range")));
            }
            cand.approvals.insert(v.0 as usize);
        }
        Ok(())
    }

    /// The wakeups stored, our checks in flight and our approvals waiting
    /// to be signed, as timers.
    fn restore_timers(
        &mut self,
        wakeups: Vec<(Hash, CandidateIndex, Tick)>,
    ) -> Result<(), StoreError> {
        for (h, i, t) in wakeups {
            if !self.blocks.contains_key(&h) {
                return Err(corrupt(format!("wakeup for unknown block {h}")));
            }
            self.timers.schedule_wakeup((h, i), t);
        }
        let mut in_flight = Vec::new();
        for (chash, cand) in &self.candidates {
            for ae in &cand.entries {
                if let Some(o) = &ae.our {
                    if let Some(due) = o.check_due {
                        in_flight.push((*chash, ae.block, o.validator, due));
                    }
                }
            }
        }
        for (chash, block, validator, due) in in_flight {
            let f = self.checks.entry(chash).or_insert_with(|| {
                self.timers.schedule_check(chash, due);
                RunningCheck {
                    validator,
                    blocks: Vec::new(),
                }
            });
            f.blocks.push(block);
        }
        let timers: Vec<(Hash, Tick)> = self
            .blocks
            .values()
            .filter_map(|b| {
                b.pending_signature
                    .values()
                    .map(|(_, t)| *t)
                    .min()
                    .map(|t| (b.record.hash, t))
            })
            .collect();
        for (b, t) in timers {
            self.timers.schedule_signing(b, t);
        }
        Ok(())
    }
}

fn corrupt(s: String) -> StoreError {
    StoreError::Corrupt(s)
}
