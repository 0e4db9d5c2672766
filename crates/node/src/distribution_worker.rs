//! A distribution worker: owns one approval-distribution state machine,
//! settles what it asks for through distribution's one loop
//! (`State::settle`) with the node's verifier (`crate::checks`: checks run
//! here in the parallel layout, approval signatures of a drained batch
//! verified together, or delegated to voting in the classic layout),
//! batches its sends into notifications, hands checked messages to voting,
//! and with
//! `--schedule useful-first` takes its bounded input in the order of
//! `crate::backlog`.

use crate::ahead::Ahead;
use crate::backlog::{Backlog, Usefulness};
use crate::channel::{Rx, Tx};
use crate::checks::{CheckMode, NodeVerifier, SignatureBatch};
use crate::clock::Clock;
use crate::messages::{
    decode_peer_bytes, decoded, report_malformed, DistMsg, NetworkEvent, NodeEvent, VoteMsg,
    WorkerControl,
};
use crate::reputation::Reputations;
use crate::worker::{Worker, WorkerStats};
use crossbeam_channel::Sender;
use parity_scale_codec::Encode;
use std::sync::Arc;
use tranche_distribution::reputation::Rep;
use tranche_distribution::{
    batch_notifications, Action, GroupSize, Import, Outgoing, PeerId, Settled, State,
};
use tranche_metrics::{ProtocolCounters, ScheduleStats};
use tranche_primitives::{Tick, ValidationProtocol};
use tranche_validator::{checked_approval, checked_assignment};

pub(crate) struct DistributionWorker {
    /// The node is stopping: a verdict asked of voting may never come.
    pub stopping: Arc<std::sync::atomic::AtomicBool>,
    pub state: State,
    pub clock: Clock,
    pub mode: CheckMode,
    /// Bounded input of the voting worker.
    pub to_voting: Tx<VoteMsg>,
    pub events: Sender<NodeEvent>,
    pub counters: Arc<ProtocolCounters>,
    /// What the state machine asked for, carried out by `settle`.
    pub actions: Vec<Action>,
    /// Reputation changes summed per peer until the next report.
    pub reputations: Reputations,
    /// Parallel with `--signatures batched`: approval checks waiting to
    /// be verified as one batch.
    pub batch: Option<SignatureBatch>,
    /// Messages handled so far (numbers the deferred checks).
    pub handled: u64,
    /// What settled, carried out by `carry_out` (reused).
    pub settled: Settled,
    /// `useful-first`: the local queue and what it judges by.
    pub backlog: Option<Backlog>,
    pub usefulness: Usefulness,
    /// `useful-first`: waits from receipt to handling, [ahead, rest], in
    /// µs, until handed to `schedule_stats` when the worker goes idle.
    pub waits: [Vec<u32>; 2],
    pub backlog_peak: u64,
    pub schedule_stats: Arc<ScheduleStats>,
    /// `fifo` in the parallel layout: certificates of a drained batch
    /// checked back to back (`None`: each when phase 1 asks).
    pub ahead: Option<Ahead>,
}

impl Worker for DistributionWorker {
    type Msg = DistMsg;

    fn handle(&mut self, msg: DistMsg, stats: &WorkerStats) -> Result<bool, String> {
        let now = self.clock.now();
        self.handled += 1;
        // One action buffer, reused from message to message.
        let mut actions = std::mem::take(&mut self.actions);
        let stop = self.handle_at(now, msg, &mut actions, stats);
        self.actions = actions;
        stop
    }

    /// The drained batch's deferred approval checks are verified now.
    fn idle(&mut self, stats: &WorkerStats) -> Result<(), String> {
        if self.batch.as_ref().is_some_and(|b| !b.is_empty()) {
            let now = self.clock.now();
            let mut work = std::mem::take(&mut self.actions);
            work.clear();
            let r = self.settle(now, &mut work, stats, true);
            self.actions = work;
            r?;
        }
        if self.backlog.is_some() {
            let peak = std::mem::take(&mut self.backlog_peak);
            self.schedule_stats.add(&mut self.waits, peak);
        }
        Ok(())
    }

