//! A moment of a validator's protocol as data, in the Ready style of
//! quinn-proto's `Transmit`s and raft-rs's `Ready`: what the links
//! delivered to it in the moment ([`Arrival`], in order), and what the
//! moment made ready for its caller to carry out ([`Ready`]: the packets
//! to put on the links as [`Transmit`]s, in the order they were made, and
//! the blocks it approved). Nothing of the caller's is called during a
//! moment.
//!
//! `Protocol::moment` (`crate::protocol`) takes the one and returns the
//! other, for every driver (the simulation's member, `crate::member`; the
//! benchmark's node under test, `crate::fixed`).

use crate::packet::Connection;
use tranche_primitives::ApprovalDistributionMessage;

/// What the links delivered to a validator.
#[derive(Debug)]
pub enum Arrival {
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
