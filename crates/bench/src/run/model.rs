//! `tranche run --node model`: the node under test is one validator of the
//! whole-network simulation's model (`tranche_model::node::Node`) on its
//! modelled CPU — the layout and workers of `--architecture`, the cores of
//! `--node-cores`, the cost table of `--costs` — among the same emulated
//! peers, messages, links and sending rule as the real node
//! (`driver.rs`), so that the model and the node can be compared on the
//! same work.
//!
//! Time is the model's, event by event to the millisecond: each tick the
//! chain's blocks are imported at their slots and the producer releases
//! what is due; between ticks the links' arrivals and the model's own
//! events (a thread done, a voting timer) are taken in time order, and the
//! model's sends leave at the moment its CPU is done with them. Unlike the
//! real node under the virtual clock, time never waits for the node: a
//! saturated modelled node falls behind as a real one on the real clock
//! does.
//!
//! As in the benchmark, the node's own candidate checks take no time (the
//! benchmark mocks validation); no certificate or signature is checked for
//! real: every verdict is valid and a peer's assignment proves the tranche
//! it was generated for, while the CPU model charges every check.

use super::approvals::Approvals;
use super::chain::{net_peer, send_delivery, Chain, Links};
use super::{Prepared, RunOptions};
use anyhow::{bail, Result};
use parity_scale_codec::Encode;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tranche_config::node_shape::NodeShape;
use tranche_config::BenchStep;
use tranche_distribution::SessionGridTopology;
use tranche_links::{Endpoint, Fate, SendError};
use tranche_model::node::{Cx, Net, Node, NodeSetup};
use tranche_model::record::Behaviour;
use tranche_model::verdicts::{ProcessVerdicts, Verdicts, Verify};
use tranche_model::CostTable;
use tranche_primitives::time::TICK_DURATION_MILLIS;
use tranche_primitives::{ApprovalDistributionMessage, Tick, ValidationProtocol};
use tranche_report::{thread_group, Counts, Sample};
use tranche_workload::generate::world::NODE_UNDER_TEST;
use tranche_workload::producer::Producer;

/// The modelled node's CPU: its cores and its cost table.
#[derive(Debug, Clone)]
pub struct ModelOptions {
    /// Cores the node's threads share (`--node-cores`).
    pub cores: u32,
    /// The cost of each input (`--costs FILE`, or the built-in table).
    pub costs: CostTable,
}

/// The modelled node's surroundings: the benchmark's links, on which its
/// notifications leave at the moment they are sent.
struct BenchNet<'a> {
    links: &'a mut Links,
    /// The moment the links' time counts from (the first block's slot), ms.
    start_ms: u64,
    n_validators: u32,
    counts: &'a mut Counts,
}

impl Net for BenchNet<'_> {
    fn is_connected(&self, peer: u32) -> bool {
        peer >= 1 && peer < self.n_validators && self.links.is_connected(net_peer(peer))
    }

    fn connected(&self) -> Vec<u32> {
        (1..self.n_validators)
            .filter(|&p| self.is_connected(p))
            .collect()
    }

    fn notify(
        &mut self,
        now_ms: u64,
        peer: u32,
        message: ApprovalDistributionMessage,
    ) -> Result<(), u64> {
        self.counts.messages_from_node += 1;
        if peer == 0 || peer >= self.n_validators {
            return Ok(());
        }
        let bytes: Arc<[u8]> = ValidationProtocol::ApprovalDistribution(message)
            .encode()
            .into();
        let at = Duration::from_millis(now_ms - self.start_ms).max(self.links.now());
        let len = bytes.len() as u64;
        match self.links.send(
            at,
            Endpoint::Node,
            Endpoint::Peer(net_peer(peer)),
            len,
            (peer, bytes),
        ) {
            Ok(_) | Err(SendError::NotConnected(_)) => {}
            Err(e) => tranche_report::errln!(
                "warning: emulated network refused a message from the node: {e}"
            ),
        }
        // The links lose what they lose on their own (`Fate::Lost`).
        Ok(())
    }

    fn lost(&mut self, _: u64, _: u32, _: u64) -> bool {
        false
    }

    /// The benchmark's peers are not banned (as with the real node).
    fn reputation(&mut self, _: u32, _: i32) -> bool {
        false
    }

    /// The benchmark finalizes nothing.
    fn finality_vote(&mut self, _: u64, _: u32) {}
}

/// The shape of the modelled node for a run's layout.
fn shape(options: &RunOptions, model: &ModelOptions) -> NodeShape {
    NodeShape {
        layout: options.architecture.layout,
        workers: options.architecture.distribution_workers() as u32,
        cores: model.cores,
        cpu_scale: 1.0,
    }
}

