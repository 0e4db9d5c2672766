//! One validator's CPU in virtual time, sans-IO: the worker threads of a
//! node layout, each with a FIFO queue of jobs, sharing the validator's
//! cores. The caller pulls events ([`Cpu::next`]): a job starts (the
//! caller answers with its cost and an opaque output, [`Cpu::started`]),
//! a job is done (its output comes back). `shape` gives the thread list
//! of the node's two layouts (`crates/node/src/classic.rs`,
//! `crates/node/src/parallel.rs`).
//!
//! # Processor sharing, in integers
//!
//! When `B` threads run on `C` cores each progresses at rate
//! `min(1, C / B)` ns of work per ns. Work is counted in fixed-point units
//! of 2⁻²⁰ ns ([`UNITS_PER_NS`]), all in `u128`. Since every running job
//! progresses at the same rate, the model keeps one counter, the work
//! `V(t)` each running job has received since an origin (generalised
//! processor sharing's virtual time), as a segment: `V(t) = V₀ +
//! ⌊(t − t₀) · 2²⁰ · min(C, B) / B⌋`. The segment is rebased (`t₀ = now`,
//! `V₀ = V(now)`) only when `B` changes, i.e. when a job starts or ends, so
//! how often the caller polls does not change any result. A job started
//! with cost `c` at work `V_s` ends at the first whole nanosecond `t` with
//! `V(t) ≥ V_s + c · 2²⁰`: never earlier than exact processor sharing,
//! later by less than a nanosecond (plus the less than 2⁻²⁰ ns of work
//! each rebase rounds away). Times saturate at `u64::MAX`.
//!
//! # Order of events
//!
//! [`Cpu::next`] returns, one at a time: first every job done at the
//! current instant (by thread index), then one start on a free thread (not
//! running, not held, waiting for nothing) with a non-empty queue (lowest
//! thread index first); then time moves to the earliest completion. A
//! zero-cost job is done at the instant it starts, so its `Done` comes
//! before the next `Start` of that instant. Same inputs, same events: the
//! model holds no randomness and no hashed collection.

pub mod shape;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::fmt;

/// Fixed-point units of work per nanosecond of work.
pub const UNITS_PER_NS: u128 = 1 << 20;

/// One thread of a [`Cpu`]: its position in the list it was built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ThreadId(usize);

impl ThreadId {
    /// The thread's position in the list the CPU was built from.
    pub fn index(self) -> usize {
        self.0
    }
}

/// A thread to build: its name and the capacity of its queue (`None`:
/// unbounded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadSpec {
    pub name: String,
    pub capacity: Option<usize>,
}

impl ThreadSpec {
    pub fn new(name: impl Into<String>, capacity: Option<usize>) -> ThreadSpec {
        ThreadSpec {
            name: name.into(),
            capacity,
        }
    }
}

/// What happened on the CPU, at virtual time `at` (ns).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event<J, O> {
    /// `thread` takes `job`: answer with [`Cpu::started`] before the next
    /// [`Cpu::next`].
    Start { thread: ThreadId, job: J, at: u64 },
    /// `thread` finished the job whose output is `out`.
    Done { thread: ThreadId, out: O, at: u64 },
}

impl<J, O> Event<J, O> {
    pub fn thread(&self) -> ThreadId {
        match self {
            Event::Start { thread, .. } | Event::Done { thread, .. } => *thread,
        }
    }

    pub fn at(&self) -> u64 {
        match self {
            Event::Start { at, .. } | Event::Done { at, .. } => *at,
        }
    }
}

/// Why a CPU could not be built or could not do what it was asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CpuError {
    #[error("a CPU needs at least one core")]
    NoCores,
    #[error("a CPU needs at least one thread")]
    NoThreads,
    #[error("thread {name}: a queue capacity must be at least 1")]
    ZeroCapacity { name: String },
    #[error("two threads are named {name}")]
    DuplicateName { name: String },
    #[error("no thread {index}: this CPU has {threads}")]
    NoThread { index: usize, threads: usize },
    #[error("thread {name}: its queue is full ({capacity} jobs)")]
    Full { name: String, capacity: usize },
    #[error("thread {name} was handed no job to start")]
    NotStarting { name: String },
    #[error("thread {name} still waits for the cost of the job it started")]
    Unanswered { name: String },
}

