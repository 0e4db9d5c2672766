//! A simulated validator on its CPU (the `!ApprovalNetwork` key `node`):
//! every input it handles costs the cost table's virtual time on the
//! threads of its layout, which share its cores (`crate::cpu`), and what
//! an input causes — a forward, an import into voting, voting's answer —
//! happens only when its handling is done.
//!
//! The threads and what runs on them, as `crates/node` runs them:
//!
//! * **classic** (`crates/node/src/classic.rs`): a notification waits in
//!   the distribution thread's queue; distribution handles it (a
//!   `duplicate` cost per item), then hands the checks it asks for to the
//!   voting thread and *waits* — holding its thread — until voting has
//!   checked and imported them (each check's cost, plus `round_trip` per
//!   check, plus the imports); then the forwards are sent, the
//!   distribution thread stays held `round_trip_wake` per check longer
//!   (woken late: a delay that uses no core), and it spends
//!   `round_trip_distribution` per check of its own (handing it over,
//!   waking for the verdict) before it takes the next notification. This
//!   is upstream's approval-distribution waiting on approval-voting for
//!   every check (polkadot-sdk#4849).
//! * **parallel** (`crates/node/src/parallel.rs`): the router (`route` per
//!   item) splits a notification's items by validator index mod N
//!   onto the workers' queues; a worker handles its items and checks them
//!   itself (each first-seen item's check, `duplicate` for the others),
//!   sends the forwards when done and queues the imports on the voting
//!   thread, which imports them (`import_*` each).
//!
//! Charged on the voting thread, with their effect not delayed (voting's
//! timers run at their tick, a block is imported at its slot): a block
//! import (`block_import` plus `own_assignment` per VRF our assignments
//! need), each approval we sign (`own_approval`), a `db_commit` in every
//! tick voting imported something. Checks that distribution asks for
//! outside a notification (messages held for a block until it is known)
//! are run at once and charged to the first distribution thread.
//!
//! With `batch: moment` (`tranche_config::node_shape::Batch`) the
//! notifications that reach a validator in one moment are one job on the
//! entry thread, and each distribution thread takes its share of them as
//! one job: one busy interval a moment instead of one a notification,
//! coarser than the node (its forwards and imports leave when the last
//! notification is handled; a bounded queue counts the batch as one
//! message).
//!
//! Queues are bounded at the node's sizes (`crate::cpu::shape`). A full
//! queue makes the sender wait, as upstream's bounded channels do: a
//! thread that cannot hand its output on is held until there is room; a
//! notification the entry thread's queue cannot take stays in the
//! validator's receive buffer (the links keep delivering; what waits is
//! read in arrival order), so the sender's substream backs up instead of
//! losing anything.

use std::collections::VecDeque;

use smallvec::{smallvec, SmallVec};
use std::sync::Arc;
use tranche_distribution::{Action, Import, Outgoing, PeerId};
use tranche_primitives::{ApprovalDistributionMessage, Items, Tick, ValidatorIndex};

use crate::costs::CostTable;
use crate::cpu::shape::{self, NodeShape, NodeThreads};
use crate::cpu::{Cpu, Event, ThreadId};
use crate::time::{tick_of, NS_PER_MS};
use tranche_config::node_shape::{Batch, Layout};

/// Work queued on a thread.
pub(crate) enum Job {
    /// A notification from a peer, on the entry thread (classic:
    /// distribution; parallel: the router).
    Notification {
        from: u32,
        msg: ApprovalDistributionMessage,
    },
    /// Items for distribution (classic: a whole notification; parallel:
    /// a worker's share of one).
    Items {
        from: u32,
        msg: ApprovalDistributionMessage,
    },
    /// `batch: moment`: a moment's notifications, in arrival order, on the
    /// entry thread.
    Notifications(Vec<(u32, ApprovalDistributionMessage)>),
    /// `batch: moment`: several notifications' items for one distribution
    /// thread, in order (classic: a moment's notifications; parallel: a
    /// worker's share of them).
    Batch(Vec<(u32, ApprovalDistributionMessage)>),
    /// Checked items for voting to import (parallel).
    Import(Vec<Import>),
    /// Classic: the checks distribution asked for, and the distribution
    /// thread waiting for their verdicts.
    Checks {
        work: Vec<Action>,
        waiting: ThreadId,
    },
    /// CPU time of work whose effect was applied already.
    Charge(u64),
}

