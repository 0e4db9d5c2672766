//! The benchmark run (subsystem-bench §4): the real node under test among
//! emulated peers. Blocks are imported on the slot clock; the producer
//! releases the peers' pre-generated messages at their tranches; the
//! emulated network carries them (latency, bandwidth, loss, connectivity)
//! and counts the bytes both ways; whatever the node sends goes back
//! through the network to the peers, which only consume it. Under the
//! virtual clock each tick is: wakeups, block imports, deliveries, then the
//! node drained until idle — deterministic protocol timing. Under the real
//! clock the same schedule runs against wall time.

use crate::config::BenchStep;
use crate::floor;
use crate::generate::bundles::TestMessage;
use crate::generate::cache::GeneratedMessages;
use crate::generate::params::{CoalesceModel, GenerationParams};
use crate::generate::world::{World, NODE_UNDER_TEST};
use crate::generate::{load_or_generate, CacheOutcome, TICKS_PER_SLOT};
use crate::producer::{Delivery, Producer, ProducerOptions};
use crate::prometheus::{Exporter, LiveRun};
use crate::report::{
    thread_group, BlockReport, Counts, CpuRow, FloorReport, GenerationReport, NetworkReport,
    ProtocolReport, RunReport, Sample,
};
use anyhow::{bail, Context, Result};
use parity_scale_codec::Encode;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tranche_distribution::{PeerId, SessionGridTopology, View};
use tranche_netsim::{Endpoint, Fate, Network, SendError};
use tranche_node::{
    process_cpu_time, thread_cpu_time, Architecture, Clock, Node, NodeConfig, NodeEvent,
    StoreConfig, ASSIGNMENT_KINDS,
};
use tranche_primitives::time::slot_start_tick;
use tranche_primitives::{Session, Tick, ValidationProtocol};
use tranche_voting::{IncludedCandidate, LocalKeys, NewBlock};

/// Which clock drives a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockKind {
    Real,
    Virtual,
}

/// Where the node under test keeps its approval database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DbKind {
    Memory,
    Redb,
}

/// Options of one run beside the test-sequence step.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub architecture: Architecture,
    pub clock: ClockKind,
    pub seed: u64,
    pub cache_dir: PathBuf,
    pub db: DbKind,
    pub progress: bool,
}

/// How long the node may take to drain one virtual tick.
const IDLE_TIMEOUT: Duration = Duration::from_secs(600);
/// Ticks a run may go on after its last block's slot, beyond the longest
/// tranche and no-show window, before blocks that are still unapproved are
/// reported as such.
const GRACE_TICKS: Tick = 40;
/// How often the real-clock driver samples the run for plots and the
/// Prometheus endpoint (the virtual-clock driver samples every tick).
const REAL_SAMPLE_EVERY: Duration = Duration::from_millis(500);

/// The generation parameters of a step.
pub fn generation_params(step: &BenchStep, seed: u64) -> GenerationParams {
    GenerationParams {
        n_validators: step.n_validators,
        n_cores: step.n_cores,
        n_included_candidates: step.candidates_per_block(),
        num_blocks: step.num_blocks,
        needed_approvals: step.needed_approvals,
        zeroth_delay_tranche_width: step.zeroth_delay_tranche_width,
        relay_vrf_modulo_samples: step.relay_vrf_modulo_samples,
        n_delay_tranches: step.n_delay_tranches,
        no_show_slots: step.no_show_slots,
        max_validators_per_core: match step.schema {
            crate::config::Schema::G1 => 1,
            crate::config::Schema::G2G3 => step.max_validators_per_core,
        },
        coalesce: match step.coalescing {
            crate::config::Coalescing::Uniform { min, max } => CoalesceModel::Uniform { min, max },
            crate::config::Coalescing::Normal { mean, std_dev } => {
                CoalesceModel::Normal { mean, std_dev }
            }
        },
        coalesce_tranche_diff: step.coalesce_tranche_diff,
        enable_assignments_v2: step.enable_assignments_v2,
        generation_tranche_limit: step.generation_tranche_limit(),
        seed,
    }
}

