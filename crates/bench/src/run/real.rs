//! The real node under test (`crates/node`, on its own threads) as the
//! driver sees it (`under_test.rs`): started with the node-under-test's
//! keys and connected to the emulated peers with the session's identity
//! grid, as upstream's benchmark sets it; under the virtual clock drained
//! until idle after each input; crashed and restarted where
//! `--restart-at-block` asks (`restart.rs`); and at the end its threads'
//! CPU, protocol counters, database and check figures.

use super::chain::{net_peer, Chain, PeerNet};
use super::meter::Meter;
use super::restart::{Restart, Resume};
use super::under_test::{NodeFigures, Output, Span, UnderTest};
use super::{DbKind, Prepared, RunOptions, IDLE_TIMEOUT};
use anyhow::Result;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tranche_config::BenchStep;
use tranche_distribution::{PeerId, SessionGridTopology, View};
use tranche_node::{process_cpu_time, thread_cpu_time, ASSIGNMENT_KINDS};
use tranche_node::{Clock, Node, NodeConfig, NodeEvent, NodeMetrics, StoreConfig};
use tranche_primitives::{Hash, Session, Tick};
use tranche_report::{ChecksReport, DatabaseReport, ProtocolReport, ScheduleReport};
use tranche_voting::{LocalKeys, NewBlock};
use tranche_workload::generate::world::NODE_UNDER_TEST;

/// The real node under test and what it needs to restart.
pub(super) struct RealNode<'a> {
    node: Node,
    clock: Clock,
    /// `--restart-at-block`: the crash and restart still to come, and what
    /// was measured of one that happened (`restart.rs`).
    restart: Restart,
    options: RunOptions,
    step: &'a BenchStep,
    prepared: &'a Prepared,
    session: Arc<Session>,
    /// The peers (validators) connected for the run, ascending.
    peers: Vec<u32>,
    /// The chain's blocks, by index.
    hashes: Vec<Hash>,
    block_ticks: Vec<Tick>,
}

impl<'a> RealNode<'a> {
    /// Start the node for a run of `chain` on `clock` with its database
    /// in `store`, and connect it to the peers `links` connect.
    pub(super) fn start(
        chain: &Chain<'a>,
        links: &PeerNet,
        options: &RunOptions,
        clock: &Clock,
        store: StoreConfig,
    ) -> Result<Self> {
        let (step, prepared) = (chain.step, chain.prepared);
        let config = node_config(prepared, &chain.session, options, clock, store.clone());
        let mut node = Node::start(config)?;
        let peers: Vec<u32> = (1..step.n_validators)
            .filter(|&v| links.is_connected(net_peer(v)))
            .collect();
        connect(&mut node, step, prepared, &peers)?;
        if clock.is_virtual() {
            node.wait_idle(IDLE_TIMEOUT)?;
        }
        Ok(RealNode {
            node,
            clock: clock.clone(),
            restart: Restart::new(options.restart_at_block, store),
            options: options.clone(),
            step,
            prepared,
            session: chain.session.clone(),
            peers,
            hashes: chain.blocks().iter().map(|b| b.hash).collect(),
            block_ticks: chain.block_ticks.clone(),
        })
    }

    /// One of the node's events, as the driver carries it out.
    fn event(&self, e: NodeEvent, out: &mut Vec<Output>) {
        match e {
            NodeEvent::Send { peer, bytes, .. } => out.push(Output::Send {
                peer: peer.0,
                bytes,
            }),
            NodeEvent::BlockApproved { hash, tick, .. } => {
                if let Some(block) = self.hashes.iter().position(|h| *h == hash) {
                    out.push(Output::Approved {
                        block,
                        tick,
                        after_ms: None,
                    });
                }
            }
            NodeEvent::Malformed { peer, error } => {
                tranche_cli::errln!("warning: node rejected bytes from peer {}: {error}", peer.0)
            }
            NodeEvent::Reputation { .. } => {}
        }
    }

    /// Every event the node has sent so far.
    fn drain(&self, out: &mut Vec<Output>) {
        while let Ok(e) = self.node.events().try_recv() {
            self.event(e, out);
        }
    }

    /// `--restart-at-block`: crash the node, start it again on its
    /// database and bring it back where the run is (`restart.rs`).
    fn restart_node(&mut self, tick: Tick, imported: usize, out: &mut Vec<Output>) -> Result<()> {
        let (step, prepared, peers) = (self.step, self.prepared, &self.peers);
        let (session, options, clock) = (&self.session, &self.options, &self.clock);
        let reconnect = |node: &mut Node| connect(node, step, prepared, peers);
        let events = self.restart.restart(
            &mut self.node,
            |store| node_config(prepared, session, options, clock, store),
            Resume {
                tick,
                block: (imported + 1) as u32,
                heads: self.hashes[..imported].to_vec(),
                n_validators: step.n_validators,
                reconnect: &reconnect,
            },
        )?;
        for e in events {
            self.event(e, out);
        }
        Ok(())
    }
}

