//! The simulation on timely dataflow: the dataflow, and the operator that
//! runs a worker's share of the validators moment by moment, on the
//! workers `cluster::EngineConfig` says.
//!
//! # The dataflow
//!
//! One operator, `validators`, on every worker; its input is the feedback
//! edge of a loop whose summary is 1 ms, its first output (notifications
//! in flight) closes that loop, its second (each validator's record) goes
//! to worker 0. A timestamp is a moment of virtual time in milliseconds; a
//! notification arriving at `t` is sent at timestamp `t - 1` and reaches
//! its destination's input at `t`, routed by the exchange pact on its
//! destination validator (validator `v` lives on worker `v mod workers`).
//!
//! The operator holds one capability at the earliest moment it still has
//! work for (a notification to deliver, a block to import, a voting timer);
//! a moment `t` is complete when the input frontier has passed `t`: every
//! worker holds capabilities at `t` or later, so nothing can still arrive
//! at `t`. Timely's progress tracking is thus the barrier, and idle spans
//! are skipped. A complete moment's deliveries are sorted by destination,
//! sender and the sender's sequence number before any is handled, so the
//! results do not depend on how validators are spread over workers and
//! processes.
//!
//! # Several processes
//!
//! `rendezvous` connects the processes (with a deadline, naming whom it
//! still waits for) and hands the connections to timely's TCP allocator;
//! while the dataflow runs, `liveness` turns a lost connection into one
//! line and exit status 1 (the workers would otherwise wait for the lost
//! process forever); `gather` brings every process's cost figures to
//! process 0 at the end.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::builder_rc::OperatorBuilder;
use timely::dataflow::operators::{Capability, ConnectLoop, Exchange as _, Feedback, Inspect};
use timely::progress::frontier::MutableAntichain;
use timely::progress::operate::FrontierInterest;
use tranche_model::member::{NodeRecord, Packet, SimNode};
use tranche_model::setup::Shared;
use tranche_model::verdicts::Verdicts;

use crate::cluster::{ClusterOptions, EngineConfig, EngineError};
use crate::gather::ControlStreams;
use crate::liveness;
use crate::rendezvous;
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};

/// Told, by worker 0 of process 0, each moment it has handled:
/// milliseconds of virtual time since the first block's slot, and the
/// span to the end.
pub type ProgressFn = Arc<dyn Fn(u64, u64) + Send + Sync>;

/// What one process learnt: every validator's record (on process 0; the
/// others return none), this process's crypto counts, and its control
/// connections for gathering the cost figures.
pub struct ProcessResult {
    pub control: ControlStreams,
    pub records: Vec<NodeRecord>,
    /// Checks run for real in this process (all its workers).
    pub verified: u64,
    /// Verdicts reused from its workers' caches.
    pub reused: u64,
    /// Moments handled by this process's workers.
    pub moments: u64,
}

/// Timely's allocators for this process: for several processes, over
/// the connections `rendezvous` made (with its deadline) rather than
/// timely's own setup, which retries forever.
type Allocators = (Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>);

fn allocators(
    engine: &EngineConfig,
    cluster: &ClusterOptions,
    fingerprint: u64,
) -> Result<(Allocators, ControlStreams), EngineError> {
    let config = engine.timely()?;
    if engine.processes <= 1 {
        let built = config
            .communication
            .try_build()
            .map_err(EngineError::Timely)?;
        return Ok((built, ControlStreams::default()));
    }
    let streams = rendezvous::connect(engine, cluster, fingerprint)?;
    let hooks = timely::communication::Hooks::default();
    let local =
        ProcessBuilder::new_typed_vector(engine.threads, hooks.refill.clone(), hooks.spill.clone());
    let (builders, guard) = initialize_networking_from_sockets(
        local,
        streams.data,
        engine.process,
        engine.threads,
        hooks,
    )
    .map_err(|e| EngineError::Timely(e.to_string()))?;
    let builders = builders.into_iter().map(AllocatorBuilder::Tcp).collect();
    let control = ControlStreams {
        streams: streams.control,
        hosts: engine.hosts.clone(),
    };
    Ok(((builders, Box::new(guard)), control))
}

