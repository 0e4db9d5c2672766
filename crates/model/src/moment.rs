//! A moment of a validator's protocol as data, in the Ready style of
//! quinn-proto's `Transmit`s and raft-rs's `Ready`: what the links
//! delivered to it in the moment ([`Delivery`], in order), and what the
//! moment made ready for its caller to carry out ([`Ready`]: the packets
//! to put on the links as [`Transmit`]s, in the order they were made, and
//! the blocks it approved). Nothing of the caller's is called during a
//! moment.
//!
//! [`Protocol::moment`] is the one order of work in a moment, for every
//! driver (the simulation's member, `crate::member`; the benchmark's node
//! under test, `crate::fixed`).

use crate::packet::Connection;
use crate::protocol::{Cx, Protocol};
use tranche_primitives::ApprovalDistributionMessage;

/// What the links delivered to a validator.
#[derive(Debug)]
pub enum Delivery {
    /// A peer's notification.
    Notification {
        from: u32,
        message: ApprovalDistributionMessage,
    },
    /// A peer's finality vote: it approved every block up to `up_to`.
    FinalityVote { from: u32, up_to: u32 },
    /// A message about the connection itself from a peer.
    Connection { from: u32, message: Connection },
}

/// A packet a moment made ready for the links, with its sequence number
/// (every packet of a validator takes the next one).
#[derive(Debug)]
pub enum Transmit {
    /// A notification to `to`, through our bandwidth; `lost`: the link
    /// loses it on the way (its bytes still leave; the pair is
    /// disconnected). `known`: with several processes, the shared verdict
    /// of each item (`crate::packet::Packet::known`).
    Notification {
        to: u32,
        seq: u64,
        message: ApprovalDistributionMessage,
        known: Vec<Option<u32>>,
        lost: bool,
    },
    /// A message about the connection to `to`, through our bandwidth,
    /// never lost.
    Connection {
        to: u32,
        seq: u64,
        message: Connection,
    },
    /// Outside the bandwidth and never lost, over the link's latency: a
    /// finality vote, or the news that we went away.
    Beyond {
        to: u32,
        seq: u64,
        finality: Option<u32>,
        connection: Option<Connection>,
    },
}

/// What a moment made ready for the caller.
#[derive(Debug, Default)]
pub struct Ready {
    /// The packets for the links, in order.
    pub transmits: Vec<Transmit>,
    /// The blocks (by index) approved in the moment.
    pub approved: Vec<usize>,
}

impl Protocol {
    /// The moment `now_ms` with what the links delivered in it, in order:
    /// going offline (if this is the moment; away, nothing else), the CPU
    /// up to the moment, voting's due timers, the blocks whose slot has
    /// come, the reconnects due (after the blocks, those missed offline
    /// too: views carry them), the deliveries, then the CPU up to the
    /// moment's end. What it made ready is returned for the caller to
    /// carry out (and drain: the buffers are reused).
    pub fn moment(
        &mut self,
        now_ms: u64,
        deliveries: impl IntoIterator<Item = Delivery>,
        cx: Cx<'_>,
    ) -> &mut Ready {
        self.ready.transmits.clear();
        self.ready.approved.clear();
        let turn = self.presence.turn(now_ms);
        if let Some(until_ms) = turn.leaves_until {
            self.go_offline(until_ms);
        }
        let Some(back) = turn.here else {
            return &mut self.ready;
        };
        self.advance(now_ms, cx);
        self.run_timers(now_ms, cx);
        self.import_due_blocks(now_ms, cx);
        self.reconnect_due(now_ms, back);
        for delivery in deliveries {
            match delivery {
                Delivery::Notification { from, message } => {
                    self.peer_message(now_ms, from, message, cx)
                }
                Delivery::FinalityVote { from, up_to } => {
                    self.finality_vote(now_ms, from, up_to, cx)
                }
                Delivery::Connection { from, message } => {
                    self.connection(now_ms, from, message, cx)
                }
            }
        }
        self.advance(now_ms, cx);
        &mut self.ready
    }
}
