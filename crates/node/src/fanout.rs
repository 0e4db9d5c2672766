//! How a node input (all but peers' bytes) reaches the workers, the same in
//! both layouts: a block first becomes the node's own view in every
//! distribution worker, then goes to voting; peer and topology events go to
//! every distribution worker; finality to every distribution worker, then
//! voting; ticks to voting. The classic layout runs this on the caller's
//! thread for its one distribution worker, the parallel router on its own
//! thread for its N workers (as upstream
//! `polkadot/node/core/approval-voting-parallel/src/lib.rs` fans out). Also
//! how the node stops its workers or makes one fail.

use crate::channel::{Closed, Tx};
use crate::leaves::Leaves;
use crate::messages::{DistMsg, Input, VoteMsg, WorkerControl};

/// The high-priority (unbounded) inputs of every worker but the router.
#[derive(Clone)]
pub(crate) struct PrioLinks {
    /// One per distribution worker, by index.
    pub workers: Vec<Tx<DistMsg>>,
    pub voting: Tx<VoteMsg>,
}

impl PrioLinks {
    /// Send to every distribution worker.
    pub fn to_workers(&self, make: impl Fn() -> DistMsg) -> Result<(), Closed> {
        for w in &self.workers {
            w.send(make())?;
        }
        Ok(())
    }

    /// Tell every distribution worker, then voting, to stop; a worker that
    /// is gone already is not asked.
    pub fn stop(&self) {
        for w in &self.workers {
            let _ = w.send(DistMsg::Control(WorkerControl::Stop));
        }
        let _ = self.voting.send(VoteMsg::Control(WorkerControl::Stop));
    }

    /// Make a worker fail, to test failure handling: `target` 0 is the
    /// voting worker, `1..` the distribution workers.
    pub fn inject_fault(&self, target: usize) -> Result<(), Closed> {
        match target {
            0 => self.voting.send(VoteMsg::Control(WorkerControl::Fault)),
            i => self.workers[(i - 1) % self.workers.len()]
                .send(DistMsg::Control(WorkerControl::Fault)),
        }
    }
}

/// Where inputs go: the high-priority links and voting's bounded input.
pub(crate) struct Fanout {
    pub prio: PrioLinks,
    /// Bounded input of the voting worker (blocks).
    pub voting: Tx<VoteMsg>,
    /// The node's own view.
    pub leaves: Leaves,
}

impl Fanout {
    pub fn send(&mut self, input: Input) -> Result<(), Closed> {
        match input {
            Input::Block(b) => {
                // Distribution learns our new view first, so peers' messages
                // for the block that overtake its import are held, not
                // dropped.
                let heads = self.leaves.add(b.block.hash, b.block.parent);
                self.prio.to_workers(|| DistMsg::OurView(heads.clone()))?;
                self.voting.send(VoteMsg::Block(b))
            }
            Input::Network(event) => self.prio.to_workers(|| DistMsg::Network(event.clone())),
            Input::Finalized { hash, number } => {
                self.prio.to_workers(|| DistMsg::Finalized(number))?;
                self.prio.voting.send(VoteMsg::Finalized { hash, number })
            }
            Input::Tick(t) => self.prio.voting.send(VoteMsg::Tick(t)),
            Input::GetApprovalSignatures { indices, reply } => {
                self.prio.to_workers(|| DistMsg::GetApprovalSignatures {
                    indices: indices.clone(),
                    reply: reply.clone(),
                })
            }
        }
    }
}