/// Messages of a step, generated or loaded, with how they were obtained.
pub struct Prepared {
    pub params: GenerationParams,
    pub world: World,
    pub messages: GeneratedMessages,
    pub generation: GenerationReport,
    /// Each message's encoded notification, shared by every copy.
    pub encoded: HashMap<*const TestMessage, Arc<[u8]>>,
}

/// Load or generate the messages of a step.
pub fn prepare(step: &BenchStep, options: &RunOptions) -> Result<Prepared> {
    let params = generation_params(step, options.seed);
    let start = Instant::now();
    let (messages, outcome) = load_or_generate(&params, &options.cache_dir, options.progress)?;
    let generation = match outcome {
        CacheOutcome::Hit { path, .. } => GenerationReport {
            cache_file: path.display().to_string(),
            cache_hit: true,
            time_s: start.elapsed().as_secs_f64(),
            cache_bytes: std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0),
        },
        CacheOutcome::Generated {
            path,
            rejected,
            bytes,
            ..
        } => {
            if let Some(why) = rejected {
                eprintln!("warning: {why}; regenerated it");
            }
            GenerationReport {
                cache_file: path.display().to_string(),
                cache_hit: false,
                time_s: start.elapsed().as_secs_f64(),
                cache_bytes: bytes,
            }
        }
    };
    let world = World::build(&params);
    let mut encoded = HashMap::new();
    for b in &messages.bundles {
        for m in b.assignments.iter().chain(&b.approvals) {
            let bytes: Arc<[u8]> = ValidationProtocol::ApprovalDistribution(m.message.clone())
                .encode()
                .into();
            encoded.insert(m as *const TestMessage, bytes);
        }
    }
    Ok(Prepared {
        params,
        world,
        messages,
        generation,
        encoded,
    })
}

fn new_block(world: &World, session: &Arc<Session>, b: usize) -> NewBlock {
    let spec = &world.blocks[b];
    NewBlock {
        hash: spec.hash,
        number: spec.number,
        parent: spec.parent,
        slot: spec.slot,
        session: session.clone(),
        relay_vrf_story: spec.story,
        candidates: spec
            .candidates
            .iter()
            .map(|c| IncludedCandidate {
                hash: c.candidate_hash,
                core: c.core,
                group: c.group,
            })
            .collect(),
    }
}

/// The peak resident set size of this process so far (Linux `VmHWM`).
pub fn peak_memory_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|kb| kb.parse::<u64>().ok())
            })
        })
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

/// Peer `i` of the network is validator `i + 1`.
fn net_peer(validator: u32) -> tranche_netsim::PeerId {
    tranche_netsim::PeerId(validator - 1)
}

struct Driver<'a> {
    step: &'a BenchStep,
    prepared: &'a Prepared,
    node: Node,
    net: Network<(u32, Arc<[u8]>)>,
    producer: Producer<'a>,
    block_ticks: Vec<Tick>,
    approved: Vec<Option<Tick>>,
    approved_at: Vec<Option<Instant>>,
    counts: Counts,
    first_tick: Tick,
    real_start: Instant,
    clock: Clock,
    samples: Vec<Sample>,
    last_sample: Instant,
    driver_cpu_start: Duration,
    live: Option<Arc<LiveRun>>,
}

impl<'a> Driver<'a> {
    fn sim_time(&self, tick: Tick) -> Duration {
        match self.clock {
            Clock::Virtual(_) => Duration::from_millis((tick - self.first_tick) * 500),
            Clock::Real { .. } => self.real_start.elapsed(),
        }
    }

