//! What a run measures as it goes, beside the node under test: the
//! samples for the plots, the CPU and wall clocks at the run's start, its
//! peak memory and the live figures of the Prometheus endpoint. The driver
//! (`driver.rs`) fills it; the node under test (`under_test.rs`) reads its
//! clocks to report its own CPU.

use std::sync::Arc;
use std::time::{Duration, Instant};
use tranche_node::{process_cpu_time, thread_cpu_time};
use tranche_prometheus::LiveRun;
use tranche_report::Sample;

/// What a run measures as it goes: the samples for the plots, where the
/// CPU clocks and the wall clock stood at its start, its peak memory and
/// the live figures of the Prometheus endpoint.
pub(super) struct Meter {
    pub samples: Vec<Sample>,
    pub last_sample: Instant,
    /// When the real clock's first tick began.
    pub real_start: Instant,
    pub driver_cpu_start: Duration,
    pub process_cpu_start: Duration,
    pub wall_start: Instant,
    pub live: Option<Arc<LiveRun>>,
    /// How the run's peak memory is measured (reset at its start).
    pub peak_rss: tranche_metrics::RunPeak,
}

impl Meter {
    /// The clocks read and the peak memory reset, before the node under
    /// test is built (its start counts in the run).
    pub fn start() -> Meter {
        Meter {
            samples: Vec::new(),
            last_sample: Instant::now(),
            real_start: Instant::now(),
            driver_cpu_start: thread_cpu_time(),
            process_cpu_start: process_cpu_time(),
            wall_start: Instant::now(),
            live: None,
            peak_rss: tranche_metrics::RunPeak::start(),
        }
    }
}
