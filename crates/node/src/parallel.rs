//! The parallel layout, upstream's approval-voting-parallel
//! (`polkadot/node/core/approval-voting-parallel/src/lib.rs`): a router
//! (`approval-voting-parallel`) reads where each item of a peer
//! notification lies and whose it is (`tranche_primitives::wire_skim`; the
//! workers decode), splits it by originating validator and hands each part
//! to distribution worker
//! `validator mod N` (`approval-voting-parallel-{i}`), so a validator's
//! assignment and its later approvals always meet in the same worker; the
//! workers check crypto themselves and hand what passes to the voting
//! worker (`approval-voting-parallel-db`). Every other input goes through
//! the router too, which fans it out as [`crate::fanout`] says.

use crate::channel::{Closed, Tx};
use crate::checks::CheckMode;
use crate::fanout::{Fanout, PrioLinks};
use crate::layout::{NodeError, Running, INBOX_CAPACITY, WORKER_CHANNEL_CAPACITY};
use crate::messages::{report_malformed, DistMsg, Input, NodeEvent, RouterMsg, WorkerControl};
use crate::wiring::{Voting, Wiring, Workers};
use crate::worker::{Worker, WorkerStats};
use crossbeam_channel::Sender;
use std::sync::Arc;
use tranche_distribution::PeerId;
use tranche_primitives::wire_skim::skim_wire;

/// A running parallel layout: how the node reaches the router, and the
/// workers behind it for stopping them or failing one on purpose.
pub(crate) struct Parallel {
    /// Bounded input of the router (peers' bytes and blocks).
    router: Tx<RouterMsg>,
    router_prio: Tx<RouterMsg>,
    workers: PrioLinks,
}

impl Parallel {
    /// Start the voting worker, `workers` (at least one) distribution
    /// workers and the router, in that order.
    pub fn start(
        wiring: &mut Wiring,
        voting: Voting,
        workers: usize,
    ) -> Result<Parallel, NodeError> {
        let (router_tx, router_rx) =
            wiring.channel::<RouterMsg>("approval-voting-parallel", Some(INBOX_CAPACITY));
        let (router_prio_tx, router_prio_rx) =
            wiring.channel::<RouterMsg>("approval-voting-parallel-prio", None);
        let plan = Workers {
            voting: "approval-voting-parallel-db".to_owned(),
            distribution: (0..workers.max(1))
                .map(|i| format!("approval-voting-parallel-{i}"))
                .collect(),
            capacity: WORKER_CHANNEL_CAPACITY,
            mode: CheckMode::Inline,
            router: Some(router_prio_tx.clone()),
        };
        let (fanout, dist) = wiring.start_workers(voting, plan)?;
        let metrics = &mut wiring.metrics;
        metrics.channels.push(router_tx.meter().clone());
        metrics.channels.push(router_prio_tx.meter().clone());
        let stats = WorkerStats::new("approval-voting-parallel");
        metrics.workers.insert(0, stats.clone());
        let workers_prio = fanout.prio.clone();
        let router = Router {
            workers: dist,
            fanout,
            events: wiring.events.clone(),
        };
        wiring.spawn(stats, router, router_prio_rx, router_rx)?;
        Ok(Parallel {
            router: router_tx,
            router_prio: router_prio_tx,
            workers: workers_prio,
        })
    }
}

impl Running for Parallel {
    fn peer_bytes(&mut self, peer: PeerId, bytes: Arc<[u8]>) -> Result<(), Closed> {
        self.router.send(RouterMsg::PeerBytes { peer, bytes })
    }

    /// Every input but peers' bytes takes the router's high-priority
    /// input: a new block too, as upstream's `ActiveLeaves` is an overseer
    /// signal, taken before any message waiting in the router's inbox.
    fn send(&mut self, input: Input) -> Result<(), Closed> {
        self.router_prio.send(RouterMsg::Input(input))
    }

    fn inject_fault(&self, target: usize) -> Result<(), Closed> {
        self.workers.inject_fault(target)
    }

    /// The router first, then the workers behind it.
    fn stop(&self) {
        let _ = self
            .router_prio
            .send(RouterMsg::Control(WorkerControl::Stop));
        self.workers.stop();
    }
}

/// The router's thread.
struct Router {
    /// Bounded inputs of the distribution workers.
    workers: Vec<Tx<DistMsg>>,
    fanout: Fanout,
    events: Sender<NodeEvent>,
}

fn err(e: impl ToString) -> String {
    e.to_string()
}

impl Router {
    fn worker_of(&self, v: u32) -> usize {
        v as usize % self.workers.len()
    }

    /// Route a peer's notification by the validators of its items,
    /// reading only where each item lies (`wire_skim`): the workers decode.
    /// A message whose items are all one validator's (or that has none:
    /// the first worker answers it, as upstream hands it to one worker)
    /// goes whole to that validator's worker; otherwise each item goes on
    /// its own to its validator's worker.
    fn route_peer_bytes(&self, peer: PeerId, bytes: Arc<[u8]>) -> Result<(), String> {
        let skim = match skim_wire(&bytes) {
            Ok(s) => s,
            Err(e) => {
                report_malformed(peer, e.to_string(), &self.events);
                return Ok(());
            }
        };
        let first = skim.items.first().map_or(0, |(v, _)| v.0);
        if skim.items.iter().all(|(v, _)| v.0 == first) {
            return self.workers[self.worker_of(first)]
                .send(DistMsg::PeerBytes { peer, bytes })
                .map_err(err);
        }
        for (v, range) in skim.items {
            self.workers[self.worker_of(v.0)]
                .send(DistMsg::PeerItem {
                    peer,
                    bytes: bytes.clone(),
                    kind: skim.kind,
                    range,
                })
                .map_err(err)?;
        }
        Ok(())
    }
}

