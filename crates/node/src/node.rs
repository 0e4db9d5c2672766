//! The one interface to both layouts: start a node, feed it blocks, peer
//! bytes, peer and topology events, ticks and finality; read what it sends,
//! reputation changes and approved blocks from its event channel; stop it.
//!
//! Channels (named constants below). Bounded: the node's inbox, router →
//! distribution workers, distribution → voting. Unbounded: every worker's
//! high-priority input (control events, and everything voting sends to
//! distribution) and the event channel. No cycle of bounded channels can
//! deadlock: the only path back from voting to distribution is unbounded,
//! the router never waits on anything but distribution workers, and
//! distribution workers wait only on voting, which never waits on them (in
//! the classic layout distribution waits for voting's verdict, and voting
//! answers without sending anything bounded).

use crate::channel::{channel, ChannelMeter, InFlight, Rx, Tx};
use crate::clock::Clock;
use crate::distribution_worker::{CheckMode, DistributionWorker};
use crate::leaves::Leaves;
use crate::messages::{Architecture, Control, DistMsg, NodeEvent, RouterMsg, StoreConfig, VoteMsg};
use crate::metrics::ProtocolCounters;
use crate::router::Router;
use crate::voting_worker::{DistLinks, VotingWorker};
use crate::worker::{run_worker, spawn_worker, Inbox, WorkerBody, WorkerFailure, WorkerStats};
use crossbeam_channel::Receiver;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tranche_distribution::{PeerId, SessionGridTopology, State, View};
use tranche_primitives::{BlockNumber, Hash, Session, SessionIndex, Tick, ValidatorIndex};
use tranche_voting::{ApprovalVoting, LocalKeys, MemoryStore, NewBlock, RedbStore, Store};

/// The node's inbox (upstream's approval-distribution inbox).
pub const INBOX_CAPACITY: usize = 64_000;
/// Each distribution worker's bounded input (upstream
/// `DEFAULT_WORKERS_CHANNEL_SIZE` = 64 000 / 4).
pub const WORKER_CHANNEL_CAPACITY: usize = 16_000;
/// The voting worker's bounded input.
pub const VOTING_CHANNEL_CAPACITY: usize = 16_000;

/// Everything a node needs to start.
pub struct NodeConfig {
    pub architecture: Architecture,
    pub clock: Clock,
    pub local: Option<LocalKeys>,
    pub sessions: Vec<Arc<Session>>,
    pub voting: tranche_voting::Config,
    pub distribution: tranche_distribution::Config,
    pub store: StoreConfig,
}

#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    #[error(transparent)]
    WorkerFailed(#[from] WorkerFailure),
    #[error("cannot open the approval database: {0}")]
    Store(String),
    #[error("cannot start thread {0}: {1}")]
    Spawn(String, std::io::Error),
    #[error("the node is not idle after {0:?} (a worker is stuck)")]
    Stalled(Duration),
    #[error("the node has stopped")]
    Stopped,
}

/// Per-worker, per-channel and protocol counters.
#[derive(Clone, Default)]
pub struct NodeMetrics {
    pub workers: Vec<Arc<WorkerStats>>,
    pub channels: Vec<Arc<ChannelMeter>>,
    /// What the state machines did (upstream's approval metrics).
    pub protocol: Arc<ProtocolCounters>,
}

impl NodeMetrics {
    /// CPU seconds of every node thread together.
    pub fn total_cpu_seconds(&self) -> f64 {
        self.workers.iter().map(|w| w.cpu_seconds()).sum()
    }

    pub fn verifications(&self) -> u64 {
        self.workers.iter().map(|w| w.verifications()).sum()
    }
}

enum Inputs {
    Classic {
        dist: Tx<DistMsg>,
        dist_prio: Tx<DistMsg>,
        voting: Tx<VoteMsg>,
        voting_prio: Tx<VoteMsg>,
    },
    Parallel {
        router: Tx<RouterMsg>,
        router_prio: Tx<RouterMsg>,
        workers_prio: Vec<Tx<DistMsg>>,
        voting_prio: Tx<VoteMsg>,
    },
}