/// Run the simulation of `shared` on this process's workers; with
/// several processes, connect them first (`cluster`'s deadline; the
/// `fingerprint` of the simulated network must be the same everywhere)
/// and, until the run is done, end this process with one line if
/// another one goes away (`liveness`).
pub fn run(
    shared: Arc<Shared>,
    engine: &EngineConfig,
    cluster: &ClusterOptions,
    fingerprint: u64,
    progress: Option<ProgressFn>,
) -> Result<ProcessResult, EngineError> {
    let ((builders, others), control) = allocators(engine, cluster, fingerprint)?;
    let _watch = (engine.processes > 1).then(|| liveness::watch(&engine.hosts));
    let processes = engine.processes.max(1);
    let s = shared.clone();
    let worker_config = timely::WorkerConfig::default();
    let guards = timely::execute::execute_from(builders, others, worker_config, move |worker| {
        let records = Rc::new(RefCell::new(Vec::new()));
        let moments = Rc::new(RefCell::new(0u64));
        let (index, peers) = (worker.index(), worker.peers());
        let shared = s.clone();
        let across = processes > 1;
        let verdicts = Rc::new(Verdicts::new(shared.verify, across, &shared.verdicts));
        let tell = progress.clone().filter(|_| index == 0);
        let (sink, counter, cache) = (records.clone(), moments.clone(), verdicts.clone());
        worker.dataflow::<u64, _, _>(move |scope| {
            let (handle, cycle) = scope.feedback::<Vec<Packet>>(1);
            let mut builder = OperatorBuilder::new("validators".to_owned(), scope);
            let mut input = builder.new_input(cycle, Exchange::new(|p: &Packet| u64::from(p.to)));
            builder.set_notify_for(0, FrontierInterest::Always);
            let (mut packets_out, packets) = builder.new_output::<Vec<Packet>>();
            let (mut records_out, results) = builder.new_output::<Vec<NodeRecord>>();
            builder.build(move |mut caps| {
                let record_cap = caps.pop();
                let cap = caps.pop();
                let mut shard = Shard::new(
                    shared,
                    (index, peers),
                    (cap, record_cap),
                    counter,
                    cache,
                    tell,
                );
                move |frontiers: &[MutableAntichain<u64>]| {
                    input.for_each(|c, data| {
                        let t = *c.least().expect("a batch has a time");
                        if t <= shard.shared.end_ms
                            && shard.cap.as_ref().is_none_or(|k| t < *k.time())
                        {
                            shard.cap = Some(c.delayed(&t, 0));
                        }
                        // The batch itself, not copied into a growing list.
                        shard.stash.entry(t).or_default().push(std::mem::take(data));
                    });
                    let mut session = packets_out.activate();
                    let mut emit = |cap: &Capability<u64>, at: u64, batch: &mut Vec<Packet>| {
                        let c = cap.delayed(&at);
                        session.give(&c, batch);
                    };
                    shard.step(&frontiers[0], &mut emit);
                    if let Some(rc) = shard.finished(&frontiers[0]) {
                        let mut recs = shard.records();
                        records_out.activate().give(&rc, &mut recs);
                    }
                }
            });
            packets.connect_loop(handle);
            results
                .exchange(|_| 0)
                .inspect(move |r: &NodeRecord| sink.borrow_mut().push(r.clone()));
        });
        while worker.step_or_park(None) {}
        let out = records.borrow().clone();
        let m = *moments.borrow();
        (out, m, verdicts.counts())
    })
    .map_err(EngineError::Timely)?;
    let mut records = Vec::new();
    let (mut moments, mut verified, mut reused) = (0, 0, 0);
    for r in guards.join() {
        let (recs, m, (v, u)) = r.map_err(EngineError::Worker)?;
        records.extend(recs);
        moments += m;
        verified += v;
        reused += u;
    }
    records.sort_by_key(|r| r.validator);
    Ok(ProcessResult {
        control,
        records,
        verified,
        reused,
        moments,
    })
}

/// One worker's validators and what they wait for.
struct Shard {
    shared: Arc<Shared>,
    peers: usize,
    /// This worker's validators: `index`, `index + peers`, ...
    nodes: Vec<SimNode>,
    /// Each validator's next event of its own (`SimNode::next_event_ms`),
    /// asked once after each of its moments: nothing else changes it
    /// (what arrives changes only its port), so the earliest moment and
    /// who has a timer due are read here, not asked of every validator
    /// twice a moment.
    next_at: Vec<Option<u64>>,
    /// Notifications that arrived, by moment, before ingress shaping: the
    /// batches as timely handed them over.
    stash: BTreeMap<u64, Vec<Vec<Packet>>>,
    /// Notifications past ingress shaping, by the moment they are handled.
    deferred: BTreeMap<u64, Vec<Packet>>,
    /// The capability of the notifications output, at the earliest moment
    /// with work; none when nothing is left before the end.
    cap: Option<Capability<u64>>,
    record_cap: Option<Capability<u64>>,
    moments: Rc<RefCell<u64>>,
    sends: Vec<(u64, Packet)>,
    /// The moment's arrivals and deliveries, and a batch to send (reused:
    /// lists that grow every moment would be copied as they grow, into
    /// memory that is new each time).
    arrived: Vec<Packet>,
    due: Vec<Packet>,
    batch: Vec<Packet>,
    /// This worker's verdicts, its own (no lock).
    verdicts: Rc<Verdicts>,
    progress: Option<ProgressFn>,
}

impl Shard {
    fn new(
        shared: Arc<Shared>,
        (index, peers): (usize, usize),
        (cap, record_cap): (Option<Capability<u64>>, Option<Capability<u64>>),
        moments: Rc<RefCell<u64>>,
        verdicts: Rc<Verdicts>,
        progress: Option<ProgressFn>,
    ) -> Shard {
        let nodes: Vec<SimNode> = (index..shared.spec.n_validators as usize)
            .step_by(peers)
            .map(|v| shared.node(v as u32))
            .collect();
        let next_at = nodes.iter().map(SimNode::next_event_ms).collect();
        let mut cap = cap;
        if let Some(c) = cap.as_mut() {
            c.downgrade(&shared.start_ms);
        }
        Shard {
            shared,
            peers,
            nodes,
            next_at,
            stash: BTreeMap::new(),
            deferred: BTreeMap::new(),
            cap,
            record_cap,
            moments,
            sends: Vec::new(),
            arrived: Vec::new(),
            due: Vec::new(),
            batch: Vec::new(),
            verdicts,
            progress,
        }
    }