/// What a job leaves to do when it is done.
enum Done {
    /// The router's split: each worker's share.
    Route(Parts<Job>),
    /// Distribution handled items: forwards to send, imports for voting,
    /// checks for voting (classic).
    Handled {
        sends: Vec<(PeerId, Outgoing)>,
        imports: Vec<Import>,
        checks: Vec<Action>,
    },
    /// Voting imported these.
    Imported(Vec<Import>),
    /// Voting checked and imported for a waiting distribution thread.
    Checked {
        sends: Vec<(PeerId, Outgoing)>,
        imports: Vec<Import>,
        release: ThreadId,
        /// Checks it answered.
        checked: u64,
    },
    Nothing,
}

/// What handling a job's items left (from [`Handler`]).
#[derive(Default)]
pub(crate) struct Handled {
    pub sends: Vec<(PeerId, Outgoing)>,
    pub imports: Vec<Import>,
    /// Checks left to voting (classic).
    pub deferred: Vec<Action>,
    /// Checks answered, and their CPU cost.
    pub checked: u64,
    pub cost: u64,
}

/// CPU time owed by work done outside the queues, nanoseconds: charged
/// on the voting thread and on the first distribution thread.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Owed {
    pub voting: u64,
    pub distribution: u64,
}

/// The validator whose protocol runs on this CPU: what each job does.
pub(crate) trait Handler {
    /// Distribution handles a peer's items now; with `defer` it leaves
    /// the checks they need to voting (classic).
    fn handle_items(
        &mut self,
        now_ms: u64,
        from: u32,
        msg: ApprovalDistributionMessage,
        defer: bool,
    ) -> Handled;
    /// Voting runs the checks distribution left it (classic).
    fn run_checks(&mut self, now_ms: u64, work: Vec<Action>) -> Handled;
    /// Distribution's forwards leave.
    fn send(&mut self, now_ms: u64, sends: Vec<(PeerId, Outgoing)>);
    /// Voting imports checked items.
    fn import(&mut self, now_ms: u64, imports: Vec<Import>);
    /// The CPU time its own work owes since last asked.
    fn take_owed(&mut self) -> Owed;
}

/// A job a thread could not hand on: it waits, held, until there is room.
struct Blocked {
    from: ThreadId,
    to: ThreadId,
    job: Job,
    /// Release `from` once handed on (not when it waits for a verdict too).
    release: bool,
}

/// One validator's CPU and what waits for it.
pub(crate) struct Busy {
    cpu: Cpu<Job, Done>,
    roles: NodeThreads,
    costs: CostTable,
    layout: Layout,
    batch: Batch,
    /// `batch: moment`: the notifications of the moment not yet driven.
    moment: Vec<(u32, ApprovalDistributionMessage)>,
    /// Notifications the entry thread's queue had no room for yet.
    waiting: VecDeque<Job>,
    blocked: Vec<Blocked>,
    /// Threads woken late for their verdicts: when (ns), which, and the
    /// CPU of their side of the round trips (ns), in the order woken.
    wakes: Vec<(u64, ThreadId, u64)>,
    /// The last tick voting committed in.
    commit_tick: Option<Tick>,
    /// Time owed by the commits of this CPU's imports.
    owed: Owed,
}

