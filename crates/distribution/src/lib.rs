//! Approval distribution as a sans-IO state machine (upstream `polkadot/node/network/approval-distribution/src/lib.rs`): the gossip
//! grid, per-peer knowledge, routing, deduplication, aggression, peer
//! reputation and messages waiting for their block. Inputs carry `now`;
//! outputs are [`Action`]s appended to a caller-owned vector. No threads,
//! clocks, sockets or files.
//!
//! # Driving it
//!
//! * Control: [`State::add_session`], [`State::new_gossip_topology`],
//!   [`State::peer_connected`] / [`State::peer_authority_updated`] /
//!   [`State::peer_disconnected`], [`State::peer_view_change`],
//!   [`State::our_view_change`], [`State::new_blocks`],
//!   [`State::block_finalized`].
//! * Our own messages (trusted): [`State::distribute_assignment`],
//!   [`State::distribute_approval`].
//! * Peer messages, two-phase: [`State::handle_peer_message`] does
//!   everything that needs no crypto and emits [`Action::CheckAssignment`] /
//!   [`Action::CheckApproval`] for new messages; the runtime runs
//!   [`AssignmentCheck::check`] / [`ApprovalCheck::check`] (or its own
//!   batched equivalent) wherever it likes, through a [`Verifier`] of its
//!   own, and [`State::settle`], the one loop for every runtime, feeds the
//!   verdicts back — given at once, or deferred and handed back when due
//!   ([`Verifier::due`]) — to import, route and emit
//!   [`Action::ImportAssignment`] / [`Action::ImportApproval`].
//!   Several checks may be outstanding at once:
//!   copies of a message under check, and votes needing an assignment under
//!   check, wait for its verdict. The parallel layout's distribution
//!   workers run the checks themselves, the classic layout's hands them to
//!   the voting worker (crate `tranche-node`).
//! * Sends are per (peer, item); [`batch_notifications`] cuts them into
//!   notifications by upstream's limits.
//!
//! # Determinism
//!
//! Random routing draws from [`random_routing::peer_draw`] seeded by (node
//! seed, block, validator, candidates) and a counter or the peer; peers are
//! iterated in ascending id, blocks by number then arrival. State for different
//! validators is independent, so workers that each own a subset of
//! validators send, together, exactly what one state would.
//!
//! # Deliberate differences from upstream
//!
//! * Upstream quirks kept or decided: an empty claimed bitfield is oversized
//!   (`COST_OVERSIZED_BITFIELD`); a vote naming no candidate is invalid
//!   (`COST_INVALID_MESSAGE`); a too-far-in-the-future assignment is not
//!   remembered (as upstream); out-of-view messages are charged and still
//!   processed (as upstream).
//! * A message is never sent back to the peer it came from (upstream may,
//!   when that peer is on the grid routing).
//! * Messages held for unknown blocks are bounded per block
//!   ([`Config::max_pending_per_block`]) and per peer within a block
//!   ([`Config::max_pending_per_peer`]); upstream holds them without bound.
//! * Validator index out of range, an unknown session and claimed
//!   candidates out of range are judged before the crypto check (same
//!   reputation as upstream's failing check).
//! * A peer's validator identity is one index for all sessions (upstream
//!   maps authority-discovery keys per session).

mod action;
mod batch;
mod check;
pub mod random_routing;
pub use tranche_primitives::reputation;
mod settle;
mod state;
pub mod topology;

pub use action::{Action, AssignmentItem, Outgoing, PeerId, View, MAX_PEER_ID};
pub use batch::{batch_notifications, batch_notifications_into};
pub use check::{
    ApprovalCheck, ApprovalVerdict, AssignmentCheck, AssignmentVerdict, CheckToken, InvalidVote,
};
pub use settle::{AnswerWith, CheckVerdict, DeferredVerdict, GroupSize, Import, Settled, Verifier};
pub use state::{
    AggressionConfig, BlockKnowledge, Config, PeerIdTooLarge, State, RECENTLY_OUTDATED,
};
pub use topology::{GridNeighbours, RequiredRouting, SessionGridTopology};