/// A running node.
pub struct Node {
    architecture: Architecture,
    clock: Clock,
    inputs: Inputs,
    events: Receiver<NodeEvent>,
    in_flight: Arc<InFlight>,
    failures: Receiver<WorkerFailure>,
    failure: Option<WorkerFailure>,
    threads: Vec<JoinHandle<()>>,
    metrics: NodeMetrics,
    /// The classic layout's own view (the router keeps it in parallel).
    leaves: Leaves,
    stopping: Arc<AtomicBool>,
}

fn open_store(
    config: &StoreConfig,
) -> Result<(Box<dyn Store + Send>, Option<tranche_voting::Snapshot>), NodeError> {
    match config {
        StoreConfig::Memory => Ok((Box::new(MemoryStore::new()), None)),
        StoreConfig::Redb(path) => {
            let mut store = RedbStore::open(path).map_err(|e| NodeError::Store(e.to_string()))?;
            let snap = store.load().map_err(|e| NodeError::Store(e.to_string()))?;
            Ok((Box::new(store), Some(snap)))
        }
    }
}

impl Node {
    /// Start the node's threads.
    pub fn start(config: NodeConfig) -> Result<Node, NodeError> {
        let in_flight = InFlight::new();
        let (events_tx, events) = crossbeam_channel::unbounded();
        let (fail_tx, failures) = crossbeam_channel::unbounded();
        let (store, snapshot) = open_store(&config.store)?;
        let machine = match snapshot {
            Some(snap) => {
                ApprovalVoting::restore(config.voting.clone(), config.local.clone(), snap)
                    .map_err(|e| NodeError::Store(e.to_string()))?
            }
            None => ApprovalVoting::new(config.voting.clone(), config.local.clone()),
        };
        let n_dist = match config.architecture {
            Architecture::Classic => 1,
            Architecture::Parallel { workers } => workers.max(1),
        };
        let mut metrics = NodeMetrics::default();
        let mut threads = Vec::new();
        let names = match config.architecture {
            Architecture::Classic => (
                "approval-voting".to_owned(),
                vec!["approval-distribution".to_owned()],
            ),
            Architecture::Parallel { .. } => (
                "approval-voting-parallel-db".to_owned(),
                (0..n_dist)
                    .map(|i| format!("approval-voting-parallel-{i}"))
                    .collect(),
            ),
        };

        let (voting_tx, voting_rx) =
            channel::<VoteMsg>(names.0.clone(), Some(VOTING_CHANNEL_CAPACITY), &in_flight);
        let (voting_prio_tx, voting_prio_rx) =
            channel::<VoteMsg>(format!("{}-prio", names.0), None, &in_flight);
        let mut dist_in: Vec<(Tx<DistMsg>, Rx<DistMsg>)> = Vec::new();
        let mut dist_prio: Vec<(Tx<DistMsg>, Rx<DistMsg>)> = Vec::new();
        for name in &names.1 {
            let cap = match config.architecture {
                Architecture::Classic => INBOX_CAPACITY,
                Architecture::Parallel { .. } => WORKER_CHANNEL_CAPACITY,
            };
            dist_in.push(channel(name.clone(), Some(cap), &in_flight));
            dist_prio.push(channel(format!("{name}-prio"), None, &in_flight));
        }
        metrics.channels.push(voting_tx.meter().clone());
        metrics.channels.push(voting_prio_tx.meter().clone());
        for (tx, _) in dist_in.iter().chain(&dist_prio) {
            metrics.channels.push(tx.meter().clone());
        }

        // Once the node is stopping, a worker that finds a neighbour gone
        // (a send to a closed channel) is shutting down, not failing.
        let stopping = Arc::new(AtomicBool::new(false));
        let spawn = |stats: Arc<WorkerStats>, body: WorkerBody| {
            let name = stats.name.clone();
            let stopping = stopping.clone();
            let body: WorkerBody = Box::new(move |s| match body(s) {
                Err(_) if stopping.load(Ordering::Acquire) => Ok(()),
                other => other,
            });
            spawn_worker(stats, fail_tx.clone(), body).map_err(|e| NodeError::Spawn(name, e))
        };

        // Voting worker.
        let voting_stats = WorkerStats::new(names.0.clone());
        metrics.workers.push(voting_stats.clone());
        let worker = VotingWorker {
            machine,
            store,
            clock: config.clock.clone(),
            dist: DistLinks {
                workers: dist_prio.iter().map(|(tx, _)| tx.clone()).collect(),
            },
            events: events_tx.clone(),
            counters: metrics.protocol.clone(),
            ticks_per_slot: tranche_primitives::time::ticks_per_slot(
                config.voting.slot_duration_millis,
            )
            .max(1),
            slot_starts: Default::default(),
        };
        let inbox = Inbox {
            prio: voting_prio_rx,
            normal: voting_rx,
            in_flight: in_flight.clone(),
        };
        threads.push(spawn(
            voting_stats,
            Box::new(move |s| run_worker(worker, inbox, s)),
        )?);

        // Distribution workers.
        let mode = || match config.architecture {
            Architecture::Classic => CheckMode::ViaVoting,
            Architecture::Parallel { .. } => CheckMode::Inline,
        };
        let dist_txs: Vec<Tx<DistMsg>> = dist_in.iter().map(|(tx, _)| tx.clone()).collect();
        let dist_prio_txs: Vec<Tx<DistMsg>> = dist_prio.iter().map(|(tx, _)| tx.clone()).collect();
        for (name, ((_, rx), (_, prio_rx))) in
            names.1.iter().zip(dist_in.into_iter().zip(dist_prio))
        {
            let stats = WorkerStats::new(name.clone());
            metrics.workers.push(stats.clone());
            let mut state = State::new(config.distribution.clone());
            for s in &config.sessions {
                state.add_session(s.clone());
            }
            let worker = DistributionWorker {
                state,
                clock: config.clock.clone(),
                mode: mode(),
                to_voting: voting_tx.clone(),
                events: events_tx.clone(),
                counters: metrics.protocol.clone(),
                actions: Vec::new(),
            };
            let inbox = Inbox {
                prio: prio_rx,
                normal: rx,
                in_flight: in_flight.clone(),
            };
            threads.push(spawn(
                stats,
                Box::new(move |s| run_worker(worker, inbox, s)),
            )?);
        }

        let inputs = match config.architecture {
            Architecture::Classic => Inputs::Classic {
                dist: dist_txs[0].clone(),
                dist_prio: dist_prio_txs[0].clone(),
                voting: voting_tx,
                voting_prio: voting_prio_tx,
            },
            Architecture::Parallel { .. } => {
                let (router_tx, router_rx) = channel::<RouterMsg>(
                    "approval-voting-parallel",
                    Some(INBOX_CAPACITY),
                    &in_flight,
                );
                let (router_prio_tx, router_prio_rx) =
                    channel::<RouterMsg>("approval-voting-parallel-prio", None, &in_flight);
                metrics.channels.push(router_tx.meter().clone());
                metrics.channels.push(router_prio_tx.meter().clone());
                let stats = WorkerStats::new("approval-voting-parallel");
                metrics.workers.insert(0, stats.clone());
                let router = Router {
                    workers: dist_txs,
                    workers_prio: dist_prio_txs.clone(),
                    voting: voting_tx,
                    voting_prio: voting_prio_tx.clone(),
                    events: events_tx.clone(),
                    leaves: Leaves::default(),
                };
                let inbox = Inbox {
                    prio: router_prio_rx,
                    normal: router_rx,
                    in_flight: in_flight.clone(),
                };
                threads.push(spawn(
                    stats,
                    Box::new(move |s| run_worker(router, inbox, s)),
                )?);
                Inputs::Parallel {
                    router: router_tx,
                    router_prio: router_prio_tx,
                    workers_prio: dist_prio_txs,
                    voting_prio: voting_prio_tx,
                }
            }
        };
        Ok(Node {
            architecture: config.architecture,
            clock: config.clock,
            inputs,
            events,
            in_flight,
            failures,
            failure: None,
            threads,
            metrics,
            leaves: Leaves::default(),
            stopping,
        })
    }