impl Busy {
    /// The CPU of `shape` with `costs` already scaled by its `cpu_scale`;
    /// with `environment`, one more thread, `test-environment`, last,
    /// for the benchmark's test environment sharing the cores
    /// ([`Busy::charge_environment`]).
    pub fn new(shape: &NodeShape, costs: CostTable, environment: bool) -> Busy {
        let (cpu, roles) =
            shape::cpu(shape, environment).expect("the objective validated the shape");
        Busy {
            cpu,
            roles,
            costs,
            layout: shape.layout,
            batch: shape.batch,
            moment: Vec::new(),
            waiting: VecDeque::new(),
            blocked: Vec::new(),
            wakes: Vec::new(),
            commit_tick: None,
            owed: Owed::default(),
        }
    }

    /// The test environment carried `messages` more to or from the node:
    /// its thread is charged `environment_message` each (behind what it
    /// has to do already); nothing without that thread.
    pub fn environment_carried(&mut self, messages: u64) {
        let ns = messages * self.costs.environment_message();
        if let (Some(thread), true) = (self.roles.environment, ns > 0) {
            if self.cpu.submit(thread, Job::Charge(ns)).is_err() {
                unreachable!("the environment's queue is unbounded");
            }
        }
    }

    /// Whether distribution leaves its checks to voting.
    pub fn classic(&self) -> bool {
        self.layout == Layout::Classic
    }

    fn entry(&self) -> ThreadId {
        self.roles.router.unwrap_or(self.roles.distribution[0])
    }

    /// The next moment (ms) the CPU has an event, if any.
    pub fn next_ms(&self) -> Option<u64> {
        let wake = self.wakes.first().map(|w| w.0);
        let next = match (self.cpu.next_time(), wake) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        next.map(|t| t.div_ceil(NS_PER_MS))
    }

    /// The threads' names, in thread order (the order of [`Busy::busy_ms`]).
    pub fn thread_names(&self) -> Vec<String> {
        self.cpu
            .threads()
            .map(|(_, name)| name.to_owned())
            .collect()
    }

    /// CPU each thread used so far, milliseconds, in thread order.
    pub fn busy_ms(&self) -> Vec<u64> {
        self.cpu
            .threads()
            .map(|(t, _)| self.cpu.busy_ns(t) / NS_PER_MS)
            .collect()
    }

    /// A notification reached the node: queue it on the entry thread (or
    /// in the receive buffer behind what waits already); with `batch:
    /// moment`, gather it into the moment's job, queued when the moment is
    /// driven.
    pub fn enqueue(&mut self, from: u32, msg: ApprovalDistributionMessage) {
        match self.batch {
            Batch::Notification => self.submit_entry(Job::Notification { from, msg }),
            Batch::Moment => self.moment.push((from, msg)),
        }
    }

    /// Queue a job of notifications on the entry thread, or in the receive
    /// buffer behind what waits already.
    fn submit_entry(&mut self, job: Job) {
        if self.waiting.is_empty() {
            let entry = self.entry();
            if let Err(r) = self.cpu.submit(entry, job) {
                self.waiting.push_back(r.job);
            }
        } else {
            self.waiting.push_back(job);
        }
    }

    /// Run the CPU up to the end of moment `now_ms`: every job that starts
    /// or ends by then, then the time owed by work done outside the queues.
    pub fn drive<H: Handler>(&mut self, now_ms: u64, node: &mut H) {
        if !self.moment.is_empty() {
            let all = std::mem::take(&mut self.moment);
            self.submit_entry(Job::Notifications(all));
        }
        let until = now_ms.saturating_mul(NS_PER_MS);
        loop {
            self.charge_owed(node.take_owed());
            // A thread woken late is released at its moment, as an event.
            let wake = self.wakes.first().map(|w| w.0).filter(|&at| at <= until);
            let event = self
                .cpu
                .next(wake.unwrap_or(until))
                .expect("every start is answered");
            match event {
                None if wake.is_some() => self.wake(),
                None => break,
                Some(Event::Start { thread, job, .. }) => {
                    let (cost, done) = self.start(now_ms, job, node);
                    self.cpu
                        .started(thread, cost, done)
                        .expect("answering the start just handed out");
                }
                Some(Event::Done {
                    thread, out: done, ..
                }) => {
                    self.finish(now_ms, thread, done, node);
                    self.unblock();
                }
            }
        }
    }

