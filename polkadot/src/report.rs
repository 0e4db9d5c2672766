//! What a run prints and writes: a table per layout (each block's
//! approval time, CPU per task, the floor and the node's ratio to it,
//! messages in and out), and the run as tranche's own result
//! (`tranche_results::RunReport`, [`run_report`]) for `--json` and
//! `--html`, so that `tranche compare`, `tranche history` and tranche's
//! HTML page read it. Its `node_under_test` is `polkadot 36.0.0`: `tranche
//! compare` against tranche's node says "not comparable" and names it.

use crate::floor::is_node_task;
use crate::prepared::Prepared;
use crate::run::{RunOutcome, NODE_NAME};
use std::fmt::Write;
use tranche_bench::run::RunReport;
use tranche_config::BenchStep;
use tranche_report::{BlockReport, Counts, CpuRow, NetworkReport};

/// The approval database, as the result's metadata names it.
pub const DATABASE: &str = "kvdb-memorydb";

/// approval-voting-parallel 0.19.0's distribution workers
/// (`APPROVAL_DISTRIBUTION_WORKER_COUNT`), counted from the tasks a run
/// spawned: `approval-voting-parallel-0` …
fn parallel_workers(outcome: &RunOutcome) -> usize {
    outcome
        .cpu
        .iter()
        .filter(|(name, _, _)| {
            name.strip_prefix("approval-voting-parallel-")
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .count()
}

/// The terminal table of one run.
pub fn table(step: &BenchStep, outcome: &RunOutcome) -> String {
    let mut out = String::new();
    let blocks = outcome.blocks.len().max(1) as f64;
    let _ = writeln!(
        out,
        "{} — node under test: {NODE_NAME}, {} layout, {} clock: {} validators, {} cores, {} blocks",
        step.name,
        outcome.layout.name(),
        outcome.clock.name(),
        step.n_validators,
        step.n_cores,
        step.num_blocks
    );
    let _ = writeln!(out, "  block  imported at  approved after");
    for b in &outcome.blocks {
        let approved = match b.approved_after_s {
            Some(s) => format!("{s:>12.3} s"),
            None => format!("{:>14}", "not approved"),
        };
        let _ = writeln!(
            out,
            "  {:>5}  {:>9.3} s  {approved}",
            b.number, b.imported_s
        );
    }
    let _ = writeln!(
        out,
        "  CPU per task (name, tasks, seconds, per block; * the node's):"
    );
    for (name, secs, tasks) in &outcome.cpu {
        let mark = if is_node_task(name) { "*" } else { " " };
        let _ = writeln!(
            out,
            "   {mark}{name:<34} {tasks:>3}  {secs:>8.3}  {:>8.3}",
            secs / blocks
        );
    }
    let _ = writeln!(
        out,
        "  node (approval-* tasks): {:.3} CPU s, {:.3} per block; crypto floor ({}): {}; node ÷ floor: {}",
        outcome.node_cpu_s(),
        outcome.node_cpu_s() / blocks,
        outcome.floor_mode.name(),
        outcome
            .floor
            .as_ref()
            .map_or("-".to_owned(), |f| format!("{:.3} CPU s", f.cpu.as_secs_f64())),
        outcome
            .floor_ratio()
            .map_or("-".to_owned(), |r| format!("{r:.2}"))
    );
    let _ = writeln!(
        out,
        "  to the node: {} messages ({} distinct), {} bytes; from the node: {} messages, {} bytes; {:.1} s wall",
        outcome.messages_to_node,
        outcome.unique_messages,
        outcome.bytes_to_node,
        outcome.messages_from_node,
        outcome.bytes_from_node,
        outcome.wall_s
    );
    let mut stalled: Vec<(u32, usize)> = Vec::new();
    for s in &outcome.stalled {
        match stalled.last_mut() {
            Some((block, n)) if *block == s.block => *n += 1,
            _ => stalled.push((s.block, 1)),
        }
    }
    for (block, n) in stalled {
        let _ = writeln!(
            out,
            "  block {block}: {n} candidates stalled by upstream's sending rule (the peers held back \
             the assignments that would cover their no-shows)"
        );
    }
    for what in &outcome.unanswered {
        let _ = writeln!(out, "  unanswered by the harness: {what}");
    }
    out
}

/// The run as tranche's result. Figures Polkadot's node does not give
/// the harness (tranche's protocol counters, the database's commits, the
/// checks' round trips) are left empty: `-` in tranche's tables.
pub fn run_report(prepared: &Prepared, outcome: &RunOutcome, seed: u64) -> RunReport {
    let step = &prepared.step;
    let n_blocks = outcome.blocks.len().max(1) as f64;
    let kib = |bytes: u64| bytes as f64 / 1024.0 / n_blocks;
    let blocks = outcome
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let after_ms = b.approved_after_s.map(|s| (s * 1000.0).round() as u64);
            BlockReport {
                number: b.number,
                approved_tick: after_ms.map(|ms| prepared.block_ticks[i] + ms / 500),
                approved_after_ms: after_ms,
            }
        })
        .collect();
    let cpu = outcome
        .cpu
        .iter()
        .map(|(name, secs, _)| CpuRow {
            name: name.clone(),
            total_s: *secs,
            per_block_s: secs / n_blocks,
            node: is_node_task(name),
        })
        .collect();
    let node_cpu = outcome.node_cpu_s();
    let crypto_floor = match &outcome.floor {
        Some(floor) => floor.report(outcome.floor_mode, node_cpu, n_blocks),
        None => tranche_report::FloorReport {
            mode: outcome.floor_mode.name().into(),
            ..Default::default()
        },
    };
    RunReport {
        name: step.name.clone(),
        architecture: outcome.layout.name().into(),
        workers: match outcome.layout {
            crate::prepared::Layout::Classic => 1,
            crate::prepared::Layout::Parallel => parallel_workers(outcome),
        },
        clock: outcome.clock.name().into(),
        seed,
        n_validators: step.n_validators,
        n_cores: step.n_cores,
        num_blocks: step.num_blocks,
        blocks,
        network: NetworkReport {
            received_bytes: outcome.bytes_to_node,
            sent_bytes: outcome.bytes_from_node,
            received_kib_per_block: kib(outcome.bytes_to_node),
            sent_kib_per_block: kib(outcome.bytes_from_node),
        },
        cpu,
        node_cpu_s: node_cpu,
        counts: Counts {
            unique_messages: outcome.unique_messages,
            // As `tranche run` counts them: copies handed to the links.
            deliveries: outcome.messages_sent,
            lost: outcome.lost,
            messages_from_node: outcome.messages_from_node,
            withheld_approvals: outcome.withheld_approvals,
            verifications: 0,
        },
        generation: prepared.tranche.generation.clone(),
        crypto_floor,
        wall_time_s: outcome.wall_s,
        peak_memory_bytes: tranche_metrics::peak_rss_bytes(),
        protocol: Default::default(),
        samples: Vec::new(),
        repeats: None,
        restart: None,
        schedule: None,
        signatures: String::new(),
        stalls: outcome.stalled.clone(),
        database: Default::default(),
        checks: Default::default(),
        node_under_test: NODE_NAME.into(),
    }
}
