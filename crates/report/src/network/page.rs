//! `tranche network --html FILE`: one self-contained page (no scripts, no
//! network) in the frame and style of the run page (`crate::html::page`):
//! the metadata table, the summary (who never approved which blocks, how
//! far finality came), then the plots, drawn by the report crate's
//! plotters charts (`crate::html_chart`): approval time per block as a box
//! per block (min to max, p50 to p99, its axis from the data, so a spread
//! of a few ms on 12 s shows), the expected validators that never approved
//! each block (and, with finality, the validators that never finalized
//! it), finality over time (the head, the median and the last validator's
//! finalized block; with `finality: true`), assignments and approvals sent
//! per block, distribution's bytes out per validator in ascending order,
//! and with the CPU model each thread's busy share. Below: the table with
//! its legend, and the configuration simulated as `!ApprovalNetwork` YAML
//! (every key with its value, a file `tranche network` reads back). With
//! `--beside`, earlier runs of the same network on another node come
//! first: their summaries, approval time against block number for every
//! run, and their table per block (`super::beside`).

use super::{BlockSummary, SimulationReport};
use crate::html::{escape, meta_table, page};
use crate::html_chart::{
    bar_chart, box_chart, layout_colour, line_chart, BarChart, Bars, BoxSpread, Line, Mark,
};
use crate::network::table::NetworkTable;
use crate::network::Described;
use anyhow::Result;
use plotters::style::RGBColor;
use std::fmt::Write as _;
use tranche_cli::text::counted;
use tranche_config::approval_network::NetworkSpec;
use tranche_primitives::time::DEFAULT_SLOT_DURATION_MILLIS as SLOT_MS;

/// Bars of one figure per group, coloured in order.
fn series(names: &[&str], values: Vec<Vec<Option<f64>>>) -> Vec<Bars> {
    let all: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    names
        .iter()
        .zip(values)
        .map(|(name, values)| Bars {
            name: (*name).to_owned(),
            layout: (*name).to_owned(),
            colour: layout_colour(name, &all),
            values,
        })
        .collect()
}

/// A YAML value without its null entries (keys left at "none").
fn without_nulls(v: yaml_serde::Value) -> yaml_serde::Value {
    use yaml_serde::Value;
    match v {
        Value::Mapping(m) => Value::Mapping(
            m.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_nulls(v)))
                .collect(),
        ),
        Value::Sequence(s) => Value::Sequence(s.into_iter().map(without_nulls).collect()),
        other => other,
    }
}

/// The configuration simulated as an `!ApprovalNetwork` file: every key
/// with its value, in the objective's order, keys without a value left
/// out.
pub fn config_yaml(spec: &NetworkSpec) -> String {
    match yaml_serde::to_value(spec).and_then(|v| yaml_serde::to_string(&without_nulls(v))) {
        Ok(text) => format!("!ApprovalNetwork\n{text}"),
        Err(e) => format!("# the configuration could not be written as YAML: {e}\n"),
    }
}

/// A thread's name short enough for an axis: `approval-` dropped, the
/// parallel layout's threads by their role (`router`, `0`, `db`).
fn short(name: &str) -> String {
    let rest = name.strip_prefix("approval-").unwrap_or(name);
    match rest.strip_prefix("voting-parallel") {
        Some("") => "router".to_owned(),
        Some(r) => r.trim_start_matches('-').to_owned(),
        None => rest.to_owned(),
    }
}

/// Finality over time: at each second from the first block's slot, the
/// head (blocks whose slot began) and the finalized block of the median
/// and of the last validator.
fn finality_lines(report: &SimulationReport) -> Vec<Line> {
    let n = report.blocks.len() as u64;
    // When each validator finalized each block, ms from the first slot.
    let at: Vec<Vec<Option<u64>>> = report
        .validators
        .iter()
        .map(|r| {
            r.blocks
                .iter()
                .enumerate()
                .map(|(i, b)| b.finalized_after_ms.map(|ms| i as u64 * SLOT_MS + ms))
                .collect()
        })
        .collect();
    let last = at.iter().flatten().flatten().copied().max().unwrap_or(0);
    let end_s = last.max(n * SLOT_MS) / 1000 + SLOT_MS / 1000;
    let step = (end_s / 300).max(1);
    let mut head = Vec::new();
    let mut median = Vec::new();
    let mut least = Vec::new();
    for t in (0..=end_s).step_by(step as usize) {
        let ms = t * 1000;
        head.push((t as f64, (ms / SLOT_MS + 1).min(n) as f64));
        let mut heights: Vec<u64> = at
            .iter()
            .map(|blocks| {
                blocks
                    .iter()
                    .rposition(|f| f.is_some_and(|f| f <= ms))
                    .map_or(0, |i| i as u64 + 1)
            })
            .collect();
        heights.sort_unstable();
        median.push((
            t as f64,
            heights.get(heights.len() / 2).copied().unwrap_or(0) as f64,
        ));
        least.push((t as f64, heights.first().copied().unwrap_or(0) as f64));
    }
    [
        ("head (blocks whose slot began)", head),
        ("finalized, median validator", median),
        ("finalized, last validator", least),
    ]
    .into_iter()
    .map(|(name, points)| Line {
        name: name.to_owned(),
        layout: name.to_owned(),
        points,
    })
    .collect()
}

