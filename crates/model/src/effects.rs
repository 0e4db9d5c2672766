//! A validator's protocol carrying out voting's actions through the glue
//! every runtime shares (`tranche_validator::dispatch` and its `Effects`):
//! into its distribution state machine, its record, the shared verdicts,
//! finality and, with the CPU model, the time its own work costs.

use tranche_distribution::Action;
use tranche_validator::{dispatch, CandidateApproved, Effects};
use tranche_voting as voting;

use crate::protocol::{Cx, Protocol};
use crate::time::{slot_ms, tick_of};

impl Protocol {
    /// Carry out voting's actions (through the glue every runtime shares,
    /// `tranche_validator::dispatch`), then settle what they caused.
    pub(crate) fn apply_voting(&mut self, now_ms: u64, o: &mut voting::Output, cx: Cx<'_>) {
        // No database under the model: the writes are dropped.
        o.writes.ops.clear();
        let work = std::mem::take(&mut self.actions);
        let mut carry = Carry {
            protocol: self,
            now_ms,
            cx,
            work,
        };
        match dispatch(o.actions.drain(..), &mut carry) {
            Ok(()) => {}
            Err(never) => match never {},
        }
        let work = carry.work;
        self.settle(now_ms, work, cx);
    }
}

/// A validator carrying out voting's actions: into its distribution
/// state machine and its record.
struct Carry<'p, 'c> {
    protocol: &'p mut Protocol,
    now_ms: u64,
    cx: Cx<'c>,
    /// What distribution asked for meanwhile, settled afterwards.
    work: Vec<Action>,
}

impl Effects for Carry<'_, '_> {
    type Error = std::convert::Infallible;

    fn new_block(&mut self, b: tranche_primitives::Block) -> Result<(), Self::Error> {
        self.protocol
            .dist
            .new_blocks(tick_of(self.now_ms), vec![b], &mut self.work);
        Ok(())
    }

    fn distribute_assignment(
        &mut self,
        cert: tranche_primitives::IndirectAssignmentCert,
        claimed: tranche_primitives::CandidateBitfield,
    ) -> Result<(), Self::Error> {
        let n = &mut *self.protocol;
        if let Some(i) = n.block_index(&cert.block_hash) {
            n.records[i].own_assignments += claimed.count_ones() as u32;
            let item = std::sync::Arc::new(tranche_primitives::AssignmentItem {
                cert: cert.clone(),
                claimed: claimed.clone(),
            });
            let first = claimed.iter_ones().next();
            let tranche = first.and_then(|c| n.voting.our_tranche(&cert.block_hash, c));
            self.cx
                .verdicts
                .made_assignment(&item, tranche, &n.blocks[i], &n.session);
        }
        n.dist.distribute_assignment(cert, claimed, &mut self.work);
        Ok(())
    }

    fn distribute_approval(
        &mut self,
        vote: tranche_primitives::IndirectSignedApprovalVote,
    ) -> Result<(), Self::Error> {
        let n = &mut *self.protocol;
        if let Some(costs) = &n.costs {
            n.owed.voting += costs.own_approval();
        }
        if n.no_show() {
            return Ok(());
        }
        if let Some(i) = n.block_index(&vote.block_hash) {
            let start = slot_ms(&n.blocks[i]);
            let r = &mut n.records[i];
            r.own_approvals += 1;
            r.last_approval_after_ms = Some(self.now_ms.saturating_sub(start));
            self.cx.verdicts.made_approval(
                &std::sync::Arc::new(vote.clone()),
                &n.blocks[i],
                &n.session,
            );
        }
        n.dist.distribute_approval(vote, &mut self.work);
        Ok(())
    }

    fn candidate_approved(&mut self, _: CandidateApproved) -> Result<(), Self::Error> {
        Ok(())
    }

    fn block_approved(
        &mut self,
        block: tranche_primitives::Hash,
        _: tranche_primitives::BlockNumber,
        _: tranche_primitives::Tick,
    ) -> Result<(), Self::Error> {
        let n = &mut *self.protocol;
        if let Some(i) = n.block_index(&block) {
            let r = &mut n.records[i];
            if r.approved_after_ms.is_none() {
                let start = slot_ms(&n.blocks[i]);
                r.approved_after_ms = Some(self.now_ms.saturating_sub(start));
                n.ready.approved.push(i);
            }
            n.announce_approved(self.now_ms, self.cx);
        }
        Ok(())
    }

    fn no_show_observed(
        &mut self,
        block: tranche_primitives::Hash,
        validators: &[tranche_primitives::ValidatorIndex],
    ) -> Result<(), Self::Error> {
        let n = &mut *self.protocol;
        if let Some(i) = n.block_index(&block) {
            n.records[i].no_shows += validators.len() as u32;
        }
        Ok(())
    }
}