    /// `useful-first`: drain the bounded input into the backlog, then take
    /// from it in its order.
    fn take_normal(&mut self, normal: &Rx<DistMsg>) -> Option<DistMsg> {
        let Some(backlog) = self.backlog.as_mut() else {
            return match self.ahead.as_mut() {
                Some(ahead) => ahead.take(normal, &self.state),
                None => normal.try_recv(),
            };
        };
        let now = self.clock.now();
        while !backlog.is_full() {
            match normal.try_recv_stamped() {
                Some((m, at)) => {
                    let tick = self.clock.tick_at(at);
                    backlog.push(decoded(m), tick, at, &self.usefulness)
                }
                None => break,
            }
        }
        self.backlog_peak = self.backlog_peak.max(backlog.len() as u64);
        let w = backlog.take(now, &self.usefulness)?;
        let waited = w.arrived_at.elapsed().as_micros().min(u128::from(u32::MAX)) as u32;
        self.waits[usize::from(!w.useful)].push(waited);
        Some(w.msg)
    }

    /// What is still summed is reported before the worker stops.
    fn finish(mut self) -> Result<(), String> {
        if let Some(ahead) = &self.ahead {
            self.counters.checked_ahead(ahead.taken, ahead.unused);
        }
        self.reputations.flush(&self.events);
        Ok(())
    }
}

impl DistributionWorker {
    fn handle_at(
        &mut self,
        now: Tick,
        msg: DistMsg,
        out: &mut Vec<Action>,
        stats: &WorkerStats,
    ) -> Result<bool, String> {
        out.clear();
        match msg {
            DistMsg::PeerBytes { peer, bytes } => {
                if let Some(m) = decode_peer_bytes(peer, &bytes, &self.events) {
                    self.state.handle_peer_message(now, peer, m, out)
                }
            }
            DistMsg::PeerItem {
                peer,
                bytes,
                kind,
                range,
            } => match tranche_primitives::wire_skim::decode_item(kind, &bytes[range]) {
                Ok(m) => self.state.handle_peer_message(now, peer, m, out),
                Err(e) => report_malformed(peer, e.to_string(), &self.events),
            },
            DistMsg::Peer { peer, message } => {
                self.state.handle_peer_message(now, peer, message, out)
            }
            DistMsg::Network(NetworkEvent::PeerConnected { peer, authority }) => {
                // Peer ids are validator indices here; a too-large id is a
                // caller error worth stopping for.
                self.state
                    .peer_connected(peer, authority)
                    .map_err(|e| e.to_string())?;
            }
            DistMsg::Network(NetworkEvent::PeerDisconnected(peer)) => {
                self.state.peer_disconnected(peer)
            }
            DistMsg::Network(NetworkEvent::PeerView { peer, view }) => {
                self.state.peer_view_change(now, peer, view, out)
            }
            DistMsg::Network(NetworkEvent::Topology {
                session,
                grid,
                local,
            }) => self.state.new_gossip_topology(session, grid, local, out),
            DistMsg::NewBlocks { blocks, sessions } => {
                for s in sessions {
                    if !self.state.has_session(s.info.session_index) {
                        self.state.add_session(s);
                    }
                }
                if self.backlog.is_some() {
                    for b in &blocks {
                        self.usefulness.block(b.hash, b.slot);
                    }
                }
                self.state.new_blocks(now, blocks, out)
            }
            DistMsg::CandidateApproved { block, candidate } => {
                self.usefulness.approved(block, candidate)
            }
            DistMsg::OurView(heads) => self.state.our_view_change(&heads),
            DistMsg::DistributeAssignment { cert, claimed } => {
                // Our own: counted as imported, as upstream does.
                self.counters.assignment_imported(&cert.cert.kind);
                self.state.distribute_assignment(cert, claimed, out)
            }
            DistMsg::DistributeApproval(vote) => {
                self.counters.approval_imported();
                self.state.distribute_approval(vote, out)
            }
            DistMsg::Finalized(number) => {
                self.state.block_finalized(number, out);
                let state = &self.state;
                self.usefulness
                    .forget(|h| state.block_knowledge(h).is_some());
            }
            DistMsg::Network(NetworkEvent::PeerAuthority { peer, authority }) => {
                self.state.peer_authority_updated(peer, authority, out)
            }
            DistMsg::GetApprovalSignatures { indices, reply } => {
                // The asker may have given up waiting.
                let _ = reply.send(self.state.approval_signatures(&indices));
            }
            DistMsg::Control(WorkerControl::Stop) => return Ok(true),
            DistMsg::Control(WorkerControl::Fault) => {
                panic!("fault injected into a distribution worker")
            }
        }
        self.settle(now, out, stats, false)?;
        Ok(false)
    }

