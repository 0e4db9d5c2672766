//! A distribution worker: owns one approval-distribution state machine,
//! runs (parallel) or delegates (classic) the crypto checks it asks for,
//! batches its sends into notifications and hands checked messages to
//! voting.

use crate::channel::Tx;
use crate::clock::Clock;
use crate::messages::{
    checked_approval, checked_assignment, decode_peer_bytes, Control, DistMsg, NetworkEvent,
    NodeEvent, VoteMsg,
};
use crate::metrics::ProtocolCounters;
use crate::reputation::Reputations;
use crate::worker::{Worker, WorkerStats};
use crossbeam_channel::Sender;
use parity_scale_codec::Encode;
use std::sync::Arc;
use tranche_distribution::{batch_notifications, Action, Outgoing, PeerId, State};
use tranche_primitives::{Tick, ValidationProtocol};

/// Where crypto checks run.
#[derive(Clone, Copy)]
pub(crate) enum CheckMode {
    /// Here, on this thread (parallel layout); checked messages are then
    /// handed to voting.
    Inline,
    /// On the voting thread, which imports what passes; this worker waits
    /// for each verdict (classic layout).
    ViaVoting,
}

pub(crate) struct DistributionWorker {
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
}

impl Worker for DistributionWorker {
    type Msg = DistMsg;

    fn handle(&mut self, msg: DistMsg, stats: &WorkerStats) -> Result<bool, String> {
        let now = self.clock.now();
        // One action buffer, reused from message to message.
        let mut actions = std::mem::take(&mut self.actions);
        let stop = self.handle_at(now, msg, &mut actions, stats);
        self.actions = actions;
        stop
    }

    /// What is still summed is reported before the worker stops.
    fn finish(mut self) -> Result<(), String> {
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
                self.state.new_blocks(now, blocks, out)
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
            DistMsg::Finalized(number) => self.state.block_finalized(number, out),
            DistMsg::Network(NetworkEvent::PeerAuthority { peer, authority }) => {
                self.state.peer_authority_updated(peer, authority, out)
            }
            DistMsg::GetApprovalSignatures { indices, reply } => {
                // The asker may have given up waiting.
                let _ = reply.send(self.state.approval_signatures(&indices));
            }
            DistMsg::Control(Control::Stop) => return Ok(true),
            DistMsg::Control(Control::Fault) => panic!("fault injected into a distribution worker"),
        }
        self.settle(now, out, stats)?;
        Ok(false)
    }

    /// Classic layout: hand a check to the voting thread (which imports
    /// what passes) and wait for its verdict.
    fn ask_voting<V>(
        &self,
        make: impl FnOnce(crossbeam_channel::Sender<V>) -> VoteMsg,
    ) -> Result<V, String> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.to_voting.send(make(tx)).map_err(|e| e.to_string())?;
        rx.recv()
            .map_err(|_| "voting stopped before answering a check".to_owned())
    }

    /// Run the checks the state machine asked for until none are left, then
    /// carry out the remaining actions.
    fn settle(
        &mut self,
        now: Tick,
        work: &mut Vec<Action>,
        stats: &WorkerStats,
    ) -> Result<(), String> {
        let mut sends: Vec<(PeerId, Outgoing)> = Vec::new();
        while !work.is_empty() {
            let batch = std::mem::take(work);
            for action in batch {
                match action {
                    Action::CheckAssignment(check) => {
                        let token = check.token;
                        let verdict = match self.mode {
                            CheckMode::Inline => {
                                stats.add_verifications(1);
                                check.check()
                            }
                            CheckMode::ViaVoting => {
                                self.ask_voting(|reply| VoteMsg::CheckAssignment { check, reply })?
                            }
                        };
                        self.state.assignment_checked(now, token, verdict, work);
                    }
                    Action::CheckApproval(check) => {
                        let token = check.token;
                        let verdict = match self.mode {
                            CheckMode::Inline => {
                                stats.add_verifications(1);
                                check.check()
                            }
                            CheckMode::ViaVoting => {
                                self.ask_voting(|reply| VoteMsg::CheckApproval { check, reply })?
                            }
                        };
                        self.state.approval_checked(now, token, verdict, work);
                    }
                    Action::ImportAssignment {
                        assignment,
                        tranche,
                    } => {
                        self.counters.assignment_imported(&assignment.0.cert.kind);
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
                    Action::ImportApproval { vote } => {
                        self.counters.approval_imported();
                        if matches!(self.mode, CheckMode::Inline) {
                            self.to_voting
                                .send(VoteMsg::Approval(checked_approval(&vote)))
                                .map_err(|e| e.to_string())?;
                        }
                    }
                    Action::Send { peer, item } => sends.push((peer, item)),
                    Action::Reputation { peer, rep } => {
                        self.counters.reputation_change(&rep);
                        self.reputations.add(peer, rep, &self.events);
                    }
                }
            }
        }
        self.reputations.maybe_flush(now, &self.events);
        for (peer, message) in batch_notifications(sends) {
            let items = message.len();
            let bytes: Arc<[u8]> = ValidationProtocol::ApprovalDistribution(message)
                .encode()
                .into();
            let _ = self.events.send(NodeEvent::Send { peer, bytes, items });
        }
        Ok(())
    }
}
