//! The counters of a running node, as plain data: atomics the node's
//! workers bump (`counters`, `worker`, `channel`), the CPU clocks they
//! read (`cpu`) and the process's peak memory (`memory`). No thread, channel or state machine lives here, so the
//! crates that read the counters (the report, the Prometheus endpoint) and
//! the simulation's cost figures depend on these types, not on the node.

pub mod channel;
pub mod counters;
pub mod cpu;
pub mod memory;
pub mod worker;

pub use channel::ChannelMeter;
pub use counters::{
    AtomicHistogram, HistogramSnapshot, ProtocolCounters, ScheduleStats, WaitQuantiles,
    APPROVAL_TIME_BUCKETS, ASSIGNMENT_KINDS, TOF_BUCKETS_NANOS,
};
pub use cpu::{process_cpu_time, thread_cpu_time};
pub use memory::{peak_rss_bytes, RunPeak};
pub use worker::WorkerStats;

use std::sync::Arc;

/// Per-worker, per-channel and protocol counters.
#[derive(Clone, Default)]
pub struct NodeMetrics {
    pub workers: Vec<Arc<WorkerStats>>,
    pub channels: Vec<Arc<ChannelMeter>>,
    /// What the state machines did (upstream's approval metrics).
    pub protocol: Arc<ProtocolCounters>,
    /// What `--schedule useful-first` did (empty under `fifo`).
    pub schedule: Arc<ScheduleStats>,
}

impl NodeMetrics {
    pub fn verifications(&self) -> u64 {
        self.workers.iter().map(|w| w.verifications()).sum()
    }

    /// Add the protocol counters and `useful-first`'s figures of
    /// `earlier` — the node's before a restart — to these, so that they
    /// cover the whole run (once the node has stopped:
    /// [`ProtocolCounters::absorb`]). The workers' own figures stay each
    /// node's: their CPU and checks are added by whoever reports them.
    pub fn absorb(&self, earlier: &NodeMetrics) {
        self.protocol.absorb(&earlier.protocol);
        self.schedule.absorb(&earlier.schedule);
    }
}
