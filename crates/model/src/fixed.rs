//! One validator's protocol (`crate::node`) among fixed peers that lose
//! nothing, ban no one and finalize nothing — the benchmark's node under
//! test (`tranche run --node model`, `crates/bench/src/run/model.rs`) —
//! driven in the Ready style: one call a moment ([`FixedNode::moment`],
//! the moment and its inputs) returns the moment's outputs as data (the
//! notifications it sent, the blocks it approved), for the caller to
//! carry out. Nothing of the caller's is called back during a moment.
//!
//! The work of a moment is the node's one order (`Node::open_moment`,
//! the inputs, `Node::close_moment`), as the simulation's member keeps it.

use crate::node::{Cx, Net, Node};
use crate::verdicts::Verdicts;
use tranche_primitives::ApprovalDistributionMessage;

pub use crate::node::NodeSetup;
/// What a moment left for the caller to carry out.
#[derive(Debug, Default)]
pub struct MomentOut {
    /// The notifications sent, in order: (peer, notification). A peer
    /// outside the fixed ones is the caller's to drop.
    pub sends: Vec<(u32, ApprovalDistributionMessage)>,
    /// The blocks (by index) approved in the moment, each with the
    /// milliseconds after its slot start it was approved.
    pub approved: Vec<(usize, Option<u64>)>,
}

/// A validator among fixed peers, one call a moment.
pub struct FixedNode {
    node: Node,
    verdicts: Verdicts,
    /// The peers connected for the whole run, ascending.
    peers: Vec<u32>,
}

impl FixedNode {
    /// The validator of `setup`, connected to `setup.peers` for good, its
    /// checks answered by `verdicts`.
    pub fn new(setup: NodeSetup<'_>, verdicts: Verdicts) -> FixedNode {
        let peers = setup.peers.clone();
        FixedNode {
            node: Node::new(setup),
            verdicts,
            peers,
        }
    }

    /// The moment `now_ms`: the CPU up to it (after `carried` more
    /// messages of the test environment are charged to its thread, with
    /// the CPU model's `environment`), voting's due timers, the blocks
    /// whose slot has come, then the peers' notifications delivered now,
    /// in order; what that sent and approved, as data.
    pub fn moment(
        &mut self,
        now_ms: u64,
        carried: u64,
        delivered: Vec<(u32, ApprovalDistributionMessage)>,
    ) -> MomentOut {
        self.node.environment_carried(carried);
        let mut outbox = Outbox {
            peers: &self.peers,
            sends: Vec::new(),
        };
        let mut cx = Cx {
            verdicts: &self.verdicts,
            net: &mut outbox,
        };
        self.node.open_moment(now_ms, &mut cx);
        for (from, m) in delivered {
            self.node.peer_message(now_ms, from, m, &mut cx);
        }
        self.node.close_moment(now_ms, &mut cx);
        let sends = outbox.sends;
        let approved = self
            .node
            .take_approved()
            .into_iter()
            .map(|b| (b, self.node.records()[b].approved_after_ms))
            .collect();
        MomentOut { sends, approved }
    }

    /// The next moment it has something to do by itself.
    pub fn next_event_ms(&self) -> Option<u64> {
        self.node.next_event_ms()
    }

    /// Blocks imported so far.
    pub fn imported(&self) -> usize {
        self.node.imported()
    }

    /// Its threads' names, in the CPU model's order.
    pub fn thread_names(&self) -> Vec<String> {
        self.node.thread_names()
    }

    /// CPU each thread used so far, ms, in thread order.
    pub fn busy_ms(&self) -> Vec<u64> {
        self.node.busy_ms()
    }

    /// Checks (certificates and signatures) run so far.
    pub fn checked(&self) -> u64 {
        self.node.checked()
    }
}

/// The fixed peers as the protocol sees them during a moment: what it
/// sends is kept, to be handed back as data.
struct Outbox<'a> {
    peers: &'a [u32],
    sends: Vec<(u32, ApprovalDistributionMessage)>,
}

impl Net for Outbox<'_> {
    fn connected(&self) -> Vec<u32> {
        self.peers.to_vec()
    }

    fn notify(
        &mut self,
        _: u64,
        peer: u32,
        message: ApprovalDistributionMessage,
    ) -> Result<(), u64> {
        self.sends.push((peer, message));
        Ok(())
    }

    /// Fixed peers lose nothing (the caller's links lose on their own).
    fn lost(&mut self, _: u64, _: u32, _: u64) -> bool {
        false
    }

    /// Fixed peers are not banned (as the benchmark's real node's).
    fn reputation(&mut self, _: u32, _: i32) -> bool {
        false
    }

    /// Nothing is finalized among fixed peers.
    fn finality_vote(&mut self, _: u64, _: u32) {}
}
