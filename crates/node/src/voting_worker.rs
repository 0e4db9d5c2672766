//! The voting worker: owns the approval-voting state machine and its store
//! (the only database writer), applies each input's writes, hands new
//! blocks and our own assignments and approvals to distribution, and
//! reports approved blocks. In the classic layout it also checks every
//! certificate and signature before importing it.

use crate::channel::{Closed, Tx};
use crate::clock::Clock;
use crate::maps::Map;
use crate::messages::{DistMsg, NodeEvent, RouterMsg, VoteMsg, WorkerControl};
use crate::worker::{Worker, WorkerStats};
use crossbeam_channel::Sender;
use std::sync::Arc;
use std::time::Instant;
use tranche_metrics::thread_cpu_time;
use tranche_metrics::ProtocolCounters;
use tranche_primitives::{
    Block, BlockNumber, CandidateBitfield, Hash, IndirectAssignmentCert,
    IndirectSignedApprovalVote, Tick, ValidatorIndex,
};
use tranche_validator::{
    announces, checked_approval, checked_assignment, dispatch, CandidateApproved, Effects,
};
use tranche_voting::{Action, ApprovalVoting, Output, Store};

/// How the voting worker reaches distribution: always on unbounded inputs,
/// so the voting worker never waits for room (it is the end of every chain
/// of bounded sends, which is what keeps the node free of deadlock).
pub(crate) enum DistLinks {
    /// Classic: straight to the distribution worker's unbounded input, as
    /// upstream's approval-voting sends `NewBlocks`, `DistributeAssignment`
    /// and `DistributeApproval` to approval-distribution unbounded
    /// (`polkadot/node/core/approval-voting/src/lib.rs`).
    Direct(Vec<Tx<DistMsg>>),
    /// Parallel: to the router's unbounded input; the router forwards them
    /// on the workers' bounded inputs, behind the peer messages queued
    /// there, as upstream's main loop does
    /// (`polkadot/node/core/approval-voting-parallel/src/lib.rs`).
    ViaRouter(Tx<RouterMsg>),
}

impl DistLinks {
    /// New blocks (and the sessions they start) for every worker.
    fn new_blocks(&self, make: impl Fn() -> DistMsg) -> Result<(), Closed> {
        match self {
            DistLinks::Direct(workers) => workers.iter().try_for_each(|w| w.send(make())),
            DistLinks::ViaRouter(router) => router.send(RouterMsg::FromVoting(make())),
        }
    }

    /// `useful-first`: every worker hears at once which candidate voting
    /// approved (their high-priority inputs).
    fn candidate_approved(&self, block: Hash, candidate: u32) -> Result<(), Closed> {
        let msg = || DistMsg::CandidateApproved { block, candidate };
        match self {
            DistLinks::Direct(workers) => workers.iter().try_for_each(|w| w.send(msg())),
            DistLinks::ViaRouter(router) => router.send(RouterMsg::FromVoting(msg())),
        }
    }

    /// Our own assignment or approval, for the worker owning `v`.
    fn ours(&self, v: ValidatorIndex, msg: DistMsg) -> Result<(), Closed> {
        match self {
            DistLinks::Direct(workers) => workers[v.0 as usize % workers.len()].send(msg),
            DistLinks::ViaRouter(router) => router.send(RouterMsg::FromVoting(msg)),
        }
    }
}

pub(crate) struct VotingWorker {
    pub machine: ApprovalVoting,
    pub store: Box<dyn Store + Send>,
    pub clock: Clock,
    pub dist: DistLinks,
    pub events: Sender<NodeEvent>,
    pub counters: Arc<ProtocolCounters>,
    pub ticks_per_slot: Tick,
    /// Slot-start tick of each live block, for the approval-time metrics.
    pub slot_starts: Map<Hash, Tick>,
    /// Set before a simulated crash (`Node::crash`).
    pub crashing: Arc<std::sync::atomic::AtomicBool>,
    /// `useful-first`: tell distribution each candidate approved.
    pub tell_approved: bool,
    /// The group commit: the tick of the oldest write not yet committed
    /// (`None`: nothing waits). Committed once a later tick has begun.
    pub uncommitted_since: Option<Tick>,
    /// The database's own time on the voting thread, in nanoseconds: the
    /// buffering of each input's writes (wall time of the call, cheap to
    /// take; the thread is busy meanwhile, so it is CPU time) and every
    /// commit and fsync (the thread's CPU clock around it).
    pub db_nanos: u64,
}