    /// Queue the time owed by work done outside the queues, ahead of what
    /// waits (the work was done at this moment; what waits is delayed).
    fn charge_owed(&mut self, theirs: Owed) {
        let ours = std::mem::take(&mut self.owed);
        for (owed, thread) in [
            (ours.voting + theirs.voting, self.roles.voting),
            (
                ours.distribution + theirs.distribution,
                self.roles.distribution[0],
            ),
        ] {
            if owed > 0 {
                // Charges are not bounded by the queue: they are no message.
                if self.cpu.submit_front(thread, Job::Charge(owed)).is_err() {
                    unreachable!("a thread of this CPU takes a job at its front");
                }
            }
        }
    }

    /// A thread takes a job: handle what can be handled now, say what it
    /// costs and what is left for when it is done.
    fn start<H: Handler>(&mut self, now_ms: u64, job: Job, node: &mut H) -> (u64, Done) {
        let costs = &self.costs;
        match job {
            Job::Charge(ns) => (ns, Done::Nothing),
            Job::Notification { from, msg } => match self.layout {
                Layout::Parallel => {
                    let items = msg.len() as u64;
                    let parts = split(from, msg, &self.roles.distribution);
                    (costs.route() * items, Done::Route(parts))
                }
                Layout::Classic => self.start(now_ms, Job::Items { from, msg }, node),
            },
            Job::Notifications(all) => match self.layout {
                Layout::Parallel => {
                    let items: u64 = all.iter().map(|(_, msg)| msg.len() as u64).sum();
                    let parts = split_all(all, &self.roles.distribution);
                    (costs.route() * items, Done::Route(parts))
                }
                Layout::Classic => self.start(now_ms, Job::Batch(all), node),
            },
            Job::Items { from, msg } => {
                let mut cost = 0;
                let mut done = Handled::default();
                self.handle(now_ms, from, msg, node, &mut cost, &mut done);
                (cost, handled(done))
            }
            Job::Batch(all) => {
                let mut cost = 0;
                let mut done = Handled::default();
                for (from, msg) in all {
                    self.handle(now_ms, from, msg, node, &mut cost, &mut done);
                }
                (cost, handled(done))
            }
            Job::Import(imports) => {
                let cost = imports.iter().map(|i| import_cost(costs, i)).sum();
                (cost, Done::Imported(imports))
            }
            Job::Checks { work, waiting } => {
                let done = node.run_checks(now_ms, work);
                let imports: u64 = done.imports.iter().map(|i| import_cost(costs, i)).sum();
                (
                    done.cost + done.checked * costs.round_trip() + imports,
                    Done::Checked {
                        sends: done.sends,
                        imports: done.imports,
                        release: waiting,
                        checked: done.checked,
                    },
                )
            }
        }
    }

    /// Distribution handles `from`'s items: their cost added to `cost`,
    /// what they leave appended to `into`.
    fn handle<H: Handler>(
        &self,
        now_ms: u64,
        from: u32,
        msg: ApprovalDistributionMessage,
        node: &mut H,
        cost: &mut u64,
        into: &mut Handled,
    ) {
        let items = msg.len() as u64;
        let done = node.handle_items(now_ms, from, msg, self.classic());
        let plain = items.saturating_sub(done.checked);
        *cost += done.cost + plain * self.costs.duplicate();
        append(&mut into.sends, done.sends);
        append(&mut into.imports, done.imports);
        append(&mut into.deferred, done.deferred);
    }