impl UnderTest for RealNode<'_> {
    const SAMPLED_AT_START: bool = true;
    const RUNS_AT_TICK_START: bool = false;

    fn begin_tick(&mut self, tick: Tick, imported: usize, out: &mut Vec<Output>) -> Result<()> {
        if self.clock.is_virtual() {
            self.node.set_tick(tick)?;
            self.node.wait_idle(IDLE_TIMEOUT)?;
        }
        if self.restart.due(imported, &self.block_ticks, tick) {
            self.restart_node(tick, imported, out)?;
        }
        Ok(())
    }

    /// The block, then every connected peer's view of it.
    fn import_block(&mut self, _: usize, block: NewBlock) -> Result<()> {
        let hash = block.block.hash;
        self.node.import_block(block)?;
        if self.clock.is_virtual() {
            self.node.wait_idle(IDLE_TIMEOUT)?;
        }
        for &v in &self.peers {
            let view = View {
                heads: vec![hash],
                finalized_number: 0,
            };
            self.node.peer_view(PeerId(v), view)?;
        }
        Ok(())
    }

    /// Virtual clock: everything arriving before the next tick is
    /// delivered in this one, at its last instant, again while more
    /// arrives. Real clock: once, now.
    fn next_moment(&self, links: &PeerNet, last: Option<Duration>, tick: Span) -> Option<Duration> {
        let (start, end) = tick;
        if !self.clock.is_virtual() {
            return last.is_none().then_some(start);
        }
        let tick_end = end - Duration::from_nanos(1);
        match last {
            None => Some(tick_end),
            Some(_) => links
                .next_event_time()
                .filter(|&t| t <= tick_end)
                .map(|_| tick_end),
        }
    }

    fn deliver(&mut self, from: u32, bytes: Arc<[u8]>) -> Result<()> {
        self.node.peer_message(PeerId(from), bytes)?;
        Ok(())
    }

    fn run(&mut self, _: Duration, _: u64, out: &mut Vec<Output>) -> Result<()> {
        if self.clock.is_virtual() {
            self.node.wait_idle(IDLE_TIMEOUT)?;
            self.drain(out);
        } else {
            self.drain(out);
            self.node.check()?;
        }
        Ok(())
    }

    fn wait(&mut self, wait: Option<Duration>, out: &mut Vec<Output>) -> Result<()> {
        match wait {
            Some(wait) => {
                if let Ok(e) = self.node.events().recv_timeout(wait) {
                    self.event(e, out);
                }
            }
            None => {
                self.node.wait_idle(IDLE_TIMEOUT)?;
                self.drain(out);
            }
        }
        Ok(())
    }

    /// The node's threads, the process outside them and the driver as
    /// `other` (counted in the node's CPU), the driver's thread as
    /// `test-environment`.
    fn cpu_now(&self, meter: &Meter) -> Vec<(String, f64)> {
        let metrics = self.node.metrics();
        let mut cpu: Vec<(String, f64)> = metrics
            .workers
            .iter()
            .map(|w| (w.name.clone(), w.cpu_seconds()))
            .collect();
        let named: f64 = cpu.iter().map(|(_, s)| s).sum();
        let env = thread_cpu_time().saturating_sub(meter.driver_cpu_start);
        let process = process_cpu_time().saturating_sub(meter.process_cpu_start);
        let other = (process.as_secs_f64() - named - env.as_secs_f64()).max(0.0);
        cpu.push(("other".to_owned(), other));
        cpu.push(("test-environment".to_owned(), env.as_secs_f64()));
        cpu
    }

    fn queue_depths(&self) -> (u64, BTreeMap<String, u64>) {
        let mut depth = 0;
        let mut by_kind = BTreeMap::new();
        for c in &self.node.metrics().channels {
            let peak = c.take_window_peak();
            depth += peak;
            let deepest = by_kind
                .entry(tranche_report::channel_kind(&c.name))
                .or_insert(0);
            *deepest = peak.max(*deepest);
        }
        (depth, by_kind)
    }

    fn metrics(&self) -> Option<&NodeMetrics> {
        Some(self.node.metrics())
    }

    fn finish(self, meter: &Meter) -> Result<NodeFigures> {
        let driver_cpu = thread_cpu_time().saturating_sub(meter.driver_cpu_start);
        let metrics = self.node.shutdown()?;
        let before = self.restart.before.as_ref();
        // After a restart the counters cover the whole run: the node's
        // before the crash added to the restarted one's.
        if let Some(b) = before {
            metrics.absorb(b);
        }
        log_database(self.step, &self.options, &metrics);
        let process_cpu = process_cpu_time().saturating_sub(meter.process_cpu_start);
        let p = &metrics.protocol;
        let blocks_n = f64::from(self.step.num_blocks.max(1));
        let options = &self.options;
        let on_disk = options.db != DbKind::Memory;
        Ok(NodeFigures {
            kind: "real",
            threads: threads(&metrics, before, process_cpu, driver_cpu),
            verifications: metrics.verifications() + before.map_or(0, NodeMetrics::verifications),
            protocol: protocol_report(&metrics),
            // An in-memory store neither commits nor fsyncs: those figures
            // are not produced (`-`, absent from the JSON), not 0.
            database: DatabaseReport {
                commits: on_disk.then(|| p.db_commits()),
                fsyncs: on_disk.then(|| p.db_fsyncs()),
                commits_per_block: on_disk.then(|| p.db_commits() as f64 / blocks_n),
                cpu_s: p.db_seconds(),
                cpu_per_block_s: p.db_seconds() / blocks_n,
            },
            checks: {
                let (round_trips, round_trip_us) = p.round_trip();
                ChecksReport {
                    round_trips,
                    round_trip_us,
                    checked_ahead: p.checked_ahead_taken(),
                    ahead_unused: p.ahead_unused(),
                }
            },
            schedule: schedule_report(&metrics, options),
            signatures: match options.checks.signatures {
                _ if options.architecture.layout == tranche_node::Layout::Classic => "one-by-one",
                tranche_node::SignatureCheck::Batched => "batched",
                tranche_node::SignatureCheck::OneByOne => "one-by-one",
            },
            restart: self.restart.done,
        })
    }
}

