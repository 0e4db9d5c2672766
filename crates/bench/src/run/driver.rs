//! The driver of one run: the node under test among emulated peers, on
//! the slot clock. Blocks are imported at their slots; the producer
//! releases the peers' pre-generated messages at their tranches; the
//! emulated network carries them and counts the bytes both ways; whatever
//! the node sends goes back through the network to the peers, which only
//! consume it.

use super::approvals::Approvals;
use super::chain::{net_peer, send_delivery, Chain, Links};
use super::restart::{Restart, Resume};
use super::Phase;
use super::{ClockKind, Prepared, RunOptions, IDLE_TIMEOUT, REAL_SAMPLE_EVERY};
use anyhow::Result;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tranche_config::BenchStep;
use tranche_distribution::{PeerId, SessionGridTopology, View};
use tranche_links::{Endpoint, Fate, SendError};
use tranche_node::{process_cpu_time, thread_cpu_time};
use tranche_node::{Clock, Node, NodeConfig, NodeEvent, StoreConfig};
use tranche_primitives::time::TICK_DURATION_MILLIS;
use tranche_primitives::{Session, Tick};
use tranche_report::prometheus::{Exporter, LiveRun};
use tranche_report::{thread_group, Counts, Sample};
use tranche_voting::{LocalKeys, NewBlock};
use tranche_workload::generate::world::NODE_UNDER_TEST;
use tranche_workload::producer::{Delivery, Producer};

/// What a run measures as it goes: the samples for the plots, where the
/// CPU clocks and the wall clock stood at its start, its peak memory and
/// the live figures of the Prometheus endpoint.
pub(super) struct Meter {
    pub samples: Vec<Sample>,
    last_sample: Instant,
    /// When the real clock's first tick began.
    real_start: Instant,
    pub driver_cpu_start: Duration,
    pub process_cpu_start: Duration,
    pub wall_start: Instant,
    live: Option<Arc<LiveRun>>,
    /// How the run's peak memory is measured (reset at its start).
    pub peak_rss: super::PeakMemory,
}

/// One run in progress: the node under test, the emulated network, the
/// producer, and what has been observed so far.
pub(super) struct Driver<'a> {
    chain: Chain<'a>,
    node: Node,
    net: Links,
    producer: Producer<'a>,
    approvals: Approvals,
    counts: Counts,
    clock: Clock,
    meter: Meter,
    /// `--restart-at-block`: the crash and restart still to come, and what
    /// was measured of one that happened (`restart.rs`).
    restart: Restart,
    options: RunOptions,
}

/// A finished run, as its report is assembled from it (`assemble.rs`).
pub(super) struct Finished<'a> {
    pub step: &'a BenchStep,
    pub prepared: &'a Prepared,
    pub session: Arc<Session>,
    pub node: Node,
    pub net: Links,
    pub producer: Producer<'a>,
    pub approved: Vec<Option<Tick>>,
    /// Per block: ms after its slot start it was approved.
    pub approved_after_ms: Vec<Option<u64>>,
    pub counts: Counts,
    pub meter: Meter,
    pub restart: Restart,
}

impl<'a> Driver<'a> {
    fn sim_time(&self, tick: Tick) -> Duration {
        match self.clock {
            Clock::Virtual(_) => {
                Duration::from_millis((tick - self.chain.first_tick) * TICK_DURATION_MILLIS)
            }
            Clock::Real { .. } => self.meter.real_start.elapsed(),
        }
    }

    fn import_due_blocks(&mut self, tick: Tick) -> Result<()> {
        while let Some(b) = self.chain.due(tick) {
            let block = self.chain.blocks()[b].clone();
            let session = self.chain.session_of(block.session);
            self.node.import_block(NewBlock { block, session })?;
            if self.clock.is_virtual() {
                self.node.wait_idle(IDLE_TIMEOUT)?;
            }
            self.producer.block_initialised(b as u32);
            let hash = self.chain.blocks()[b].hash;
            for v in 1..self.chain.step.n_validators {
                if self.net.is_connected(net_peer(v)) {
                    self.node.peer_view(
                        PeerId(v),
                        View {
                            heads: vec![hash],
                            finalized_number: 0,
                        },
                    )?;
                }
            }
            self.chain.imported += 1;
        }
        Ok(())
    }

