//! The voting worker: owns the approval-voting state machine and its store
//! (the only database writer), applies each input's writes, hands new
//! blocks and our own assignments and approvals to distribution, and
//! reports approved blocks. In the classic layout it also checks every
//! certificate and signature before importing it.

use crate::channel::{Closed, Tx};
use crate::clock::Clock;
use crate::messages::{Control, DistMsg, NodeEvent, VoteMsg};
use crate::metrics::ProtocolCounters;
use crate::parallel::RouterMsg;
use crate::worker::{Worker, WorkerStats};
use crossbeam_channel::Sender;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;
use tranche_primitives::{Hash, Tick, ValidatorIndex};
use tranche_voting::{Action, ApprovalVoting, CheckedApproval, CheckedAssignment, Output, Store};

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
    pub slot_starts: HashMap<Hash, Tick>,
    /// Set before a simulated crash (`Node::crash`).
    pub crashing: Arc<std::sync::atomic::AtomicBool>,
    /// `useful-first`: tell distribution each candidate approved.
    pub tell_approved: bool,
}

impl VotingWorker {
    fn apply(&mut self, out: Output) -> Result<(), String> {
        if !out.writes.is_empty() {
            self.store
                .write(out.writes)
                .map_err(|e| format!("database write failed: {e}"))?;
        }
        // What we tell others — our own assignment or approval, a block
        // approved — is fsynced before it leaves (docs/durability.md).
        let announces = out.actions.iter().any(|a| {
            matches!(
                a,
                Action::DistributeAssignment { .. }
                    | Action::DistributeApproval(_)
                    | Action::BlockApproved { .. }
            )
        });
        if announces {
            self.store
                .flush()
                .map_err(|e| format!("database flush failed: {e}"))?;
            self.note_durability();
        }
        for action in out.actions {
            match action {
                Action::NewBlock(m) => {
                    self.counters
                        .candidates_imported_with_block(m.candidates.len());
                    self.slot_starts.insert(
                        m.hash,
                        tranche_primitives::time::slot_start_tick(m.slot, self.ticks_per_slot),
                    );
                    let sessions: Vec<_> = self.machine.session(m.session).into_iter().collect();
                    let blocks = vec![m];
                    self.dist
                        .new_blocks(|| DistMsg::NewBlocks {
                            blocks: blocks.clone(),
                            sessions: sessions.clone(),
                        })
                        .map_err(|e| e.to_string())?;
                }
                Action::DistributeAssignment { cert, claimed } => {
                    self.dist
                        .ours(
                            cert.validator,
                            DistMsg::DistributeAssignment { cert, claimed },
                        )
                        .map_err(|e| e.to_string())?;
                }
                Action::DistributeApproval(vote) => {
                    self.dist
                        .ours(vote.validator, DistMsg::DistributeApproval(vote))
                        .map_err(|e| e.to_string())?;
                }
                Action::BlockApproved {
                    block,
                    number,
                    tick,
                } => {
                    self.counters
                        .block_approved(self.ticks_since_slot(&block, tick));
                    let _ = self.events.send(NodeEvent::BlockApproved {
                        hash: block,
                        number,
                        tick,
                    });
                }
                Action::CandidateApproved {
                    block,
                    candidate_index,
                    tick,
                    one_third,
                    tolerated_no_shows,
                    ..
                } => {
                    if self.tell_approved {
                        self.dist
                            .candidate_approved(block, candidate_index)
                            .map_err(|e| e.to_string())?;
                    }
                    let ticks = self.ticks_since_slot(&block, tick);
                    self.counters
                        .candidate_approved(ticks, one_third, tolerated_no_shows);
                }
                Action::NoShowObserved { validators, .. } => {
                    self.counters.no_shows_observed(validators.len());
                }
                Action::BlockPruned { block, .. } => {
                    self.slot_starts.remove(&block);
                }
                Action::AssignmentImported { .. } | Action::ApprovalImported { .. } => {}
            }
        }
        Ok(())
    }

