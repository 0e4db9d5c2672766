//! The peers' messages on their way to Polkadot's node: through tranche's
//! emulated links (`tranche_links`, the step's latency, bandwidth, loss and
//! connectivity, as `tranche run` sends them to its own node), from the
//! tick the producer makes them due to the moment the links deliver them.

use crate::prepared::Prepared;
use anyhow::{Context, Result};
use polkadot_node_primitives::approval::time::Tick;
use std::time::Duration;
use tranche_links::{Endpoint, Fate, LinkPeer, Network, SendError};
use tranche_primitives::time::TICK_DURATION_MILLIS;
use tranche_workload::producer::{Delivery, MessageId};

/// The links between the peers and the node, on a time that starts at
/// the first block's tick.
pub struct Inbound {
    links: Network<(u32, MessageId)>,
    first: Tick,
    /// Copies the peers handed to the links (`tranche run` counts these
    /// as its deliveries).
    pub sent: u64,
    /// Copies the links lost (their loss probability) or refused (a peer
    /// the step does not connect).
    pub lost: u64,
    arrived: Vec<tranche_links::Outcome<(u32, MessageId)>>,
}

impl Inbound {
    pub fn new(prepared: &Prepared, first: Tick) -> Result<Inbound> {
        let links = Network::new(prepared.tranche.network.clone())
            .context("invalid network configuration")?;
        Ok(Inbound {
            links,
            first,
            sent: 0,
            lost: 0,
            arrived: Vec::new(),
        })
    }

    /// The links' time of `tick`'s start.
    pub fn time_of(&self, tick: Tick) -> Duration {
        Duration::from_millis(tick.saturating_sub(self.first) * TICK_DURATION_MILLIS)
    }

    /// Hand the producer's `due` deliveries to the links at `at` (no
    /// earlier than the links' own time).
    pub fn send(&mut self, prepared: &Prepared, at: Duration, due: &[Delivery<'_>]) {
        for d in due {
            let len = prepared.tranche.encoded[d.id.bundle as usize][d.id.index as usize].len();
            match self.links.send(
                at.max(self.links.now()),
                Endpoint::Peer(LinkPeer(d.sender - 1)),
                Endpoint::Node,
                len as u64,
                (d.sender, d.id),
            ) {
                Ok(_) => self.sent += 1,
                Err(SendError::NotConnected(_)) => self.lost += 1,
                Err(e) => eprintln!("warning: emulated network refused a message: {e}"),
            }
        }
    }

    /// The messages the links deliver up to `until`, in the order they
    /// arrive: (sender, message).
    pub fn arrivals(&mut self, until: Duration) -> Vec<(u32, MessageId)> {
        self.arrived.clear();
        self.links.advance_into(until, &mut self.arrived);
        let mut out = Vec::with_capacity(self.arrived.len());
        for o in self.arrived.drain(..) {
            match o.fate {
                Fate::Delivered => out.push(o.payload),
                Fate::Lost => self.lost += 1,
            }
        }
        out
    }
}
