//! Metered channels between workers, and the in-flight counter that tells a
//! virtual-time driver when every worker is idle.
//!
//! Every message put into a worker channel raises the in-flight count; the
//! receiving worker lowers it only after it has handled the message, which
//! includes sending whatever the message caused. So a count of zero means
//! no message is queued or being handled anywhere in the node.

use crossbeam_channel::{Receiver, Select, SendError, Sender, TryRecvError};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
pub use tranche_metrics::ChannelMeter;

/// Messages queued or being handled, node-wide.
#[derive(Debug, Default)]
pub struct Unfinished {
    count: AtomicUsize,
    lock: Mutex<()>,
    idle: Condvar,
}

impl Unfinished {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    pub fn add(&self) {
        self.count.fetch_add(1, Ordering::AcqRel);
    }

    /// One message fully handled.
    pub fn done(&self) {
        if self.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.idle.notify_all();
        }
    }

    pub fn get(&self) -> usize {
        self.count.load(Ordering::Acquire)
    }

    /// Wait until nothing is in flight, or `timeout` passes. Returns whether
    /// the node went idle.
    pub fn wait_idle(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        while self.get() != 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            guard = self
                .idle
                .wait_timeout(guard, left.min(Duration::from_millis(50)))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }
}

struct Envelope<T> {
    msg: T,
    sent_at: Instant,
}

/// The sending half of a metered channel.
pub struct Tx<T> {
    inner: Sender<Envelope<T>>,
    meter: Arc<ChannelMeter>,
    unfinished: Arc<Unfinished>,
}

impl<T> Clone for Tx<T> {
    fn clone(&self) -> Self {
        Tx {
            inner: self.inner.clone(),
            meter: self.meter.clone(),
            unfinished: self.unfinished.clone(),
        }
    }
}

/// The receiver is gone: its worker stopped.
#[derive(Debug, Clone, thiserror::Error)]
#[error("channel `{0}` is closed: its worker has stopped")]
pub struct Closed(pub String);

impl<T> Tx<T> {
    /// Send, waiting for room on a bounded channel.
    pub fn send(&self, msg: T) -> Result<(), Closed> {
        self.unfinished.add();
        self.meter.on_send();
        let env = Envelope {
            msg,
            sent_at: Instant::now(),
        };
        self.inner.send(env).map_err(|SendError(_)| {
            self.meter.unsend();
            self.unfinished.done();
            Closed(self.meter.name.clone())
        })
    }

    pub fn meter(&self) -> &Arc<ChannelMeter> {
        &self.meter
    }
}

/// The receiving half of a metered channel.
pub struct Rx<T> {
    inner: Receiver<Envelope<T>>,
    meter: Arc<ChannelMeter>,
}

impl<T> Rx<T> {
    fn open(&self, env: Envelope<T>) -> T {
        self.meter
            .on_receive(env.sent_at.elapsed().as_nanos() as u64);
        env.msg
    }

    pub fn try_recv(&self) -> Option<T> {
        self.inner.try_recv().ok().map(|e| self.open(e))
    }

    /// [`Rx::try_recv`], with the instant the message was sent.
    pub fn try_recv_stamped(&self) -> Option<(T, Instant)> {
        self.inner.try_recv().ok().map(|e| {
            let at = e.sent_at;
            (self.open(e), at)
        })
    }
}

/// A bounded (`Some(capacity)`) or unbounded metered channel.
pub fn channel<T>(
    name: impl Into<String>,
    capacity: Option<usize>,
    unfinished: &Arc<Unfinished>,
) -> (Tx<T>, Rx<T>) {
    let (tx, rx) = match capacity {
        Some(c) => crossbeam_channel::bounded(c),
        None => crossbeam_channel::unbounded(),
    };
    let meter = ChannelMeter::new(name, capacity);
    (
        Tx {
            inner: tx,
            meter: meter.clone(),
            unfinished: unfinished.clone(),
        },
        Rx { inner: rx, meter },
    )
}

/// What a worker got from its pair of inputs.
pub enum Next<T> {
    Message(T),
    /// The deadline passed with nothing to read.
    Timeout,
    /// Both channels are closed: time to stop.
    Closed,
}

/// Read a worker's two inputs as one stream, always preferring the
/// high-priority (unbounded) one, as approval-voting-parallel does; wait
/// until `deadline` at most.
pub fn recv_prioritised<T>(priority: &Rx<T>, normal: &Rx<T>, deadline: Option<Instant>) -> Next<T> {
    loop {
        let mut open = [true, true];
        for (i, rx) in [priority, normal].into_iter().enumerate() {
            match rx.inner.try_recv() {
                Ok(env) => return Next::Message(rx.open(env)),
                Err(TryRecvError::Disconnected) => open[i] = false,
                Err(TryRecvError::Empty) => {}
            }
        }
        if !open[0] && !open[1] {
            return Next::Closed;
        }
        // Wait on the channels still open; a disconnected one would wake
        // the select forever.
        let mut sel = Select::new();
        if open[0] {
            sel.recv(&priority.inner);
        }
        if open[1] {
            sel.recv(&normal.inner);
        }
        let ready = match deadline {
            Some(d) => sel.ready_deadline(d).is_ok(),
            None => {
                sel.ready();
                true
            }
        };
        if !ready {
            return Next::Timeout;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priority_first_and_in_flight_accounting() {
        let inflight = Unfinished::new();
        let (ptx, prx) = channel::<u32>("prio", None, &inflight);
        let (ntx, nrx) = channel::<u32>("normal", Some(4), &inflight);
        let meter = ntx.meter().clone();
        ntx.send(1).unwrap();
        ntx.send(2).unwrap();
        ptx.send(10).unwrap();
        assert_eq!(inflight.get(), 3);
        assert_eq!(meter.depth(), 2);
        let mut got = Vec::new();
        for _ in 0..3 {
            match recv_prioritised(&prx, &nrx, Some(Instant::now())) {
                Next::Message(m) => {
                    got.push(m);
                    inflight.done();
                }
                _ => panic!("expected a message"),
            }
        }
        assert_eq!(got, vec![10, 1, 2]);
        assert!(inflight.wait_idle(Duration::from_millis(10)));
        assert!(matches!(
            recv_prioritised(&prx, &nrx, Some(Instant::now())),
            Next::Timeout
        ));
        drop(ptx);
        drop(ntx);
        assert!(matches!(recv_prioritised(&prx, &nrx, None), Next::Closed));
        assert_eq!(meter.received(), 2);
        assert_eq!(meter.time_of_flight().count, 2);
        assert_eq!(meter.take_window_peak(), 2);
        assert_eq!(meter.take_window_peak(), 0);
    }

    #[test]
    fn send_to_a_stopped_worker_is_an_error_not_a_leak() {
        let inflight = Unfinished::new();
        let (tx, rx) = channel::<u32>("gone", Some(1), &inflight);
        drop(rx);
        assert!(tx.send(1).is_err());
        assert_eq!(inflight.get(), 0);
    }
}