    fn send_deliveries(&mut self, now: Duration, deliveries: &[Delivery<'a>]) {
        for d in deliveries {
            send_delivery(&mut self.net, &mut self.counts, self.chain.prepared, now, d);
        }
    }

    fn deliver_arrivals(&mut self, until: Duration) -> Result<()> {
        for o in self.net.advance(until) {
            if o.to != Endpoint::Node {
                continue;
            }
            match o.fate {
                Fate::Delivered => {
                    let (v, bytes) = o.payload;
                    self.node.peer_message(PeerId(v), bytes)?;
                }
                Fate::Lost => self.counts.lost += 1,
            }
        }
        Ok(())
    }

    fn drain_events(&mut self, now: Duration) {
        while let Ok(e) = self.node.events().try_recv() {
            self.handle_event(e, now);
        }
    }

    fn handle_event(&mut self, e: NodeEvent, now: Duration) {
        match e {
            NodeEvent::Send { peer, bytes, .. } => {
                self.counts.messages_from_node += 1;
                if peer.0 >= 1 && peer.0 < self.chain.step.n_validators {
                    let len = bytes.len() as u64;
                    // The network may already have advanced past `now`
                    // while delivering this tick's arrivals.
                    let at = now.max(self.net.now());
                    match self.net.send(
                        at,
                        Endpoint::Node,
                        Endpoint::Peer(net_peer(peer.0)),
                        len,
                        (peer.0, bytes),
                    ) {
                        Ok(_) | Err(SendError::NotConnected(_)) => {}
                        Err(e) => tranche_report::errln!(
                            "warning: emulated network refused a message from the node: {e}"
                        ),
                    }
                }
            }
            NodeEvent::BlockApproved { hash, tick, .. } => {
                if let Some(b) = self.chain.index_of(&hash) {
                    if self.approvals.record(b, tick) {
                        self.producer.block_approved(b as u32);
                    }
                }
            }
            NodeEvent::Malformed { peer, error } => {
                tranche_report::errln!("warning: node rejected bytes from peer {}: {error}", peer.0)
            }
            NodeEvent::Reputation { .. } => {}
        }
    }

    /// Milliseconds after its slot start that block `b` was approved (500 ms
    /// resolution under the virtual clock, wall-clock under the real one).
    fn approval_ms(&self, b: usize) -> Option<u64> {
        let slot_tick = self.chain.block_ticks[b];
        if self.clock.is_virtual() {
            self.approvals.ticks()[b].map(|t| t.saturating_sub(slot_tick) * TICK_DURATION_MILLIS)
        } else {
            self.approvals.at(b).map(|at| {
                let since_first = (slot_tick - self.chain.first_tick) * TICK_DURATION_MILLIS;
                let slot_start = self.meter.real_start + Duration::from_millis(since_first);
                at.saturating_duration_since(slot_start).as_millis() as u64
            })
        }
    }

    /// Record the run's state now: a sample for the report's plots, and
    /// the live figures for the Prometheus endpoint.
    fn sample(&mut self, tick: Tick) {
        let imported = self.chain.imported;
        self.meter.last_sample = Instant::now();
        if let super::PeakMemory::Sampled(max) = &mut self.meter.peak_rss {
            *max = (*max).max(super::rss_bytes());
        }
        let t_s = if self.clock.is_virtual() {
            tick.saturating_sub(self.chain.first_tick) as f64 * 0.5
        } else {
            self.meter.real_start.elapsed().as_secs_f64()
        };
        let metrics = self.node.metrics();
        let mut cpu_s = BTreeMap::new();
        let mut worker_cpu_s = BTreeMap::new();
        for w in &metrics.workers {
            let group = thread_group(&w.name);
            if group != w.name {
                worker_cpu_s.insert(w.name.clone(), w.cpu_seconds());
            }
            *cpu_s.entry(group).or_insert(0.0) += w.cpu_seconds();
        }
        let env = thread_cpu_time().saturating_sub(self.meter.driver_cpu_start);
        // The process outside the named threads and the driver, as the
        // report's `other` row (counted in the node's CPU).
        let named: f64 = cpu_s.values().sum();
        let process = process_cpu_time().saturating_sub(self.meter.process_cpu_start);
        let other = (process.as_secs_f64() - named - env.as_secs_f64()).max(0.0);
        cpu_s.insert("other".to_owned(), other);
        cpu_s.insert("test-environment".to_owned(), env.as_secs_f64());
        let mut queue_depth = 0;
        let mut queue_depth_by_kind = BTreeMap::new();
        for c in &metrics.channels {
            let peak = c.take_window_peak();
            queue_depth += peak;
            let deepest = queue_depth_by_kind
                .entry(tranche_report::channel_kind(&c.name))
                .or_insert(0);
            *deepest = peak.max(*deepest);
        }
        let node = *self.net.node_counters();
        self.meter.samples.push(Sample {
            t_s,
            tick,
            cpu_s,
            received_bytes: node.bytes_received,
            sent_bytes: node.bytes_sent,
            queue_depth,
            queue_depth_by_kind,
            worker_cpu_s,
            approved_blocks: self.approvals.count() as u32,
        });
        if let Some(live) = &self.meter.live {
            let net = &self.net;
            let peers = (0..net.n_peers()).map(|i| {
                net.peer_counters(tranche_links::PeerId(i))
                    .map_or((0, 0), |c| (c.bytes_sent, c.bytes_received))
            });
            let blocks = (0..self.chain.blocks().len())
                .map(|b| (self.chain.blocks()[b].number, self.approval_ms(b)));
            live.publish(
                t_s,
                imported as u64,
                env,
                node.bytes_received,
                node.bytes_sent,
                peers,
                blocks,
            );
        }
    }

    /// Blocks of the run (the run phase's total).
    pub(super) fn blocks(&self) -> u64 {
        self.chain.blocks().len() as u64
    }

    /// Tell the phase of the blocks approved since the last call.
    fn report_approvals(&mut self, phase: &Phase) {
        for b in self.approvals.take_new() {
            phase.block_approved(self.chain.blocks()[b].number, self.approval_ms(b));
        }
        phase.set(self.approvals.count() as u64);
    }

    /// The run's tick loop, one for both clocks. Each tick: block imports
    /// on the slot clock, the producer's deliveries for the tick through the
    /// network, the arrivals handed to the node. Under the virtual clock the
    /// tick is set by the driver and the node is drained until idle between
    /// arrivals (deterministic protocol timing); under the real clock the
    /// tick is read from the wall clock and the driver waits for the next
    /// network event or node event.
    pub(super) fn run_ticks(&mut self, phase: &Phase) -> Result<()> {
        let virtual_clock = self.clock.is_virtual();
        let mut next_tick = self.chain.first_tick;
        if virtual_clock {
            self.node.wait_idle(IDLE_TIMEOUT)?;
            self.sample(self.chain.first_tick);
        } else {
            self.meter.real_start = Instant::now();
            self.sample(self.clock.now());
        }
        let mut deliveries = Vec::new();
        loop {
            let tick = if virtual_clock {
                next_tick
            } else {
                self.clock.now()
            };
            if tick > self.chain.end_tick {
                break;
            }
            if virtual_clock {
                self.node.set_tick(tick)?;
                self.node.wait_idle(IDLE_TIMEOUT)?;
            } else if self.meter.last_sample.elapsed() >= REAL_SAMPLE_EVERY {
                self.sample(tick);
            }
            if self
                .restart
                .due(self.chain.imported, &self.chain.block_ticks, tick)
            {
                self.restart_node(tick)?;
            }
            self.import_due_blocks(tick)?;
            let now = self.sim_time(tick);
            deliveries.clear();
            self.producer.poll(tick, &mut deliveries);
            self.send_deliveries(now, &deliveries);
            if virtual_clock {
                self.settle_virtual_tick(tick, now)?;
                self.sample(tick);
            } else {
                self.deliver_arrivals(now)?;
                self.drain_events(now);
                self.node.check()?;
            }
            self.report_approvals(phase);
            if self.approvals.all() && self.producer.is_done() {
                break;
            }
            if virtual_clock {
                next_tick = tick + 1;
            } else {
                self.wait_real(tick);
            }
        }
        Ok(())
    }

    /// `--restart-at-block`: crash the node, start it again on its
    /// database and bring it back where the run is (`restart.rs`).
    fn restart_node(&mut self, tick: Tick) -> Result<()> {
        let chain = &self.chain;
        let (net, options, clock) = (&self.net, &self.options, &self.clock);
        let heads = chain.blocks()[..chain.imported]
            .iter()
            .map(|b| b.hash)
            .collect();
        let reconnect = |node: &mut Node| connect(node, chain.step, chain.prepared, net);
        let events = self.restart.restart(
            &mut self.node,
            |store| node_config(chain.prepared, &chain.session, options, clock, store),
            Resume {
                tick,
                block: (chain.imported + 1) as u32,
                heads,
                n_validators: chain.step.n_validators,
                reconnect: &reconnect,
            },
        )?;
        let now = self.sim_time(tick);
        for e in events {
            self.handle_event(e, now);
        }
        Ok(())
    }

    /// Virtual clock: everything arriving before the next tick is delivered
    /// in this one; the node drains between arrivals and sends.
    fn settle_virtual_tick(&mut self, tick: Tick, now: Duration) -> Result<()> {
        let tick_end = self.sim_time(tick + 1) - Duration::from_nanos(1);
        loop {
            self.deliver_arrivals(tick_end)?;
            self.node.wait_idle(IDLE_TIMEOUT)?;
            self.drain_events(now);
            let more = self.net.next_event_time().is_some_and(|t| t <= tick_end);
            if !more {
                return Ok(());
            }
        }
    }

    /// Real clock: sleep until the next network event or 5 ms, whichever
    /// is sooner, waking early for node events.
    fn wait_real(&mut self, tick: Tick) {
        let wait = self
            .net
            .next_event_time()
            .map(|t| t.saturating_sub(self.meter.real_start.elapsed()))
            .unwrap_or(Duration::from_millis(5))
            .min(Duration::from_millis(5));
        if let Ok(e) = self.node.events().recv_timeout(wait) {
            let now = self.sim_time(tick);
            self.handle_event(e, now);
        }
    }

    /// After the loop: under the real clock, let the node work off what is
    /// still queued (as upstream's benchmark waits until every message it
    /// sent was consumed) and take a last sample; then hand over what the
    /// report is made of.
    pub(super) fn finish(mut self, phase: &Phase) -> Result<Finished<'a>> {
        if !self.clock.is_virtual() {
            self.node.wait_idle(IDLE_TIMEOUT)?;
            let now = self.sim_time(self.clock.now());
            self.drain_events(now);
            self.sample(self.clock.now());
        }
        self.report_approvals(phase);
        let approved_after_ms = (0..self.chain.blocks().len())
            .map(|b| self.approval_ms(b))
            .collect();
        Ok(Finished {
            step: self.chain.step,
            prepared: self.chain.prepared,
            session: self.chain.session,
            node: self.node,
            net: self.net,
            producer: self.producer,
            approved: self.approvals.ticks().to_vec(),
            approved_after_ms,
            counts: self.counts,
            meter: self.meter,
            restart: self.restart,
        })
    }