    fn local(&self, v: u32) -> usize {
        v as usize / self.peers
    }

    /// The earliest moment with work, if any.
    fn next_moment(&self) -> Option<u64> {
        let a = self.stash.keys().next().copied();
        let b = self.deferred.keys().next().copied();
        let c = self.next_at.iter().flatten().min().copied();
        [a, b, c].into_iter().flatten().min()
    }

    /// Handle every complete moment, then hold the capability at the next.
    fn step(
        &mut self,
        frontier: &MutableAntichain<u64>,
        emit: &mut impl FnMut(&Capability<u64>, u64, &mut Vec<Packet>),
    ) {
        if self.cap.is_none() {
            // Input that arrived after the end.
            self.stash.clear();
            return;
        }
        while let Some(t) = self.next_moment() {
            if t > self.shared.end_ms || frontier.less_equal(&t) {
                break;
            }
            self.moment(t);
            if let Some(tell) = &self.progress {
                let start = self.shared.start_ms;
                tell(t.saturating_sub(start), self.shared.end_ms - start);
            }
            let cap = self.cap.as_ref().expect("held while work is left");
            let end_ms = self.shared.end_ms;
            self.sends.retain(|(at, _)| *at <= end_ms);
            // By arrival moment; (from, seq) is unique.
            self.sends
                .sort_unstable_by_key(|(at, p)| (*at, p.from, p.seq));
            let batch = &mut self.batch;
            let mut sends = self.sends.drain(..).peekable();
            while let Some((at, p)) = sends.next() {
                batch.push(p);
                while let Some((_, p)) = sends.next_if(|(a, _)| *a == at) {
                    batch.push(p);
                }
                // Sent at `at - 1`; the loop's summary adds the last 1 ms.
                emit(cap, at - 1, batch);
                batch.clear();
            }
        }
        match self.next_moment().filter(|&t| t <= self.shared.end_ms) {
            Some(t) => {
                if let Some(c) = self.cap.as_mut() {
                    c.downgrade(&t);
                }
            }
            None => self.cap = None,
        }
    }

    /// One complete moment: ingress shaping of what arrived, then every
    /// validator with something due, its deliveries in (sender, sequence)
    /// order. What is due is one list sorted by (destination, sender,
    /// sequence), handed to the validators in turn (they are in ascending
    /// order too): no list per validator.
    fn moment(&mut self, t: u64) {
        *self.moments.borrow_mut() += 1;
        let mut arrived = std::mem::take(&mut self.arrived);
        for mut batch in self.stash.remove(&t).unwrap_or_default() {
            arrived.append(&mut batch);
        }
        // (from, seq) is unique: a sender numbers everything it sends.
        arrived.sort_unstable_by_key(|p| (p.to, p.from, p.seq));
        let mut due = std::mem::take(&mut self.due);
        let held = self.deferred.remove(&t).unwrap_or_default();
        let merge = !held.is_empty();
        due.extend(held);
        for p in arrived.drain(..) {
            let i = self.local(p.to);
            let at = self.nodes[i].arrive(t, &p);
            if at <= t {
                due.push(p);
            } else {
                self.deferred.entry(at).or_default().push(p);
            }
        }
        if merge {
            due.sort_unstable_by_key(|p| (p.to, p.from, p.seq));
        }
        let shared = self.shared.clone();
        let mut due_now = due.drain(..).peekable();
        for (node, next_at) in self.nodes.iter_mut().zip(&mut self.next_at) {
            let v = node.index();
            let delivered = due_now.peek().is_some_and(|p| p.to == v);
            let timer_due = next_at.is_some_and(|n| n <= t);
            if !delivered && !timer_due {
                continue;
            }
            let mine = std::iter::from_fn(|| due_now.next_if(|p| p.to == v));
            node.moment(t, mine, &self.verdicts, &shared.model, &mut self.sends);
            // What it did not take (away): dropped.
            while due_now.next_if(|p| p.to == v).is_some() {}
            *next_at = node.next_event_ms();
        }
        drop(due_now);
        self.arrived = arrived;
        self.due = due;
    }

    /// Once nothing can reach this worker before the end any more: the
    /// capability to send the records with, taken (so only once).
    fn finished(&mut self, frontier: &MutableAntichain<u64>) -> Option<Capability<u64>> {
        if self.cap.is_some() || frontier.less_equal(&self.shared.end_ms) {
            return None;
        }
        self.record_cap.take()
    }

    fn records(&self) -> Vec<NodeRecord> {
        self.nodes.iter().map(|n| n.record()).collect()
    }
}