    pub fn architecture(&self) -> Architecture {
        self.architecture
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    pub fn metrics(&self) -> &NodeMetrics {
        &self.metrics
    }

    /// What the node sends and reports.
    pub fn events(&self) -> &Receiver<NodeEvent> {
        &self.events
    }

    /// The first worker failure, if any worker has failed.
    pub fn check(&mut self) -> Result<(), NodeError> {
        if self.failure.is_none() {
            if let Ok(f) = self.failures.try_recv() {
                self.failure = Some(f);
            }
        }
        match &self.failure {
            Some(f) => Err(NodeError::WorkerFailed(f.clone())),
            None => Ok(()),
        }
    }

    fn sent(&mut self, r: Result<(), crate::channel::Closed>) -> Result<(), NodeError> {
        match r {
            Ok(()) => Ok(()),
            Err(_) => {
                self.check()?;
                Err(NodeError::Stopped)
            }
        }
    }

    pub fn import_block(&mut self, block: NewBlock) -> Result<(), NodeError> {
        let r = match &self.inputs {
            Inputs::Classic {
                voting, dist_prio, ..
            } => {
                let heads = self.leaves.add(block.hash, block.parent);
                dist_prio
                    .send(DistMsg::OurView(heads))
                    .and_then(|_| voting.send(VoteMsg::Block(block)))
            }
            Inputs::Parallel { router, .. } => router.send(RouterMsg::Block(block)),
        };
        self.sent(r)
    }

    /// Bytes of one notification from a peer.
    pub fn peer_message(&mut self, peer: PeerId, bytes: Arc<[u8]>) -> Result<(), NodeError> {
        let r = match &self.inputs {
            Inputs::Classic { dist, .. } => dist.send(DistMsg::PeerBytes { peer, bytes }),
            Inputs::Parallel { router, .. } => router.send(RouterMsg::PeerBytes { peer, bytes }),
        };
        self.sent(r)
    }

    pub fn peer_connected(
        &mut self,
        peer: PeerId,
        authority: Option<ValidatorIndex>,
    ) -> Result<(), NodeError> {
        let r = match &self.inputs {
            Inputs::Classic { dist_prio, .. } => {
                dist_prio.send(DistMsg::PeerConnected { peer, authority })
            }
            Inputs::Parallel { router_prio, .. } => {
                router_prio.send(RouterMsg::PeerConnected { peer, authority })
            }
        };
        self.sent(r)
    }

    pub fn peer_disconnected(&mut self, peer: PeerId) -> Result<(), NodeError> {
        let r = match &self.inputs {
            Inputs::Classic { dist_prio, .. } => dist_prio.send(DistMsg::PeerDisconnected(peer)),
            Inputs::Parallel { router_prio, .. } => {
                router_prio.send(RouterMsg::PeerDisconnected(peer))
            }
        };
        self.sent(r)
    }

    pub fn peer_view(&mut self, peer: PeerId, view: View) -> Result<(), NodeError> {
        let r = match &self.inputs {
            Inputs::Classic { dist_prio, .. } => dist_prio.send(DistMsg::PeerView { peer, view }),
            Inputs::Parallel { router_prio, .. } => {
                router_prio.send(RouterMsg::PeerView { peer, view })
            }
        };
        self.sent(r)
    }

    pub fn topology(
        &mut self,
        session: SessionIndex,
        grid: SessionGridTopology,
        local: Option<ValidatorIndex>,
    ) -> Result<(), NodeError> {
        let r = match &self.inputs {
            Inputs::Classic { dist_prio, .. } => dist_prio.send(DistMsg::Topology {
                session,
                grid,
                local,
            }),
            Inputs::Parallel { router_prio, .. } => router_prio.send(RouterMsg::Topology {
                session,
                grid,
                local,
            }),
        };
        self.sent(r)
    }

    pub fn finalize(&mut self, hash: Hash, number: BlockNumber) -> Result<(), NodeError> {
        let r = match &self.inputs {
            Inputs::Classic {
                dist_prio,
                voting_prio,
                ..
            } => dist_prio
                .send(DistMsg::Finalized(number))
                .and_then(|_| voting_prio.send(VoteMsg::Finalized { hash, number })),
            Inputs::Parallel { router_prio, .. } => {
                router_prio.send(RouterMsg::Finalized { hash, number })
            }
        };
        self.sent(r)
    }

    /// Virtual clock: move to `tick` and run the wakeups due at it (call
    /// `wait_idle` to let them finish). A real clock ignores this.
    pub fn set_tick(&mut self, tick: Tick) -> Result<(), NodeError> {
        if !self.clock.is_virtual() {
            return Ok(());
        }
        self.clock.set(tick);
        let r = match &self.inputs {
            Inputs::Classic { voting_prio, .. } => voting_prio.send(VoteMsg::Tick(tick)),
            Inputs::Parallel { router_prio, .. } => router_prio.send(RouterMsg::Tick(tick)),
        };
        self.sent(r)
    }

    /// Wait until no message is queued or being handled anywhere in the
    /// node; fails if a worker fails or nothing settles within `timeout`.
    pub fn wait_idle(&mut self, timeout: Duration) -> Result<(), NodeError> {
        let start = Instant::now();
        loop {
            if self.in_flight.wait_idle(Duration::from_millis(20)) {
                return self.check();
            }
            self.check()?;
            if start.elapsed() > timeout {
                return Err(NodeError::Stalled(timeout));
            }
        }
    }

    /// Make a worker fail, to test failure handling. `target` 0 is the
    /// voting worker, `1..` the distribution workers.
    #[doc(hidden)]
    pub fn inject_fault(&mut self, target: usize) -> Result<(), NodeError> {
        let r = match (&self.inputs, target) {
            (Inputs::Classic { voting_prio, .. }, 0)
            | (Inputs::Parallel { voting_prio, .. }, 0) => {
                voting_prio.send(VoteMsg::Control(Control::Fault))
            }
            (Inputs::Classic { dist_prio, .. }, _) => {
                dist_prio.send(DistMsg::Control(Control::Fault))
            }
            (Inputs::Parallel { workers_prio, .. }, i) => {
                workers_prio[(i - 1) % workers_prio.len()].send(DistMsg::Control(Control::Fault))
            }
        };
        self.sent(r)
    }

    fn stop_all(&self) {
        self.stopping.store(true, Ordering::Release);
        match &self.inputs {
            Inputs::Classic {
                dist_prio,
                voting_prio,
                ..
            } => {
                let _ = dist_prio.send(DistMsg::Control(Control::Stop));
                let _ = voting_prio.send(VoteMsg::Control(Control::Stop));
            }
            Inputs::Parallel {
                router_prio,
                workers_prio,
                voting_prio,
                ..
            } => {
                let _ = router_prio.send(RouterMsg::Control(Control::Stop));
                for w in workers_prio {
                    let _ = w.send(DistMsg::Control(Control::Stop));
                }
                let _ = voting_prio.send(VoteMsg::Control(Control::Stop));
            }
        }
    }

    /// Stop every worker (the database is flushed) and join the threads.
    /// Returns the first worker failure, if any.
    pub fn shutdown(mut self) -> Result<NodeMetrics, NodeError> {
        let earlier = self.check().err();
        self.stop_all();
        for t in std::mem::take(&mut self.threads) {
            let _ = t.join();
        }
        if let Some(e) = earlier {
            return Err(e);
        }
        // A failure during shutdown itself (a flush error) still counts.
        self.check()?;
        Ok(self.metrics.clone())
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        if !self.threads.is_empty() {
            self.stop_all();
            for t in std::mem::take(&mut self.threads) {
                let _ = t.join();
            }
        }
    }
}
