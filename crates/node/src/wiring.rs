//! What a starting node sets up the same way in both layouts: the
//! node-wide in-flight count, event and failure channels and metrics,
//! metered channels, worker threads that stop quietly once the node is
//! stopping, and the voting worker with its distribution workers.

use crate::ahead::Ahead;
use crate::backlog::Backlog;
use crate::channel::{channel, Rx, Tx, Unfinished};
use crate::checks::{CheckMode, SignatureBatch};
use crate::distribution_worker::DistributionWorker;
use crate::fanout::{Fanout, PrioLinks};
use crate::layout::{NodeConfig, NodeError, NodeMetrics, VOTING_CHANNEL_CAPACITY};
use crate::leaves::Leaves;
use crate::messages::{DistMsg, NodeEvent, RouterMsg, Schedule, SignatureCheck, VoteMsg};
use crate::voting_worker::{DistLinks, VotingWorker};
use crate::worker::{
    run_worker, spawn_worker, Inbox, Worker, WorkerBody, WorkerFailure, WorkerStats,
};
use crossbeam_channel::Sender;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use tranche_distribution::State;
use tranche_voting::{ApprovalVoting, Store};

/// The voting worker's state machine and its store, opened (and restored)
/// before any thread starts.
pub(crate) struct Voting {
    pub machine: ApprovalVoting,
    pub store: Box<dyn Store + Send>,
}

/// The voting and distribution workers a layout runs.
pub(crate) struct Workers {
    /// The voting worker's thread (and channel) name.
    pub voting: String,
    /// One thread (and channel) name per distribution worker.
    pub distribution: Vec<String>,
    /// Capacity of each distribution worker's bounded input.
    pub capacity: usize,
    pub mode: CheckMode,
    /// The router's unbounded input, where the voting worker sends what is
    /// for distribution (parallel); `None`: straight to the distribution
    /// workers' unbounded inputs (classic).
    pub router: Option<Tx<RouterMsg>>,
}

/// A node being started.
pub(crate) struct Wiring<'a> {
    pub config: &'a NodeConfig,
    pub unfinished: Arc<Unfinished>,
    pub events: Sender<NodeEvent>,
    failures: Sender<WorkerFailure>,
    pub stopping: Arc<AtomicBool>,
    /// Set before a simulated crash: the voting worker abandons its store.
    pub crashing: Arc<AtomicBool>,
    pub metrics: NodeMetrics,
    pub threads: Vec<JoinHandle<()>>,
}

impl<'a> Wiring<'a> {
    pub fn new(
        config: &'a NodeConfig,
        events: Sender<NodeEvent>,
        failures: Sender<WorkerFailure>,
    ) -> Self {
        Wiring {
            config,
            unfinished: Unfinished::new(),
            events,
            failures,
            stopping: Arc::new(AtomicBool::new(false)),
            crashing: Arc::new(AtomicBool::new(false)),
            metrics: NodeMetrics::default(),
            threads: Vec::new(),
        }
    }

    /// A metered channel counted in this node's in-flight count (its meter
    /// is not yet among the node's metrics).
    pub fn channel<T>(&self, name: impl Into<String>, capacity: Option<usize>) -> (Tx<T>, Rx<T>) {
        channel(name, capacity, &self.unfinished)
    }

    /// Start `worker` on its own thread, reading `prio` first, then
    /// `normal`.
    pub fn spawn<W>(
        &mut self,
        stats: Arc<WorkerStats>,
        worker: W,
        prio: Rx<W::Msg>,
        normal: Rx<W::Msg>,
    ) -> Result<(), NodeError>
    where
        W: Worker + Send + 'static,
        W::Msg: Send + 'static,
    {
        let name = stats.name.clone();
        let inbox = Inbox {
            prio,
            normal,
            unfinished: self.unfinished.clone(),
        };
        // Once the node is stopping, a worker that finds a neighbour gone
        // (a send to a closed channel) is shutting down, not failing.
        let stopping = self.stopping.clone();
        let body: WorkerBody = Box::new(move |s| match run_worker(worker, inbox, s) {
            Err(_) if stopping.load(Ordering::Acquire) => Ok(()),
            other => other,
        });
        let thread = spawn_worker(stats, self.failures.clone(), body)
            .map_err(|e| NodeError::Spawn(name, e))?;
        self.threads.push(thread);
        Ok(())
    }