/// Connect the peers and set the gossip topology (identity grid, as
/// upstream's benchmark).
fn connect(node: &mut Node, step: &BenchStep, prepared: &Prepared, peers: &[u32]) -> Result<()> {
    for &v in peers {
        node.peer_connected(PeerId(v), Some(tranche_primitives::ValidatorIndex(v)))?;
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

/// CPU per thread of the node (a restarted node's threads counted with
/// those before the crash), the rest of the process as `other`, and the
/// test environment (the driver's thread), not the node's.
fn threads(
    metrics: &NodeMetrics,
    before: Option<&NodeMetrics>,
    process_cpu: Duration,
    driver_cpu: Duration,
) -> Vec<(String, f64, bool)> {
    let mut cpu = Vec::new();
    let mut node_cpu = 0.0;
    for w in &metrics.workers {
        // After a restart the same thread names ran twice: both count.
        let earlier = before
            .and_then(|m| m.workers.iter().find(|p| p.name == w.name))
            .map_or(0.0, |p| p.cpu_seconds());
        let s = w.cpu_seconds() + earlier;
        node_cpu += s;
        cpu.push((w.name.clone(), s, true));
    }
    let env_s = driver_cpu.as_secs_f64();
    let other = (process_cpu.as_secs_f64() - node_cpu - env_s).max(0.0);
    cpu.push(("other".into(), other, true));
    cpu.push(("test-environment".into(), env_s, false));
    cpu
}

/// The database's commits and the reputation changes, to the log.
fn log_database(step: &BenchStep, options: &RunOptions, metrics: &NodeMetrics) {
    let blocks = f64::from(step.num_blocks.max(1));
    let p = &metrics.protocol;
    log::info!(
        "{} {}: database {} commits, {} fsyncs ({:.1} and {:.1} per block)",
        step.name,
        options.architecture.name(),
        p.db_commits(),
        p.db_fsyncs(),
        p.db_commits() as f64 / blocks,
        p.db_fsyncs() as f64 / blocks,
    );
    for (kind, n) in p.reputation_changes() {
        if n > 0 {
            log::info!("reputation changes \"{kind}\": {n}");
        }
    }
}

/// The protocol's counters (a restarted node's include those before the
/// restart: `NodeMetrics::absorb`).
fn protocol_report(metrics: &NodeMetrics) -> ProtocolReport {
    let p = &metrics.protocol;
    let reputation_changes = p
        .reputation_changes()
        .into_iter()
        .map(|(kind, n)| (kind.to_owned(), n))
        .collect();
    ProtocolReport {
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
        reputation_changes,
    }
}

/// What `--schedule useful-first` cost; `None` under `fifo`.
fn schedule_report(metrics: &NodeMetrics, options: &RunOptions) -> Option<ScheduleReport> {
    if options.checks.schedule != tranche_node::Schedule::UsefulFirst {
        return None;
    }
    let [ahead, rest] = metrics.schedule.quantiles();
    Some(ScheduleReport {
        ahead_messages: ahead.count,
        // No message, no wait measured: not a wait of 0.
        ahead_p50_ms: (ahead.count > 0).then_some(ahead.p50_ms),
        ahead_p99_ms: (ahead.count > 0).then_some(ahead.p99_ms),
        rest_messages: rest.count,
        rest_p50_ms: (rest.count > 0).then_some(rest.p50_ms),
        rest_p99_ms: (rest.count > 0).then_some(rest.p99_ms),
        backlog_peak: metrics.schedule.backlog_peak(),
    })
}