    /// Start the node under test for one run of `step` and connect it to
    /// the emulated peers, with the session's identity grid as upstream's
    /// benchmark sets it.
    pub(super) fn start(
        step: &'a BenchStep,
        prepared: &'a Prepared,
        options: &RunOptions,
        exporter: Option<&Exporter>,
        store: StoreConfig,
    ) -> Result<Self> {
        let chain = Chain::new(step, prepared);
        let clock = match options.clock {
            ClockKind::Virtual => Clock::virtual_at(chain.first_tick),
            ClockKind::Real => Clock::real(chain.first_tick),
        };
        let (net, producer) = chain.links_and_producer(options.seed)?;

        let process_cpu_start = process_cpu_time();
        let driver_cpu_start = thread_cpu_time();
        let wall_start = Instant::now();
        let mut node = Node::start(node_config(
            prepared,
            &chain.session,
            options,
            &clock,
            store.clone(),
        ))?;
        let live = exporter.map(|ex| {
            let live = LiveRun::new(
                &step.name,
                &options.architecture.label(),
                options.clock.name(),
                step.n_validators,
                step.n_cores,
                node.metrics().clone(),
            );
            ex.set_run(live.clone());
            live
        });
        connect(&mut node, step, prepared, &net)?;
        Ok(Driver {
            approvals: Approvals::new(chain.blocks().len()),
            chain,
            node,
            net,
            producer,
            counts: Counts::default(),
            clock,
            meter: Meter {
                samples: Vec::new(),
                last_sample: Instant::now(),
                real_start: Instant::now(),
                driver_cpu_start,
                process_cpu_start,
                wall_start,
                live,
                peak_rss: super::reset_peak_memory(),
            },
            restart: Restart::new(options.restart_at_block, store),
            options: options.clone(),
        })
    }
}