/// The page's plots, as SVG strings.
fn plots(report: &SimulationReport) -> Result<Vec<String>> {
    let numbers: Vec<String> = report.blocks.iter().map(|b| b.number.to_string()).collect();
    let pick = |f: fn(&BlockSummary) -> Option<u64>| -> Vec<Option<f64>> {
        report
            .blocks
            .iter()
            .map(|b| f(b).map(|v| v as f64))
            .collect()
    };
    let mut out = Vec::new();
    let spreads: Vec<Option<BoxSpread>> = report
        .blocks
        .iter()
        .map(|b| {
            Some(BoxSpread {
                min: b.min_ms? as f64,
                p50: b.p50_ms? as f64,
                p99: b.p99_ms? as f64,
                max: b.max_ms? as f64,
            })
        })
        .collect();
    let chart = |title, x_desc, y_desc, integer| BarChart {
        title,
        x_desc,
        y_desc,
        groups: &numbers,
        integer,
    };
    out.push(box_chart(
        &chart(
            "Approval time after the slot start",
            "block",
            "ms (validators expected to approve)",
            false,
        ),
        &spreads,
    )?);
    let mut names = vec!["never approved (of those expected)"];
    let mut values = vec![report
        .blocks
        .iter()
        .map(|b| Some(f64::from(b.expected - b.approved)))
        .collect()];
    if report.spec.finality {
        names.push("never finalized (of all)");
        values.push(
            report
                .blocks
                .iter()
                .map(|b| b.finalized.map(|f| f64::from(report.n_validators - f)))
                .collect(),
        );
    }
    out.push(bar_chart(
        &chart(
            "Validators that never approved, per block",
            "block",
            "validators",
            true,
        ),
        &series(&names, values),
        &[],
    )?);
    if report.spec.finality {
        out.push(line_chart(
            "Finality over time",
            "s after the first block's slot start",
            "block",
            &finality_lines(report),
        )?);
    }
    out.push(bar_chart(
        &chart(
            "Sent network-wide per block",
            "block",
            "candidates claimed / signatures",
            true,
        ),
        &series(
            &["assignments", "approvals"],
            vec![pick(|b| Some(b.assignments)), pick(|b| Some(b.approvals))],
        ),
        &[],
    )?);
    let mut kib: Vec<f64> = report
        .validators
        .iter()
        .map(|v| v.bytes_out as f64 / 1024.0)
        .collect();
    kib.sort_by(f64::total_cmp);
    out.push(line_chart(
        "Distribution's bytes out per validator",
        "validators, fewest bytes first",
        "KiB",
        &[Line {
            name: "bytes out".to_owned(),
            layout: "bytes out".to_owned(),
            points: kib
                .iter()
                .enumerate()
                .map(|(i, kib)| ((i + 1) as f64, *kib))
                .collect(),
        }],
    )?);
    if let Some(cpu) = &report.cpu {
        let threads: Vec<String> = cpu.threads.iter().map(|t| short(&t.name)).collect();
        let pct = |f: fn(&super::ThreadBusy) -> f64| {
            cpu.threads
                .iter()
                .map(|t| Some(f(t) * 100.0))
                .collect::<Vec<_>>()
        };
        out.push(bar_chart(
            &BarChart {
                title: "The CPU model: busy share per thread",
                x_desc: "thread (parallel: router, workers 0..N-1, db)",
                y_desc: "% of each block's slot",
                groups: &threads,
                integer: false,
            },
            &series(
                &["p50 over validators", "max over validators"],
                vec![pct(|t| t.p50_busy), pct(|t| t.max_busy)],
            ),
            &[Mark {
                y: 100.0,
                label: "saturated (100 %)".to_owned(),
                colour: RGBColor(200, 0, 0),
                dashed: false,
            }],
        )?);
    }
    Ok(out)
}

/// The page; with `beside` (earlier runs of the same objective and seed,
/// another node: `super::beside`), first a plot of every run's approval
/// time against block number and their table per block.
pub fn render(report: &SimulationReport, beside: &[SimulationReport]) -> Result<String> {
    let mut body = meta_table(&[
        ("source", report.source.clone()),
        ("seed", report.seed.to_string()),
        ("commit", report.commit.clone()),
        ("command", report.command.clone()),
    ]);
    let _ = writeln!(
        body,
        "<p>{} ({}), {}, {}: {}</p>",
        counted(report.n_validators, "validator"),
        escape(&report.behaviours()),
        counted(report.n_cores, "core"),
        counted(report.blocks.len(), "block"),
        escape(&report.summary())
    );
    let mut svgs = Vec::new();
    if !beside.is_empty() {
        let runs: Vec<&SimulationReport> = std::iter::once(report).chain(beside).collect();
        let labels = super::beside::labels(&runs);
        for (run, label) in runs.iter().zip(&labels).skip(1) {
            let _ = writeln!(
                body,
                "<p>beside: {} ({}): {}</p>",
                escape(label),
                escape(&run.source),
                escape(&run.summary())
            );
        }
        svgs.push(line_chart(
            "Approval time against block number, per node",
            "block",
            "s after the block's slot start",
            &super::beside::approval_lines(&runs),
        )?);
        let _ = writeln!(body, "<pre>{}</pre>", escape(&super::beside::table(&runs)));
    }
    svgs.extend(plots(report)?);
    body.push_str("<div class=\"plots\">\n");
    for (i, svg) in svgs.into_iter().enumerate() {
        let _ = writeln!(body, "<figure id=\"plot-{}\">{svg}</figure>", i + 1);
    }
    body.push_str("</div>\n");
    let _ = writeln!(
        body,
        "<h2>Table</h2>\n<pre>{}</pre>\n<h2>Configuration</h2>\n<pre class=\"wrap\">{}</pre>",
        escape(&report.table()),
        escape(&config_yaml(&report.spec))
    );
    Ok(page("tranche network", &body))
}

#[cfg(test)]
mod tests;
