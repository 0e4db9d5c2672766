//! The chain a run imports, on the slot clock: the blocks' slot ticks,
//! the sessions the node learns from them, how far the run may go after
//! the last slot, and how many blocks are imported so far.

use super::{Prepared, GRACE_TICKS};
use anyhow::{Context, Result};
use std::sync::Arc;
use tranche_config::BenchStep;
use tranche_links::{Endpoint, Network, SendError};
use tranche_primitives::time::{slot_start_tick, DEFAULT_TICKS_PER_SLOT};
use tranche_primitives::{Block, Session, Tick};
use tranche_report::Counts;
use tranche_workload::producer::{Delivery, Producer, ProducerOptions};

/// The emulated network between the peers and the node under test: each
/// message with the validator that sent it.
pub(super) type PeerNet = Network<(u32, Arc<[u8]>)>;

/// Peer `i` of the network is validator `i + 1`.
pub(super) fn net_peer(validator: u32) -> tranche_links::LinkPeer {
    tranche_links::LinkPeer(validator - 1)
}

/// One of the producer's deliveries into the links at `at` (no earlier
/// than the links' own time), counted as delivered or lost; the real and
/// the modelled node under test receive the same way.
pub(super) fn send_delivery(
    links: &mut PeerNet,
    counts: &mut Counts,
    prepared: &Prepared,
    at: std::time::Duration,
    d: &Delivery<'_>,
) {
    let bytes = prepared.encoded[d.id.bundle as usize][d.id.index as usize].clone();
    match links.send(
        at.max(links.now()),
        Endpoint::Peer(net_peer(d.sender)),
        Endpoint::Node,
        bytes.len() as u64,
        (d.sender, bytes),
    ) {
        Ok(_) => counts.deliveries += 1,
        Err(SendError::NotConnected(_)) => counts.lost += 1,
        Err(e) => tranche_cli::errln!("warning: emulated network refused a message: {e}"),
    }
}

pub(super) struct Chain<'a> {
    pub step: &'a BenchStep,
    pub prepared: &'a Prepared,
    /// The first session (the node starts knowing it).
    pub session: Arc<Session>,
    /// Every session of the run, by index from the first on.
    sessions: Vec<Arc<Session>>,
    /// The tick each block's slot starts at.
    pub block_ticks: Vec<Tick>,
    pub first_tick: Tick,
    /// The last tick the run may go on to.
    pub end_tick: Tick,
    /// Blocks imported so far.
    pub imported: usize,
}

impl<'a> Chain<'a> {
    pub fn new(step: &'a BenchStep, prepared: &'a Prepared) -> Chain<'a> {
        let world = &prepared.world;
        let block_ticks: Vec<Tick> = world
            .blocks
            .iter()
            .map(|b| slot_start_tick(b.slot, DEFAULT_TICKS_PER_SLOT))
            .collect();
        let first_tick = block_ticks[0];
        let last_tick = *block_ticks.last().expect("at least one block");
        // Every no-show a candidate suffers can cost a no-show window plus the
        // clock drift it adds before a later tranche covers it, so the run may
        // go on that long per withheld approval (upstream waits without limit).
        let no_show_window = Tick::from(step.session.no_show_slots) * DEFAULT_TICKS_PER_SLOT;
        let end_tick = last_tick
            + Tick::from(step.session.n_delay_tranches)
            + (2 + Tick::from(step.num_no_shows_per_candidate))
                * (no_show_window + Tick::from(step.session.n_delay_tranches))
            + GRACE_TICKS;
        Chain {
            step,
            prepared,
            session: Arc::new(Session::new(world.session.clone())),
            sessions: world
                .sessions
                .iter()
                .map(|s| Arc::new(Session::new(s.clone())))
                .collect(),
            block_ticks,
            first_tick,
            end_tick,
            imported: 0,
        }
    }

    /// The run's emulated network and the producer of the peers'
    /// messages (a peer the node is not connected to sends nothing).
    pub fn links_and_producer(&self) -> Result<(PeerNet, Producer<'a>)> {
        let step = self.step;
        let links =
            Network::new(self.prepared.network.clone()).context("invalid network configuration")?;
        let mut producer = Producer::new(
            &self.prepared.messages.bundles,
            self.block_ticks.clone(),
            ProducerOptions {
                needed_approvals: step.session.needed_approvals,
                num_no_shows_per_candidate: step.num_no_shows_per_candidate,
                stop_when_approved: step.stop_when_approved,
                last_considered_tranche: step.send_limit_tranche(),
            },
        );
        producer.set_reachable(
            (0..step.n_validators)
                .map(|v| v != 0 && links.is_connected(net_peer(v)))
                .collect(),
        );
        Ok((links, producer))
    }

    pub fn blocks(&self) -> &'a [Block] {
        &self.prepared.world.blocks
    }

    /// The next block to import, if its slot has come by `tick`.
    pub fn due(&self, tick: Tick) -> Option<usize> {
        (self.imported < self.block_ticks.len() && self.block_ticks[self.imported] <= tick)
            .then_some(self.imported)
    }

    /// The session of a block: the node learns all but the first from
    /// the blocks themselves.
    pub fn session_of(&self, index: u32) -> Arc<Session> {
        self.sessions
            .iter()
            .find(|s| s.info.session_index == index)
            .cloned()
            .unwrap_or_else(|| self.session.clone())
    }
}
