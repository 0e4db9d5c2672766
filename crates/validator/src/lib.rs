//! The one glue between a validator's two state machines, without threads,
//! clocks or channels: what approval-distribution (`tranche-distribution`)
//! accepted, as approval-voting (`tranche-voting`) imports it, and
//! voting's actions, each handed to the one method of [`Effects`] that
//! carries it out. Both runtimes build on it: the node's workers
//! (`tranche-node`, where the two machines run on threads of their own)
//! and every validator of the whole-network simulation
//! (`tranche-simulation`, where they run in one object). How the two are
//! laid out on threads — the layouts, the default workers, the queues'
//! capacities — is in [`layout`], the one place the node and the
//! simulation's CPU model read.

pub use tranche_records::layout;

use tranche_distribution::AssignmentItem;
use tranche_primitives::{
    Block, BlockNumber, CandidateBitfield, CandidateIndex, DelayTranche, Hash,
    IndirectAssignmentCert, IndirectSignedApprovalVote, Tick, ValidatorIndex,
};
use tranche_voting::{Action, CheckedApproval, CheckedAssignment};

/// An assignment distribution accepted (its certificate proved `tranche`),
/// as voting imports it.
pub fn checked_assignment(item: &AssignmentItem, tranche: DelayTranche) -> CheckedAssignment {
    CheckedAssignment {
        block_hash: item.cert.block_hash,
        validator: item.cert.validator,
        claimed: item.claimed.clone(),
        tranche,
        cert: Some(item.cert.cert.clone()),
    }
}

/// An approval distribution accepted (its signature checked), as voting
/// imports it.
pub fn checked_approval(vote: &IndirectSignedApprovalVote) -> CheckedApproval {
    CheckedApproval {
        block_hash: vote.block_hash,
        validator: vote.validator,
        candidates: vote.candidate_indices.clone(),
        signature: vote.signature,
    }
}

/// Whether carrying out `actions` tells anyone something — our own
/// assignment or approval, a block approved — which a runtime with a
/// database makes durable first (docs/durability.md).
pub fn announces(actions: &[Action]) -> bool {
    actions.iter().any(|a| {
        matches!(
            a,
            Action::DistributeAssignment { .. }
                | Action::DistributeApproval(_)
                | Action::BlockApproved { .. }
        )
    })
}

/// A candidate became approved under a block (voting's
/// `Action::CandidateApproved`, the fields runtimes use).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CandidateApproved {
    pub block: Hash,
    pub candidate_index: CandidateIndex,
    pub tick: Tick,
    /// Approved through the one-third rule.
    pub one_third: bool,
    /// No-shows tolerated (covered by later tranches).
    pub tolerated_no_shows: usize,
}

