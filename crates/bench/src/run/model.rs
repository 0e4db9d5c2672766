//! `tranche run --node model`: the node under test is one validator of the
//! whole-network simulation's model (`tranche_model::fixed::FixedNode`) on
//! its modelled CPU — the layout and workers of `--architecture`, the
//! cores of `--node-cores`, the cost table of `--costs` — driven by the
//! same driver (`driver.rs`) among the same emulated peers, messages,
//! links and sending rule as the real node (`real.rs`), so that the model
//! and the node can be compared on the same work.
//!
//! Time is the model's, event by event to the millisecond: the model is
//! run at each tick's start (its timers, the blocks whose slot has come,
//! what arrived by then), then at each arrival and each event of its own
//! (a thread done, a voting timer) within the tick, in time order; each
//! run is one call with the moment's deliveries, which returns what the
//! model sent and approved as data, and its sends leave at that moment.
//! Unlike the real node under the virtual clock, time never waits for the
//! node: a saturated modelled node falls behind as a real one on the real
//! clock does.
//!
//! As in the benchmark, the node's own candidate checks take no time (the
//! benchmark mocks validation); no certificate or signature is checked for
//! real: every verdict is valid and a peer's assignment proves the tranche
//! it was generated for, while the CPU model charges every check.

use super::chain::{net_peer, Chain, PeerNet};
use super::meter::Meter;
use super::under_test::{NodeFigures, Output, Span, UnderTest};
use super::{Prepared, RunOptions};
use anyhow::{bail, Result};
use parity_scale_codec::Encode;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tranche_config::node_shape::NodeShape;
use tranche_distribution::SessionGridTopology;
use tranche_model::fixed::{FixedNode, NodeSetup};
use tranche_model::record::Behaviour;
use tranche_model::verdicts::{ProcessVerdicts, Verdicts, Verify};
use tranche_model::CostTable;
use tranche_primitives::time::TICK_DURATION_MILLIS;
use tranche_primitives::{ApprovalDistributionMessage, Tick, ValidationProtocol};
use tranche_report::{ChecksReport, DatabaseReport, ProtocolReport};
use tranche_voting::NewBlock;
use tranche_workload::generate::world::NODE_UNDER_TEST;

/// The modelled node's CPU: its cores and its cost table.
#[derive(Debug, Clone)]
pub struct ModelOptions {
    /// Cores the node's threads share (`--node-cores`).
    pub cores: u32,
    /// The cost of each input (`--costs FILE`, or the built-in table).
    pub costs: CostTable,
}

