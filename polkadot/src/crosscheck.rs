//! The full-workload cross-check of tranche's protocol against Polkadot's:
//! at the virtual clock, one prepared step (one world, one seed, the same
//! peers' messages due at the same ticks) runs on Polkadot's node and on
//! tranche's, in the same layout, and every block must be approved at the
//! same tick by both.
//!
//! tranche's node runs as `tranche run --clock virtual` runs it
//! (`tranche_bench::run::run_step`, an in-memory database, no crypto
//! floor), on the world Polkadot's chain was written into
//! ([`crate::chain`]), so both nodes see the same hashes, stories and
//! messages. Both drivers take the deliveries from tranche's producer
//! (`tranche_workload::producer`), which stops sending a block's messages
//! when the node says it is approved (`stop_when_approved`): a node that
//! approves a block later is sent more, so the first block that differs
//! is where the two diverge.

use crate::prepared::{Layout, Prepared};
use crate::run::{run, ClockKind, RunOutcome};
use anyhow::{Context, Result};
use std::path::PathBuf;
use tranche_bench::run::{ClockKind as TrancheClock, DbKind, NodeUnderTest, RunOptions, RunReport};
use tranche_node::{Architecture, CheckPolicy, DEFAULT_WORKERS};

/// Milliseconds per tick.
const TICK_MS: u64 = 500;

/// One block as both nodes approved it: milliseconds from its import (its
/// slot's start) to its approval, `None` where a node never approved it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockPair {
    pub number: u32,
    pub polkadot_ms: Option<u64>,
    pub tranche_ms: Option<u64>,
}

impl BlockPair {
    pub fn agrees(&self) -> bool {
        self.polkadot_ms == self.tranche_ms
    }
}

/// One layout's comparison.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub layout: Layout,
    pub blocks: Vec<BlockPair>,
    /// Messages each node was sent (they differ only where an approval
    /// came at another tick and the producer stopped at another point).
    pub polkadot_messages: u64,
    pub tranche_messages: u64,
    /// Both runs, for the reports.
    pub polkadot: RunOutcome,
    pub tranche: RunReport,
}

impl Comparison {
    pub fn agrees(&self) -> bool {
        self.blocks.iter().all(BlockPair::agrees)
    }

    /// The first block the two nodes approved at different ticks.
    pub fn first_difference(&self) -> Option<&BlockPair> {
        self.blocks.iter().find(|b| !b.agrees())
    }
}

/// tranche's node in `layout`, as `tranche run --clock virtual` runs it.
pub fn tranche_options(layout: Layout, seed: u64) -> RunOptions {
    RunOptions {
        architecture: match layout {
            Layout::Classic => Architecture::CLASSIC,
            Layout::Parallel => Architecture::parallel(DEFAULT_WORKERS),
        },
        clock: TrancheClock::Virtual,
        seed,
        // Nothing is read from or written to a cache: the messages are
        // the harness's, already in memory.
        cache_dir: PathBuf::new(),
        db: DbKind::Memory,
        progress: tranche_bench::run::Progress::Quiet,
        floor: tranche_bench::floor::FloorMode::Off,
        db_path: None,
        restart_at_block: None,
        checks: CheckPolicy::default(),
        node: NodeUnderTest::Real,
    }
}

/// Run `prepared` on both nodes in `layout` at the virtual clock and pair
/// their approvals block by block.
pub fn compare(prepared: &Prepared, layout: Layout, progress: bool) -> Result<Comparison> {
    let seed = prepared.tranche.params.seed;
    let polkadot = run(prepared, layout, ClockKind::Virtual, progress)?;
    if progress {
        eprintln!("tranche's node, {} layout", layout.name());
    }
    let tranche = tranche_bench::run::run_step(
        &prepared.step,
        &prepared.tranche,
        &tranche_options(layout, seed),
    )
    .context("tranche's node")?;
    let blocks = polkadot
        .blocks
        .iter()
        .zip(&tranche.blocks)
        .map(|(p, t)| BlockPair {
            number: p.number,
            // Whole ticks at the virtual clock.
            polkadot_ms: p
                .approved_after_s
                .map(|s| (s * 1000.0).round() as u64 / TICK_MS * TICK_MS),
            tranche_ms: t.approved_after_ms,
        })
        .collect();
    Ok(Comparison {
        layout,
        blocks,
        polkadot_messages: polkadot.messages_to_node,
        tranche_messages: tranche.counts.deliveries,
        polkadot,
        tranche,
    })
}

/// The comparison as a table: one row per block, the first difference
/// named.
pub fn table(comparison: &Comparison) -> String {
    use std::fmt::Write;
    let show = |ms: Option<u64>| match ms {
        Some(ms) => format!("{:.1} s", ms as f64 / 1000.0),
        None => "not approved".to_owned(),
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "cross-check, {} layout, virtual clock: approved after (from the block's import)",
        comparison.layout.name()
    );
    let _ = writeln!(
        out,
        "  {:>5}  {:>14}  {:>14}",
        "block", "polkadot", "tranche"
    );
    for b in &comparison.blocks {
        let _ = writeln!(
            out,
            "  {:>5}  {:>14}  {:>14}{}",
            b.number,
            show(b.polkadot_ms),
            show(b.tranche_ms),
            if b.agrees() { "" } else { "  differs" }
        );
    }
    let _ = writeln!(
        out,
        "  messages sent to the node: polkadot {}, tranche {}",
        comparison.polkadot_messages, comparison.tranche_messages
    );
    match comparison.first_difference() {
        None => {
            let _ = writeln!(out, "  every block approved at the same tick by both nodes");
        }
        Some(b) => {
            let _ = writeln!(
                out,
                "  first difference: block {} (polkadot {}, tranche {})",
                b.number,
                show(b.polkadot_ms),
                show(b.tranche_ms)
            );
        }
    }
    out
}
