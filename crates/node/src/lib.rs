//! Runs the approval-voting and approval-distribution state machines
//! (crates/voting, crates/distribution) on real threads, in either of two
//! layouts, behind one [`Node`] interface.
//!
//! The *classic* layout (`classic.rs`) is one distribution worker and one
//! voting worker that checks crypto; the *parallel* layout (`parallel.rs`)
//! is a router, N distribution workers that check crypto, chosen by
//! validator index mod N, and one voting worker. Both run the same workers
//! (`distribution_worker.rs`, `voting_worker.rs`) in the same worker loop
//! (`worker.rs`), over metered channels (`channel.rs`), on a real or virtual
//! clock (`clock.rs`), with per-thread CPU time and protocol counters from
//! crates/metrics (`crates/metrics/src/cpu.rs`, `counters.rs`), re-exported
//! here. A parallel-layout worker checks the certificates of a drained
//! batch back to back (`ahead.rs`).

mod ahead;
mod backlog;
mod channel;
mod checks;
mod classic;
mod clock;

mod distribution_worker;
mod fanout;
mod layout;
mod leaves;
mod maps;
mod messages;

mod node;
mod parallel;
mod reputation;
mod voting_worker;
mod wiring;
mod worker;

pub use channel::ChannelMeter;
pub use clock::Clock;
pub use messages::{
    ApprovalSignatures, Architecture, CheckPolicy, Layout, NodeEvent, Schedule, SignatureCheck,
    StoreConfig, DEFAULT_AHEAD_BATCH, DEFAULT_WORKERS,
};
pub use node::{
    Node, NodeConfig, NodeError, INBOX_CAPACITY, VOTING_CHANNEL_CAPACITY, WORKER_CHANNEL_CAPACITY,
};
pub use tranche_metrics::{process_cpu_time, thread_cpu_time};
pub use tranche_metrics::{
    AtomicHistogram, HistogramSnapshot, NodeMetrics, ProtocolCounters, ScheduleStats,
    WaitQuantiles, APPROVAL_TIME_BUCKETS, ASSIGNMENT_KINDS, TOF_BUCKETS_NANOS,
};
pub use worker::{WorkerFailure, WorkerStats, CPU_SAMPLE_EVERY};