    /// A job is done: send, import, hand on, release.
    fn finish<H: Handler>(&mut self, now_ms: u64, thread: ThreadId, done: Done, node: &mut H) {
        match done {
            Done::Nothing => {}
            Done::Route(parts) => {
                for (worker, job) in parts {
                    self.hand_on(thread, worker, job, true);
                }
            }
            Done::Handled {
                sends,
                imports,
                checks,
            } => {
                node.send(now_ms, sends);
                let voting = self.roles.voting;
                if !checks.is_empty() {
                    // Classic: wait, held, for voting's verdicts.
                    self.cpu.hold(thread).expect("a thread of this CPU");
                    let job = Job::Checks {
                        work: checks,
                        waiting: thread,
                    };
                    self.hand_on(thread, voting, job, false);
                }
                if !imports.is_empty() {
                    self.hand_on(thread, voting, Job::Import(imports), true);
                }
            }
            Done::Imported(imports) => self.import(now_ms, imports, node),
            Done::Checked {
                sends,
                imports,
                release,
                checked,
            } => {
                node.send(now_ms, sends);
                self.import(now_ms, imports, node);
                let own = checked * self.costs.round_trip_distribution();
                let late = checked * self.costs.round_trip_wake();
                if late == 0 {
                    self.go_on(release, own);
                } else {
                    // Woken late: held, using no core, until then.
                    let at = self.cpu.now().saturating_add(late);
                    let k = self.wakes.partition_point(|w| w.0 <= at);
                    self.wakes.insert(k, (at, release, own));
                }
            }
        }
    }

    /// A thread that waited for its verdicts goes on: its side of each
    /// round trip (waking for the verdict) first.
    fn go_on(&mut self, thread: ThreadId, own: u64) {
        if own > 0 && self.cpu.submit_front(thread, Job::Charge(own)).is_err() {
            unreachable!("a thread of this CPU takes a job at its front");
        }
        self.cpu.release(thread).expect("a thread of this CPU");
    }

    /// The first thread woken late goes on (the CPU's clock is at its
    /// moment).
    fn wake(&mut self) {
        let (_, thread, own) = self.wakes.remove(0);
        self.go_on(thread, own);
    }

    /// Voting imports checked items now, committing once per tick.
    fn import<H: Handler>(&mut self, now_ms: u64, imports: Vec<Import>, node: &mut H) {
        if imports.is_empty() {
            return;
        }
        let tick = tick_of(now_ms);
        if self.commit_tick != Some(tick) {
            self.commit_tick = Some(tick);
            self.owed.voting += self.costs.db_commit();
        }
        node.import(now_ms, imports);
    }

    /// Hand queued notifications and blocked outputs on while there is
    /// room, in order.
    fn unblock(&mut self) {
        let entry = self.entry();
        while let Some(job) = self.waiting.pop_front() {
            if let Err(r) = self.cpu.submit(entry, job) {
                self.waiting.push_front(r.job);
                break;
            }
        }
        let mut still = Vec::new();
        let mut handed = Vec::new();
        for b in std::mem::take(&mut self.blocked) {
            // Keep the order of what one thread hands on.
            if still.iter().any(|s: &Blocked| s.from == b.from) {
                still.push(b);
                continue;
            }
            match self.cpu.submit(b.to, b.job) {
                Ok(()) => {
                    if b.release {
                        handed.push(b.from);
                    }
                }
                Err(r) => still.push(Blocked { job: r.job, ..b }),
            }
        }
        // A thread goes on once all it had to hand on is handed on.
        for from in handed {
            if !still.iter().any(|s| s.from == from) {
                self.cpu.release(from).expect("a thread of this CPU");
            }
        }
        self.blocked = still;
    }

    /// `from` hands `job` to `to`, or waits, held, until it can.
    fn hand_on(&mut self, from: ThreadId, to: ThreadId, job: Job, release: bool) {
        let queued_before = self.blocked.iter().any(|b| b.from == from);
        let job = if queued_before {
            job
        } else {
            match self.cpu.submit(to, job) {
                Ok(()) => return,
                Err(r) => r.job,
            }
        };
        self.cpu.hold(from).expect("a thread of this CPU");
        self.blocked.push(Blocked {
            from,
            to,
            job,
            release,
        });
    }
}

