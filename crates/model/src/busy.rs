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
//!   check, plus the imports); only then are the forwards sent and the next
//!   notification taken. This is upstream's approval-distribution waiting
//!   on approval-voting for every check (polkadot-sdk#4849).
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
//! Queues are bounded at the node's sizes (`crate::cpu::shape`). A full
//! queue makes the sender wait, as upstream's bounded channels do: a
//! thread that cannot hand its output on is held until there is room; a
//! notification the entry thread's queue cannot take stays in the
//! validator's receive buffer (the links keep delivering; what waits is
//! read in arrival order), so the sender's substream backs up instead of
//! losing anything.

use std::collections::VecDeque;

use tranche_distribution::{Action, Outgoing, PeerId};
use tranche_primitives::{ApprovalDistributionMessage, Tick, ValidatorIndex};

use crate::costs::CostTable;
use crate::cpu::shape::{self, NodeShape, NodeThreads};
use crate::cpu::{Cpu, Event, ThreadId};
use crate::drawn::Model;
use crate::member::{tick_of, ImportItem, Packet, SimNode};
use crate::verdicts::Verdicts;
use tranche_config::node_shape::NodeLayout;

/// Nanoseconds of virtual time per millisecond of the engine's clock.
const NS_PER_MS: u64 = 1_000_000;

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
    /// Checked items for voting to import (parallel).
    Import(Vec<ImportItem>),
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
pub(crate) enum Done {
    /// The router's split: each worker's share.
    Route(Vec<(ThreadId, Job)>),
    /// Distribution handled items: forwards to send, imports for voting,
    /// checks for voting (classic).
    Handled {
        sends: Vec<(PeerId, Outgoing)>,
        imports: Vec<ImportItem>,
        checks: Vec<Action>,
    },
    /// Voting imported these.
    Imported(Vec<ImportItem>),
    /// Voting checked and imported for a waiting distribution thread.
    Checked {
        sends: Vec<(PeerId, Outgoing)>,
        imports: Vec<ImportItem>,
        release: ThreadId,
    },
    Nothing,
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
    pub(crate) cpu: Cpu<Job, Done>,
    roles: NodeThreads,
    pub(crate) costs: CostTable,
    layout: NodeLayout,
    /// Notifications the entry thread's queue had no room for yet.
    waiting: VecDeque<Job>,
    blocked: Vec<Blocked>,
    /// The last tick voting committed in.
    commit_tick: Option<Tick>,
    /// CPU time owed by work done outside the queues, charged at the end
    /// of the moment: on the voting thread, on the first distribution one.
    pub(crate) owed_voting: u64,
    pub(crate) owed_distribution: u64,
}

impl Busy {
    /// The CPU of `shape` with `costs` already scaled by its `cpu_scale`.
    pub(crate) fn new(shape: &NodeShape, costs: CostTable) -> Busy {
        let (cpu, roles) = shape::cpu(shape).expect("the objective validated the shape");
        Busy {
            cpu,
            roles,
            costs,
            layout: shape.layout,
            waiting: VecDeque::new(),
            blocked: Vec::new(),
            commit_tick: None,
            owed_voting: 0,
            owed_distribution: 0,
        }
    }

    fn entry(&self) -> ThreadId {
        self.roles.router.unwrap_or(self.roles.distribution[0])
    }

    /// The next moment (ms) the CPU has an event, if any.
    pub(crate) fn next_ms(&self) -> Option<u64> {
        self.cpu.next_time().map(|t| t.div_ceil(NS_PER_MS))
    }

