//! The virtual clock: Polkadot's `Clock` over a tick the driver sets, and
//! a single-threaded executor that runs every task of the overseer and the
//! subsystems, so that the driver can let the node finish a tick's work
//! (run until no task can make progress) before moving time on.
//!
//! Each task's CPU is the thread CPU time spent in its polls, summed per
//! task name (the names upstream spawns them with). Two things stay on
//! wall time: timers the subsystems make with `futures_timer` themselves
//! (retry back-offs, the overseer's metrics metronome), which a run waits
//! for in real time only if the node waits on them, and the random
//! routing upstream seeds from entropy (`StdRng::from_entropy` in
//! approval-distribution and approval-voting-parallel): the node's own
//! random sends differ run to run, the peers' messages do not.

use futures::channel::mpsc;
use futures::executor::LocalPool;
use futures::future::BoxFuture;
use futures::task::LocalSpawnExt;
use futures::{Future, StreamExt};
use polkadot_node_primitives::approval::time::{Clock, Tick};
use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

#[derive(Default)]
struct ClockState {
    now: Tick,
    waiters: Vec<(Tick, Waker)>,
}

/// A clock whose tick only the driver moves.
#[derive(Clone, Default)]
pub struct VirtualClock {
    state: Arc<Mutex<ClockState>>,
}

impl VirtualClock {
    pub fn new(now: Tick) -> Self {
        let clock = VirtualClock::default();
        clock.state.lock().expect("not poisoned").now = now;
        clock
    }

    /// Move the clock to `now` and wake every wait that has come due.
    pub fn set(&self, now: Tick) {
        let due: Vec<Waker> = {
            let mut state = self.state.lock().expect("not poisoned");
            state.now = now;
            let (due, later): (Vec<_>, Vec<_>) =
                state.waiters.drain(..).partition(|(t, _)| *t <= now);
            state.waiters = later;
            due.into_iter().map(|(_, w)| w).collect()
        };
        for waker in due {
            waker.wake();
        }
    }
}

struct Wait {
    state: Arc<Mutex<ClockState>>,
    tick: Tick,
}

impl Future for Wait {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.state.lock().expect("not poisoned");
        if state.now >= self.tick {
            Poll::Ready(())
        } else {
            state.waiters.push((self.tick, cx.waker().clone()));
            Poll::Pending
        }
    }
}

impl Clock for VirtualClock {
    fn tick_now(&self) -> Tick {
        self.state.lock().expect("not poisoned").now
    }

    fn wait(&self, tick: Tick) -> Pin<Box<dyn Future<Output = ()> + Send + 'static>> {
        Box::pin(Wait {
            state: self.state.clone(),
            tick,
        })
    }
}

type Task = (&'static str, BoxFuture<'static, ()>);
type CpuByName = Arc<Mutex<BTreeMap<&'static str, (Duration, usize)>>>;

/// Hands spawned tasks to the [`Pool`] (cheap to clone, `Send`).
#[derive(Clone)]
pub struct PoolSpawner {
    tasks: mpsc::UnboundedSender<Task>,
}

impl sp_core::traits::SpawnNamed for PoolSpawner {
    fn spawn_blocking(
        &self,
        name: &'static str,
        _group: Option<&'static str>,
        future: BoxFuture<'static, ()>,
    ) {
        let _ = self.tasks.unbounded_send((name, future));
    }

    fn spawn(
        &self,
        name: &'static str,
        _group: Option<&'static str>,
        future: BoxFuture<'static, ()>,
    ) {
        let _ = self.tasks.unbounded_send((name, future));
    }
}

/// A task whose polls are timed on the thread's CPU clock.
struct Measured {
    name: &'static str,
    future: BoxFuture<'static, ()>,
    cpu: CpuByName,
}

impl Future for Measured {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let start = crate::spawner::thread_cpu_now();
        let out = self.future.as_mut().poll(cx);
        let spent = crate::spawner::thread_cpu_now().saturating_sub(start);
        let mut cpu = self.cpu.lock().expect("not poisoned");
        cpu.entry(self.name).or_default().0 += spent;
        out
    }
}

/// The executor every task runs on, on the calling thread.
pub struct Pool {
    pool: LocalPool,
    spawner: PoolSpawner,
    cpu: CpuByName,
}

impl Default for Pool {
    fn default() -> Self {
        Self::new()
    }
}

impl Pool {
    pub fn new() -> Self {
        let pool = LocalPool::new();
        let (tx, mut rx) = mpsc::unbounded::<Task>();
        let cpu: CpuByName = Default::default();
        let local = pool.spawner();
        let feeder = local.clone();
        let feeder_cpu = cpu.clone();
        // New tasks arrive through a channel, so that spawning from any
        // task (or thread) wakes the pool.
        feeder
            .spawn_local(async move {
                while let Some((name, future)) = rx.next().await {
                    feeder_cpu
                        .lock()
                        .expect("not poisoned")
                        .entry(name)
                        .or_default()
                        .1 += 1;
                    let task = Measured {
                        name,
                        future,
                        cpu: feeder_cpu.clone(),
                    };
                    if local.spawn_local(task).is_err() {
                        return;
                    }
                }
            })
            .expect("a new pool takes tasks");
        Pool {
            pool,
            spawner: PoolSpawner { tasks: tx },
            cpu,
        }
    }

    pub fn spawner(&self) -> PoolSpawner {
        self.spawner.clone()
    }

    /// Run every task until none can make progress.
    pub fn settle(&mut self) {
        self.pool.run_until_stalled();
    }

    /// Run `future` (and every other task meanwhile) to completion.
    pub fn run<F: Future>(&mut self, future: F) -> F::Output {
        self.pool.run_until(future)
    }

    /// CPU time per task name, with how many tasks had that name.
    pub fn cpu_by_name(&self) -> BTreeMap<&'static str, (Duration, usize)> {
        self.cpu.lock().expect("not poisoned").clone()
    }
}
