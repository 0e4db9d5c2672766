//! What one worker thread records about itself: its CPU time, the
//! messages it handled and the checks it ran.

use crate::cpu::thread_cpu_time;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Counters one worker keeps about itself.
#[derive(Debug)]
pub struct WorkerStats {
    pub name: String,
    cpu_nanos: AtomicU64,
    handled: AtomicU64,
    verifications: AtomicU64,
}

impl WorkerStats {
    pub fn new(name: impl Into<String>) -> Arc<Self> {
        Arc::new(WorkerStats {
            name: name.into(),
            cpu_nanos: AtomicU64::new(0),
            handled: AtomicU64::new(0),
            verifications: AtomicU64::new(0),
        })
    }

    /// Store the calling thread's CPU time (call from the worker's thread).
    pub fn record_cpu(&self) {
        self.cpu_nanos
            .store(thread_cpu_time().as_nanos() as u64, Ordering::Relaxed);
    }

    pub fn cpu_seconds(&self) -> f64 {
        self.cpu_nanos.load(Ordering::Relaxed) as f64 / 1e9
    }

    pub fn add_handled(&self, n: u64) {
        self.handled.fetch_add(n, Ordering::Relaxed);
    }

    pub fn handled(&self) -> u64 {
        self.handled.load(Ordering::Relaxed)
    }

    pub fn add_verifications(&self, n: u64) {
        self.verifications.fetch_add(n, Ordering::Relaxed);
    }

    pub fn verifications(&self) -> u64 {
        self.verifications.load(Ordering::Relaxed)
    }
}