    /// Start the voting worker and the distribution workers (in that
    /// order); returns how to reach them and the distribution workers'
    /// bounded inputs.
    pub fn start_workers(
        &mut self,
        voting: Voting,
        workers: Workers,
    ) -> Result<(Fanout, Vec<Tx<DistMsg>>), NodeError> {
        let (voting_tx, voting_rx) =
            self.channel::<VoteMsg>(workers.voting.clone(), Some(VOTING_CHANNEL_CAPACITY));
        let (voting_prio_tx, voting_prio_rx) =
            self.channel::<VoteMsg>(format!("{}-prio", workers.voting), None);
        let (dist_txs, dist_rxs): (Vec<_>, Vec<_>) = workers
            .distribution
            .iter()
            .map(|name| self.channel::<DistMsg>(name.clone(), Some(workers.capacity)))
            .unzip();
        let (prio_txs, prio_rxs): (Vec<_>, Vec<_>) = workers
            .distribution
            .iter()
            .map(|name| self.channel::<DistMsg>(format!("{name}-prio"), None))
            .unzip();
        let meters = [&voting_tx, &voting_prio_tx]
            .into_iter()
            .map(|tx| tx.meter().clone())
            .chain(
                dist_txs
                    .iter()
                    .chain(&prio_txs)
                    .map(|tx| tx.meter().clone()),
            );
        self.metrics.channels.extend(meters);

        let stats = WorkerStats::new(workers.voting.clone());
        self.metrics.workers.push(stats.clone());
        let links = match workers.router {
            Some(router) => DistLinks::ViaRouter(router),
            None => DistLinks::Direct(prio_txs.clone()),
        };
        let mut worker = self.voting_worker(voting, links);
        // A node restarted from its store re-announces what it holds before
        // it takes any input (upstream's activation).
        worker.activate().map_err(NodeError::Store)?;
        self.spawn(stats, worker, voting_prio_rx, voting_rx)?;

        let rxs = dist_rxs.into_iter().zip(prio_rxs);
        for (name, (rx, prio_rx)) in workers.distribution.iter().zip(rxs) {
            let stats = WorkerStats::new(name.clone());
            self.metrics.workers.push(stats.clone());
            let worker =
                self.distribution_worker(workers.mode, workers.capacity, voting_tx.clone());
            self.spawn(stats, worker, prio_rx, rx)?;
        }
        let fanout = Fanout {
            prio: PrioLinks {
                workers: prio_txs,
                voting: voting_prio_tx,
            },
            voting: voting_tx,
            leaves: Leaves::default(),
        };
        Ok((fanout, dist_txs))
    }

    fn voting_worker(&self, voting: Voting, dist: DistLinks) -> VotingWorker {
        VotingWorker {
            machine: voting.machine,
            store: voting.store,
            clock: self.config.clock.clone(),
            dist,
            events: self.events.clone(),
            counters: self.metrics.protocol.clone(),
            ticks_per_slot: tranche_primitives::time::ticks_per_slot(
                self.config.voting.slot_duration_millis,
            )
            .max(1),
            slot_starts: Default::default(),
            crashing: self.crashing.clone(),
            tell_approved: self.config.checks.schedule == Schedule::UsefulFirst,
            uncommitted_since: None,
            db_nanos: 0,
        }
    }

    fn distribution_worker(
        &self,
        mode: CheckMode,
        capacity: usize,
        to_voting: Tx<VoteMsg>,
    ) -> DistributionWorker {
        let checks = self.config.checks;
        let mut state = State::new(self.config.distribution.clone());
        for s in &self.config.sessions {
            state.add_session(s.clone());
        }
        DistributionWorker {
            stopping: self.stopping.clone(),
            state,
            clock: self.config.clock.clone(),
            mode,
            to_voting,
            events: self.events.clone(),
            counters: self.metrics.protocol.clone(),
            actions: Vec::new(),
            reputations: Default::default(),
            batch: (matches!(mode, CheckMode::Inline)
                && checks.signatures == SignatureCheck::Batched)
                .then(|| SignatureBatch::new(self.unfinished.clone())),
            handled: 0,
            settled: Default::default(),
            backlog: (checks.schedule == Schedule::UsefulFirst)
                .then(|| Backlog::new(checks.backlog.unwrap_or(capacity))),
            usefulness: Default::default(),
            waits: Default::default(),
            backlog_peak: 0,
            schedule_stats: self.metrics.schedule.clone(),
            ahead: (matches!(mode, CheckMode::Inline)
                && checks.schedule == Schedule::Fifo
                && checks.ahead > 0)
                .then(|| Ahead::new(checks.ahead)),
        }
    }
}