impl VotingWorker {
    /// Buffer one input's writes in the store (committed by the group
    /// commit, see [`VotingWorker::commit_if_due`]).
    fn write(&mut self, now: Tick, writes: tranche_voting::WriteBatch) -> Result<(), String> {
        if writes.is_empty() {
            return Ok(());
        }
        let start = Instant::now();
        let r = self.store.write(writes);
        self.db_nanos += start.elapsed().as_nanos() as u64;
        r.map_err(|e| store_failure(&*self.store, &e))?;
        self.uncommitted_since.get_or_insert(now);
        Ok(())
    }

    /// A commit or an fsync, timed on the thread's CPU clock.
    fn commit_with(&mut self, fsync: bool) -> Result<(), String> {
        let start = thread_cpu_time();
        let r = if fsync {
            self.store.flush()
        } else {
            self.store.commit()
        };
        self.db_nanos += thread_cpu_time().saturating_sub(start).as_nanos() as u64;
        self.uncommitted_since = None;
        self.note_durability();
        r.map_err(|e| store_failure(&*self.store, &e))
    }

    /// The group commit: what was written during an earlier tick is
    /// committed once a later tick has begun (never per message; the store
    /// also commits by itself once its write-behind bound is reached).
    fn commit_if_due(&mut self, now: Tick) -> Result<(), String> {
        match self.uncommitted_since {
            Some(since) if now > since => self.commit_with(false),
            _ => Ok(()),
        }
    }

    fn apply(&mut self, now: Tick, out: Output) -> Result<(), String> {
        self.write(now, out.writes)?;
        // What we tell others — our own assignment or approval, a block
        // approved — is fsynced before it leaves (docs/durability.md).
        if announces(&out.actions) {
            self.commit_with(true)?;
        }
        let tell = self.tell_approved;
        self.dispatch(out.actions, tell)
    }

    /// Carry out voting's actions (after their writes); `tell_approved`:
    /// tell distribution each candidate approved (`useful-first`, unless
    /// it was told already).
    fn dispatch(&mut self, actions: Vec<Action>, tell_approved: bool) -> Result<(), String> {
        dispatch(
            actions,
            &mut Carry {
                w: self,
                tell_approved,
            },
        )
    }

    /// After a restore: tell distribution every stored block and re-send
    /// our own assignments and approvals (nothing for a fresh store).
    pub(crate) fn activate(&mut self) -> Result<(), String> {
        let actions = self.machine.activation();
        if actions.is_empty() {
            return Ok(());
        }
        let now = self.clock.now();
        self.apply(
            now,
            Output {
                actions,
                ..Output::default()
            },
        )
    }

    fn note_durability(&self) {
        let c = self.store.durability_counts();
        self.counters
            .set_database(c.commits, c.fsyncs, self.db_nanos);
    }

    fn ticks_since_slot(&self, block: &Hash, tick: Tick) -> u64 {
        self.slot_starts
            .get(block)
            .map_or(0, |start| tick.saturating_sub(*start))
    }

    fn wakeup_due(&self, now: Tick) -> bool {
        self.machine.next_wakeup().is_some_and(|t| t <= now)
    }