    /// Settle what the state machine asked for through this worker's
    /// verifier — approval checks deferred into a batch are verified, and
    /// their verdicts fed back by the settle loop, once it is full or
    /// `flush` says the drained batch is over — and carry it out, group by
    /// group. What a message causes is sent as one group of
    /// notifications, batched or not (so how messages are batched, which
    /// depends on thread timing, never changes what goes out).
    fn settle(
        &mut self,
        now: Tick,
        work: &mut Vec<Action>,
        stats: &WorkerStats,
        flush: bool,
    ) -> Result<(), String> {
        let mut settled = std::mem::take(&mut self.settled);
        let mut verifier = NodeVerifier {
            mode: self.mode,
            ahead: self.ahead.as_mut(),
            batch: self.batch.as_mut(),
            message: self.handled,
            flush,
            to_voting: &self.to_voting,
            stopping: &self.stopping,
            counters: &self.counters,
            stats,
        };
        let result = self
            .state
            .settle(now, work, &mut verifier, &mut settled)
            .and_then(|()| self.carry_out_groups(&mut settled));
        settled.clear();
        self.settled = settled;
        result?;
        self.reputations.maybe_flush(now, &self.events);
        // Only once what the batch caused is out may the node look idle.
        if let Some(batch) = self.batch.as_mut() {
            batch.release_if_empty();
        }
        Ok(())
    }

    /// Carry out what settled, group by group: a group's imports and
    /// reputation changes, then its sends as one group of notifications.
    fn carry_out_groups(&mut self, settled: &mut Settled) -> Result<(), String> {
        let groups: Vec<GroupSize> = settled.groups().collect();
        let mut sends = settled.sends.drain(..);
        let mut imports = settled.imports.drain(..);
        let mut reputations = settled.reputations.drain(..);
        for group in groups {
            self.carry_out(
                imports.by_ref().take(group.imports),
                reputations.by_ref().take(group.reputations),
            )?;
            self.emit(sends.by_ref().take(group.sends));
        }
        Ok(())
    }

    /// One group of sends, as notifications by upstream's limits.
    fn emit(&self, sends: impl Iterator<Item = (PeerId, Outgoing)>) {
        for (peer, message) in batch_notifications(sends) {
            let items = message.len();
            let bytes: Arc<[u8]> = ValidationProtocol::ApprovalDistribution(message)
                .encode()
                .into();
            let _ = self.events.send(NodeEvent::Send { peer, bytes, items });
        }
    }

    /// Imports for voting and reputation changes, as they settled.
    fn carry_out(
        &mut self,
        imports: impl Iterator<Item = Import>,
        reputations: impl Iterator<Item = (PeerId, Rep)>,
    ) -> Result<(), String> {
        for import in imports {
            match import {
                Import::Assignment {
                    assignment,
                    tranche,
                } => {
                    self.counters
                        .assignment_imported(&assignment.cert.cert.kind);
                    if let Some(backlog) = self.backlog.as_mut() {
                        let (block, v) = (assignment.cert.block_hash, assignment.cert.validator);
                        self.usefulness.assignment_accepted(
                            block,
                            v,
                            assignment.claimed.iter_ones(),
                            tranche,
                        );
                        backlog.assignment_accepted(block, v, &self.usefulness);
                    }
                    // Classic: voting imported it when it checked it.
                    if matches!(self.mode, CheckMode::Inline) {
                        self.to_voting
                            .send(VoteMsg::Assignment(checked_assignment(
                                &assignment,
                                tranche,
                            )))
                            .map_err(|e| e.to_string())?;
                    }
                }
                Import::Approval { vote } => {
                    self.counters.approval_imported();
                    if matches!(self.mode, CheckMode::Inline) {
                        self.to_voting
                            .send(VoteMsg::Approval(checked_approval(&vote)))
                            .map_err(|e| e.to_string())?;
                    }
                }
            }
        }
        for (peer, rep) in reputations {
            self.counters.reputation_change(&rep);
            self.reputations.add(peer, rep, &self.events);
        }
        Ok(())
    }
}
