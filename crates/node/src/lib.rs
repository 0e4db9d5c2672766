//! Runtimes that drive the voting and distribution state machines on real
//! threads: the classic layout (one distribution worker, one voting worker
//! that checks crypto) and the parallel layout (a router, N distribution
//! workers that check crypto, one voting worker), with real and virtual
//! clocks, metered channels and per-thread CPU accounting.

pub mod channel;
mod classic;
pub mod clock;
pub mod cpu;
mod distribution_worker;
mod fanout;
pub mod leaves;
pub mod messages;
pub mod metrics;
mod node;
mod parallel;
mod voting_worker;
mod wiring;
pub mod worker;

pub use clock::Clock;
pub use messages::{Architecture, NodeEvent, StoreConfig, DEFAULT_WORKERS};
pub use node::{
    Node, NodeConfig, NodeError, NodeMetrics, INBOX_CAPACITY, VOTING_CHANNEL_CAPACITY,
    WORKER_CHANNEL_CAPACITY,
};
pub use worker::CPU_SAMPLE_EVERY;
