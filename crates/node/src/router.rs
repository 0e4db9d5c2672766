//! The parallel layout's router (`approval-voting-parallel`): decodes each
//! peer notification, splits it by originating validator and hands each
//! part to distribution worker `validator mod N`, so a validator's
//! assignment and its later approvals always meet in the same worker.
//! Control events go to every worker on its high-priority channel; blocks
//! and ticks go to voting.

use crate::channel::Tx;
use crate::leaves::Leaves;
use crate::messages::{decode_peer_bytes, Control, DistMsg, NodeEvent, RouterMsg, VoteMsg};
use crate::worker::{Worker, WorkerStats};
use crossbeam_channel::Sender;
use tranche_distribution::PeerId;
use tranche_primitives::ApprovalDistributionMessage;

pub(crate) struct Router {
    /// Bounded inputs of the distribution workers.
    pub workers: Vec<Tx<DistMsg>>,
    /// Unbounded, high-priority inputs of the distribution workers.
    pub workers_prio: Vec<Tx<DistMsg>>,
    pub voting: Tx<VoteMsg>,
    pub voting_prio: Tx<VoteMsg>,
    pub events: Sender<NodeEvent>,
    pub leaves: Leaves,
}

fn err(e: impl ToString) -> String {
    e.to_string()
}

impl Router {
    fn worker_of(&self, v: u32) -> usize {
        v as usize % self.workers.len()
    }

    fn route_peer_message(
        &self,
        peer: PeerId,
        message: ApprovalDistributionMessage,
    ) -> Result<(), String> {
        let validators: Vec<u32> = match &message {
            ApprovalDistributionMessage::Assignments(items) => {
                items.iter().map(|(a, _)| a.validator.0).collect()
            }
            ApprovalDistributionMessage::Approvals(items) => {
                items.iter().map(|v| v.validator.0).collect()
            }
        };
        let Some(&first) = validators.first() else {
            // An empty message: let a worker judge it (it is the first
            // worker's to answer, as upstream hands it to one worker).
            return self.workers[0]
                .send(DistMsg::Peer { peer, message })
                .map_err(err);
        };
        if validators.iter().all(|v| *v == first) {
            return self.workers[self.worker_of(first)]
                .send(DistMsg::Peer { peer, message })
                .map_err(err);
        }
        match message {
            ApprovalDistributionMessage::Assignments(items) => {
                for item in items {
                    let w = self.worker_of(item.0.validator.0);
                    self.workers[w]
                        .send(DistMsg::Peer {
                            peer,
                            message: ApprovalDistributionMessage::Assignments(vec![item]),
                        })
                        .map_err(err)?;
                }
            }
            ApprovalDistributionMessage::Approvals(items) => {
                for item in items {
                    let w = self.worker_of(item.validator.0);
                    self.workers[w]
                        .send(DistMsg::Peer {
                            peer,
                            message: ApprovalDistributionMessage::Approvals(vec![item]),
                        })
                        .map_err(err)?;
                }
            }
        }
        Ok(())
    }

    fn to_all(&self, make: impl Fn() -> DistMsg) -> Result<(), String> {
        for w in &self.workers_prio {
            w.send(make()).map_err(err)?;
        }
        Ok(())
    }

    fn handle_msg(&mut self, msg: RouterMsg) -> Result<bool, String> {
        match msg {
            RouterMsg::PeerBytes { peer, bytes } => {
                if let Some(m) = decode_peer_bytes(peer, &bytes, &self.events) {
                    self.route_peer_message(peer, m)?
                }
            }
            RouterMsg::PeerConnected { peer, authority } => {
                self.to_all(|| DistMsg::PeerConnected { peer, authority })?
            }
            RouterMsg::PeerDisconnected(peer) => self.to_all(|| DistMsg::PeerDisconnected(peer))?,
            RouterMsg::PeerView { peer, view } => self.to_all(|| DistMsg::PeerView {
                peer,
                view: view.clone(),
            })?,
            RouterMsg::Topology {
                session,
                grid,
                local,
            } => self.to_all(|| DistMsg::Topology {
                session,
                grid: grid.clone(),
                local,
            })?,
            RouterMsg::Block(b) => {
                // Distribution learns our new view first, so peers' messages
                // for the block that overtake its import are held, not
                // dropped.
                let heads = self.leaves.add(b.hash, b.parent);
                self.to_all(|| DistMsg::OurView(heads.clone()))?;
                self.voting.send(VoteMsg::Block(b)).map_err(err)?
            }
            RouterMsg::Finalized { hash, number } => {
                self.to_all(|| DistMsg::Finalized(number))?;
                self.voting_prio
                    .send(VoteMsg::Finalized { hash, number })
                    .map_err(err)?;
            }
            RouterMsg::Tick(t) => self.voting_prio.send(VoteMsg::Tick(t)).map_err(err)?,
            RouterMsg::Control(Control::Stop) => return Ok(true),
            RouterMsg::Control(Control::Fault) => panic!("fault injected into the router"),
        }
        Ok(false)
    }
}

impl Worker for Router {
    type Msg = RouterMsg;

    fn handle(&mut self, msg: RouterMsg, _: &WorkerStats) -> Result<bool, String> {
        self.handle_msg(msg)
    }
}