    fn import_due_blocks(
        &mut self,
        tick: Tick,
        session: &Arc<Session>,
        imported: &mut usize,
    ) -> Result<()> {
        while *imported < self.block_ticks.len() && self.block_ticks[*imported] <= tick {
            let b = *imported;
            self.node
                .import_block(new_block(&self.prepared.world, session, b))?;
            if self.clock.is_virtual() {
                self.node.wait_idle(IDLE_TIMEOUT)?;
            }
            self.producer.block_initialised(b as u32);
            let hash = self.prepared.world.blocks[b].hash;
            for v in 1..self.step.n_validators {
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
            *imported += 1;
        }
        Ok(())
    }

    fn send_deliveries(&mut self, now: Duration, deliveries: &[Delivery<'a>]) {
        for d in deliveries {
            let bytes = self.prepared.encoded[&(d.message as *const TestMessage)].clone();
            let now = now.max(self.net.now());
            match self.net.send(
                now,
                Endpoint::Peer(net_peer(d.sender)),
                Endpoint::Node,
                bytes.len() as u64,
                (d.sender, bytes),
            ) {
                Ok(_) => self.counts.deliveries += 1,
                Err(SendError::NotConnected(_)) => self.counts.lost += 1,
                Err(e) => eprintln!("warning: emulated network refused a message: {e}"),
            }
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
                if peer.0 >= 1 && peer.0 < self.step.n_validators {
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
                        Err(e) => eprintln!(
                            "warning: emulated network refused a message from the node: {e}"
                        ),
                    }
                }
            }
            NodeEvent::BlockApproved { hash, tick, .. } => {
                if let Some(b) = self
                    .prepared
                    .world
                    .blocks
                    .iter()
                    .position(|x| x.hash == hash)
                {
                    if self.approved[b].is_none() {
                        self.approved[b] = Some(tick);
                        self.approved_at[b] = Some(Instant::now());
                        self.producer.block_approved(b as u32);
                    }
                }
            }
            NodeEvent::Malformed { peer, error } => {
                eprintln!("warning: node rejected bytes from peer {}: {error}", peer.0)
            }
            NodeEvent::Reputation { .. } => {}
        }
    }

    fn all_approved(&self) -> bool {
        self.approved.iter().all(Option::is_some)
    }

    /// Milliseconds after its slot start that block `b` was approved (500 ms
    /// resolution under the virtual clock, wall-clock under the real one).
    fn approval_ms(&self, b: usize) -> Option<u64> {
        let slot_tick = self.block_ticks[b];
        if self.clock.is_virtual() {
            self.approved[b].map(|t| t.saturating_sub(slot_tick) * 500)
        } else {
            self.approved_at[b].map(|at| {
                let slot_start =
                    self.real_start + Duration::from_millis((slot_tick - self.first_tick) * 500);
                at.saturating_duration_since(slot_start).as_millis() as u64
            })
        }
    }

    /// Record the run's state now: a sample for the report's plots, and
    /// the live figures for the Prometheus endpoint.
    fn sample(&mut self, tick: Tick, imported: usize) {
        self.last_sample = Instant::now();
        let t_s = if self.clock.is_virtual() {
            tick.saturating_sub(self.first_tick) as f64 * 0.5
        } else {
            self.real_start.elapsed().as_secs_f64()
        };
        let metrics = self.node.metrics();
        let mut cpu_s = BTreeMap::new();
        for w in &metrics.workers {
            *cpu_s.entry(thread_group(&w.name)).or_insert(0.0) += w.cpu_seconds();
        }
        let env = thread_cpu_time().saturating_sub(self.driver_cpu_start);
        cpu_s.insert("test-environment".to_owned(), env.as_secs_f64());
        let queue_depth = metrics.channels.iter().map(|c| c.take_window_peak()).sum();
        let node = *self.net.node_counters();
        self.samples.push(Sample {
            t_s,
            tick,
            cpu_s,
            received_bytes: node.bytes_received,
            sent_bytes: node.bytes_sent,
            queue_depth,
            approved_blocks: self.approved.iter().filter(|a| a.is_some()).count() as u32,
        });
        if let Some(live) = &self.live {
            let net = &self.net;
            let peers = (0..net.n_peers()).map(|i| {
                net.peer_counters(tranche_netsim::PeerId(i))
                    .map_or((0, 0), |c| (c.bytes_sent, c.bytes_received))
            });
            let blocks = (0..self.approved.len())
                .map(|b| (self.prepared.world.blocks[b].number, self.approval_ms(b)));
            live.publish(
                tick,
                imported as u64,
                env,
                node.bytes_received,
                node.bytes_sent,
                peers,
                blocks,
            );
        }
    }
}

