//! The figures of a run in progress that the driver publishes and the
//! collectors read at scrape time (the node's own counters are read from
//! its atomics).

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tranche_metrics::NodeMetrics;

/// The figures of the run in progress that the driver publishes (the node's
/// own counters are read directly from its atomics).
pub struct LiveRun {
    pub step: String,
    pub architecture: String,
    pub clock: String,
    pub n_validators: u32,
    pub n_cores: u32,
    pub node: NodeMetrics,
    pub(crate) current_block: AtomicU64,
    /// Seconds since the run's start (`f64` bits), as the samples' `t_s`.
    pub(super) run_seconds: AtomicU64,
    pub(super) env_cpu_nanos: AtomicU64,
    pub(super) node_received: AtomicU64,
    pub(super) node_sent: AtomicU64,
    /// Per emulated peer (validator `i + 1`): bytes it sent, bytes it
    /// received. Written once per sample by the driver.
    pub(crate) peers: Mutex<Vec<(u64, u64)>>,
    /// Per block: number, approval time in ms after its slot start.
    pub(super) blocks: Mutex<Vec<(u32, Option<u64>)>>,
    /// Whether the run ended (a later run started, or `finish_run`).
    pub(super) finished: AtomicBool,
    /// Once it ended: its floor and node CPU ÷ floor (`finish_run`).
    pub(super) floor: Mutex<Option<FloorFigures>>,
}

/// A finished run's crypto floor per block, both ways, and the node's CPU
/// ÷ the floor its layout is judged by (`RunReport::floor_ratio`).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct FloorFigures {
    pub one_by_one_per_block_s: f64,
    pub batched_per_block_s: f64,
    /// `one-by-one` or `batched`: the floor the layout is judged by.
    pub judged_by: &'static str,
    pub node_ratio: f64,
}

impl fmt::Debug for LiveRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveRun")
            .field("step", &self.step)
            .field("architecture", &self.architecture)
            .finish_non_exhaustive()
    }
}

/// The lock, whether or not a holder panicked (the figures stay readable).
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl LiveRun {
    pub fn new(
        step: &str,
        architecture: &str,
        clock: &str,
        n_validators: u32,
        n_cores: u32,
        node: NodeMetrics,
    ) -> Arc<Self> {
        Arc::new(LiveRun {
            step: step.into(),
            architecture: architecture.into(),
            clock: clock.into(),
            n_validators,
            n_cores,
            node,
            current_block: AtomicU64::new(0),
            run_seconds: AtomicU64::new(0),
            env_cpu_nanos: AtomicU64::new(0),
            node_received: AtomicU64::new(0),
            node_sent: AtomicU64::new(0),
            peers: Mutex::new(Vec::new()),
            blocks: Mutex::new(Vec::new()),
            finished: AtomicBool::new(false),
            floor: Mutex::new(None),
        })
    }

    /// The run ended with `report`: no longer the run in progress, and
    /// its floor and node CPU ÷ floor are known (none served without a
    /// floor, `--floor off`: not a floor of 0).
    pub fn finish(&self, report: &tranche_results::RunReport) {
        let f = &report.crypto_floor;
        *lock(&self.floor) = report.has_floor().then(|| FloorFigures {
            one_by_one_per_block_s: f.per_block_s,
            batched_per_block_s: f.batched_per_block_s,
            judged_by: if report.batches_signatures() {
                "batched"
            } else {
                "one-by-one"
            },
            node_ratio: report.floor_ratio(),
        });
        self.finished.store(true, Ordering::Relaxed);
    }

    /// The driver's figures at one sample, `t_s` seconds after the run's
    /// start.
    #[allow(clippy::too_many_arguments)]
    pub fn publish(
        &self,
        t_s: f64,
        current_block: u64,
        env_cpu: Duration,
        node_received: u64,
        node_sent: u64,
        peers: impl Iterator<Item = (u64, u64)>,
        blocks: impl Iterator<Item = (u32, Option<u64>)>,
    ) {
        self.run_seconds.store(t_s.to_bits(), Ordering::Relaxed);
        self.current_block.store(current_block, Ordering::Relaxed);
        self.env_cpu_nanos
            .store(env_cpu.as_nanos() as u64, Ordering::Relaxed);
        self.node_received.store(node_received, Ordering::Relaxed);
        self.node_sent.store(node_sent, Ordering::Relaxed);
        {
            let mut p = lock(&self.peers);
            p.clear();
            p.extend(peers);
        }
        let mut b = lock(&self.blocks);
        b.clear();
        b.extend(blocks);
    }
}