    /// Handle one message; `Ok(true)` means stop.
    fn handle_at(&mut self, now: Tick, msg: VoteMsg, stats: &WorkerStats) -> Result<bool, String> {
        self.commit_if_due(now)?;
        let out = match msg {
            VoteMsg::Block(b) => self.machine.import_block(now, b),
            VoteMsg::Assignment(a) => self.machine.import_assignment(now, a),
            VoteMsg::Approval(a) => self.machine.import_approval(now, a),
            VoteMsg::CheckAssignment { check, reply } => {
                let started = Instant::now();
                let verdict = check.check();
                self.counters.checked_for_distribution(started.elapsed());
                stats.add_verifications(1);
                let block = check.assignment.cert.block_hash;
                let out = match verdict {
                    // Classic layout before polkadot-sdk#4928: a
                    // too-far-in-the-future assignment is not imported
                    // (distribution then charges its sender).
                    Ok(tranche) if self.machine.is_too_far_in_future(now, &block, tranche) => {
                        Output::default()
                    }
                    Ok(tranche) => self
                        .machine
                        .import_assignment(now, checked_assignment(&check.assignment, tranche)),
                    Err(_) => Output::default(),
                };
                // Distribution waits for this answer; it may have stopped.
                self.reply_then_apply(now, out, move || {
                    let _ = reply.send(verdict);
                })?;
                return Ok(false);
            }
            VoteMsg::CheckApproval { check, reply } => {
                let started = Instant::now();
                let verdict = check.check();
                self.counters.checked_for_distribution(started.elapsed());
                stats.add_verifications(1);
                let out = match verdict {
                    Ok(()) => self
                        .machine
                        .import_approval(now, checked_approval(&check.vote)),
                    Err(_) => Output::default(),
                };
                self.reply_then_apply(now, out, move || {
                    let _ = reply.send(verdict);
                })?;
                return Ok(false);
            }
            VoteMsg::Finalized { hash, number } => self.machine.finalize(now, hash, number),
            VoteMsg::Tick(t) => {
                if self.wakeup_due(t) {
                    self.counters.wakeup();
                }
                self.machine.tick(t)
            }
            VoteMsg::Control(WorkerControl::Stop) => return Ok(true),
            VoteMsg::Control(WorkerControl::Fault) => {
                panic!("fault injected into the voting worker")
            }
        };
        self.apply(now, out)?;
        Ok(false)
    }

    /// Classic: answer distribution's check as soon as the message is
    /// imported, then write and carry out what the import caused, as
    /// upstream's approval-voting did before polkadot-sdk#4928
    /// (`polkadot/node/core/approval-voting/src/lib.rs`,
    /// `CheckAndImportAssignment`: the check's outcome is sent before the
    /// actions are handled and written). Two things keep today's order:
    /// `useful-first`'s `CandidateApproved` goes to distribution before the
    /// answer (so it is on distribution's priority input when it takes its
    /// next message), and an import that makes us announce something — our
    /// own assignment or approval, a block approved — is written, fsynced
    /// and sent before the answer, as every announcement is.
    fn reply_then_apply(
        &mut self,
        now: Tick,
        out: Output,
        reply: impl FnOnce(),
    ) -> Result<(), String> {
        if announces(&out.actions) {
            self.apply(now, out)?;
            reply();
            return Ok(());
        }
        if self.tell_approved {
            for a in &out.actions {
                if let Action::CandidateApproved {
                    block,
                    candidate_index,
                    ..
                } = a
                {
                    self.dist
                        .candidate_approved(*block, *candidate_index)
                        .map_err(|e| e.to_string())?;
                }
            }
        }
        reply();
        self.write(now, out.writes)?;
        self.dispatch(out.actions, false)
    }
}

/// The voting worker carrying out voting's actions: to distribution, to
/// the node's user, into the counters.
struct Carry<'a> {
    w: &'a mut VotingWorker,
    /// `useful-first`: tell distribution each candidate approved.
    tell_approved: bool,
}