/// The shape of the modelled node for a run's layout.
fn shape(options: &RunOptions, model: &ModelOptions) -> NodeShape {
    NodeShape {
        layout: options.architecture.layout,
        workers: options.architecture.distribution_workers() as u32,
        cores: model.cores,
        cpu_scale: 1.0,
        // One job a notification: the node under test takes them so.
        batch: Default::default(),
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

/// The modelled node under test.
pub(super) struct ModelNode {
    node: FixedNode,
    /// The moment the driver's time counts from (the first block's slot), ms.
    start_ms: u64,
    /// What the links delivered since the last run, in order.
    delivered: Vec<(u32, ApprovalDistributionMessage)>,
    /// The messages the test environment has been charged for.
    carried: u64,
    /// Blocks the driver has seen imported (the model imports each at its
    /// slot by itself).
    fed: usize,
    /// The modelled node's threads, in the CPU model's order.
    threads: Vec<String>,
    /// Whether its layout is the classic one.
    classic: bool,
}

impl ModelNode {
    /// The model of the node for a run of `chain`, connected to the peers
    /// `links` connect.
    pub(super) fn start(
        chain: &Chain<'_>,
        links: &PeerNet,
        options: &RunOptions,
        model: &ModelOptions,
    ) -> Result<Self> {
        let (step, prepared) = (chain.step, chain.prepared);
        let world = &prepared.world;
        if world.sessions.len() > 1 {
            bail!(
                "step {}: --node model runs one session; this step has {} (blocks_per_session)",
                step.name,
                world.sessions.len()
            );
        }
        let shape = shape(options, model);
        tranche_config::node_shape::validate(&shape).map_err(anyhow::Error::msg)?;
        let me = NODE_UNDER_TEST.0 as usize;
        let node = FixedNode::new(
            NodeSetup {
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
                blocks: world.blocks.clone().into(),
                routing_seed: options.seed,
                finality: false,
                trigger_all: false,
                own_proofs: tranche_primitives::criteria::Proofs::Made,
                cpu: Some((shape, model.costs.clone())),
                // The driver and its links share the modelled cores, as the
                // real run's share the machine's.
                environment: true,
            },
            seeded_verdicts(prepared),
        );
        Ok(ModelNode {
            threads: node.thread_names(),
            node,
            start_ms: chain.first_tick * TICK_DURATION_MILLIS,
            delivered: Vec::new(),
            carried: 0,
            fed: 0,
            classic: options.architecture.layout == tranche_node::Layout::Classic,
        })
    }

    /// A moment of the driver's time in the model's milliseconds.
    fn ms(&self, at: Duration) -> u64 {
        self.start_ms + at.as_millis() as u64
    }
}

impl UnderTest for ModelNode {
    const SAMPLED_AT_START: bool = false;
    const RUNS_AT_TICK_START: bool = true;

    fn begin_tick(&mut self, _: Tick, _: usize, _: &mut Vec<Output>) -> Result<()> {
        Ok(())
    }

    /// The model imports each block at its slot by itself, in the tick's
    /// first run; the driver's count is checked against it there.
    fn import_block(&mut self, index: usize, _: NewBlock) -> Result<()> {
        self.fed = index + 1;
        Ok(())
    }

    /// The next moment after `last` (or the tick's start) and before the
    /// tick's end something happens: an arrival (or any event of the
    /// links), or the model's own event.
    fn next_moment(&self, links: &PeerNet, last: Option<Duration>, tick: Span) -> Option<Duration> {
        let (start, end) = tick;
        let after = self.ms(last.unwrap_or(start)) + 1;
        let before = self.ms(end);
        let links = links
            .next_event_time()
            .map(|t| self.start_ms + (t.as_micros().div_ceil(1000) as u64));
        [links, self.node.next_event_ms()]
            .into_iter()
            .flatten()
            .map(|t| t.max(after))
            .filter(|&t| t < before)
            .min()
            .map(|t| Duration::from_millis(t - self.start_ms))
    }

    fn deliver(&mut self, from: u32, bytes: Arc<[u8]>) -> Result<()> {
        match ValidationProtocol::decode_wire(&bytes) {
            Ok(ValidationProtocol::ApprovalDistribution(m)) => self.delivered.push((from, m)),
            Err(e) => tranche_cli::errln!("warning: node rejected bytes from peer {from}: {e}"),
        }
        Ok(())
    }

    /// One moment of the model, its outputs carried back as the driver's.
    fn run(&mut self, at: Duration, carried: u64, out: &mut Vec<Output>) -> Result<()> {
        let now_ms = self.ms(at);
        let delivered = std::mem::take(&mut self.delivered);
        let done = self.node.moment(now_ms, carried - self.carried, delivered);
        self.carried = carried;
        debug_assert_eq!(
            self.node.imported(),
            self.fed,
            "blocks imported at their slots"
        );
        for (peer, message) in done.sends {
            let bytes = ValidationProtocol::ApprovalDistribution(message).encode();
            out.push(Output::Send {
                peer,
                bytes: bytes.into(),
            });
        }
        for (block, after_ms) in done.approved {
            out.push(Output::Approved {
                block,
                tick: now_ms / TICK_DURATION_MILLIS,
                after_ms,
            });
        }
        Ok(())
    }

    /// Never called: the model's clock is virtual.
    fn wait(&mut self, _: Option<Duration>, _: &mut Vec<Output>) -> Result<()> {
        Ok(())
    }

    /// The modelled CPU of each thread.
    fn cpu_now(&self, _: &Meter) -> Vec<(String, f64)> {
        let busy = self.node.busy_ms().into_iter().map(|ms| ms as f64 / 1e3);
        self.threads.iter().cloned().zip(busy).collect()
    }

    /// The model keeps no queue figures.
    fn queue_depths(&self) -> (u64, BTreeMap<String, u64>) {
        (0, BTreeMap::new())
    }

    fn metrics(&self) -> Option<&tranche_node::NodeMetrics> {
        None
    }

    /// The modelled CPU of each thread (the test environment's is not the
    /// node's); no database, protocol counters or round trips (the model
    /// keeps none).
    fn finish(self, meter: &Meter) -> Result<NodeFigures> {
        let environment = |name: &str| name == tranche_model::cpu::shape::ENVIRONMENT_THREAD;
        Ok(NodeFigures {
            kind: "model",
            threads: self
                .cpu_now(meter)
                .into_iter()
                .map(|(name, s)| {
                    let node = !environment(&name);
                    (name, s, node)
                })
                .collect(),
            verifications: self.node.checked(),
            protocol: ProtocolReport::default(),
            database: DatabaseReport::default(),
            checks: ChecksReport::default(),
            schedule: None,
            // The model charges the parallel layout's workers
            // `approval_batched` per signature (docs/network.md), the
            // classic voting thread `approval`: each is judged by that floor.
            signatures: if self.classic {
                "one-by-one"
            } else {
                "batched"
            },
            restart: None,
        })
    }
}