/// A job the CPU did not take, handed back with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected<J> {
    pub job: J,
    pub error: CpuError,
}

impl<J> fmt::Display for Rejected<J> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl<J: fmt::Debug> std::error::Error for Rejected<J> {}

#[derive(Debug)]
enum State<O> {
    Idle,
    /// Handed a job, waiting for its cost.
    Starting,
    Running {
        /// `V` at which the job is done.
        tag: u128,
        /// `V` when it started.
        begun: u128,
        cost_ns: u64,
        out: O,
    },
}

#[derive(Debug)]
struct Thread<J, O> {
    name: String,
    capacity: Option<usize>,
    queue: VecDeque<J>,
    state: State<O>,
    held: bool,
    /// CPU of the jobs it finished.
    busy_ns: u64,
}

/// The threads of one validator sharing its cores; jobs `J` in, outputs
/// `O` out. Time is integer nanoseconds from 0.
#[derive(Debug)]
pub struct Cpu<J, O> {
    threads: Vec<Thread<J, O>>,
    cores: u32,
    now: u64,
    /// The segment of `V`: its origin in time and in work.
    base_time: u64,
    base_work: u128,
    /// `B`, the threads running a job.
    running: u32,
    /// The thread handed a job whose cost is not known yet.
    starting: Option<usize>,
}

impl<J, O> Cpu<J, O> {
    /// A CPU with `threads` (named uniquely, capacities at least 1) on
    /// `cores` cores (at least 1), at time 0, every thread idle.
    pub fn new(threads: Vec<ThreadSpec>, cores: u32) -> Result<Cpu<J, O>, CpuError> {
        if cores == 0 {
            return Err(CpuError::NoCores);
        }
        if threads.is_empty() {
            return Err(CpuError::NoThreads);
        }
        for (i, spec) in threads.iter().enumerate() {
            if spec.capacity == Some(0) {
                return Err(CpuError::ZeroCapacity {
                    name: spec.name.clone(),
                });
            }
            if threads[..i].iter().any(|t| t.name == spec.name) {
                return Err(CpuError::DuplicateName {
                    name: spec.name.clone(),
                });
            }
        }
        let threads = threads
            .into_iter()
            .map(|spec| Thread {
                name: spec.name,
                capacity: spec.capacity,
                queue: VecDeque::new(),
                state: State::Idle,
                held: false,
                busy_ns: 0,
            })
            .collect();
        Ok(Cpu {
            threads,
            cores,
            now: 0,
            base_time: 0,
            base_work: 0,
            running: 0,
            starting: None,
        })
    }

    /// The current virtual time, ns.
    pub fn now(&self) -> u64 {
        self.now
    }

    pub fn cores(&self) -> u32 {
        self.cores
    }