/// What goes to each worker, in order: most often one worker's, held in
/// place.
type Parts<T> = SmallVec<[(ThreadId, T); 1]>;

/// The worker of a parallel node that handles validator `v`'s items.
fn worker_of(workers: &[ThreadId], v: ValidatorIndex) -> ThreadId {
    workers[v.0 as usize % workers.len()]
}

/// A notification split by the workers of its items' validators, each
/// worker's items in their order, the workers in the order of their first
/// item: `from`'s items for each worker.
fn split(from: u32, msg: ApprovalDistributionMessage, workers: &[ThreadId]) -> Parts<Job> {
    shares(msg, workers)
        .into_iter()
        .map(|(w, msg)| (w, Job::Items { from, msg }))
        .collect()
}

/// Each worker's share of a notification, as a notification of the same
/// kind ([`by_worker`]).
fn shares(
    msg: ApprovalDistributionMessage,
    workers: &[ThreadId],
) -> Parts<ApprovalDistributionMessage> {
    match msg {
        ApprovalDistributionMessage::Assignments(all) => {
            by_worker(all, workers, |a| a.cert.validator)
                .into_iter()
                .map(|(w, part)| (w, ApprovalDistributionMessage::Assignments(part)))
                .collect()
        }
        ApprovalDistributionMessage::Approvals(all) => by_worker(all, workers, |v| v.validator)
            .into_iter()
            .map(|(w, part)| (w, ApprovalDistributionMessage::Approvals(part)))
            .collect(),
    }
}

/// A moment's notifications split by worker ([`shares`]), each worker's
/// shares in the order of the notifications, the workers in the order of
/// their first item: one job for each worker.
fn split_all(all: Vec<(u32, ApprovalDistributionMessage)>, workers: &[ThreadId]) -> Parts<Job> {
    let mut parts: Vec<(ThreadId, Vec<(u32, ApprovalDistributionMessage)>)> = Vec::new();
    for (from, msg) in all {
        for (w, msg) in shares(msg, workers) {
            match parts.iter_mut().find(|(t, _)| *t == w) {
                Some((_, part)) => part.push((from, msg)),
                None => parts.push((w, vec![(from, msg)])),
            }
        }
    }
    parts
        .into_iter()
        .map(|(w, part)| (w, Job::Batch(part)))
        .collect()
}

/// `more` after what `list` holds: taken as it is while `list` is empty
/// (the only or first notification of a job), not copied.
fn append<T>(list: &mut Vec<T>, more: Vec<T>) {
    if list.is_empty() {
        *list = more;
    } else {
        list.extend(more);
    }
}

/// What handling items leaves for when the job is done.
fn handled(done: Handled) -> Done {
    Done::Handled {
        sends: done.sends,
        imports: done.imports,
        checks: done.deferred,
    }
}

/// Items grouped by the worker of their validator, without copying them
/// one by one when one worker has them all (and, for one worker, without
/// a list allocated).
fn by_worker<T>(
    all: Items<T>,
    workers: &[ThreadId],
    validator: impl Fn(&T) -> ValidatorIndex,
) -> Parts<Items<T>> {
    let worker = |item: &Arc<T>| worker_of(workers, validator(item));
    let Some(first) = all.first().map(worker) else {
        return Parts::new();
    };
    if all.iter().all(|item| worker(item) == first) {
        return smallvec![(first, all)];
    }
    let mut parts: Parts<Items<T>> = Parts::new();
    for item in all {
        let w = worker(&item);
        match parts.iter_mut().find(|(t, _)| *t == w) {
            Some((_, part)) => part.push(item),
            None => parts.push((w, smallvec![item])),
        }
    }
    parts
}

/// Voting's cost of importing one checked item.
fn import_cost(costs: &CostTable, item: &Import) -> u64 {
    match item {
        Import::Assignment { .. } => costs.import_assignment(),
        Import::Approval { .. } => costs.import_approval(),
    }
}

#[cfg(test)]
mod tests;
