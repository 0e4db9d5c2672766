//! Read-only queries: the approved ancestor for GRANDPA (upstream
//! `handle_approved_ancestor` in
//! `polkadot/node/core/approval-voting/src/lib.rs`), block and candidate
//! approval, a pair's status, the leaves and the sizes of the state.

use super::entries::status_of;
use super::interface::CandidateStatus;
use super::ApprovalVoting;
use tranche_primitives::{BlockNumber, CandidateIndex, DelayTranche, Hash, Tick};

impl ApprovalVoting {
    /// A session the machine knows (from the blocks imported in it).
    pub fn session(
        &self,
        index: tranche_primitives::SessionIndex,
    ) -> Option<std::sync::Arc<tranche_primitives::Session>> {
        self.sessions.get(&index).cloned()
    }

    /// Whether an assignment claiming `tranche` of `block` is too far in
    /// the future at `now` (`TICK_TOO_FAR_IN_FUTURE` ticks or more ahead of
    /// the block's current tranche): the check upstream's approval-voting
    /// made before importing, in `check_and_import_assignment`
    /// (`polkadot/node/core/approval-voting/src/lib.rs`, before
    /// polkadot-sdk#4928 moved it to approval-distribution). `false` for an
    /// unknown block (the import itself then answers).
    pub fn is_too_far_in_future(
        &self,
        now: Tick,
        block: &Hash,
        tranche: tranche_primitives::DelayTranche,
    ) -> bool {
        let Some(b) = self.blocks.get(block) else {
            return false;
        };
        let tranche_now = now.saturating_sub(b.block_tick);
        Tick::from(tranche)
            >= tranche_now.saturating_add(tranche_primitives::time::TICK_TOO_FAR_IN_FUTURE)
    }

    /// The highest block `H` on `target`'s chain such that every block from
    /// `lower_bound + 1` up to `H` is approved (upstream
    /// `handle_approved_ancestor` in
    /// `polkadot/node/core/approval-voting/src/lib.rs`); `None` means "vote on
    /// the lower bound", also when part of the chain is unknown.
    pub fn approved_ancestor(
        &self,
        target: &Hash,
        lower_bound: BlockNumber,
    ) -> Option<(Hash, BlockNumber)> {
        let mut cur = self.blocks.get(target)?;
        let target_number = cur.record.number;
        if target_number <= lower_bound {
            return None;
        }
        let mut best = None;
        loop {
            if cur.approved.is_full() {
                if best.is_none() {
                    best = Some((cur.record.hash, cur.record.number));
                }
            } else {
                best = None;
            }
            if cur.record.number <= lower_bound.saturating_add(1) {
                break;
            }
            let parent = self.blocks.get(&cur.record.parent)?;
            if parent.record.number >= cur.record.number {
                return None;
            }
            cur = parent;
        }
        best
    }

    /// Whether a block is known (imported and not pruned).
    pub fn has_block(&self, hash: &Hash) -> bool {
        self.blocks.contains_key(hash)
    }

    /// Whether every candidate of a block is approved.
    pub fn is_block_approved(&self, hash: &Hash) -> Option<bool> {
        self.blocks.get(hash).map(|b| b.approved.is_full())
    }

    /// Whether a candidate is approved under a block.
    pub fn is_candidate_approved(&self, hash: &Hash, idx: CandidateIndex) -> Option<bool> {
        let b = self.blocks.get(hash)?;
        (idx < b.record.candidates.len() as u32).then(|| b.approved.contains(idx as usize))
    }

    /// Known blocks that have no known child.
    pub fn leaves(&self) -> Vec<(Hash, BlockNumber)> {
        let mut v: Vec<_> = self
            .blocks
            .values()
            .filter(|b| b.children.iter().all(|c| !self.blocks.contains_key(c)))
            .map(|b| (b.record.hash, b.record.number))
            .collect();
        v.sort();
        v
    }

    /// The approval status of a pair as of `now` (read-only).
    pub fn candidate_status(
        &self,
        now: Tick,
        hash: &Hash,
        idx: CandidateIndex,
    ) -> Option<CandidateStatus> {
        let block = self.blocks.get(hash)?;
        let chash = &block.candidate(idx)?.hash;
        let cand = self.candidates.get(chash)?;
        let ae = cand.entry(hash)?;
        let status = status_of(block, ae, &cand.approvals, now, self.tps);
        Some(CandidateStatus {
            candidate: *chash,
            required: status.required,
            no_shows: status.no_show_validators,
            assignments: ae.n_assignments(),
            approvals: cand.approvals.count(),
            approved: block.approved.contains(idx as usize),
        })
    }

    /// The tranche of our own assignment to a pair, if we hold one: what a
    /// check of the certificate we sent would find (the simulation's
    /// `--verify model` records it where the certificate is made instead
    /// of checking).
    pub fn our_tranche(&self, hash: &Hash, idx: CandidateIndex) -> Option<DelayTranche> {
        let block = self.blocks.get(hash)?;
        let cand = self.candidates.get(&block.candidate(idx)?.hash)?;
        cand.entry(hash)?.our.as_ref().map(|o| o.tranche)
    }

    /// Number of known blocks and candidates.
    pub fn sizes(&self) -> (usize, usize) {
        (self.blocks.len(), self.candidates.len())
    }
}
