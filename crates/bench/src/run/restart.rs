//! `tranche run --restart-at-block N`: at the start of block N's slot the
//! node under test is stopped abruptly — its workers stopped where they
//! are, its store abandoned without a final commit (`Node::crash`), the
//! database file released — then started again on the same file, which it
//! restores and re-announces (upstream's activation), reconnected to its
//! peers, and the run carries on. The report shows when it happened, how
//! long the node took to come back and what it sent again.

use super::driver::{node_config, Driver};
use super::IDLE_TIMEOUT;
use anyhow::{bail, Context, Result};
use std::time::Instant;
use tranche_distribution::{PeerId, View};
use tranche_node::{Node, NodeEvent, NodeMetrics, StoreConfig};
use tranche_primitives::Tick;
use tranche_report::RestartReport;

/// The restart a run is asked for, and what happened.
#[derive(Default)]
pub(crate) struct Restart {
    /// Block number (1-based) at whose slot start the node restarts.
    at_block: Option<u32>,
    store: Option<StoreConfig>,
    pub(super) done: Option<RestartReport>,
    /// Metrics of the node before the crash (their CPU counts too).
    pub(super) before: Option<NodeMetrics>,
}

impl Restart {
    pub(super) fn new(at_block: Option<u32>, store: StoreConfig) -> Self {
        Restart {
            at_block,
            store: Some(store),
            ..Default::default()
        }
    }

    /// Whether the restart is due now: not yet done, and the next block to
    /// import is block `at_block`, whose slot has come.
    pub(super) fn due(&self, imported: usize, block_ticks: &[Tick], tick: Tick) -> bool {
        let Some(at) = self.at_block else {
            return false;
        };
        self.done.is_none()
            && imported + 1 == at as usize
            && block_ticks.get(imported).is_some_and(|t| *t <= tick)
    }
}

/// Check a `--restart-at-block` against the run before any work.
pub(crate) fn check(at_block: Option<u32>, num_blocks: u32, redb: bool) -> Result<()> {
    let Some(n) = at_block else { return Ok(()) };
    if !redb {
        bail!("--restart-at-block needs the redb database (--db redb): a restart in memory would start from nothing");
    }
    if n < 2 || n > num_blocks {
        bail!("--restart-at-block {n}: must name a block from 2 to the run's {num_blocks}");
    }
    Ok(())
}

impl Driver<'_> {
    /// Crash the node, start it again on its database and reconnect it.
    pub(super) fn restart_node(&mut self, tick: Tick) -> Result<()> {
        let started = Instant::now();
        let before = self.node.crash();
        let store = self
            .restart
            .store
            .clone()
            .context("a restart needs its store")?;
        let config = node_config(
            self.prepared,
            &self.session,
            &self.options,
            &self.clock,
            store,
        );
        self.node = Node::start(config).context("restarting the node on its database")?;
        self.node.set_tick(tick)?;
        self.connect()?;
        let heads: Vec<_> = self.prepared.world.blocks[..self.imported]
            .iter()
            .map(|b| b.hash)
            .collect();
        for v in 1..self.step.n_validators {
            let view = View {
                heads: heads.clone(),
                finalized_number: 0,
            };
            self.node.peer_view(PeerId(v), view)?;
        }
        self.node.wait_idle(IDLE_TIMEOUT)?;
        let recover_ms = started.elapsed().as_secs_f64() * 1e3;
        // What the restarted node sent while coming back: the re-sent own
        // messages of the stored blocks.
        let mut resent_items = 0u64;
        let now = self.sim_time(tick);
        let events: Vec<NodeEvent> = self.node.events().try_iter().collect();
        for e in events {
            if let NodeEvent::Send { items, .. } = &e {
                resent_items += *items as u64;
            }
            self.handle_event(e, now);
        }
        self.restart.before = Some(before);
        self.restart.done = Some(RestartReport {
            block: (self.imported + 1) as u32,
            tick,
            recover_ms,
            resent_items,
        });
        Ok(())
    }
}
