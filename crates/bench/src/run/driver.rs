//! The one driver of a run: the node under test (`under_test.rs` — the
//! real node, `real.rs`, or the simulation's model of it, `model.rs`)
//! among emulated peers, on the slot clock. Blocks are imported at their
//! slots; the producer releases the peers' pre-generated messages at their
//! tranches; the emulated network carries them and counts the bytes both
//! ways; whatever the node sends goes back through the network to the
//! peers, which only consume it.
//!
//! Each tick: the node's tick begins (a restart due then happens), the
//! blocks whose slot has come are imported, the node is run at the tick's
//! start where it asks to be (the model), the producer's messages for the
//! tick enter the links, then the node is run at the moments it names
//! within the tick — the real node under the virtual clock once all the
//! tick's arrivals are in, again while more arrive (drained until idle
//! between), the model at each arrival and each event of its own — and
//! what it sent and approved is carried out after each run. Under the real
//! clock the tick is read from the wall clock and the driver waits for the
//! next network event or node output.

use super::approvals::Approvals;
use super::chain::{net_peer, send_delivery, Chain, PeerNet};
use super::meter::Meter;
use super::under_test::{NodeFigures, Output, UnderTest};
use super::Phase;
use super::{Prepared, REAL_SAMPLE_EVERY};
use anyhow::Result;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tranche_config::BenchStep;
use tranche_links::{Endpoint, Fate, SendError};
use tranche_node::{thread_cpu_time, Clock};
use tranche_primitives::time::TICK_DURATION_MILLIS;
use tranche_primitives::{Session, Tick};
use tranche_prometheus::{Exporter, LiveRun};
use tranche_report::{thread_group, Counts, Sample};
use tranche_voting::NewBlock;
use tranche_workload::producer::Producer;

/// One run in progress: the node under test, the emulated network, the
/// producer, and what has been observed so far.
pub(super) struct Driver<'a, N> {
    chain: Chain<'a>,
    node: N,
    links: PeerNet,
    producer: Producer<'a>,
    approvals: Approvals,
    counts: Counts,
    /// The run's clock (the model's is virtual).
    clock: Clock,
    meter: Meter,
    /// What the node did and the driver has yet to carry out (reused).
    outputs: Vec<Output>,
}

/// A finished run, as its report is assembled from it (`assemble.rs`).
pub(super) struct Finished<'a> {
    pub step: &'a BenchStep,
    pub prepared: &'a Prepared,
    pub session: Arc<Session>,
    pub links: PeerNet,
    pub producer: Producer<'a>,
    pub approved: Vec<Option<Tick>>,
    /// Per block: ms after its slot start it was approved.
    pub approved_after_ms: Vec<Option<u64>>,
    pub counts: Counts,
    pub meter: Meter,
    /// `virtual` or `real`.
    pub clock: &'static str,
    pub wall: Duration,
    pub node: NodeFigures,
}

