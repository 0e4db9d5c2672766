//! The text under the run table: the legend (what `other`,
//! `test-environment`, the crypto floor and its interval per layout, per
//! block, ÷ floor and the database rows are; how figures are rounded;
//! which figures are exact under the virtual clock and which vary with
//! thread timing; the messages' origin; the noise) and the line saying
//! why a layout's blocks were approved early or late.

use super::small::EARLY_MS;
use crate::spread::Unit;
use crate::timing::TIMING_DEPENDENT;
use crate::RunReport;
use std::fmt::Write as _;
use tranche_cli::text::counted;

/// A block approved two slots (12 s) or more after its slot start is late.
const LATE_MS: u64 = 12_000;

/// Longest line of the notes the table wraps.
const WIDTH: usize = 100;

/// `text` in lines of at most [`WIDTH`] characters, the continuation
/// lines indented by two spaces.
pub(crate) fn wrap(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > WIDTH {
            out.push_str(&line);
            out.push('\n');
            line = String::from(" ");
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// Why a layout's blocks were approved when they were, where one was
/// early, late or never: those blocks and the run's counters that explain
/// them (the one-third rule, the no-shows), without the layout's name; and
/// where the figures show it, what a small size did (approved at import
/// by the one-third rule, no-shows observed that held nothing back, a
/// block never approved with no stall to name). `None` where every block
/// was approved in between and no such figure shows.
pub(super) fn why(r: &RunReport) -> Option<String> {
    let odd: Vec<String> = r
        .blocks
        .iter()
        .filter_map(|b| match b.approved_after_ms {
            None => Some(format!("block {} never approved", b.number)),
            Some(ms) if ms < EARLY_MS => Some(format!(
                "block {} approved {ms} ms after its slot start (early: within its first tick)",
                b.number
            )),
            Some(ms) if ms >= LATE_MS => Some(format!(
                "block {} approved {ms} ms after its slot start (late: two slots on or more)",
                b.number
            )),
            Some(_) => None,
        })
        .collect();
    let mut parts = Vec::new();
    if !odd.is_empty() {
        if !r.keeps_counters() {
            // The model (or Polkadot's node) keeps no protocol counters to
            // explain them by.
            parts.push(format!("{}.", odd.join(", ")));
        } else {
            let p = &r.protocol;
            parts.push(format!(
                "{}; of the run's {} approved, {} by the one-third rule (more than a third of \
                 all validators approved them, whatever their tranches); {} covered at \
                 approval, {} observed at any evaluation; {} withheld by the peers.",
                odd.join(", "),
                counted(p.candidates_approved, "candidate"),
                p.approved_by_one_third,
                counted(p.no_shows, "no-show"),
                p.observed_no_shows,
                counted(r.counts.withheld_approvals, "approval")
            ));
        }
    }
    parts.extend(super::small::notes(r));
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// The `why` lines of the runs: one per explanation, naming the layouts
/// it is true of.
pub(super) fn why_lines(runs: &[RunReport]) -> String {
    let mut each: Vec<(Vec<String>, String)> = Vec::new();
    for r in runs {
        let Some(text) = why(r) else { continue };
        match each.iter_mut().find(|e| e.1 == text) {
            Some(e) => e.0.push(r.layout()),
            None => each.push((vec![r.layout()], text)),
        }
    }
    each.iter()
        .map(|(layouts, text)| wrap(&format!("why ({}): {text}", layouts.join(", "))))
        .collect()
}

/// How each layout's crypto floor was measured, with its 95 % interval.
fn floors(runs: &[RunReport]) -> String {
    let each: Vec<String> = runs
        .iter()
        .map(|r| {
            let f = &r.crypto_floor;
            let how = match f.mode.as_str() {
                "sample" => format!(
                    "estimated from a seeded sample of {} of the {} unique messages, 95 % \
                     interval {}..{} s",
                    f.sampled_messages(),
                    f.population_messages(),
                    Unit::Seconds.show(f.interval_s.0, false),
                    Unit::Seconds.show(f.interval_s.1, false)
                ),
                "off" => "not measured (--floor off)".into(),
                _ => "measured on every unique message".into(),
            };
            format!("{}: {how}", r.layout())
        })
        .collect();
    let sampled = runs.iter().any(|r| r.crypto_floor.mode == "sample");
    wrap(&format!(
        "crypto floor: the CPU one thread needs to verify the run's unique assignments and \
         approvals once, after the run, measured again for each layout; {}{}.",
        each.join("; "),
        if sampled {
            " (an interval is the sampling error of the one-by-one estimate only)"
        } else {
            ""
        }
    ))
}

/// Which figures are exact and which vary, for the runs' clock.
fn exactness(runs: &[RunReport]) -> String {
    let listed = TIMING_DEPENDENT
        .iter()
        .filter(|p| !p.starts_with("samples."))
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    let mut s = if runs.iter().all(|r| r.clock == "virtual") {
        wrap(
            "exact: under the virtual clock the approval times, bytes, message counts, checks, \
             reputation changes and the protocol's counters are exact for a configuration and \
             seed (compare judges them exactly);",
        )
    } else {
        wrap(
            "clock real: approval times, bytes and counts depend on wall-clock timing too; \
             --clock virtual makes them exact for a configuration and seed;",
        )
    };
    s.push_str(&wrap(&format!(
        "~: varies with thread timing even under the virtual clock (how announcements fall \
         into the database's commits, what a worker finds queued when it drains): {listed}; \
         {}",
        measured(runs)
    )));
    s
}

/// Which CPU figures the runs measured and which the model computed: a
/// model's threads are the cost table's time, exact for a configuration
/// and seed; a real node's are measurements, as are the floors, wall time
/// and memory of every run.
fn measured(runs: &[RunReport]) -> &'static str {
    if runs.iter().all(RunReport::is_model) {
        "the model's CPU is modelled (the cost table's time), exact for a configuration and \
         seed; the crypto floors, wall time and memory are measurements: they vary run to run \
         and machine to machine."
    } else if runs.iter().any(RunReport::is_model) {
        "the real node's CPU, the crypto floors, wall time and memory are measurements: they \
         vary run to run and machine to machine; the model's CPU is modelled (the cost table's \
         time), exact for a configuration and seed."
    } else {
        "CPU, wall time and memory are measurements: they vary run to run and machine to \
         machine."
    }
}

/// Whether some run has a CPU row named `name`.
fn has_row(runs: &[RunReport], name: &str) -> bool {
    runs.iter().any(|r| r.cpu.iter().any(|c| c.name == name))
}

/// The legend of the run table.
pub(super) fn legend(runs: &[RunReport]) -> String {
    // The rows' legends only where the rows are (the model has no
    // `other`).
    let mut s = String::from("\n");
    if has_row(runs, "other") {
        s.push_str(
            "other: the process's CPU outside the node's named threads and the driver\n  \
             (allocator, runtimes, short-lived threads); counted in the node total.\n",
        );
    }
    if has_row(runs, "test-environment") {
        s.push_str(
            "test-environment: the driver thread (emulated peers and network); not in the\n  \
             node total.\n",
        );
    }
    s.push_str(&floors(runs));
    s.push_str(
        "per block: the run's total ÷ its blocks, here, in --json and in compare; the\n  \
         run's tail (after the last block's slot) is in the total, and the HTML\n  \
         page's bars show each block's slot and the tail apart.\n",
    );
    // Without a floor (`--floor off`) there is no ratio to read.
    if runs.iter().any(RunReport::has_floor) {
        s.push_str(
            "÷ floor (*): read node ÷ batched floor for a layout that verifies approval\n  \
             signatures in batches (parallel, by default), node ÷ one-by-one floor for one\n  \
             that checks each alone (classic, as Polkadot): each layout against the least\n  \
             its own way of checking could cost; the headline's ratio column compares those.\n",
        );
    }
    s.push_str(
        "why: early is within the block's first tick (500 ms), late two slots (12 s) or more\n  \
         after its slot start; the one-third rule approves a candidate once more than a\n  \
         third of all validators approved it (upstream's approval_checking.rs).\n",
    );
    // The model's node has no database to explain.
    if runs.iter().any(|r| r.keeps_counters()) {
        s.push_str(
            "database: commits of the approval database (once per tick, and before each\n  \
             announcement) and the voting thread's time in it (writes, commits, fsyncs).\n",
        );
    }
    if runs
        .iter()
        .any(|r| r.keeps_counters() && r.database.commits.is_none())
    {
        s.push_str(
            "database commits -: the database was in memory (--db memory), which commits\n  \
             and fsyncs nothing; its CPU row is the time spent buffering the writes.\n",
        );
    }
    if runs.iter().any(|r| r.checks.round_trips > 0) {
        s.push_str(
            "round trip: classic, what one check's trip to the voting thread and back cost\n  \
             distribution beyond the check itself (the architecture's price).\n",
        );
    }
    s.push_str(
        "peak resident memory: the process's peak RSS from the run's start (VmHWM reset\n  \
         per run), so it includes what the process held before the run.\n\
         rounding: counts and ms as integers (a count per block to one decimal), KiB, MiB\n  \
         and µs to one decimal, seconds to four, ratios to two.\n",
    );
    s.push_str(&exactness(runs));
    let g = &runs[0].generation;
    let _ = writeln!(
        s,
        "messages: {} ({}, {:.2} s, {:.1} cores busy, {:.1} MiB)",
        g.cache_file,
        if g.cache_hit {
            "cache hit"
        } else {
            "generated"
        },
        g.time_s,
        if g.time_s > 0.0 {
            g.cpu_s / g.time_s
        } else {
            0.0
        },
        g.cache_bytes as f64 / 1048576.0
    );
    if runs.iter().any(RunReport::is_model) {
        s.push_str(&wrap(
            "model: the node under test is the simulation's model on its modelled CPU \
             (--node model); it keeps no protocol counters, database or round trips, so those \
             rows are `-`.",
        ));
    }
    if let Some(rep) = runs.iter().find_map(|r| r.repeats.as_ref()) {
        let _ = write!(
            s,
            "{}",
            wrap(&format!(
                "medians: {} are the medians of {} (after {} warm-up){}; the \
                 other figures are equal in every run under the virtual clock. Their range is \
                 under \"Spread over the repeats\".",
                if runs.iter().any(RunReport::has_floor) {
                    "CPU, wall time, the crypto floors and the ratios to them"
                } else {
                    "CPU and wall time"
                },
                counted(rep.runs, "measured run"),
                rep.warmup,
                if runs.iter().any(RunReport::has_floor) {
                    ", each floor's interval that of its median run"
                } else {
                    ""
                }
            ))
        );
    }
    if runs.iter().all(|r| r.repeats.is_none()) {
        if runs.iter().all(RunReport::is_model) {
            s.push_str(&wrap(
                "noise: one run of each layout; the model's CPU is exact for a configuration \
                 and seed, the floors and wall time vary between runs; --repeat N (a real \
                 node) reports the median and range of N runs, and compare judges against \
                 that range.",
            ));
        } else {
            let _ = writeln!(
                s,
                "noise: one run of each layout, so run-to-run noise is not included in these\n  \
                 figures (CPU and wall time vary between runs); --repeat N reports the median\n  \
                 and range of N runs, and compare judges against that range."
            );
        }
    }
    s
}
