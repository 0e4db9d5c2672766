//! What a run of Polkadot's subsystems is made of and gives back per
//! block, shared by the node's building ([`crate::node`]), the drivers
//! ([`crate::drive`]) and the run ([`crate::run`]): the layout, a step
//! prepared once for every layout, a block's outcome, the slot's length.
//! Apart from all three, so that none imports another in a circle.

use crate::chain::Chain;
use polkadot_node_network_protocol::v3 as protocol_v3;
use polkadot_node_primitives::approval::time::Tick;
use std::sync::Arc;
use tranche_config::BenchStep;

/// Polkadot's slot length, as the benchmark's chain has it.
pub const SLOT_DURATION_MILLIS: u64 = 6_000;
/// Which of Polkadot's node layouts runs: classic (approval-voting and
/// approval-distribution, each a subsystem) or parallel
/// (approval-voting-parallel with its workers); tranche's one layout type.
pub use tranche_config::node_shape::Layout;

/// A step's chain and messages, made once and run in any layout, by
/// Polkadot's node or by tranche's (the cross-check).
pub struct Prepared {
    pub step: BenchStep,
    /// tranche's world (with Polkadot's hashes and stories written in),
    /// the peers' messages and the emulated network, as tranche's own
    /// runs take them.
    pub tranche: tranche_bench::run::Prepared,
    pub chain: Arc<Chain>,
    /// Each message decoded as Polkadot's v3 type, by bundle, then its
    /// assignments followed by its approvals (tranche's `MessageId`).
    pub decoded: Vec<Vec<(protocol_v3::ApprovalDistributionMessage, usize)>>,
    /// Tick of each block's slot start.
    pub block_ticks: Vec<Tick>,
    /// Which validators are connected to the node (index 0, the node,
    /// false): the step's `connectivity`, chosen as tranche's emulated
    /// network chooses it for the same seed.
    pub connected: Vec<bool>,
}

/// A block's outcome.
#[derive(Debug, Clone)]
pub struct BlockOutcome {
    pub number: u32,
    /// Seconds from the first block's import to this one's (at the
    /// virtual clock: its tick, 500 ms each).
    pub imported_s: f64,
    /// Seconds from the block's slot start (where the driver imports it;
    /// at the real clock it may import it later, when the overseer is
    /// busy) to chain selection hearing it is approved, as upstream's
    /// chain selection mock counts them.
    pub approved_after_s: Option<f64>,
}