impl<'a, N: UnderTest> Driver<'a, N> {
    /// A run of `node` on `chain`, among `links` and `producer`'s peers;
    /// with `exporter`, the real node's live figures served.
    pub(super) fn new(
        chain: Chain<'a>,
        (links, producer): (PeerNet, Producer<'a>),
        (node, clock): (N, Clock),
        mut meter: Meter,
        exporter: Option<(&Exporter, &super::RunOptions)>,
    ) -> Self {
        if let (Some((ex, options)), Some(metrics)) = (exporter, node.metrics()) {
            let step = chain.step;
            let live = LiveRun::new(
                &step.name,
                &options.architecture.label(),
                if clock.is_virtual() {
                    "virtual"
                } else {
                    "real"
                },
                step.n_validators,
                step.n_cores,
                metrics.clone(),
            );
            ex.set_run(live.clone());
            meter.live = Some(live);
        }
        Driver {
            approvals: Approvals::new(chain.blocks().len()),
            chain,
            node,
            links,
            producer,
            counts: Counts::default(),
            clock,
            meter,
            outputs: Vec::new(),
        }
    }

    /// Time since the first block's slot: the tick's under the virtual
    /// clock, the wall clock's under the real one.
    fn sim_time(&self, tick: Tick) -> Duration {
        if self.clock.is_virtual() {
            Duration::from_millis((tick - self.chain.first_tick) * TICK_DURATION_MILLIS)
        } else {
            self.meter.real_start.elapsed()
        }
    }

    fn import_due_blocks(&mut self, tick: Tick) -> Result<()> {
        while let Some(b) = self.chain.due(tick) {
            let block = self.chain.blocks()[b].clone();
            let session = self.chain.session_of(block.session);
            self.node.import_block(b, NewBlock { block, session })?;
            self.producer.block_initialised(b as u32);
            self.chain.imported += 1;
        }
        Ok(())
    }

    /// Run the node at moment `at`: the links' arrivals by then delivered
    /// to it, then what it did carried out.
    fn moment(&mut self, at: Duration) -> Result<()> {
        let carried = self.counts.deliveries + self.counts.messages_from_node;
        for o in self.links.advance(at) {
            if o.to != Endpoint::Node {
                continue;
            }
            match o.fate {
                Fate::Delivered => {
                    let (v, bytes) = o.payload;
                    self.node.deliver(v, bytes)?;
                }
                Fate::Lost => self.counts.lost += 1,
            }
        }
        self.node.run(at, carried, &mut self.outputs)?;
        self.carry_out(at);
        Ok(())
    }

    /// Carry out what the node did: its notifications into the links at
    /// `at` (no earlier than the links' own time), its approvals recorded.
    fn carry_out(&mut self, at: Duration) {
        for o in std::mem::take(&mut self.outputs) {
            match o {
                Output::Send { peer, bytes } => {
                    self.counts.messages_from_node += 1;
                    if peer == 0 || peer >= self.chain.step.n_validators {
                        continue;
                    }
                    let len = bytes.len() as u64;
                    let at = at.max(self.links.now());
                    let to = Endpoint::Peer(net_peer(peer));
                    match self.links.send(at, Endpoint::Node, to, len, (peer, bytes)) {
                        Ok(_) | Err(SendError::NotConnected(_)) => {}
                        Err(e) => tranche_cli::errln!(
                            "warning: emulated network refused a message from the node: {e}"
                        ),
                    }
                }
                Output::Approved {
                    block,
                    tick,
                    after_ms,
                } => {
                    let after_ms = after_ms.or_else(|| self.clock_ms(block, tick));
                    if self.approvals.record(block, tick, after_ms) {
                        self.producer.block_approved(block as u32);
                    }
                }
            }
        }
    }

    /// Milliseconds after its slot start that block `b`, approved at
    /// `tick`, was approved by the driver's clock (500 ms resolution under
    /// the virtual clock, wall-clock now under the real one).
    fn clock_ms(&self, b: usize, tick: Tick) -> Option<u64> {
        let slot_tick = self.chain.block_ticks[b];
        if self.clock.is_virtual() {
            return Some(tick.saturating_sub(slot_tick) * TICK_DURATION_MILLIS);
        }
        let since_first = (slot_tick - self.chain.first_tick) * TICK_DURATION_MILLIS;
        let slot_start = self.meter.real_start + Duration::from_millis(since_first);
        Some(
            Instant::now()
                .saturating_duration_since(slot_start)
                .as_millis() as u64,
        )
    }

    /// Record the run's state now: a sample for the report's plots, and
    /// the live figures for the Prometheus endpoint.
    fn sample(&mut self, tick: Tick) {
        let imported = self.chain.imported;
        self.meter.last_sample = Instant::now();
        self.meter.peak_rss.sample();
        let t_s = if self.clock.is_virtual() {
            tick.saturating_sub(self.chain.first_tick) as f64 * 0.5
        } else {
            self.meter.real_start.elapsed().as_secs_f64()
        };
        let mut cpu_s = BTreeMap::new();
        let mut worker_cpu_s = BTreeMap::new();
        for (name, s) in self.node.cpu_now(&self.meter) {
            let group = thread_group(&name);
            if group != name {
                worker_cpu_s.insert(name.clone(), s);
            }
            *cpu_s.entry(group).or_insert(0.0) += s;
        }
        let (queue_depth, queue_depth_by_kind) = self.node.queue_depths();
        let node = *self.links.node_counters();
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
            let env = thread_cpu_time().saturating_sub(self.meter.driver_cpu_start);
            let links = &self.links;
            let peers = (0..links.n_peers()).map(|i| {
                links
                    .peer_counters(tranche_links::LinkPeer(i))
                    .map_or((0, 0), |c| (c.bytes_sent, c.bytes_received))
            });
            let blocks = (0..self.chain.blocks().len())
                .map(|b| (self.chain.blocks()[b].number, self.approvals.after_ms(b)));
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
            phase.block_approved(self.chain.blocks()[b].number, self.approvals.after_ms(b));
        }
        phase.set(self.approvals.count() as u64);
    }

