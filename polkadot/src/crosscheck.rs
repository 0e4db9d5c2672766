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
//!
//! At the real clock (`cross-check --clock real`) the same pairs are
//! measured side by side, one run after the other on the same world and
//! messages, and not judged: wall time decides there.

use crate::prepared::{Layout, Prepared};
use crate::run::{run, ClockKind, RunOutcome};
use anyhow::{Context, Result};
use std::path::PathBuf;
use tranche_bench::run::{ClockKind as TrancheClock, DbKind, NodeUnderTest, RunOptions, RunReport};
use tranche_node::{Architecture, CheckPolicy, DEFAULT_WORKERS};
use tranche_primitives::time::TICK_DURATION_MILLIS;

/// One block as both nodes approved it: milliseconds from its slot's
/// start (where it is imported) to its approval, `None` where a node never approved it.
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
    pub clock: ClockKind,
    pub blocks: Vec<BlockPair>,
    /// Copies of the peers' messages handed to the links for each node
    /// (they differ only where an approval came at another tick and the
    /// producer stopped at another point).
    pub polkadot_messages: u64,
    pub tranche_messages: u64,
    /// Both runs, for the reports.
    pub polkadot: RunOutcome,
    pub tranche: RunReport,
}

impl Comparison {
    /// Whether every block was approved at the same tick by both nodes
    /// (at the real clock: nothing to judge, true).
    pub fn agrees(&self) -> bool {
        self.clock == ClockKind::Real || self.blocks.iter().all(BlockPair::agrees)
    }

    /// The first block the two nodes approved at different ticks.
    pub fn first_difference(&self) -> Option<&BlockPair> {
        self.blocks.iter().find(|b| !b.agrees())
    }
}

/// tranche's node in `layout`, as `tranche run --clock virtual|real` runs
/// it.
pub fn tranche_options(layout: Layout, clock: ClockKind, seed: u64) -> RunOptions {
    RunOptions {
        architecture: match layout {
            Layout::Classic => Architecture::CLASSIC,
            Layout::Parallel => Architecture::parallel(DEFAULT_WORKERS),
        },
        clock: match clock {
            ClockKind::Virtual => TrancheClock::Virtual,
            ClockKind::Real => TrancheClock::Real,
        },
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

/// Run `prepared` on both nodes in `layout` on `clock` and pair their
/// approvals block by block. At the virtual clock the pairs must agree;
/// at the real clock they are measured side by side (the same world and
/// messages, one after the other), not judged.
pub fn compare(
    prepared: &Prepared,
    layout: Layout,
    clock: ClockKind,
    progress: bool,
) -> Result<Comparison> {
    let seed = prepared.tranche.params.seed;
    let polkadot = run(prepared, layout, clock, progress)?;
    if progress {
        eprintln!("tranche's node, {} layout", layout.name());
    }
    let tranche = tranche_bench::run::run_step(
        &prepared.step,
        &prepared.tranche,
        &tranche_options(layout, clock, seed),
    )
    .context("tranche's node")?;
    let blocks = polkadot
        .blocks
        .iter()
        .zip(&tranche.blocks)
        .map(|(p, t)| BlockPair {
            number: p.number,
            polkadot_ms: p.approved_after_s.map(|s| match clock {
                // Whole ticks at the virtual clock.
                ClockKind::Virtual => {
                    (s * 1000.0).round() as u64 / TICK_DURATION_MILLIS * TICK_DURATION_MILLIS
                }
                ClockKind::Real => (s * 1000.0).round() as u64,
            }),
            tranche_ms: t.approved_after_ms,
        })
        .collect();
    Ok(Comparison {
        clock,
        layout,
        blocks,
        polkadot_messages: polkadot.messages_sent,
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
        Some(ms) => format!("{:.3} s", ms as f64 / 1000.0),
        None => "not approved".to_owned(),
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "cross-check, {} layout, {} clock: approved after (from the block's slot start)",
        comparison.layout.name(),
        comparison.clock.name()
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
            if b.agrees() || comparison.clock == ClockKind::Real {
                ""
            } else {
                "  differs"
            }
        );
    }
    let _ = writeln!(
        out,
        "  messages the peers sent to the node: polkadot {}, tranche {}",
        comparison.polkadot_messages, comparison.tranche_messages
    );
    let blocks = comparison.blocks.len().max(1) as f64;
    let polkadot: Vec<String> = comparison
        .polkadot
        .cpu
        .iter()
        .filter(|(name, _, _)| crate::floor::is_node_task(name))
        .map(|(name, secs, _)| format!("{name} {:.3}", secs / blocks))
        .collect();
    let _ = writeln!(
        out,
        "  CPU s per block, polkadot (per task, around its polls): {} (node {:.3})",
        polkadot.join(", "),
        comparison.polkadot.node_cpu_s() / blocks
    );
    let tranche: Vec<String> = comparison
        .tranche
        .cpu
        .iter()
        .filter(|row| row.node)
        .map(|row| format!("{} {:.3}", row.name, row.per_block_s))
        .collect();
    let _ = writeln!(
        out,
        "  CPU s per block, tranche (per thread): {} (node {:.3})",
        tranche.join(", "),
        comparison.tranche.node_cpu_s / blocks
    );
    match comparison.first_difference() {
        _ if comparison.clock == ClockKind::Real => {
            let _ = writeln!(
                out,
                "  real clock: measured side by side (the same world and messages), not judged"
            );
        }
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