    /// After a restore: tell distribution every stored block and re-send
    /// our own assignments and approvals (nothing for a fresh store).
    pub(crate) fn activate(&mut self) -> Result<(), String> {
        let actions = self.machine.activation();
        if actions.is_empty() {
            return Ok(());
        }
        self.apply(Output {
            actions,
            ..Output::default()
        })
    }

    fn note_durability(&self) {
        let c = self.store.durability_counts();
        self.counters.set_database(c.commits, c.fsyncs);
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
        let out = match msg {
            VoteMsg::Block(b) => self.machine.import_block(now, b),
            VoteMsg::Assignment(a) => self.machine.import_assignment(now, a),
            VoteMsg::Approval(a) => self.machine.import_approval(now, a),
            VoteMsg::CheckAssignment { check, reply } => {
                let verdict = check.check();
                stats.add_verifications(1);
                let block = check.assignment.0.block_hash;
                let out = match verdict {
                    // Classic layout before polkadot-sdk#4928: a
                    // too-far-in-the-future assignment is not imported
                    // (distribution then charges its sender).
                    Ok(tranche) if self.machine.is_too_far_in_future(now, &block, tranche) => {
                        Output::default()
                    }
                    Ok(tranche) => self.machine.import_assignment(
                        now,
                        CheckedAssignment {
                            block_hash: check.assignment.0.block_hash,
                            validator: check.assignment.0.validator,
                            claimed: check.assignment.1.clone(),
                            tranche,
                            cert: Some(check.assignment.0.cert.clone()),
                        },
                    ),
                    Err(_) => Output::default(),
                };
                self.apply(out)?;
                // Distribution waits for this answer; it may have stopped.
                let _ = reply.send(verdict);
                return Ok(false);
            }
            VoteMsg::CheckApproval { check, reply } => {
                let verdict = check.check();
                stats.add_verifications(1);
                let out = match verdict {
                    Ok(()) => self.machine.import_approval(
                        now,
                        CheckedApproval {
                            block_hash: check.vote.block_hash,
                            validator: check.vote.validator,
                            candidates: check.vote.candidate_indices.clone(),
                            signature: check.vote.signature,
                        },
                    ),
                    Err(_) => Output::default(),
                };
                self.apply(out)?;
                let _ = reply.send(verdict);
                return Ok(false);
            }
            VoteMsg::Finalized { hash, number } => self.machine.finalize(now, hash, number),
            VoteMsg::Tick(t) => {
                if self.wakeup_due(t) {
                    self.counters.wakeup();
                }
                self.machine.tick(t)
            }
            VoteMsg::Control(Control::Stop) => return Ok(true),
            VoteMsg::Control(Control::Fault) => panic!("fault injected into the voting worker"),
        };
        self.apply(out)?;
        Ok(false)
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
        if self.wakeup_due(now) {
            // One due timer per turn of the worker loop, so that messages
            // waiting meanwhile are taken between them.
            self.counters.wakeup();
            let (out, more) = self.machine.tick_one(now);
            self.apply(out)?;
            if more {
                return Ok(Some(Instant::now()));
            }
        }
        Ok(self
            .machine
            .next_wakeup()
            .and_then(|t| self.clock.instant_of(t)))
    }

    fn handle(&mut self, msg: VoteMsg, stats: &WorkerStats) -> Result<bool, String> {
        let now = self.clock.now();
        self.handle_at(now, msg, stats)
    }

    /// Group commit: every import of the batch just drained survives a
    /// crash of the process once the worker waits again.
    fn idle(&mut self, _stats: &WorkerStats) -> Result<(), String> {
        self.store
            .commit()
            .map_err(|e| format!("database commit failed: {e}"))?;
        self.note_durability();
        Ok(())
    }

    /// The store is flushed before the worker stops — unless the node is
    /// crashing on purpose: then it is abandoned as a killed process leaves
    /// it.
    fn finish(mut self) -> Result<(), String> {
        if self.crashing.load(std::sync::atomic::Ordering::Acquire) {
            self.store.abandon();
            return Ok(());
        }
        self.store
            .flush()
            .map_err(|e| format!("database flush failed: {e}"))?;
        self.note_durability();
        Ok(())
    }
}