    /// The run's tick loop, one for both clocks and both nodes (the
    /// module's comment says what a tick is).
    pub(super) fn run_ticks(&mut self, phase: &Phase) -> Result<()> {
        let virtual_clock = self.clock.is_virtual();
        let mut next_tick = self.chain.first_tick;
        if !virtual_clock {
            self.meter.real_start = Instant::now();
        }
        if N::SAMPLED_AT_START {
            let tick = if virtual_clock {
                next_tick
            } else {
                self.clock.now()
            };
            self.sample(tick);
        }
        let mut deliveries = Vec::new();
        let mut told_tail = false;
        loop {
            let tick = if virtual_clock {
                next_tick
            } else {
                self.clock.now()
            };
            if tick > self.chain.end_tick {
                break;
            }
            if !virtual_clock && self.meter.last_sample.elapsed() >= REAL_SAMPLE_EVERY {
                self.sample(tick);
            }
            let imported = self.chain.imported;
            self.node.begin_tick(tick, imported, &mut self.outputs)?;
            self.carry_out(self.sim_time(tick));
            self.import_due_blocks(tick)?;
            let start = self.sim_time(tick);
            if N::RUNS_AT_TICK_START {
                self.moment(start)?;
            }
            deliveries.clear();
            self.producer.poll(tick, &mut deliveries);
            for d in &deliveries {
                let prepared = self.chain.prepared;
                send_delivery(&mut self.links, &mut self.counts, prepared, start, d);
            }
            let end = if virtual_clock {
                self.sim_time(tick + 1)
            } else {
                start
            };
            let mut last = None;
            while let Some(t) = self.node.next_moment(&self.links, last, (start, end)) {
                self.moment(t)?;
                last = Some(t);
            }
            if virtual_clock {
                self.sample(tick);
            }
            self.report_approvals(phase);
            if self.approvals.all() && self.producer.is_done() {
                break;
            }
            if !virtual_clock && !told_tail && self.approvals.all() {
                told_tail = true;
                self.tell_tail(phase);
            }
            if virtual_clock {
                next_tick = tick + 1;
            } else {
                self.wait_real(tick)?;
            }
        }
        Ok(())
    }

    /// Real clock, every block approved: say what the run still waits for
    /// (the peers' messages the sending rule still wants, at their
    /// tranches), where it otherwise went silent for up to a minute.
    fn tell_tail(&self, phase: &Phase) {
        let Some(due) = self.producer.last_due() else {
            return;
        };
        let at = due.saturating_sub(self.chain.first_tick) * TICK_DURATION_MILLIS;
        phase.waiting(&format!(
            "every block approved; waiting for the peers' last messages (due by {:.0} s)",
            at as f64 / 1e3
        ));
    }

    /// Real clock: wait until the next network event or 5 ms, whichever
    /// is sooner, waking early for the node's output.
    fn wait_real(&mut self, tick: Tick) -> Result<()> {
        let wait = self
            .links
            .next_event_time()
            .map(|t| t.saturating_sub(self.meter.real_start.elapsed()))
            .unwrap_or(Duration::from_millis(5))
            .min(Duration::from_millis(5));
        self.node.wait(Some(wait), &mut self.outputs)?;
        let now = self.sim_time(tick);
        self.carry_out(now);
        Ok(())
    }

    /// After the loop: under the real clock, let the node work off what is
    /// still queued (as upstream's benchmark waits until every message it
    /// sent was consumed) and take a last sample; then stop the node and
    /// hand over what the report is made of.
    pub(super) fn finish(mut self, phase: &Phase) -> Result<Finished<'a>> {
        if !self.clock.is_virtual() {
            self.node.wait(None, &mut self.outputs)?;
            let now = self.sim_time(self.clock.now());
            self.carry_out(now);
            self.sample(self.clock.now());
        }
        self.report_approvals(phase);
        let wall = self.meter.wall_start.elapsed();
        let node = self.node.finish(&self.meter)?;
        Ok(Finished {
            step: self.chain.step,
            prepared: self.chain.prepared,
            session: self.chain.session,
            links: self.links,
            producer: self.producer,
            approved: self.approvals.ticks().to_vec(),
            approved_after_ms: self.approvals.all_after_ms().to_vec(),
            counts: self.counts,
            meter: self.meter,
            clock: if self.clock.is_virtual() {
                "virtual"
            } else {
                "real"
            },
            wall,
            node,
        })
    }
}
