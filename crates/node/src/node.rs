//! The one interface to both layouts: start a node, feed it blocks, peer
//! bytes, peer and topology events, ticks and finality; read what it sends,
//! reputation changes and approved blocks from its event channel; stop it.
//! `Node` forwards each input to its running layout, [`Running`] (`classic.rs` or
//! `parallel.rs`) and owns what both share: the failure channel, the
//! in-flight count, the metrics and the threads.
//!
//! Channels (capacities named in `layout.rs`). Bounded: the node's inbox, router →
//! distribution workers (peer messages and, as upstream's main loop sends
//! them, new blocks and our own assignments and approvals), distribution →
//! voting. Unbounded: every worker's high-priority input (control events;
//! what voting sends for distribution: to the distribution worker itself
//! in the classic layout, as upstream's approval-voting sends it, to the
//! router in the parallel one) and the event channel. No cycle of bounded
//! channels can deadlock: voting never sends anything bounded, so it
//! always makes progress; distribution workers wait only on voting; the
//! router waits only on distribution workers (in the classic layout
//! distribution waits for voting's verdict, and voting answers without
//! sending anything bounded).

use crate::channel::{Closed, Unfinished};
use crate::classic::Classic;
use crate::clock::Clock;
use crate::layout::Running;
pub use crate::layout::{
    NodeConfig, NodeError, NodeMetrics, INBOX_CAPACITY, VOTING_CHANNEL_CAPACITY,
    WORKER_CHANNEL_CAPACITY,
};
use crate::messages::{Architecture, Input, Layout, NetworkEvent, NodeEvent, StoreConfig};
use crate::parallel::Parallel;
use crate::voting_worker::store_failure;
use crate::wiring::{Voting, Wiring};
use crate::worker::WorkerFailure;
use crossbeam_channel::Receiver;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tranche_distribution::{PeerId, SessionGridTopology, View};
use tranche_primitives::{BlockNumber, Hash, SessionIndex, Tick, ValidatorIndex};
use tranche_store::{ParityDbStore, RedbStore};
use tranche_voting::{ApprovalVoting, FaultyStore, MemoryStore, NewBlock, Store};

/// How long a failure that is a consequence of another worker's stop
/// waits for that worker's own failure (`Node::check`).
const CAUSE_WAIT: Duration = Duration::from_secs(2);

/// A running node.
pub struct Node {
    architecture: Architecture,
    clock: Clock,
    layout: Box<dyn Running>,
    events: Receiver<NodeEvent>,
    unfinished: Arc<Unfinished>,
    failures: Receiver<WorkerFailure>,
    failure: Option<WorkerFailure>,
    threads: Vec<JoinHandle<()>>,
    metrics: NodeMetrics,
    stopping: Arc<AtomicBool>,
    crashing: Arc<AtomicBool>,
}

type Opened = (Box<dyn Store + Send>, Option<tranche_voting::Snapshot>);

/// Open the store and load what it holds (nothing for a memory store).
fn open_store(config: &StoreConfig) -> Result<Opened, NodeError> {
    fn loaded(mut store: Box<dyn Store + Send>) -> Result<Opened, NodeError> {
        let snap = store
            .load()
            .map_err(|e| NodeError::Store(store_failure(&*store, &e)))?;
        Ok((store, Some(snap)))
    }
    let open_err = |e: tranche_voting::StoreError| NodeError::Store(e.to_string());
    match config {
        StoreConfig::Memory => Ok((Box::new(MemoryStore::new()), None)),
        StoreConfig::Redb(place) => {
            loaded(Box::new(RedbStore::open(place.clone()).map_err(open_err)?))
        }
        StoreConfig::ParityDb(place) => loaded(Box::new(
            ParityDbStore::open(place.clone()).map_err(open_err)?,
        )),
        StoreConfig::Faulty(inner, fault) => {
            let (store, snap) = open_store(inner)?;
            Ok((Box::new(FaultyStore::new(store, *fault)), snap))
        }
    }
}