    /// CPU each thread used so far, milliseconds, in thread order.
    pub(crate) fn busy_ms(&self) -> Vec<u64> {
        self.cpu
            .threads()
            .map(|(t, _)| self.cpu.busy_ns(t) / NS_PER_MS)
            .collect()
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

/// The worker of a parallel node that handles validator `v`'s items.
fn worker_of(workers: &[ThreadId], v: ValidatorIndex) -> ThreadId {
    workers[v.0 as usize % workers.len()]
}

/// A notification split by the workers of its items' validators, each
/// worker's items in their order.
fn split(msg: ApprovalDistributionMessage, workers: &[ThreadId]) -> Vec<(ThreadId, Job)> {
    let mut parts: Vec<(ThreadId, ApprovalDistributionMessage)> = Vec::new();
    let mut put = |w: ThreadId, one: ApprovalDistributionMessage| match parts
        .iter_mut()
        .find(|(t, _)| *t == w)
    {
        Some((_, m)) => match (m, one) {
            (
                ApprovalDistributionMessage::Assignments(a),
                ApprovalDistributionMessage::Assignments(b),
            ) => a.extend(b),
            (
                ApprovalDistributionMessage::Approvals(a),
                ApprovalDistributionMessage::Approvals(b),
            ) => a.extend(b),
            _ => unreachable!("one notification holds one kind"),
        },
        None => parts.push((w, one)),
    };
    match msg {
        ApprovalDistributionMessage::Assignments(items) => {
            for item in items {
                let w = worker_of(workers, item.cert.validator);
                put(w, ApprovalDistributionMessage::Assignments(vec![item]));
            }
        }
        ApprovalDistributionMessage::Approvals(votes) => {
            for vote in votes {
                let w = worker_of(workers, vote.validator);
                put(w, ApprovalDistributionMessage::Approvals(vec![vote]));
            }
        }
    }
    parts
        .into_iter()
        .map(|(w, msg)| (w, Job::Items { from: 0, msg }))
        .collect()
}

impl SimNode {
    /// A notification reached the node at `now_ms`: queue it on the entry
    /// thread (or in the receive buffer behind what waits already).
    pub(crate) fn enqueue(&mut self, from: u32, msg: ApprovalDistributionMessage) {
        let busy = self.busy.as_mut().expect("a CPU model");
        let job = Job::Notification { from, msg };
        if busy.waiting.is_empty() {
            let entry = busy.entry();
            if let Err(r) = busy.cpu.submit(entry, job) {
                busy.waiting.push_back(r.job);
            }
        } else {
            busy.waiting.push_back(job);
        }
    }

    /// Run the CPU up to the end of moment `now_ms`: every job that starts
    /// or ends by then, then the time owed by work done outside the queues.
    pub(crate) fn drive(
        &mut self,
        now_ms: u64,
        v: &Verdicts,
        m: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let until = now_ms.saturating_mul(NS_PER_MS);
        loop {
            self.charge_owed();
            let busy = self.busy.as_mut().expect("a CPU model");
            let event = busy.cpu.next(until).expect("every start is answered");
            match event {
                None => break,
                Some(Event::Start { thread, job, .. }) => {
                    let (cost, done) = self.start(now_ms, job, v);
                    let busy = self.busy.as_mut().expect("a CPU model");
                    busy.cpu
                        .started(thread, cost, done)
                        .expect("answering the start just handed out");
                }
                Some(Event::Done {
                    thread, out: done, ..
                }) => {
                    self.finish(now_ms, thread, done, v, m, out);
                    self.busy.as_mut().expect("a CPU model").unblock();
                }
            }
        }
    }

    /// Queue the time owed by work done outside the queues, ahead of what
    /// waits (the work was done at this moment; what waits is delayed).
    fn charge_owed(&mut self) {
        let busy = self.busy.as_mut().expect("a CPU model");
        for (owed, thread) in [
            (std::mem::take(&mut busy.owed_voting), busy.roles.voting),
            (
                std::mem::take(&mut busy.owed_distribution),
                busy.roles.distribution[0],
            ),
        ] {
            if owed > 0 {
                // Charges are not bounded by the queue: they are no message.
                if busy.cpu.submit_front(thread, Job::Charge(owed)).is_err() {
                    unreachable!("a thread of this CPU takes a job at its front");
                }
            }
        }
    }

    /// A thread takes a job: handle what can be handled now, say what it
    /// costs and what is left for when it is done.
    fn start(&mut self, now_ms: u64, job: Job, v: &Verdicts) -> (u64, Done) {
        let costs = self.busy.as_ref().expect("a CPU model").costs.clone();
        match job {
            Job::Charge(ns) => (ns, Done::Nothing),
            Job::Notification { from, msg } => {
                let items = msg.len() as u64;
                let busy = self.busy.as_ref().expect("a CPU model");
                match busy.layout {
                    NodeLayout::Parallel => {
                        let workers = busy.roles.distribution.clone();
                        let parts = split(msg, &workers)
                            .into_iter()
                            .map(|(w, job)| match job {
                                Job::Items { msg, .. } => (w, Job::Items { from, msg }),
                                other => (w, other),
                            })
                            .collect();
                        (costs.route() * items, Done::Route(parts))
                    }
                    NodeLayout::Classic => self.start(now_ms, Job::Items { from, msg }, v),
                }
            }
            Job::Items { from, msg } => {
                let items = msg.len() as u64;
                let mut work = std::mem::take(&mut self.actions);
                self.dist
                    .handle_peer_message(tick_of(now_ms), PeerId(from), msg, &mut work);
                let classic =
                    self.busy.as_ref().expect("a CPU model").layout == NodeLayout::Classic;
                let done = self.run_checks(now_ms, work, v, classic);
                let plain = items.saturating_sub(done.checked);
                (
                    done.cost + plain * costs.duplicate(),
                    Done::Handled {
                        sends: done.sends,
                        imports: done.imports,
                        checks: done.deferred,
                    },
                )
            }
            Job::Import(imports) => {
                let cost = imports.iter().map(|i| import_cost(&costs, i)).sum();
                (cost, Done::Imported(imports))
            }
            Job::Checks { work, waiting } => {
                let done = self.run_checks(now_ms, work, v, false);
                let imports: u64 = done.imports.iter().map(|i| import_cost(&costs, i)).sum();
                (
                    done.cost + done.checked * costs.round_trip() + imports,
                    Done::Checked {
                        sends: done.sends,
                        imports: done.imports,
                        release: waiting,
                    },
                )
            }
        }
    }

    /// A job is done: send, import, hand on, release.
    fn finish(
        &mut self,
        now_ms: u64,
        thread: ThreadId,
        done: Done,
        v: &Verdicts,
        m: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        match done {
            Done::Nothing => {}
            Done::Route(parts) => {
                let busy = self.busy.as_mut().expect("a CPU model");
                for (worker, job) in parts {
                    busy.hand_on(thread, worker, job, true);
                }
            }
            Done::Handled {
                sends,
                imports,
                checks,
            } => {
                self.sends.extend(sends);
                self.flush_sends(now_ms, v, m, out);
                let busy = self.busy.as_mut().expect("a CPU model");
                let voting = busy.roles.voting;
                if !checks.is_empty() {
                    // Classic: wait, held, for voting's verdicts.
                    busy.cpu.hold(thread).expect("a thread of this CPU");
                    let job = Job::Checks {
                        work: checks,
                        waiting: thread,
                    };
                    busy.hand_on(thread, voting, job, false);
                }
                if !imports.is_empty() {
                    busy.hand_on(thread, voting, Job::Import(imports), true);
                }
            }
            Done::Imported(imports) => self.import(now_ms, imports, v, m, out),
            Done::Checked {
                sends,
                imports,
                release,
            } => {
                self.sends.extend(sends);
                self.flush_sends(now_ms, v, m, out);
                self.import(now_ms, imports, v, m, out);
                let busy = self.busy.as_mut().expect("a CPU model");
                busy.cpu.release(release).expect("a thread of this CPU");
            }
        }
    }

    /// Voting imports checked items now, committing once per tick.
    fn import(
        &mut self,
        now_ms: u64,
        imports: Vec<ImportItem>,
        v: &Verdicts,
        m: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        if imports.is_empty() {
            return;
        }
        let busy = self.busy.as_mut().expect("a CPU model");
        let tick = tick_of(now_ms);
        if busy.commit_tick != Some(tick) {
            busy.commit_tick = Some(tick);
            busy.owed_voting += busy.costs.db_commit();
        }
        self.apply_imports(now_ms, imports, v, m, out);
    }
}

/// Voting's cost of importing one checked item.
fn import_cost(costs: &CostTable, item: &ImportItem) -> u64 {
    match item {
        ImportItem::Assignment(_) => costs.import_assignment(),
        ImportItem::Approval(_) => costs.import_approval(),
    }
}
