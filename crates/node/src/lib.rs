//! Runtimes that drive the voting and distribution state machines on real
//! threads: the classic layout (one distribution worker, one voting worker
//! that checks crypto) and the parallel layout (a router, N distribution
//! workers that check crypto, one voting worker), with real and virtual
//! clocks, metered channels and per-thread CPU accounting.

mod channel;
mod classic;
mod clock;
mod cpu;
mod distribution_worker;
mod fanout;
mod leaves;
mod messages;
mod metrics;
mod node;
mod parallel;
mod voting_worker;
mod wiring;
mod worker;

pub use channel::ChannelMeter;
pub use clock::Clock;
pub use cpu::{process_cpu_time, thread_cpu_time};
pub use messages::{Architecture, NodeEvent, StoreConfig, DEFAULT_WORKERS};
pub use metrics::{
    AtomicHistogram, HistogramSnapshot, ProtocolCounters, APPROVAL_TIME_BUCKETS, ASSIGNMENT_KINDS,
    TOF_BUCKETS_NANOS,
};
pub use node::{
    Node, NodeConfig, NodeError, NodeMetrics, INBOX_CAPACITY, VOTING_CHANNEL_CAPACITY,
    WORKER_CHANNEL_CAPACITY,
};
pub use worker::{WorkerFailure, WorkerStats, CPU_SAMPLE_EVERY};
