//! One validator's protocol (`crate::protocol`) among fixed peers that
//! lose nothing, ban no one and finalize nothing — the benchmark's node
//! under test (`tranche run --node model`, `crates/bench/src/run/model.rs`)
//! — one call a moment ([`FixedNode::moment`], the moment and its
//! inputs), whose outputs come back as data (the notifications it sent,
//! the blocks it approved), for the caller to carry out.
//!
//! The work of a moment is the protocol's one order (`Protocol::moment`),
//! as the simulation's member keeps it.

use crate::moment::{Arrival, Transmit};
use crate::protocol::{Cx, Protocol};
use crate::verdicts::Verdicts;
use tranche_primitives::ApprovalDistributionMessage;

pub use crate::protocol::NodeSetup;
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
    protocol: Protocol,
    verdicts: Verdicts,
}

impl FixedNode {
    /// The validator of `setup`, connected to `setup.peers` for good, its
    /// checks answered by `verdicts`.
    pub fn new(setup: NodeSetup, verdicts: Verdicts) -> FixedNode {
        FixedNode {
            protocol: Protocol::new(setup),
            verdicts,
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
        self.protocol.environment_carried(carried);
        let deliveries = delivered
            .into_iter()
            .map(|(from, message)| Arrival::Notification { from, message });
        let cx = Cx {
            verdicts: &self.verdicts,
            network: None,
        };
        let ready = self.protocol.moment(now_ms, deliveries, cx);
        // Fixed peers lose nothing and finalize nothing: every packet is
        // a notification.
        let sends = ready
            .transmits
            .drain(..)
            .filter_map(|t| match t {
                Transmit::Notification { to, message, .. } => Some((to, message)),
                Transmit::Connection { .. } | Transmit::Beyond { .. } => None,
            })
            .collect();
        let approved = ready.approved.drain(..).collect::<Vec<_>>();
        let records = self.protocol.records();
        let approved = approved
            .into_iter()
            .map(|b| (b, records[b].approved_after_ms))
            .collect();
        MomentOut { sends, approved }
    }

    /// The next moment it has something to do by itself.
    pub fn next_event_ms(&self) -> Option<u64> {
        self.protocol.next_event_ms()
    }

    /// Blocks imported so far.
    pub fn imported(&self) -> usize {
        self.protocol.imported()
    }

    /// Its threads' names, in the CPU model's order.
    pub fn thread_names(&self) -> Vec<String> {
        self.protocol.thread_names()
    }

    /// CPU each thread used so far, ms, in thread order.
    pub fn busy_ms(&self) -> Vec<u64> {
        self.protocol.busy_ms()
    }

    /// Checks (certificates and signatures) run so far.
    pub fn checked(&self) -> u64 {
        self.protocol.checked()
    }
}
