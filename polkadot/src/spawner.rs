//! The spawner the overseer and the subsystems start their tasks with: one
//! OS thread per task, named as the task is named upstream (the overseer
//! passes each subsystem's name; approval-voting-parallel names its workers
//! and its database task), so that the CPU each thread spent can be read
//! per name at the end of a run. A node runs these tasks on a tokio pool;
//! a thread each keeps their CPU apart, which is what the benchmark reports.

use futures::future::BoxFuture;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One task's thread.
struct TaskThread {
    name: &'static str,
    /// The kernel's id of the thread, once it runs.
    tid: Option<i32>,
    /// The thread's CPU time when its task ended.
    final_cpu: Option<Duration>,
}

/// Spawns each task on a thread of its own (cheap to clone).
#[derive(Clone, Default)]
pub struct ThreadSpawner {
    threads: Arc<Mutex<Vec<TaskThread>>>,
}

/// The calling thread's CPU time so far.
pub(crate) fn thread_cpu_now() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid pointer to a timespec; the clock id is a constant.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// CPU time of a live thread of this process, from /proc.
fn live_thread_cpu(tid: i32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) in parentheses.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Some(Duration::from_nanos((utime + stime) * 1_000_000_000 / hz))
}

impl ThreadSpawner {
    /// Run `future` to completion on a new thread named `name`.
    pub fn start(&self, name: &'static str, future: BoxFuture<'static, ()>) {
        let index = {
            let mut threads = self.threads.lock().expect("not poisoned");
            threads.push(TaskThread {
                name,
                tid: None,
                final_cpu: None,
            });
            threads.len() - 1
        };
        let threads = self.threads.clone();
        // Linux keeps 15 bytes of a thread's name; the full name is ours.
        let spawned = std::thread::Builder::new()
            .name(name.chars().take(15).collect())
            .spawn(move || {
                // SAFETY: gettid has no preconditions.
                let tid = unsafe { libc::gettid() };
                threads.lock().expect("not poisoned")[index].tid = Some(tid);
                futures::executor::block_on(future);
                threads.lock().expect("not poisoned")[index].final_cpu = Some(thread_cpu_now());
            });
        if let Err(e) = spawned {
            eprintln!("tranche-polkadot: cannot start a thread for {name}: {e}");
        }
    }

    /// CPU time so far per task name (threads of one name summed), with
    /// how many threads had that name.
    pub fn cpu_by_name(&self) -> BTreeMap<&'static str, (Duration, usize)> {
        let threads = self.threads.lock().expect("not poisoned");
        let mut out: BTreeMap<&'static str, (Duration, usize)> = BTreeMap::new();
        for t in threads.iter() {
            let cpu = t
                .final_cpu
                .or_else(|| t.tid.and_then(live_thread_cpu))
                .unwrap_or_default();
            let e = out.entry(t.name).or_default();
            e.0 += cpu;
            e.1 += 1;
        }
        out
    }
}

impl sp_core::traits::SpawnNamed for ThreadSpawner {
    fn spawn_blocking(
        &self,
        name: &'static str,
        _group: Option<&'static str>,
        future: BoxFuture<'static, ()>,
    ) {
        self.start(name, future);
    }

    fn spawn(
        &self,
        name: &'static str,
        _group: Option<&'static str>,
        future: BoxFuture<'static, ()>,
    ) {
        self.start(name, future);
    }
}
