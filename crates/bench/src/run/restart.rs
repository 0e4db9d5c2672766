//! `tranche run --restart-at-block N`: at the start of block N's slot the
//! node under test is stopped abruptly — its workers stopped where they
//! are, its store abandoned without a final commit (`Node::crash`), the
//! database file released — then started again on the same file, which it
//! restores and re-announces (upstream's activation), reconnected to its
//! peers, and the run carries on. The report shows when it happened, how
//! long the node took to come back and what it sent again.

use super::IDLE_TIMEOUT;
use anyhow::{bail, Context, Result};
use std::time::Instant;
use tranche_distribution::{PeerId, View};
use tranche_node::{Node, NodeConfig, NodeEvent, NodeMetrics, StoreConfig};
use tranche_primitives::{Hash, Tick};
use tranche_report::RestartReport;

/// The restart a run is asked for, and what happened.
#[derive(Default)]
pub(super) struct Restart {
    /// Block number (1-based) at whose slot start the node restarts.
    at_block: Option<u32>,
    store: Option<StoreConfig>,
    pub done: Option<RestartReport>,
    /// Metrics of the node before the crash (their CPU counts too).
    pub before: Option<NodeMetrics>,
}

/// Where the run stands when the node comes back.
pub(super) struct Resume<'a> {
    pub tick: Tick,
    /// The block whose slot has come (1-based).
    pub block: u32,
    /// The blocks imported so far: every peer's view holds them.
    pub heads: Vec<Hash>,
    /// The peers (validators `1..n_validators`).
    pub n_validators: u32,
    /// Connect the peers and announce the topologies, as at the start.
    pub reconnect: &'a dyn Fn(&mut Node) -> Result<()>,
}

impl Restart {
    pub fn new(at_block: Option<u32>, store: StoreConfig) -> Self {
        Restart {
            at_block,
            store: Some(store),
            ..Default::default()
        }
    }

    /// Whether the restart is due now: not yet done, and the next block to
    /// import is block `at_block`, whose slot has come.
    pub fn due(&self, imported: usize, block_ticks: &[Tick], tick: Tick) -> bool {
        let Some(at) = self.at_block else {
            return false;
        };
        self.done.is_none()
            && imported + 1 == at as usize
            && block_ticks.get(imported).is_some_and(|t| *t <= tick)
    }

    /// Crash `node`, start it again on its database (`config` of the
    /// store) and bring it back where the run is; returns what it sent
    /// while coming back (the re-sent own messages of the stored blocks).
    pub fn restart(
        &mut self,
        node: &mut Node,
        config: impl FnOnce(StoreConfig) -> NodeConfig,
        at: Resume<'_>,
    ) -> Result<Vec<NodeEvent>> {
        let started = Instant::now();
        let store = self.store.clone().context("a restart needs its store")?;
        let before = node.crash();
        *node = Node::start(config(store)).context("restarting the node on its database")?;
        node.set_tick(at.tick)?;
        (at.reconnect)(node)?;
        for v in 1..at.n_validators {
            let view = View {
                heads: at.heads.clone(),
                finalized_number: 0,
            };
            node.peer_view(PeerId(v), view)?;
        }
        node.wait_idle(IDLE_TIMEOUT)?;
        let recover_ms = started.elapsed().as_secs_f64() * 1e3;
        let events: Vec<NodeEvent> = node.events().try_iter().collect();
        let resent_items = events
            .iter()
            .map(|e| match e {
                NodeEvent::Send { items, .. } => *items as u64,
                _ => 0,
            })
            .sum();
        self.before = Some(before);
        self.done = Some(RestartReport {
            block: at.block,
            tick: at.tick,
            recover_ms,
            resent_items,
        });
        Ok(events)
    }
}

/// Check a `--restart-at-block` against the run before any work.
pub(crate) fn check(at_block: Option<u32>, num_blocks: u32, persistent: bool) -> Result<()> {
    let Some(n) = at_block else { return Ok(()) };
    if !persistent {
        bail!("--restart-at-block needs a database on disk (--db redb or parity-db): a restart in memory would start from nothing");
    }
    if n < 2 || n > num_blocks {
        bail!("--restart-at-block {n}: must name a block from 2 to the run's {num_blocks}");
    }
    Ok(())
}
