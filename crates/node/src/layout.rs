//! What the node and its two layouts share, below all of them: the
//! channel capacities, the node's configuration, its errors and metrics,
//! and the [`Running`] interface each layout (`classic.rs`, `parallel.rs`)
//! provides to `node.rs`.

use crate::channel::Closed;
use crate::clock::Clock;
use crate::messages::{Architecture, CheckPolicy, Input, StoreConfig};
use crate::worker::WorkerFailure;
use std::sync::Arc;
use std::time::Duration;
use tranche_distribution::PeerId;
pub use tranche_metrics::NodeMetrics;
use tranche_primitives::Session;
use tranche_voting::LocalKeys;

pub use tranche_validator::layout::{
    INBOX_CAPACITY, VOTING_CHANNEL_CAPACITY, WORKER_CHANNEL_CAPACITY,
};

/// Everything a node needs to start.
pub struct NodeConfig {
    pub architecture: Architecture,
    pub clock: Clock,
    pub local: Option<LocalKeys>,
    pub sessions: Vec<Arc<Session>>,
    pub voting: tranche_voting::Config,
    pub distribution: tranche_distribution::Config,
    pub store: StoreConfig,
    /// Batched signatures and the checking order (defaults: batched,
    /// first in first out).
    pub checks: CheckPolicy,
}

#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    #[error(transparent)]
    WorkerFailed(#[from] WorkerFailure),
    /// The store could not be opened or read: one line naming the store,
    /// its path and the cause.
    #[error("{0}")]
    Store(String),
    #[error("cannot start thread {0}: {1}")]
    Spawn(String, std::io::Error),
    #[error("the node is not idle after {0:?} (a worker is stuck)")]
    Stalled(Duration),
    #[error("the node has stopped")]
    Stopped,
}

/// One of the two layouts, running: where each input goes, and how its
/// workers are stopped. `Node` forwards every input to it.
pub(crate) trait Running: Send + Sync {
    /// Bytes of one notification from a peer.
    fn peer_bytes(&mut self, peer: PeerId, bytes: Arc<[u8]>) -> Result<(), Closed>;
    /// Every other input.
    fn send(&mut self, input: Input) -> Result<(), Closed>;
    /// Make a worker fail: `target` 0 is the voting worker, `1..` the
    /// distribution workers.
    fn inject_fault(&self, target: usize) -> Result<(), Closed>;
    /// Tell every worker to stop.
    fn stop(&self);
}