/// What a runtime does with voting's actions; [`dispatch`] calls one
/// method per action, in order. The import results are for tests and
/// have no method.
pub trait Effects {
    type Error;
    /// A block was imported: distribution learns it.
    fn new_block(&mut self, block: Block) -> Result<(), Self::Error>;
    /// Send our assignment.
    fn distribute_assignment(
        &mut self,
        cert: IndirectAssignmentCert,
        claimed: CandidateBitfield,
    ) -> Result<(), Self::Error>;
    /// Send our (possibly coalesced) approval.
    fn distribute_approval(&mut self, vote: IndirectSignedApprovalVote) -> Result<(), Self::Error>;
    fn candidate_approved(&mut self, approved: CandidateApproved) -> Result<(), Self::Error>;
    /// Every candidate of the block is approved: chain selection is told.
    fn block_approved(
        &mut self,
        block: Hash,
        number: BlockNumber,
        tick: Tick,
    ) -> Result<(), Self::Error>;
    /// Assignees first seen as no-shows.
    fn no_show_observed(
        &mut self,
        _block: Hash,
        _validators: &[ValidatorIndex],
    ) -> Result<(), Self::Error> {
        Ok(())
    }
    /// A block was pruned on finality.
    fn block_pruned(&mut self, _block: Hash, _number: BlockNumber) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Carry out voting's actions, in order, through `effects`.
pub fn dispatch<E: Effects>(
    actions: impl IntoIterator<Item = Action>,
    effects: &mut E,
) -> Result<(), E::Error> {
    for action in actions {
        match action {
            Action::NewBlock(b) => effects.new_block(b)?,
            Action::DistributeAssignment { cert, claimed } => {
                effects.distribute_assignment(cert, claimed)?
            }
            Action::DistributeApproval(vote) => effects.distribute_approval(vote)?,
            Action::CandidateApproved {
                block,
                candidate_index,
                tick,
                one_third,
                tolerated_no_shows,
                ..
            } => effects.candidate_approved(CandidateApproved {
                block,
                candidate_index,
                tick,
                one_third,
                tolerated_no_shows,
            })?,
            Action::BlockApproved {
                block,
                number,
                tick,
            } => effects.block_approved(block, number, tick)?,
            Action::NoShowObserved {
                block, validators, ..
            } => effects.no_show_observed(block, &validators)?,
            Action::BlockPruned { block, number } => effects.block_pruned(block, number)?,
            Action::AssignmentImported { .. } | Action::ApprovalImported { .. } => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records the order in which the methods were called.
    #[derive(Default)]
    struct Log(Vec<&'static str>);

    impl Effects for Log {
        type Error = ();
        fn new_block(&mut self, _: Block) -> Result<(), ()> {
            self.0.push("block");
            Ok(())
        }
        fn distribute_assignment(
            &mut self,
            _: IndirectAssignmentCert,
            _: CandidateBitfield,
        ) -> Result<(), ()> {
            self.0.push("assignment");
            Ok(())
        }
        fn distribute_approval(&mut self, _: IndirectSignedApprovalVote) -> Result<(), ()> {
            self.0.push("approval");
            Ok(())
        }
        fn candidate_approved(&mut self, c: CandidateApproved) -> Result<(), ()> {
            assert_eq!(
                (c.candidate_index, c.tick, c.tolerated_no_shows),
                (3, 40, 1)
            );
            self.0.push("candidate");
            Ok(())
        }
        fn block_approved(&mut self, _: Hash, n: BlockNumber, _: Tick) -> Result<(), ()> {
            if n == 9 {
                return Err(());
            }
            self.0.push("approved");
            Ok(())
        }
        fn no_show_observed(&mut self, _: Hash, v: &[ValidatorIndex]) -> Result<(), ()> {
            assert_eq!(v, [ValidatorIndex(5)]);
            self.0.push("no-show");
            Ok(())
        }
    }

    fn vote() -> IndirectSignedApprovalVote {
        IndirectSignedApprovalVote {
            block_hash: Hash([1; 32]),
            candidate_indices: CandidateBitfield::from_indices(&[0, 2]).unwrap(),
            validator: ValidatorIndex(4),
            signature: tranche_primitives::ValidatorSignature([7; 64]),
        }
    }

    #[test]
    fn every_action_reaches_its_method_in_order_and_an_error_stops_the_rest() {
        let h = Hash([1; 32]);
        let actions = vec![
            Action::DistributeApproval(vote()),
            Action::NoShowObserved {
                block: h,
                candidate_index: 3,
                validators: vec![ValidatorIndex(5)],
                tick: 40,
            },
            Action::CandidateApproved {
                block: h,
                candidate_index: 3,
                candidate: tranche_primitives::CandidateHash(Hash([2; 32])),
                tick: 40,
                tranche: 0,
                one_third: false,
                tolerated_no_shows: 1,
                required: None,
            },
            Action::BlockApproved {
                block: h,
                number: 1,
                tick: 40,
            },
            Action::BlockApproved {
                block: h,
                number: 9,
                tick: 41,
            },
            Action::BlockPruned {
                block: h,
                number: 1,
            },
        ];
        assert!(announces(&actions));
        assert!(!announces(&actions[1..3]));
        let mut log = Log::default();
        assert_eq!(dispatch(actions, &mut log), Err(()));
        assert_eq!(log.0, ["approval", "no-show", "candidate", "approved"]);
    }

    #[test]
    fn checked_items_carry_what_distribution_accepted() {
        let v = vote();
        let a = checked_approval(&v);
        assert_eq!(
            (a.block_hash, a.validator, &a.candidates, a.signature),
            (v.block_hash, v.validator, &v.candidate_indices, v.signature)
        );
    }
}
