//! What one channel between workers records: messages in and out, the
//! depth a sender saw, and each message's time in queue.

use crate::counters::{HistogramSnapshot, TOF_BUCKETS_NANOS};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Counters of one channel, read by the metrics registry.
#[derive(Debug)]
pub struct ChannelMeter {
    pub name: String,
    pub capacity: Option<usize>,
    sent: AtomicU64,
    received: AtomicU64,
    queue_nanos: AtomicU64,
    /// Time in queue of each message received, counted per bucket of
    /// [`TOF_BUCKETS_NANOS`] plus overflow (upstream's `*_tof`); the sum is
    /// `queue_nanos`.
    tof_buckets: [AtomicU64; TOF_BUCKETS_NANOS.len() + 1],
    /// Highest depth seen by a sender since the last
    /// [`ChannelMeter::take_window_peak`].
    window_peak: AtomicU64,
}

impl ChannelMeter {
    pub fn new(name: impl Into<String>, capacity: Option<usize>) -> Arc<Self> {
        Arc::new(ChannelMeter {
            name: name.into(),
            capacity,
            sent: AtomicU64::new(0),
            received: AtomicU64::new(0),
            queue_nanos: AtomicU64::new(0),
            tof_buckets: Default::default(),
            window_peak: AtomicU64::new(0),
        })
    }

    /// A sender put one message in: count it and the depth it saw.
    pub fn on_send(&self) {
        let sent = self.sent.fetch_add(1, Ordering::Relaxed) + 1;
        let depth = sent.saturating_sub(self.received.load(Ordering::Relaxed));
        self.window_peak.fetch_max(depth, Ordering::Relaxed);
    }

    /// The send counted by [`ChannelMeter::on_send`] failed.
    pub fn unsend(&self) {
        self.sent.fetch_sub(1, Ordering::Relaxed);
    }

    /// A receiver took one message out after it waited `waited` ns.
    pub fn on_receive(&self, waited: u64) {
        self.received.fetch_add(1, Ordering::Relaxed);
        self.queue_nanos.fetch_add(waited, Ordering::Relaxed);
        let bucket = TOF_BUCKETS_NANOS.partition_point(|b| *b < waited);
        self.tof_buckets[bucket].fetch_add(1, Ordering::Relaxed);
    }

    /// Time-in-queue histogram, in nanoseconds.
    pub fn time_of_flight(&self) -> HistogramSnapshot {
        let mut acc = 0;
        let cumulative = TOF_BUCKETS_NANOS
            .iter()
            .zip(&self.tof_buckets)
            .map(|(b, c)| {
                acc += c.load(Ordering::Relaxed);
                (*b, acc)
            })
            .collect();
        let overflow = self.tof_buckets[TOF_BUCKETS_NANOS.len()].load(Ordering::Relaxed);
        HistogramSnapshot {
            cumulative,
            sum: self.queue_nanos.load(Ordering::Relaxed),
            count: acc + overflow,
        }
    }

    /// The highest depth a sender saw since the previous call (at least the
    /// depth now); starts a new window.
    pub fn take_window_peak(&self) -> u64 {
        let now = self.depth();
        self.window_peak.swap(now, Ordering::Relaxed).max(now)
    }

    pub fn sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    pub fn received(&self) -> u64 {
        self.received.load(Ordering::Relaxed)
    }

    /// Messages waiting now.
    pub fn depth(&self) -> u64 {
        self.sent().saturating_sub(self.received())
    }

    /// Total time messages spent queued.
    pub fn time_in_queue(&self) -> Duration {
        Duration::from_nanos(self.queue_nanos.load(Ordering::Relaxed))
    }
}