/// The voting state machine, restored from the store if it has a snapshot,
/// and the candidates the store holds as approved.
fn open_voting(config: &NodeConfig) -> Result<(Voting, u64), NodeError> {
    let (store, snapshot) = open_store(&config.store)?;
    let (machine, approved) = match snapshot {
        Some(snap) => {
            let approved = snap
                .block_states
                .iter()
                .flat_map(|(_, state)| &state.approved)
                .map(|b| u64::from(b.count_ones()))
                .sum();
            let machine =
                ApprovalVoting::restore(config.voting.clone(), config.local.clone(), snap)
                    .map_err(|e| NodeError::Store(store_failure(&*store, &e)))?;
            (machine, approved)
        }
        None => (
            ApprovalVoting::new(config.voting.clone(), config.local.clone()),
            0,
        ),
    };
    Ok((Voting { machine, store }, approved))
}

impl Node {
    /// Start the node's threads.
    pub fn start(config: NodeConfig) -> Result<Node, NodeError> {
        let (events_tx, events) = crossbeam_channel::unbounded();
        let (fail_tx, failures) = crossbeam_channel::unbounded();
        let (voting, approved) = open_voting(&config)?;
        let mut wiring = Wiring::new(&config, events_tx, fail_tx);
        // A restored node counts the approvals of its store as its own.
        wiring.metrics.protocol.restored(approved);
        let arch = config.architecture;
        let layout: Box<dyn Running> = match arch.layout {
            Layout::Classic => Box::new(Classic::start(&mut wiring, voting)?),
            Layout::Parallel => Box::new(Parallel::start(&mut wiring, voting, arch.workers)?),
        };
        let Wiring {
            unfinished,
            stopping,
            crashing,
            metrics,
            threads,
            ..
        } = wiring;
        Ok(Node {
            architecture: config.architecture,
            clock: config.clock.clone(),
            layout,
            events,
            unfinished,
            failures,
            failure: None,
            threads,
            metrics,
            stopping,
            crashing,
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

    /// The first worker failure, if any worker has failed — its cause: a
    /// worker that failed only because another's channel closed is a
    /// consequence, and the failure of the worker that stopped (reported
    /// as its thread ends, just after its channel closed) is looked for,
    /// for at most `CAUSE_WAIT`, and reported instead.
    pub fn check(&mut self) -> Result<(), NodeError> {
        if self.failure.is_none() {
            if let Ok(f) = self.failures.try_recv() {
                self.failure = Some(f);
            }
        }
        if self.failure.as_ref().is_some_and(|f| f.is_consequence()) {
            let deadline = Instant::now() + CAUSE_WAIT;
            while let Ok(f) = self.failures.recv_deadline(deadline) {
                if !f.is_consequence() {
                    self.failure = Some(f);
                    break;
                }
            }
            // Looked for once: a consequence with no cause stays.
            if let Some(f) = &mut self.failure {
                f.cause_sought = true;
            }
        }
        match &self.failure {
            Some(f) => Err(NodeError::WorkerFailed(f.clone())),
            None => Ok(()),
        }
    }

    fn send(&mut self, input: Input) -> Result<(), NodeError> {
        let r = self.layout.send(input);
        self.sent(r)
    }

    fn sent(&mut self, r: Result<(), Closed>) -> Result<(), NodeError> {
        match r {
            Ok(()) => Ok(()),
            Err(_) => {
                self.check()?;
                Err(NodeError::Stopped)
            }
        }
    }

    pub fn import_block(&mut self, block: NewBlock) -> Result<(), NodeError> {
        self.send(Input::Block(block))
    }

    /// Bytes of one notification from a peer.
    pub fn peer_message(&mut self, peer: PeerId, bytes: Arc<[u8]>) -> Result<(), NodeError> {
        let r = self.layout.peer_bytes(peer, bytes);
        self.sent(r)
    }

    pub fn peer_connected(
        &mut self,
        peer: PeerId,
        authority: Option<ValidatorIndex>,
    ) -> Result<(), NodeError> {
        self.send(Input::Network(NetworkEvent::PeerConnected {
            peer,
            authority,
        }))
    }

    /// A connected peer's validator identity became known or changed.
    pub fn peer_authority(
        &mut self,
        peer: PeerId,
        authority: ValidatorIndex,
    ) -> Result<(), NodeError> {
        self.send(Input::Network(NetworkEvent::PeerAuthority {
            peer,
            authority,
        }))
    }

    /// `GetApprovalSignatures`: the approval signatures the node holds for
    /// these (block, candidate) pairs, by validator, as upstream's message
    /// returns them; the parallel layout asks every worker and merges.
    pub fn approval_signatures(
        &mut self,
        indices: Vec<(Hash, tranche_primitives::CandidateIndex)>,
        timeout: Duration,
    ) -> Result<crate::messages::ApprovalSignatures, NodeError> {
        let (reply, answers) = crossbeam_channel::unbounded();
        self.send(Input::GetApprovalSignatures { indices, reply })?;
        let workers = self.architecture.distribution_workers();
        let mut all = crate::messages::ApprovalSignatures::new();
        for _ in 0..workers {
            match answers.recv_timeout(timeout) {
                Ok(part) => all.extend(part),
                Err(_) => {
                    self.check()?;
                    return Err(NodeError::Stopped);
                }
            }
        }
        Ok(all)
    }

    pub fn peer_disconnected(&mut self, peer: PeerId) -> Result<(), NodeError> {
        self.send(Input::Network(NetworkEvent::PeerDisconnected(peer)))
    }

    pub fn peer_view(&mut self, peer: PeerId, view: View) -> Result<(), NodeError> {
        self.send(Input::Network(NetworkEvent::PeerView { peer, view }))
    }

    pub fn topology(
        &mut self,
        session: SessionIndex,
        grid: SessionGridTopology,
        local: Option<ValidatorIndex>,
    ) -> Result<(), NodeError> {
        self.send(Input::Network(NetworkEvent::Topology {
            session,
            grid,
            local,
        }))
    }

    pub fn finalize(&mut self, hash: Hash, number: BlockNumber) -> Result<(), NodeError> {
        self.send(Input::Finalized { hash, number })
    }

    /// Virtual clock: move to `tick` and run the wakeups due at it (call
    /// `wait_idle` to let them finish). A real clock ignores this.
    pub fn set_tick(&mut self, tick: Tick) -> Result<(), NodeError> {
        if !self.clock.is_virtual() {
            return Ok(());
        }
        self.clock.set(tick);
        self.send(Input::Tick(tick))
    }

    /// Wait until no message is queued or being handled anywhere in the
    /// node; fails if a worker fails or nothing settles within `timeout`.
    pub fn wait_idle(&mut self, timeout: Duration) -> Result<(), NodeError> {
        let start = Instant::now();
        loop {
            if self.unfinished.wait_idle(Duration::from_millis(20)) {
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
        let r = self.layout.inject_fault(target);
        self.sent(r)
    }

    fn stop_all(&self) {
        self.stopping.store(true, Ordering::Release);
        self.layout.stop();
    }

    /// Stop abruptly, as a crash would: the workers stop where they are,
    /// the store is abandoned without a final commit (what the voting
    /// worker committed so far stays, by the promise of docs/durability.md),
    /// the threads are joined and the database file is released. Returns
    /// the metrics so far; the node takes no more input.
    pub fn crash(&mut self) -> NodeMetrics {
        self.crashing.store(true, Ordering::Release);
        self.stop_all();
        for t in std::mem::take(&mut self.threads) {
            let _ = t.join();
        }
        self.metrics.clone()
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
