//! The state machine's vocabulary with its runtime: the inputs' data types
//! (peers, views; blocks are the primitives' `Block`) and the output actions (sends,
//! reputation changes, crypto checks to run, imports for approval voting).

use crate::check::{ApprovalCheck, AssignmentCheck};
use crate::reputation::Rep;
use std::sync::Arc;
use tranche_primitives::{BlockNumber, DelayTranche, Hash, IndirectSignedApprovalVote};

/// A connected peer. The runtime picks the numbers; they index bitsets, so
/// they must be small and dense (the peer's validator index is a good
/// choice). Ids above [`MAX_PEER_ID`] are refused. Not
/// `tranche_links::LinkPeer`, an end of the emulated links numbered by the
/// star (the benchmark's peer `i` is validator `i + 1`): the numberings
/// differ, and their types keep them from being mixed up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PeerId(pub u32);

/// Largest accepted peer id.
pub const MAX_PEER_ID: u32 = (1 << 16) - 1;

/// An assignment as it travels (the wire's item, here for the actions).
pub use tranche_primitives::AssignmentItem;

/// A peer's view: its leaves and its finalized block number.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct View {
    pub heads: Vec<Hash>,
    pub finalized_number: BlockNumber,
}

/// One item to send to one peer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outgoing {
    Assignment(Arc<AssignmentItem>),
    Approval(Arc<IndirectSignedApprovalVote>),
}

/// What the runtime must do after an input.
#[derive(Debug, Clone)]
pub enum Action {
    /// Send one item to one peer (batch with [`crate::batch_notifications`]).
    Send { peer: PeerId, item: Outgoing },
    /// Report a reputation change for a peer.
    Reputation { peer: PeerId, rep: Rep },
    /// Check this certificate (a [`crate::Verifier`], within
    /// [`crate::State::settle`]).
    CheckAssignment(AssignmentCheck),
    /// Check this signature (a [`crate::Verifier`], within
    /// [`crate::State::settle`]).
    CheckApproval(ApprovalCheck),
    /// Hand a checked assignment from a peer to approval voting.
    ImportAssignment {
        assignment: Arc<AssignmentItem>,
        tranche: DelayTranche,
    },
    /// Hand a checked approval from a peer to approval voting.
    ImportApproval {
        vote: Arc<IndirectSignedApprovalVote>,
    },
}