impl Router {
    /// Upstream's main loop sends these with `send_message`: bounded, so a
    /// full worker holds the router up (never the voting worker, which
    /// reached the router unbounded).
    fn forward_from_voting(&self, msg: DistMsg) -> Result<(), String> {
        match msg {
            DistMsg::NewBlocks { blocks, sessions } => {
                for w in &self.workers {
                    w.send(DistMsg::NewBlocks {
                        blocks: blocks.clone(),
                        sessions: sessions.clone(),
                    })
                    .map_err(err)?;
                }
                Ok(())
            }
            DistMsg::DistributeAssignment { cert, claimed } => self.workers
                [self.worker_of(cert.validator.0)]
            .send(DistMsg::DistributeAssignment { cert, claimed })
            .map_err(err),
            // A control message: the workers' high-priority inputs.
            DistMsg::CandidateApproved { block, candidate } => self
                .fanout
                .prio
                .to_workers(|| DistMsg::CandidateApproved { block, candidate })
                .map_err(err),
            DistMsg::DistributeApproval(vote) => self.workers[self.worker_of(vote.validator.0)]
                .send(DistMsg::DistributeApproval(vote))
                .map_err(err),
            _ => Err(
                "the voting worker sent the router a message that is not for distribution"
                    .to_owned(),
            ),
        }
    }
}

impl Worker for Router {
    type Msg = RouterMsg;

    fn handle(&mut self, msg: RouterMsg, _: &WorkerStats) -> Result<bool, String> {
        match msg {
            RouterMsg::PeerBytes { peer, bytes } => self.route_peer_bytes(peer, bytes)?,
            RouterMsg::Input(input) => self.fanout.send(input).map_err(err)?,
            RouterMsg::FromVoting(msg) => self.forward_from_voting(msg)?,
            RouterMsg::Control(WorkerControl::Stop) => return Ok(true),
            RouterMsg::Control(WorkerControl::Fault) => panic!("fault injected into the router"),
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::{channel, recv_prioritised, Next, Unfinished};
    use std::time::{Duration, Instant};
    use tranche_primitives::{Block, Hash, RelayVrfStory, Session, SessionInfo};
    use tranche_voting::NewBlock;

    fn new_block() -> NewBlock {
        let info = SessionInfo {
            session_index: 0,
            n_cores: 1,
            needed_approvals: 1,
            relay_vrf_modulo_samples: 1,
            n_delay_tranches: 1,
            zeroth_delay_tranche_width: 0,
            no_show_slots: 1,
            validator_groups: Vec::new(),
            assignment_keys: Vec::new(),
            validators: Vec::new(),
            assignments_v2: true,
            max_approval_coalesce_count: 1,
        };
        NewBlock {
            block: Block {
                hash: Hash([7; 32]),
                number: 1,
                parent: Hash([0; 32]),
                slot: 1,
                session: 0,
                relay_vrf_story: RelayVrfStory::default(),
                candidates: Vec::new().into(),
            },
            session: Arc::new(Session::new(info)),
        }
    }

    /// A new block is an overseer signal upstream: it reaches the router
    /// ahead of a full inbox of peer messages, and sending it never waits
    /// for room there.
    #[test]
    fn a_block_goes_ahead_of_a_full_router_inbox() {
        let unfinished = Unfinished::new();
        let (router, inbox) = channel::<RouterMsg>("router", Some(2), &unfinished);
        let (router_prio, prio) = channel::<RouterMsg>("router-prio", None, &unfinished);
        let (voting, _voting_rx) = channel::<crate::messages::VoteMsg>("voting", None, &unfinished);
        let mut layout = Parallel {
            router,
            router_prio,
            workers: PrioLinks {
                workers: Vec::new(),
                voting,
            },
        };
        for peer in 1..=2 {
            layout
                .peer_bytes(PeerId(peer), Arc::from(vec![0u8; 4]))
                .unwrap();
        }
        // The inbox is full: a block on it would wait for ever; this thread
        // gives up after a generous deadline instead of hanging the test.
        let (done_tx, done) = crossbeam_channel::bounded(1);
        let sender = std::thread::spawn(move || {
            let r = layout.send(Input::Block(new_block()));
            let _ = done_tx.send(r.is_ok());
            layout
        });
        assert_eq!(
            done.recv_timeout(Duration::from_secs(30)),
            Ok(true),
            "sending the block waited for room in the full inbox"
        );
        let _layout = sender.join().unwrap();
        let deadline = Some(Instant::now() + Duration::from_secs(30));
        let first = match recv_prioritised(&prio, &inbox, deadline) {
            Next::Message(m) => m,
            _ => panic!("nothing to read"),
        };
        assert!(
            matches!(first, RouterMsg::Input(Input::Block(_))),
            "the router takes the block first"
        );
    }
}
