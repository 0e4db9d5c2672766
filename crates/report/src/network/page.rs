//! `tranche network --html FILE`: one self-contained page (no scripts, no
//! network): the configuration and metadata header, the run's table with
//! its legend, and three plots drawn by the report crate's plotters
//! charts (`crate::html_chart`, as every other page): approval time per
//! block (min, p50, p99, max as grouped bars, the slot as a line),
//! assignments and approvals sent per block, and distribution's bytes out
//! per validator in ascending order.

use super::{BlockSummary, SimulationReport};
use crate::html::escape;
use crate::html_chart::{bar_chart, layout_colour, line_chart, BarChart, Bars, Line, Mark};
use anyhow::Result;
use std::fmt::Write as _;

/// Bars of one figure per block, coloured in order.
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

/// The configuration and how the page was made, as `key: value` lines.
fn header(report: &SimulationReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "source: {}", report.source);
    let _ = writeln!(s, "seed: {}", report.seed);
    let _ = writeln!(s, "commit: {}", report.commit);
    let _ = writeln!(s, "command: {}", report.command);
    if let Ok(serde_json::Value::Object(spec)) = serde_json::to_value(&report.spec) {
        for (k, v) in spec {
            let _ = writeln!(s, "{k}: {v}");
        }
    }
    s
}

/// The page.
pub fn render(report: &SimulationReport) -> Result<String> {
    let numbers: Vec<String> = report.blocks.iter().map(|b| b.number.to_string()).collect();
    let pick = |f: fn(&BlockSummary) -> Option<u64>| -> Vec<Option<f64>> {
        report
            .blocks
            .iter()
            .map(|b| f(b).map(|v| v as f64))
            .collect()
    };
    let slot = Mark {
        y: 6000.0,
        label: "slot (6 s)".to_owned(),
        colour: plotters::style::RGBColor(0, 0, 0),
    };
    let times = bar_chart(
        &BarChart {
            title: "Approval time after the slot start",
            x_desc: "block",
            y_desc: "ms (validators expected to approve)",
            groups: &numbers,
            integer: false,
        },
        &series(
            &["min", "p50", "p99", "max"],
            vec![
                pick(|b| b.min_ms),
                pick(|b| b.p50_ms),
                pick(|b| b.p99_ms),
                pick(|b| b.max_ms),
            ],
        ),
        &[slot],
    )?;
    let sent = bar_chart(
        &BarChart {
            title: "Sent network-wide per block",
            x_desc: "block",
            y_desc: "candidates claimed / signatures",
            groups: &numbers,
            integer: true,
        },
        &series(
            &["assignments", "approvals"],
            vec![pick(|b| Some(b.assignments)), pick(|b| Some(b.approvals))],
        ),
        &[],
    )?;
    let mut out: Vec<f64> = report
        .validators
        .iter()
        .map(|v| v.bytes_out as f64 / 1024.0)
        .collect();
    out.sort_by(f64::total_cmp);
    let bytes = line_chart(
        "Distribution's bytes out per validator",
        "validators, fewest bytes first",
        "KiB",
        &[Line {
            name: "bytes out".to_owned(),
            layout: "bytes out".to_owned(),
            points: out
                .iter()
                .enumerate()
                .map(|(i, kib)| ((i + 1) as f64, *kib))
                .collect(),
        }],
    )?;
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>tranche network</title></head>\
         <body style=\"font-family:sans-serif\"><h1>tranche network</h1><pre>{}</pre><pre>{}</pre>\
         <div>{times}</div><div>{sent}</div><div>{bytes}</div></body></html>\n",
        escape(&header(report)),
        escape(&report.table())
    ))
}