    /// Every thread, in the order the CPU was built from.
    pub fn threads(&self) -> impl Iterator<Item = (ThreadId, &str)> + '_ {
        self.threads
            .iter()
            .enumerate()
            .map(|(i, t)| (ThreadId(i), t.name.as_str()))
    }

    /// The thread named `name`.
    pub fn find(&self, name: &str) -> Option<ThreadId> {
        self.threads
            .iter()
            .position(|t| t.name == name)
            .map(ThreadId)
    }

    /// The name of `thread`; `None` for a thread this CPU does not have.
    pub fn name(&self, thread: ThreadId) -> Option<&str> {
        self.threads.get(thread.0).map(|t| t.name.as_str())
    }

    /// Jobs waiting in `thread`'s queue (not the one it runs); 0 for a
    /// thread this CPU does not have.
    pub fn queue_len(&self, thread: ThreadId) -> usize {
        self.threads.get(thread.0).map_or(0, |t| t.queue.len())
    }

    /// CPU `thread` has used so far, ns: the costs of the jobs it finished
    /// and the work its running job has received (rounded down); 0 for a
    /// thread this CPU does not have.
    pub fn busy_ns(&self, thread: ThreadId) -> u64 {
        let Some(t) = self.threads.get(thread.0) else {
            return 0;
        };
        let partial = match t.state {
            State::Running { begun, cost_ns, .. } => {
                let done = (self.work_at(self.now) - begun) / UNITS_PER_NS;
                u64::try_from(done).unwrap_or(u64::MAX).min(cost_ns)
            }
            _ => 0,
        };
        t.busy_ns.saturating_add(partial)
    }

    /// Threads running a job now.
    pub fn running(&self) -> u32 {
        self.running
    }

    /// Whether `thread` is running a job (or waiting for its cost).
    pub fn is_busy(&self, thread: ThreadId) -> bool {
        self.threads
            .get(thread.0)
            .is_some_and(|t| !matches!(t.state, State::Idle))
    }

    pub fn is_held(&self, thread: ThreadId) -> bool {
        self.threads.get(thread.0).is_some_and(|t| t.held)
    }

    /// Nothing queued, nothing running, nothing waiting for its cost.
    pub fn is_idle(&self) -> bool {
        self.threads
            .iter()
            .all(|t| t.queue.is_empty() && matches!(t.state, State::Idle))
    }

    /// Queue `job` at the back of `thread`'s queue; a full queue (or an
    /// unknown thread) hands it back.
    pub fn submit(&mut self, thread: ThreadId, job: J) -> Result<(), Rejected<J>> {
        let t = match self.thread_mut(thread) {
            Ok(t) => t,
            Err(error) => return Err(Rejected { job, error }),
        };
        if let Some(capacity) = t.capacity {
            if t.queue.len() >= capacity {
                let error = CpuError::Full {
                    name: t.name.clone(),
                    capacity,
                };
                return Err(Rejected { job, error });
            }
        }
        t.queue.push_back(job);
        Ok(())
    }

    /// Put `job` at the front of `thread`'s queue, whatever its capacity
    /// (a verdict coming back); only an unknown thread hands it back.
    pub fn submit_front(&mut self, thread: ThreadId, job: J) -> Result<(), Rejected<J>> {
        match self.thread_mut(thread) {
            Ok(t) => {
                t.queue.push_front(job);
                Ok(())
            }
            Err(error) => Err(Rejected { job, error }),
        }
    }

    /// Hold `thread`: it finishes the job it runs but starts nothing new
    /// until [`Cpu::release`]. Holding a held thread changes nothing.
    pub fn hold(&mut self, thread: ThreadId) -> Result<(), CpuError> {
        self.thread_mut(thread)?.held = true;
        Ok(())
    }

    /// Let a held thread start jobs again (at the current instant, if its
    /// queue is not empty). Releasing a thread not held changes nothing.
    pub fn release(&mut self, thread: ThreadId) -> Result<(), CpuError> {
        self.thread_mut(thread)?.held = false;
        Ok(())
    }

    /// The earliest event at or before `until`, the clock moved to it;
    /// `None` when nothing is due by then, the clock moved to `until` (it
    /// never goes back). Refused while a [`Event::Start`] waits for its
    /// answer.
    pub fn next(&mut self, until: u64) -> Result<Option<Event<J, O>>, CpuError> {
        if let Some(i) = self.starting {
            return Err(CpuError::Unanswered {
                name: self.threads[i].name.clone(),
            });
        }
        if until < self.now {
            return Ok(None);
        }
        let done = self.earliest_done();
        if let Some((at, i)) = done {
            if at <= self.now {
                return Ok(self.finish(i));
            }
        }
        if let Some(i) = self.startable() {
            let t = &mut self.threads[i];
            if let Some(job) = t.queue.pop_front() {
                t.state = State::Starting;
                self.starting = Some(i);
                return Ok(Some(Event::Start {
                    thread: ThreadId(i),
                    job,
                    at: self.now,
                }));
            }
        }
        match done {
            Some((at, i)) if at <= until => {
                self.now = at;
                Ok(self.finish(i))
            }
            _ => {
                self.now = until;
                Ok(None)
            }
        }
    }

    /// Answer a [`Event::Start`] of `thread`: its job costs `cost_ns` of
    /// CPU, and `out` comes back with its [`Event::Done`].
    pub fn started(&mut self, thread: ThreadId, cost_ns: u64, out: O) -> Result<(), CpuError> {
        let starting = self.starting;
        let name = &self.thread_mut(thread)?.name;
        if starting != Some(thread.0) {
            let name = name.clone();
            return Err(CpuError::NotStarting { name });
        }
        self.rebase();
        self.running += 1;
        self.starting = None;
        self.threads[thread.0].state = State::Running {
            tag: self.base_work + u128::from(cost_ns) * UNITS_PER_NS,
            begun: self.base_work,
            cost_ns,
            out,
        };
        Ok(())
    }

    /// When the next event is due, if anything is running or waiting to
    /// start (the current instant while a start waits for its answer).
    pub fn next_time(&self) -> Option<u64> {
        if self.starting.is_some() || self.startable().is_some() {
            return Some(self.now);
        }
        self.earliest_done().map(|(at, _)| at.max(self.now))
    }

    fn thread_mut(&mut self, thread: ThreadId) -> Result<&mut Thread<J, O>, CpuError> {
        let threads = self.threads.len();
        self.threads.get_mut(thread.0).ok_or(CpuError::NoThread {
            index: thread.0,
            threads,
        })
    }

    /// `V(t)` on the current segment.
    fn work_at(&self, t: u64) -> u128 {
        if self.running == 0 {
            return self.base_work;
        }
        let (num, den) = self.rate();
        let elapsed = u128::from(t.saturating_sub(self.base_time));
        self.base_work + elapsed * UNITS_PER_NS * num / den
    }

    /// The rate each running job progresses at, `min(C, B) / B`.
    fn rate(&self) -> (u128, u128) {
        let b = u128::from(self.running.max(1));
        (u128::from(self.cores).min(b), b)
    }

    fn rebase(&mut self) {
        self.base_work = self.work_at(self.now);
        self.base_time = self.now;
    }

    /// When a job done at work `tag` ends on the current segment.
    fn end_of(&self, tag: u128) -> u64 {
        let left = tag.saturating_sub(self.base_work);
        let (num, den) = self.rate();
        let step = UNITS_PER_NS * num;
        let elapsed = (left * den).div_ceil(step);
        u64::try_from(elapsed)
            .ok()
            .and_then(|e| self.base_time.checked_add(e))
            .unwrap_or(u64::MAX)
    }

    /// The earliest end of a running job, and its thread (lowest index
    /// among those ending then). Every running job progresses at the same
    /// rate, so the earliest end is the smallest tag's, and the jobs ending
    /// then are those whose tag the work has reached by that instant: one
    /// division per event, not one per running thread.
    fn earliest_done(&self) -> Option<(u64, usize)> {
        let first = self
            .threads
            .iter()
            .filter_map(|t| match t.state {
                State::Running { tag, .. } => Some(tag),
                _ => None,
            })
            .min()?;
        let at = self.end_of(first);
        // A saturated end is every later job's end too.
        let reached = if at == u64::MAX {
            u128::MAX
        } else {
            self.work_at(at)
        };
        let i = self
            .threads
            .iter()
            .position(|t| matches!(t.state, State::Running { tag, .. } if tag <= reached))?;
        Some((at, i))
    }

    /// The lowest-index thread that can start a job now.
    fn startable(&self) -> Option<usize> {
        self.threads
            .iter()
            .position(|t| matches!(t.state, State::Idle) && !t.held && !t.queue.is_empty())
    }

    /// End thread `i`'s running job now (`None` if it runs none).
    fn finish(&mut self, i: usize) -> Option<Event<J, O>> {
        if !matches!(self.threads[i].state, State::Running { .. }) {
            return None;
        }
        self.rebase();
        self.running -= 1;
        let t = &mut self.threads[i];
        match std::mem::replace(&mut t.state, State::Idle) {
            State::Running { cost_ns, out, .. } => {
                t.busy_ns = t.busy_ns.saturating_add(cost_ns);
                Some(Event::Done {
                    thread: ThreadId(i),
                    out,
                    at: self.now,
                })
            }
            other => {
                t.state = other;
                None
            }
        }
    }
}
