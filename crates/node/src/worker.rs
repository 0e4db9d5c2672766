//! Worker threads: named, with their CPU time and message counts recorded,
//! and with panics and errors caught and reported under the worker's name
//! so that a failing worker stops the node instead of hanging it; and the
//! one loop every worker (router, distribution, voting) runs: read the
//! inputs priority first, hand each message to the worker, count it done,
//! sample the thread's CPU clock.

use crate::channel::{recv_prioritised, Next, Rx, Unfinished};
use crossbeam_channel::Sender;
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;
pub use tranche_metrics::WorkerStats;

/// Messages a worker handles between two samples of its CPU clock.
pub const CPU_SAMPLE_EVERY: u64 = 256;

/// A worker's loop, run on its own thread.
pub type WorkerBody = Box<dyn FnOnce(&WorkerStats) -> Result<(), String> + Send>;

/// A worker stopped abnormally.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("worker `{worker}` failed: {message}")]
pub struct WorkerFailure {
    pub worker: String,
    pub message: String,
    /// `Node::check` has looked for the cause of this consequence.
    #[doc(hidden)]
    pub cause_sought: bool,
}

impl WorkerFailure {
    /// Whether this worker failed only because another worker stopped
    /// (its channel closed): the other's failure is the cause.
    pub fn is_consequence(&self) -> bool {
        !self.cause_sought && self.message.ends_with(": its worker has stopped")
    }
}

fn panic_text(p: Box<dyn Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        format!("panicked: {s}")
    } else if let Some(s) = p.downcast_ref::<String>() {
        format!("panicked: {s}")
    } else {
        "panicked".to_owned()
    }
}

/// Start a worker thread named after `stats.name`. `body` runs the worker
/// loop; an `Err` or a panic is reported on `failures` (and the thread's CPU
/// time is recorded either way).
pub fn spawn_worker<F>(
    stats: Arc<WorkerStats>,
    failures: Sender<WorkerFailure>,
    body: F,
) -> std::io::Result<JoinHandle<()>>
where
    F: FnOnce(&WorkerStats) -> Result<(), String> + Send + 'static,
{
    std::thread::Builder::new()
        .name(stats.name.clone())
        .spawn(move || {
            let outcome = catch_unwind(AssertUnwindSafe(|| body(&stats)));
            stats.record_cpu();
            let message = match outcome {
                Ok(Ok(())) => return,
                Ok(Err(e)) => e,
                Err(p) => panic_text(p),
            };
            let _ = failures.send(WorkerFailure {
                worker: stats.name.clone(),
                message,
                cause_sought: false,
            });
        })
}

/// What one worker does with its messages; [`run_worker`] runs the loop
/// around it.
pub(crate) trait Worker {
    type Msg;

    /// Called before each message is read: run whatever is due now, and
    /// say until when the wait for the next message may last (`None`: until
    /// one comes).
    fn due(&mut self) -> Result<Option<Instant>, String> {
        Ok(None)
    }

    /// Handle one message; `Ok(true)` means stop.
    fn handle(&mut self, msg: Self::Msg, stats: &WorkerStats) -> Result<bool, String>;

    /// Both inputs are drained: the worker is about to wait. A
    /// distribution worker verifies the batch of signatures it deferred.
    fn idle(&mut self, _stats: &WorkerStats) -> Result<(), String> {
        Ok(())
    }

    /// The next message of the bounded input, when the high-priority one
    /// is empty: the oldest, unless the worker keeps a backlog of its own
    /// (`--schedule useful-first`).
    fn take_normal(&mut self, normal: &Rx<Self::Msg>) -> Option<Self::Msg> {
        normal.try_recv()
    }

    /// The worker stops normally (told to, or both inputs closed).
    fn finish(self) -> Result<(), String>
    where
        Self: Sized,
    {
        Ok(())
    }
}

/// A worker's two inputs, and the node-wide in-flight count it lowers once
/// it has handled a message.
pub(crate) struct Inbox<M> {
    /// Unbounded, high-priority: always read first.
    pub prio: Rx<M>,
    pub normal: Rx<M>,
    pub unfinished: Arc<Unfinished>,
}

/// Run `worker` until it is told to stop or its inputs close. The thread's
/// CPU clock is sampled whenever the worker is about to wait and every
/// [`CPU_SAMPLE_EVERY`] messages in between.
pub(crate) fn run_worker<W: Worker>(
    mut worker: W,
    inbox: Inbox<W::Msg>,
    stats: &WorkerStats,
) -> Result<(), String> {
    let Inbox {
        prio,
        normal,
        unfinished,
    } = inbox;
    let mut since_sample = 0u64;
    loop {
        let deadline = worker.due()?;
        let msg = match prio.try_recv().or_else(|| worker.take_normal(&normal)) {
            Some(m) => m,
            None => {
                // About to wait (not just to look again at once): the
                // batch of inputs is drained.
                if deadline.is_none_or(|d| d > Instant::now()) {
                    worker.idle(stats)?;
                }
                stats.record_cpu();
                since_sample = 0;
                match recv_prioritised(&prio, &normal, deadline) {
                    Next::Message(m) => m,
                    Next::Timeout => continue,
                    Next::Closed => return worker.finish(),
                }
            }
        };
        let stop = worker.handle(msg, stats)?;
        unfinished.done();
        stats.add_handled(1);
        since_sample += 1;
        if since_sample >= CPU_SAMPLE_EVERY {
            stats.record_cpu();
            since_sample = 0;
        }
        if stop {
            return worker.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_worker_is_reported_by_name() {
        let (tx, rx) = crossbeam_channel::unbounded();
        let h = spawn_worker(
            WorkerStats::new("approval-voting-parallel-2"),
            tx.clone(),
            |_| panic!("boom"),
        )
        .unwrap();
        h.join().unwrap();
        let f = rx.recv().unwrap();
        assert_eq!(f.worker, "approval-voting-parallel-2");
        assert!(f.message.contains("boom"));
        let ok = spawn_worker(WorkerStats::new("w"), tx, |s| {
            s.add_handled(3);
            Ok(())
        })
        .unwrap();
        ok.join().unwrap();
        assert!(rx.try_recv().is_err());
    }
}