impl Effects for Carry<'_> {
    type Error = String;

    fn new_block(&mut self, m: Block) -> Result<(), String> {
        let w = &mut *self.w;
        w.counters
            .candidates_imported_with_block(m.candidates.len());
        w.slot_starts.insert(
            m.hash,
            tranche_primitives::time::slot_start_tick(m.slot, w.ticks_per_slot),
        );
        let sessions: Vec<_> = w.machine.session(m.session).into_iter().collect();
        let blocks = vec![m];
        w.dist
            .new_blocks(|| DistMsg::NewBlocks {
                blocks: blocks.clone(),
                sessions: sessions.clone(),
            })
            .map_err(|e| e.to_string())
    }

    fn distribute_assignment(
        &mut self,
        cert: IndirectAssignmentCert,
        claimed: CandidateBitfield,
    ) -> Result<(), String> {
        self.w
            .dist
            .ours(
                cert.validator,
                DistMsg::DistributeAssignment { cert, claimed },
            )
            .map_err(|e| e.to_string())
    }

    fn distribute_approval(&mut self, vote: IndirectSignedApprovalVote) -> Result<(), String> {
        self.w
            .dist
            .ours(vote.validator, DistMsg::DistributeApproval(vote))
            .map_err(|e| e.to_string())
    }

    fn candidate_approved(&mut self, c: CandidateApproved) -> Result<(), String> {
        if self.tell_approved {
            self.w
                .dist
                .candidate_approved(c.block, c.candidate_index)
                .map_err(|e| e.to_string())?;
        }
        let ticks = self.w.ticks_since_slot(&c.block, c.tick);
        self.w
            .counters
            .candidate_approved(ticks, c.one_third, c.tolerated_no_shows);
        Ok(())
    }

    fn block_approved(
        &mut self,
        block: Hash,
        number: BlockNumber,
        tick: Tick,
    ) -> Result<(), String> {
        self.w
            .counters
            .block_approved(self.w.ticks_since_slot(&block, tick));
        let _ = self.w.events.send(NodeEvent::BlockApproved {
            hash: block,
            number,
            tick,
        });
        Ok(())
    }

    fn no_show_observed(&mut self, _: Hash, validators: &[ValidatorIndex]) -> Result<(), String> {
        self.w.counters.no_shows_observed(validators.len());
        Ok(())
    }

    fn block_pruned(&mut self, block: Hash, _: BlockNumber) -> Result<(), String> {
        self.w.slot_starts.remove(&block);
        Ok(())
    }
}

impl Worker for VotingWorker {
    type Msg = VoteMsg;