/// The verdicts of the modelled node: every peer's assignment proves the
/// tranche it was generated for, every signature is valid; nothing is
/// checked for real.
fn seeded_verdicts(prepared: &Prepared) -> Verdicts {
    let verdicts = Verdicts::new(Verify::Model, false, &ProcessVerdicts::default());
    for bundle in &prepared.messages.bundles {
        for m in &bundle.assignments {
            if let ApprovalDistributionMessage::Assignments(items) = &m.message {
                for item in items {
                    verdicts.learn_assignment(item, m.tranche);
                }
            }
        }
    }
    verdicts
}

/// A run of the modelled node, in progress.
pub(super) struct ModelRun<'a> {
    chain: Chain<'a>,
    node: Node,
    verdicts: Verdicts,
    links: Links,
    producer: Producer<'a>,
    approvals: Approvals,
    /// Per block: ms after its slot start it was approved (the model's own
    /// time, not rounded to ticks).
    approved_ms: Vec<Option<u64>>,
    counts: Counts,
    /// The messages the test environment has been charged for.
    carried: u64,
    /// The modelled node's threads, in the CPU model's order.
    threads: Vec<String>,
    samples: Vec<Sample>,
    started: Instant,
}

/// What a finished modelled run hands to its report.
pub(super) struct ModelFinished<'a> {
    pub step: &'a BenchStep,
    pub prepared: &'a Prepared,
    pub session: Arc<tranche_primitives::Session>,
    pub producer: Producer<'a>,
    pub approved: Vec<Option<Tick>>,
    pub approved_after_ms: Vec<Option<u64>>,
    pub counts: Counts,
    pub links: Links,
    /// Each thread's name and modelled CPU, seconds.
    pub threads: Vec<(String, f64)>,
    pub samples: Vec<Sample>,
    pub wall: Duration,
}

impl<'a> ModelRun<'a> {
    pub fn start(
        step: &'a BenchStep,
        prepared: &'a Prepared,
        options: &RunOptions,
        model: &ModelOptions,
    ) -> Result<Self> {
        let world = &prepared.world;
        if world.sessions.len() > 1 {
            bail!(
                "step {}: --node model runs one session; this step has {} (blocks_per_session)",
                step.name,
                world.sessions.len()
            );
        }
        let chain = Chain::new(step, prepared);
        let (links, producer) = chain.links_and_producer(options.seed)?;
        let shape = shape(options, model);
        shape.validate().map_err(anyhow::Error::msg)?;
        let me = NODE_UNDER_TEST.0 as usize;
        let node = Node::new(NodeSetup {
            index: NODE_UNDER_TEST.0,
            n: step.n_validators,
            peers: (1..step.n_validators)
                .filter(|&v| links.is_connected(net_peer(v)))
                .collect(),
            behaviour: Behaviour::Honest,
            checks: None,
            assignment: world.assignment_pairs[me].clone(),
            approval: world.pairs[me].clone(),
            session: chain.session.clone(),
            // The identity grid, as upstream's benchmark sets it.
            grid: SessionGridTopology::identity(step.n_validators as usize),
            blocks: &world.blocks,
            routing_seed: options.seed,
            finality: false,
            trigger_all: false,
            own_proofs: tranche_primitives::criteria::Proofs::Made,
            cpu: Some((shape, model.costs.clone())),
            // The driver and its links share the modelled cores, as the
            // real run's share the machine's.
            environment: true,
        });
        let threads = node.thread_names();
        let n_blocks = world.blocks.len();
        Ok(ModelRun {
            verdicts: seeded_verdicts(prepared),
            approvals: Approvals::new(n_blocks),
            approved_ms: vec![None; n_blocks],
            chain,
            node,
            links,
            producer,
            counts: Counts::default(),
            carried: 0,
            threads,
            samples: Vec::new(),
            started: Instant::now(),
        })
    }

    /// Blocks of the run.
    pub fn blocks(&self) -> u64 {
        self.chain.blocks().len() as u64
    }

    fn start_ms(&self) -> u64 {
        self.chain.first_tick * TICK_DURATION_MILLIS
    }

