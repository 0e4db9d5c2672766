//! A simulated validator carrying out voting's actions through the glue
//! every runtime shares (`tranche_validator::dispatch` and its `Effects`):
//! into its distribution state machine, its record, the shared verdicts
//! and, with the CPU model, the time its own work costs.

use tranche_distribution::Action;
use tranche_report::network::Behaviour;
use tranche_validator::{dispatch, CandidateApproved, Effects};
use tranche_voting as voting;

use crate::drawn::Model;
use crate::member::{slot_ms, tick_of, Packet, SimNode};
use crate::verdicts::Verdicts;

impl SimNode {
    /// Carry out voting's actions (through the glue every runtime shares,
    /// `tranche_validator::dispatch`), then settle what they caused.
    pub(crate) fn apply_voting(
        &mut self,
        now_ms: u64,
        o: voting::Output,
        v: &Verdicts,
        m: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let work = std::mem::take(&mut self.actions);
        let mut carry = Carry {
            node: self,
            now_ms,
            v,
            m,
            out,
            work,
        };
        match dispatch(o.actions, &mut carry) {
            Ok(()) => {}
            Err(never) => match never {},
        }
        let work = carry.work;
        self.settle(now_ms, work, v, m, out);
    }
}

/// A simulated validator carrying out voting's actions: into its
/// distribution state machine and its record.
struct Carry<'a> {
    node: &'a mut SimNode,
    now_ms: u64,
    v: &'a Verdicts,
    m: &'a Model,
    out: &'a mut Vec<(u64, Packet)>,
    /// What distribution asked for meanwhile, settled afterwards.
    work: Vec<Action>,
}

impl Effects for Carry<'_> {
    type Error = std::convert::Infallible;

    fn new_block(&mut self, b: tranche_primitives::Block) -> Result<(), Self::Error> {
        self.node
            .dist
            .new_blocks(tick_of(self.now_ms), vec![b], &mut self.work);
        Ok(())
    }

    fn distribute_assignment(
        &mut self,
        cert: tranche_primitives::IndirectAssignmentCert,
        claimed: tranche_primitives::CandidateBitfield,
    ) -> Result<(), Self::Error> {
        let n = &mut *self.node;
        if let Some(i) = n.block_index(&cert.block_hash) {
            n.record.blocks[i].own_assignments += claimed.count_ones() as u32;
            let item = tranche_primitives::AssignmentItem {
                cert: cert.clone(),
                claimed: claimed.clone(),
            };
            let first = claimed.iter_ones().next();
            let tranche = first.and_then(|c| n.voting.our_tranche(&cert.block_hash, c));
            self.v
                .made_assignment(&item, tranche, &n.blocks[i], &n.session);
        }
        n.dist.distribute_assignment(cert, claimed, &mut self.work);
        Ok(())
    }

    fn distribute_approval(
        &mut self,
        vote: tranche_primitives::IndirectSignedApprovalVote,
    ) -> Result<(), Self::Error> {
        let n = &mut *self.node;
        if let Some(busy) = n.busy.as_mut() {
            busy.owed_voting += busy.costs.own_approval();
        }
        if n.behaviour == Behaviour::NoShow {
            return Ok(());
        }
        if let Some(i) = n.block_index(&vote.block_hash) {
            let start = slot_ms(&n.blocks[i]);
            let r = &mut n.record.blocks[i];
            r.own_approvals += 1;
            r.last_approval_after_ms = Some(self.now_ms.saturating_sub(start));
            self.v.made_approval(&vote, &n.blocks[i], &n.session);
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
        let n = &mut *self.node;
        if let Some(i) = n.block_index(&block) {
            let r = &mut n.record.blocks[i];
            if r.approved_after_ms.is_none() {
                let start = slot_ms(&n.blocks[i]);
                r.approved_after_ms = Some(self.now_ms.saturating_sub(start));
            }
            n.announce_approved(self.now_ms, self.v, self.m, self.out);
        }
        Ok(())
    }

    fn no_show_observed(
        &mut self,
        block: tranche_primitives::Hash,
        validators: &[tranche_primitives::ValidatorIndex],
    ) -> Result<(), Self::Error> {
        let n = &mut *self.node;
        if let Some(i) = n.block_index(&block) {
            n.record.blocks[i].no_shows += validators.len() as u32;
        }
        Ok(())
    }
}