    /// Real clock: due wakeups run before the next message, and the wait
    /// for it lasts until the next wakeup.
    fn due(&mut self) -> Result<Option<Instant>, String> {
        if self.clock.is_virtual() {
            return Ok(None);
        }
        let now = self.clock.now();
        self.commit_if_due(now)?;
        if self.wakeup_due(now) {
            // One due timer per turn of the worker loop, so that messages
            // waiting meanwhile are taken between them.
            self.counters.wakeup();
            let (out, more) = self.machine.tick_one(now);
            self.apply(now, out)?;
            if more {
                return Ok(Some(Instant::now()));
            }
        }
        // Wake for the next wakeup, or for the group commit of what waits
        // once the next tick begins.
        let commit_at = self.uncommitted_since.map(|t| t.max(now) + 1);
        let next = match (self.machine.next_wakeup(), commit_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Ok(next.and_then(|t| self.clock.instant_of(t)))
    }

    fn handle(&mut self, msg: VoteMsg, stats: &WorkerStats) -> Result<bool, String> {
        let now = self.clock.now();
        let stop = self.handle_at(now, msg, stats)?;
        // Virtual clock: wakeups that the message made due at the current
        // tick (a block's tranche 0, a check that takes no time, a
        // signature that may no longer wait) run before the message counts
        // as handled, so the driver's wait for idle covers them. Upstream's
        // wakeups are futures on its clock that resolve at once when their
        // tick has come (`polkadot/node/core/approval-voting/src/lib.rs`,
        // `Wakeups`), in the same tick; the real clock's `due` does this
        // between messages.
        if !stop && self.clock.is_virtual() && self.wakeup_due(now) {
            self.counters.wakeup();
            let out = self.machine.tick(now);
            self.apply(now, out)?;
        }
        Ok(stop)
    }

    /// The store is flushed before the worker stops — unless the node is
    /// crashing on purpose: then it is abandoned as a killed process leaves
    /// it.
    fn finish(mut self) -> Result<(), String> {
        if self.crashing.load(std::sync::atomic::Ordering::Acquire) {
            self.store.abandon();
            return Ok(());
        }
        self.commit_with(true)
    }
}

/// A store's failure as one line naming the store, where it is, and the
/// cause (the store's own errors name them already).
pub(crate) fn store_failure(store: &dyn Store, e: &tranche_voting::StoreError) -> String {
    use tranche_voting::StoreError::*;
    match e {
        Open { .. } | Backend { .. } | Injected { .. } => e.to_string(),
        Corrupt(_) => format!("{}: {e}", store.describe()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::{channel, Rx, Unfinished};
    use std::sync::Mutex;
    use tranche_voting::{Snapshot, StoreError, WriteBatch, WriteOp};

    /// A store that logs what is done to it, in order, with the replies.
    struct LoggingStore(Arc<Mutex<Vec<&'static str>>>);

    impl Store for LoggingStore {
        fn write(&mut self, _: WriteBatch) -> Result<(), StoreError> {
            self.0.lock().unwrap().push("write");
            Ok(())
        }
        fn commit(&mut self) -> Result<(), StoreError> {
            self.0.lock().unwrap().push("commit");
            Ok(())
        }
        fn flush(&mut self) -> Result<(), StoreError> {
            self.0.lock().unwrap().push("fsync");
            Ok(())
        }
        fn load(&mut self) -> Result<Snapshot, StoreError> {
            Ok(Snapshot::default())
        }
    }

    fn worker(log: &Arc<Mutex<Vec<&'static str>>>) -> (VotingWorker, Rx<DistMsg>) {
        let unfinished = Unfinished::new();
        let (dist, dist_rx) = channel::<DistMsg>("dist-prio", None, &unfinished);
        let (events, _) = crossbeam_channel::unbounded();
        let w = VotingWorker {
            machine: ApprovalVoting::new(tranche_voting::Config::default(), None),
            store: Box::new(LoggingStore(log.clone())),
            clock: Clock::virtual_at(10),
            dist: DistLinks::Direct(vec![dist]),
            events,
            counters: Arc::new(ProtocolCounters::default()),
            ticks_per_slot: 12,
            slot_starts: Map::default(),
            crashing: Default::default(),
            tell_approved: true,
            uncommitted_since: None,
            db_nanos: 0,
        };
        (w, dist_rx)
    }

    fn output(actions: Vec<Action>) -> Output {
        Output {
            actions,
            writes: WriteBatch {
                ops: vec![WriteOp::PutFinalized(None, None)],
            },
            ..Output::default()
        }
    }

    fn candidate_approved() -> Action {
        Action::CandidateApproved {
            block: Hash([1; 32]),
            candidate_index: 2,
            candidate: tranche_primitives::CandidateHash(Hash([2; 32])),
            tick: 10,
            tranche: 0,
            one_third: false,
            tolerated_no_shows: 0,
            required: None,
        }
    }

    /// Classic: the verdict goes back before the import's writes, and
    /// useful-first's `CandidateApproved` is on distribution's priority
    /// input before the verdict (so distribution knows it before it takes
    /// its next message, as before); nothing is committed per message.
    #[test]
    fn the_verdict_goes_back_before_the_writes_and_after_the_approval_news() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let (mut w, dist) = worker(&log);
        let l = log.clone();
        let d = &dist;
        w.reply_then_apply(10, output(vec![candidate_approved()]), move || {
            assert!(
                matches!(
                    d.try_recv(),
                    Some(DistMsg::CandidateApproved { candidate: 2, .. })
                ),
                "distribution hears of the approval before the verdict"
            );
            l.lock().unwrap().push("reply");
        })
        .unwrap();
        assert_eq!(*log.lock().unwrap(), ["reply", "write"]);
        assert!(dist.try_recv().is_none(), "the approval news is sent once");
        // The group commit: once a later tick has begun, not per message.
        w.commit_if_due(10).unwrap();
        assert_eq!(*log.lock().unwrap(), ["reply", "write"]);
        w.commit_if_due(11).unwrap();
        assert_eq!(*log.lock().unwrap(), ["reply", "write", "commit"]);
    }

    /// An import that makes us announce something is written and fsynced
    /// before the announcement leaves and before the verdict goes back.
    #[test]
    fn an_announcing_import_is_fsynced_before_the_verdict() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let (mut w, _dist) = worker(&log);
        let approved = Action::BlockApproved {
            block: Hash([1; 32]),
            number: 1,
            tick: 10,
        };
        let l = log.clone();
        w.reply_then_apply(10, output(vec![approved]), move || {
            l.lock().unwrap().push("reply")
        })
        .unwrap();
        assert_eq!(*log.lock().unwrap(), ["write", "fsync", "reply"]);
    }
}
