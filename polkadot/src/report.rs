//! What a run prints: a table per layout (each block's approval time, CPU
//! per thread name, messages in and out) and the JSON of `--json`, which
//! names the node under test.

use crate::run::{RunOutcome, NODE_NAME};
use serde_json::{json, Value};
use std::fmt::Write;
use tranche_config::BenchStep;

/// The terminal table of one run.
pub fn table(step: &BenchStep, outcome: &RunOutcome) -> String {
    let mut out = String::new();
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
    let _ = writeln!(out, "  CPU per task (name, tasks, seconds):");
    for (name, secs, tasks) in &outcome.cpu {
        let _ = writeln!(out, "    {name:<34} {tasks:>3}  {secs:>8.3}");
    }
    let _ = writeln!(
        out,
        "  node (approval-* tasks): {:.3} CPU s, {:.3} per block; crypto floor ({}): {}; node ÷ floor: {}",
        outcome.node_cpu_s(),
        outcome.node_cpu_s() / outcome.blocks.len().max(1) as f64,
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
        "  to the node: {} messages, {} bytes; from the node: {} messages, {} bytes; {:.1} s wall",
        outcome.messages_to_node,
        outcome.bytes_to_node,
        outcome.messages_from_node,
        outcome.bytes_from_node,
        outcome.wall_s
    );
    for (block, n) in &outcome.stalled {
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

fn layout_json(outcome: &RunOutcome) -> Value {
    json!({
        "layout": outcome.layout.name(),
        "clock": outcome.clock.name(),
        "all_approved": outcome.all_approved(),
        "blocks": outcome.blocks.iter().map(|b| json!({
            "number": b.number,
            "imported_s": b.imported_s,
            "approved_after_s": b.approved_after_s,
        })).collect::<Vec<_>>(),
        "cpu_s": outcome.cpu.iter().map(|(name, secs, tasks)| json!({
            "task": name,
            "tasks": tasks,
            "seconds": secs,
        })).collect::<Vec<_>>(),
        "node_cpu_s": outcome.node_cpu_s(),
        "crypto_floor": {
            "mode": outcome.floor_mode.name(),
            "cpu_s": outcome.floor.as_ref().map(|f| f.cpu.as_secs_f64()),
            "batched_cpu_s": outcome.floor.as_ref().map(|f| f.batched_cpu.as_secs_f64()),
            "interval_s": outcome.floor.as_ref().map(|f| [f.interval_s.0, f.interval_s.1]),
            "node_ratio": outcome.floor_ratio(),
        },
        "messages_to_node": outcome.messages_to_node,
        "bytes_to_node": outcome.bytes_to_node,
        "messages_from_node": outcome.messages_from_node,
        "bytes_from_node": outcome.bytes_from_node,
        "wall_s": outcome.wall_s,
        "unanswered": outcome.unanswered,
        "stalled_candidates": outcome.stalled.iter().map(|(block, n)| json!({
            "block": block,
            "candidates": n,
        })).collect::<Vec<_>>(),
    })
}

/// The JSON of every step's runs.
pub fn json(seed: u64, steps: &[(BenchStep, Vec<RunOutcome>)]) -> Value {
    json!({
        "node_under_test": NODE_NAME,
        "seed": seed,
        "steps": steps.iter().map(|(step, runs)| json!({
            "name": step.name,
            "n_validators": step.n_validators,
            "n_cores": step.n_cores,
            "num_blocks": step.num_blocks,
            "runs": runs.iter().map(layout_json).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}