/// Run one step of a test sequence with one architecture.
pub fn run_step(step: &BenchStep, prepared: &Prepared, options: &RunOptions) -> Result<RunReport> {
    run_step_observed(step, prepared, options, None)
}

/// [`run_step`], with the run's live figures served by `exporter`.
pub fn run_step_observed(
    step: &BenchStep,
    prepared: &Prepared,
    options: &RunOptions,
    exporter: Option<&Exporter>,
) -> Result<RunReport> {
    let world = &prepared.world;
    let session = Arc::new(Session::new(world.session.clone()));
    let block_ticks: Vec<Tick> = world
        .blocks
        .iter()
        .map(|b| slot_start_tick(b.slot, TICKS_PER_SLOT))
        .collect();
    let first_tick = block_ticks[0];
    let last_tick = *block_ticks.last().expect("at least one block");
    // Every no-show a candidate suffers can cost a no-show window plus the
    // clock drift it adds before a later tranche covers it, so the run may
    // go on that long per withheld approval (upstream waits without limit).
    let no_show_window = Tick::from(step.no_show_slots) * TICKS_PER_SLOT;
    let end_tick = last_tick
        + Tick::from(step.n_delay_tranches)
        + (2 + Tick::from(step.num_no_shows_per_candidate))
            * (no_show_window + Tick::from(step.n_delay_tranches))
        + GRACE_TICKS;

    let db_dir = std::env::temp_dir().join(format!(
        "tranche-db-{}-{}",
        std::process::id(),
        options.architecture.name()
    ));
    let store = match options.db {
        DbKind::Memory => StoreConfig::Memory,
        DbKind::Redb => {
            std::fs::create_dir_all(&db_dir)
                .with_context(|| format!("cannot create {}", db_dir.display()))?;
            let path = db_dir.join("approvals.redb");
            let _ = std::fs::remove_file(&path);
            StoreConfig::Redb(path)
        }
    };
    let clock = match options.clock {
        ClockKind::Virtual => Clock::virtual_at(first_tick),
        ClockKind::Real => Clock::real(first_tick),
    };
    let net =
        Network::new(step.network_config(options.seed)).context("invalid network configuration")?;
    let mut producer = Producer::new(
        &prepared.messages.bundles,
        block_ticks.clone(),
        ProducerOptions {
            needed_approvals: step.needed_approvals,
            num_no_shows_per_candidate: step.num_no_shows_per_candidate,
            stop_when_approved: step.stop_when_approved,
            last_considered_tranche: step.send_limit_tranche(),
        },
    );
    producer.set_reachable(
        (0..step.n_validators)
            .map(|v| v != 0 && net.is_connected(net_peer(v)))
            .collect(),
    );

    let process_cpu_start = process_cpu_time();
    let driver_cpu_start = thread_cpu_time();
    let wall_start = Instant::now();
    let node = Node::start(NodeConfig {
        architecture: options.architecture,
        clock: clock.clone(),
        local: Some(LocalKeys {
            pair: world.pairs[NODE_UNDER_TEST.0 as usize].clone(),
            index: NODE_UNDER_TEST,
        }),
        sessions: vec![session.clone()],
        voting: tranche_voting::Config::default(),
        distribution: tranche_distribution::Config {
            routing_seed: options.seed,
            ..Default::default()
        },
        store,
    })?;
    let n_blocks = world.blocks.len();
    let clock_name = match options.clock {
        ClockKind::Real => "real",
        ClockKind::Virtual => "virtual",
    };
    let live = exporter.map(|ex| {
        let live = LiveRun::new(
            &step.name,
            &match options.architecture {
                Architecture::Classic => "classic".to_owned(),
                Architecture::Parallel { workers } => format!("parallel/{workers}"),
            },
            clock_name,
            step.n_validators,
            step.n_cores,
            node.metrics().clone(),
        );
        ex.set_run(live.clone());
        live
    });
    let mut d = Driver {
        step,
        prepared,
        node,
        net,
        producer,
        block_ticks,
        approved: vec![None; n_blocks],
        approved_at: vec![None; n_blocks],
        counts: Counts::default(),
        first_tick,
        real_start: Instant::now(),
        clock: clock.clone(),
        samples: Vec::new(),
        last_sample: Instant::now(),
        driver_cpu_start,
        live,
    };

    // Connect the peers and set the gossip topology (identity grid, as
    // upstream's benchmark).
    for v in 1..step.n_validators {
        if d.net.is_connected(net_peer(v)) {
            d.node
                .peer_connected(PeerId(v), Some(tranche_primitives::ValidatorIndex(v)))?;
        }
    }
    d.node.topology(
        world.session.session_index,
        SessionGridTopology::identity(step.n_validators as usize),
        Some(NODE_UNDER_TEST),
    )?;

    let mut imported = 0usize;
    let mut deliveries = Vec::new();
    let bar = if options.progress {
        let bar = indicatif::ProgressBar::new((end_tick - first_tick) / TICKS_PER_SLOT);
        bar.set_style(
            indicatif::ProgressStyle::with_template("running {msg} {bar:30} slot {pos}/{len}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar.set_message(format!("{} {}", options.architecture.name(), step.name));
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };

    match options.clock {
        ClockKind::Virtual => {
            d.node.wait_idle(IDLE_TIMEOUT)?;
            d.sample(first_tick, imported);
            for tick in first_tick..=end_tick {
                bar.set_position((tick - first_tick) / TICKS_PER_SLOT);
                d.node.set_tick(tick)?;
                d.node.wait_idle(IDLE_TIMEOUT)?;
                d.import_due_blocks(tick, &session, &mut imported)?;
                let now = d.sim_time(tick);
                deliveries.clear();
                d.producer.poll(tick, &mut deliveries);
                let batch = std::mem::take(&mut deliveries);
                d.send_deliveries(now, &batch);
                deliveries = batch;
                // Everything arriving before the next tick is delivered in
                // this one; the node drains between arrivals and sends.
                let tick_end = d.sim_time(tick + 1) - Duration::from_nanos(1);
                loop {
                    d.deliver_arrivals(tick_end)?;
                    d.node.wait_idle(IDLE_TIMEOUT)?;
                    d.drain_events(now);
                    let more = d.net.next_event_time().is_some_and(|t| t <= tick_end);
                    if !more {
                        break;
                    }
                }
                d.sample(tick, imported);
                if d.all_approved() && d.producer.is_done() {
                    break;
                }
            }
        }
        ClockKind::Real => {
            d.real_start = Instant::now();
            d.sample(clock.now(), imported);
            loop {
                let tick = clock.now();
                if tick > end_tick {
                    break;
                }
                if d.last_sample.elapsed() >= REAL_SAMPLE_EVERY {
                    d.sample(tick, imported);
                }
                bar.set_position(tick.saturating_sub(first_tick) / TICKS_PER_SLOT);
                d.import_due_blocks(tick, &session, &mut imported)?;
                let now = d.sim_time(tick);
                deliveries.clear();
                d.producer.poll(tick, &mut deliveries);
                let batch = std::mem::take(&mut deliveries);
                d.send_deliveries(now, &batch);
                deliveries = batch;
                d.deliver_arrivals(d.sim_time(tick))?;
                d.drain_events(d.sim_time(tick));
                d.node.check()?;
                if d.all_approved() && d.producer.is_done() {
                    break;
                }
                // Sleep until the next network event or 5 ms, whichever is
                // sooner, waking early for node events.
                let wait = d
                    .net
                    .next_event_time()
                    .map(|t| t.saturating_sub(d.real_start.elapsed()))
                    .unwrap_or(Duration::from_millis(5))
                    .min(Duration::from_millis(5));
                if let Ok(e) = d.node.events().recv_timeout(wait) {
                    let now = d.sim_time(tick);
                    d.handle_event(e, now);
                }
            }
        }
    }
    bar.finish_and_clear();
    if !d.clock.is_virtual() {
        // Let the node work off what is still queued, as upstream's
        // benchmark waits until every message it sent was consumed.
        d.node.wait_idle(IDLE_TIMEOUT)?;
        let now = d.sim_time(clock.now());
        d.drain_events(now);
    }
    if !d.clock.is_virtual() {
        d.sample(clock.now(), imported);
    }
    let block_ms: Vec<Option<u64>> = (0..n_blocks).map(|b| d.approval_ms(b)).collect();
    let wall = wall_start.elapsed();
    let driver_cpu = thread_cpu_time().saturating_sub(driver_cpu_start);
    let Driver {
        node,
        net,
        producer,
        approved,
        mut counts,
        samples,
        ..
    } = d;
    let metrics = node.shutdown()?;
    let process_cpu = process_cpu_time().saturating_sub(process_cpu_start);

    let floor = floor::measure(world, &session, producer.sent.iter().copied());
    if floor.failures > 0 {
        bail!(
            "{} generated messages failed their own crypto check",
            floor.failures
        );
    }

    let blocks_n = f64::from(step.num_blocks.max(1));
    let mut cpu = Vec::new();
    let mut node_cpu = 0.0;
    for w in &metrics.workers {
        let s = w.cpu_seconds();
        node_cpu += s;
        cpu.push(CpuRow {
            name: w.name.clone(),
            total_s: s,
            per_block_s: s / blocks_n,
            node: true,
        });
    }
    let env_s = driver_cpu.as_secs_f64();
    let other = (process_cpu.as_secs_f64() - node_cpu - env_s).max(0.0);
    cpu.push(CpuRow {
        name: "other".into(),
        total_s: other,
        per_block_s: other / blocks_n,
        node: true,
    });
    node_cpu += other;
    cpu.push(CpuRow {
        name: "test-environment".into(),
        total_s: env_s,
        per_block_s: env_s / blocks_n,
        node: false,
    });
    counts.unique_messages = producer.stats.unique_messages;
    counts.withheld_approvals = producer.stats.withheld_approvals;
    counts.verifications = metrics.verifications();
    let node_counters = net.node_counters();
    let floor_s = floor.cpu.as_secs_f64();
    let p = &metrics.protocol;
    let protocol = ProtocolReport {
        imported_candidates: p.imported_candidates(),
        assignments_imported: ASSIGNMENT_KINDS
            .iter()
            .zip(p.assignments_imported())
            .map(|(k, v)| ((*k).to_owned(), v))
            .collect(),
        approvals_imported: p.approvals_imported(),
        candidates_approved: p.candidates_approved(),
        approved_by_one_third: p.approved_by_one_third(),
        no_shows: p.no_shows(),
        observed_no_shows: p.observed_no_shows(),
    };
    let _ = std::fs::remove_dir_all(&db_dir);

    Ok(RunReport {
        name: step.name.clone(),
        architecture: options.architecture.name().into(),
        workers: match options.architecture {
            Architecture::Classic => 1,
            Architecture::Parallel { workers } => workers,
        },
        clock: clock_name.into(),
        seed: options.seed,
        n_validators: step.n_validators,
        n_cores: step.n_cores,
        num_blocks: step.num_blocks,
        blocks: world
            .blocks
            .iter()
            .enumerate()
            .map(|(i, b)| BlockReport {
                number: b.number,
                approved_tick: approved[i],
                approved_after_ms: block_ms[i],
            })
            .collect(),
        network: NetworkReport {
            received_bytes: node_counters.bytes_received,
            sent_bytes: node_counters.bytes_sent,
            received_kib_per_block: node_counters.bytes_received as f64 / 1024.0 / blocks_n,
            sent_kib_per_block: node_counters.bytes_sent as f64 / 1024.0 / blocks_n,
        },
        cpu,
        node_cpu_s: node_cpu,
        counts,
        generation: prepared.generation.clone(),
        crypto_floor: FloorReport {
            assignments: floor.assignments,
            approvals: floor.approvals,
            cpu_s: floor_s,
            per_block_s: floor_s / blocks_n,
            node_ratio: if floor_s > 0.0 {
                node_cpu / floor_s
            } else {
                0.0
            },
        },
        wall_time_s: wall.as_secs_f64(),
        peak_memory_bytes: peak_memory_bytes(),
        protocol,
        samples,
    })
}