    /// Run the model at moment `now_ms`: what arrived by then, its CPU and
    /// timers, and (at a tick's start) the blocks whose slot has come.
    fn moment(&mut self, now_ms: u64, blocks_too: bool) {
        // The environment's work for what it carried since: its thread
        // competes for the cores from now on.
        let carried = self.counts.deliveries + self.counts.messages_from_node;
        self.node.environment_carried(carried - self.carried);
        self.carried = carried;
        let start_ms = self.start_ms();
        let arrivals = self.links.advance(Duration::from_millis(now_ms - start_ms));
        let mut net = BenchNet {
            links: &mut self.links,
            start_ms,
            n_validators: self.chain.step.n_validators,
            counts: &mut self.counts,
        };
        let mut cx = Cx {
            verdicts: &self.verdicts,
            net: &mut net,
        };
        self.node.advance(now_ms, &mut cx);
        self.node.run_timers(now_ms, &mut cx);
        if blocks_too {
            let before = self.node.imported();
            self.node.import_due_blocks(now_ms, &mut cx);
            for b in before..self.node.imported() {
                self.producer.block_initialised(b as u32);
                self.chain.imported = b + 1;
            }
        }
        let mut lost = 0;
        for o in arrivals {
            if o.to != Endpoint::Node {
                continue;
            }
            match o.fate {
                Fate::Delivered => {
                    let (from, bytes) = o.payload;
                    match ValidationProtocol::decode_wire(&bytes) {
                        Ok(ValidationProtocol::ApprovalDistribution(m)) => {
                            self.node.peer_message(now_ms, from, m, &mut cx);
                        }
                        Err(e) => tranche_report::errln!(
                            "warning: node rejected bytes from peer {from}: {e}"
                        ),
                    }
                }
                Fate::Lost => lost += 1,
            }
        }
        self.node.advance(now_ms, &mut cx);
        self.counts.lost += lost;
        for b in self.node.take_approved() {
            let tick = now_ms / TICK_DURATION_MILLIS;
            if self.approvals.record(b, tick) {
                self.approved_ms[b] = self.node.records()[b].approved_after_ms;
                self.producer.block_approved(b as u32);
            }
        }
    }

    /// The producer's deliveries for `tick`, into the links at `now_ms`.
    fn deliver(
        &mut self,
        tick: Tick,
        now_ms: u64,
        deliveries: &mut Vec<tranche_workload::producer::Delivery<'a>>,
    ) {
        deliveries.clear();
        self.producer.poll(tick, deliveries);
        let at = Duration::from_millis(now_ms - self.start_ms());
        for d in deliveries.iter() {
            send_delivery(
                &mut self.links,
                &mut self.counts,
                self.chain.prepared,
                at,
                d,
            );
        }
    }

    /// The next moment within `[after, before)` something happens: an
    /// arrival (or any event of the links), or the model's own event.
    fn next_moment(&self, after: u64, before: u64) -> Option<u64> {
        let start_ms = self.start_ms();
        let links = self
            .links
            .next_event_time()
            .map(|t| start_ms + (t.as_micros().div_ceil(1000) as u64));
        [links, self.node.next_event_ms()]
            .into_iter()
            .flatten()
            .map(|t| t.max(after))
            .filter(|&t| t < before)
            .min()
    }

    /// The run, tick by tick and event by event within each tick.
    pub fn run(&mut self, phase: &super::Phase) {
        let mut deliveries = Vec::new();
        let mut tick = self.chain.first_tick;
        while tick <= self.chain.end_tick {
            let start = tick * TICK_DURATION_MILLIS;
            let end = start + TICK_DURATION_MILLIS;
            self.moment(start, true);
            self.deliver(tick, start, &mut deliveries);
            let mut after = start + 1;
            while let Some(t) = self.next_moment(after, end) {
                self.moment(t, false);
                after = t + 1;
            }
            self.sample(tick);
            for b in self.approvals.take_new() {
                phase.block_approved(self.chain.blocks()[b].number, self.approved_ms[b]);
            }
            phase.set(self.approvals.count() as u64);
            if self.approvals.all() && self.producer.is_done() {
                break;
            }
            tick += 1;
        }
    }

    /// The run's state after a tick: the modelled CPU of each thread group,
    /// bytes, blocks approved.
    fn sample(&mut self, tick: Tick) {
        let mut cpu_s = BTreeMap::new();
        let mut worker_cpu_s = BTreeMap::new();
        for (name, ms) in self.threads.iter().zip(self.node.busy_ms()) {
            let s = ms as f64 / 1e3;
            let group = thread_group(name);
            if &group != name {
                worker_cpu_s.insert(name.clone(), s);
            }
            *cpu_s.entry(group).or_insert(0.0) += s;
        }
        let node = *self.links.node_counters();
        self.samples.push(Sample {
            t_s: tick.saturating_sub(self.chain.first_tick) as f64 * 0.5,
            tick,
            cpu_s,
            received_bytes: node.bytes_received,
            sent_bytes: node.bytes_sent,
            queue_depth: 0,
            queue_depth_by_kind: BTreeMap::new(),
            worker_cpu_s,
            approved_blocks: self.approvals.count() as u32,
        });
    }

    pub fn finish(self) -> ModelFinished<'a> {
        let mut counts = self.counts;
        counts.verifications = self.node.checked();
        let threads = self
            .threads
            .iter()
            .cloned()
            .zip(self.node.busy_ms().into_iter().map(|ms| ms as f64 / 1e3))
            .collect();
        ModelFinished {
            step: self.chain.step,
            prepared: self.chain.prepared,
            session: self.chain.session.clone(),
            producer: self.producer,
            approved: self.approvals.ticks().to_vec(),
            approved_after_ms: self.approved_ms,
            counts,
            links: self.links,
            threads,
            samples: self.samples,
            wall: self.started.elapsed(),
        }
    }
}