/// Connect the peers and set the gossip topology (identity grid, as
/// upstream's benchmark).
fn connect(node: &mut Node, step: &BenchStep, prepared: &Prepared, net: &Links) -> Result<()> {
    for v in 1..step.n_validators {
        if net.is_connected(net_peer(v)) {
            node.peer_connected(PeerId(v), Some(tranche_primitives::ValidatorIndex(v)))?;
        }
    }
    // Every session's topology (upstream's gossip-support announces
    // each at its session change; the grid is the same identity grid).
    for s in &prepared.world.sessions {
        node.topology(
            s.session_index,
            SessionGridTopology::identity(step.n_validators as usize),
            Some(NODE_UNDER_TEST),
        )?;
    }
    Ok(())
}

/// The node under test's configuration: the node-under-test's two keys,
/// the session, the layout, routing seeded by the run's seed, `store`.
fn node_config(
    prepared: &Prepared,
    session: &Arc<Session>,
    options: &RunOptions,
    clock: &Clock,
    store: StoreConfig,
) -> NodeConfig {
    let world = &prepared.world;
    NodeConfig {
        architecture: options.architecture,
        clock: clock.clone(),
        local: Some(LocalKeys {
            assignment: world.assignment_pairs[NODE_UNDER_TEST.0 as usize].clone(),
            approval: world.pairs[NODE_UNDER_TEST.0 as usize].clone(),
            index: NODE_UNDER_TEST,
        }),
        sessions: vec![session.clone()],
        voting: tranche_voting::Config::default(),
        distribution: tranche_distribution::Config {
            routing_seed: options.seed,
            ..Default::default()
        },
        store,
        checks: options.checks,
    }
}
