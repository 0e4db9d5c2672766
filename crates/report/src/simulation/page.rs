//! `tranche network --html FILE`: one self-contained page (no scripts, no
//! network) with the run's table and three plots drawn as inline SVG by
//! hand: approval time per block (min, p50, p99, max as grouped bars),
//! assignments and approvals sent per block, and distribution's bytes out
//! per validator in ascending order.

use crate::report::NetworkReport;
use std::fmt::Write as _;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 300.0;
/// Room for the axis labels left and below, the legend right.
const LEFT: f64 = 70.0;
const BOTTOM: f64 = 40.0;
const TOP: f64 = 20.0;
const LEGEND: f64 = 130.0;
const COLOURS: [&str; 4] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"];

/// Text for XML: the five special characters escaped.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// A plot frame: the y axis from 0 to `top` with five gridlines, a title.
fn frame(svg: &mut String, title: &str, unit: &str, top: f64) {
    let h = HEIGHT - BOTTOM - TOP;
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="11"><text x="{LEFT}" y="13" font-size="13">{}</text>"#,
        escape(title)
    );
    for k in 0..=5 {
        let v = top * f64::from(k) / 5.0;
        let y = TOP + h - h * f64::from(k) / 5.0;
        let _ = write!(
            svg,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{v:.0}</text>"##,
            WIDTH - LEGEND,
            LEFT - 4.0,
            y + 4.0
        );
    }
    let _ = write!(
        svg,
        r#"<text x="12" y="{:.1}" transform="rotate(-90 12 {:.1})" text-anchor="middle">{}</text>"#,
        TOP + h / 2.0,
        TOP + h / 2.0,
        escape(unit)
    );
}

fn legend(svg: &mut String, names: &[&str]) {
    for (i, name) in names.iter().enumerate() {
        let y = TOP + 16.0 * i as f64;
        let x = WIDTH - LEGEND + 10.0;
        let _ = write!(
            svg,
            r#"<rect x="{x}" y="{y}" width="10" height="10" fill="{}"/><text x="{}" y="{}">{}</text>"#,
            COLOURS[i % COLOURS.len()],
            x + 14.0,
            y + 9.0,
            escape(name)
        );
    }
}

/// Grouped bars: one group per x label, one bar per series.
fn bars(title: &str, unit: &str, labels: &[String], series: &[(&str, Vec<f64>)]) -> String {
    let top = series
        .iter()
        .flat_map(|s| s.1.iter().copied())
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max)
        .max(1.0)
        * 1.08;
    let mut svg = String::new();
    frame(&mut svg, title, unit, top);
    let h = HEIGHT - BOTTOM - TOP;
    let group = (WIDTH - LEGEND - LEFT) / labels.len().max(1) as f64;
    let bar = group * 0.8 / series.len().max(1) as f64;
    for (g, label) in labels.iter().enumerate() {
        let x0 = LEFT + group * g as f64 + group * 0.1;
        for (k, (_, values)) in series.iter().enumerate() {
            let v = values.get(g).copied().unwrap_or(0.0).max(0.0);
            let bh = h * v / top;
            let _ = write!(
                svg,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{bh:.1}" fill="{}"><title>{v:.0}</title></rect>"#,
                x0 + bar * k as f64,
                TOP + h - bh,
                bar.max(0.5),
                COLOURS[k % COLOURS.len()]
            );
        }
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            x0 + group * 0.4,
            HEIGHT - BOTTOM + 14.0,
            escape(label)
        );
    }
    let names: Vec<&str> = series.iter().map(|s| s.0).collect();
    legend(&mut svg, &names);
    svg.push_str("</svg>");
    svg
}

/// One line through `values`, in order.
fn line(title: &str, unit: &str, values: &[f64]) -> String {
    let top = values.iter().copied().fold(0.0f64, f64::max).max(1.0) * 1.08;
    let mut svg = String::new();
    frame(&mut svg, title, unit, top);
    let h = HEIGHT - BOTTOM - TOP;
    let w = WIDTH - LEGEND - LEFT;
    let n = values.len().max(2) - 1;
    let points: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            format!(
                "{:.1},{:.1}",
                LEFT + w * i as f64 / n as f64,
                TOP + h - h * v / top
            )
        })
        .collect();
    let _ = write!(
        svg,
        r#"<polyline fill="none" stroke="{}" stroke-width="1.5" points="{}"/><text x="{:.1}" y="{:.1}" text-anchor="middle">validators, fewest bytes first</text></svg>"#,
        COLOURS[0],
        points.join(" "),
        LEFT + w / 2.0,
        HEIGHT - BOTTOM + 14.0
    );
    svg
}

/// The page.
pub fn render(report: &NetworkReport) -> String {
    let labels: Vec<String> = report
        .blocks
        .iter()
        .map(|b| format!("#{}", b.number))
        .collect();
    let pick = |f: fn(&crate::report::BlockSummary) -> Option<u64>| -> Vec<f64> {
        report
            .blocks
            .iter()
            .map(|b| f(b).map_or(0.0, |v| v as f64))
            .collect()
    };
    let times = bars(
        "Approval time after the slot start, over the validators expected to approve",
        "ms",
        &labels,
        &[
            ("min", pick(|b| b.min_ms)),
            ("p50", pick(|b| b.p50_ms)),
            ("p99", pick(|b| b.p99_ms)),
            ("max", pick(|b| b.max_ms)),
        ],
    );
    let sent = bars(
        "Sent network-wide per block: candidates claimed by assignments, approval signatures",
        "count",
        &labels,
        &[
            (
                "assignments",
                report.blocks.iter().map(|b| b.assignments as f64).collect(),
            ),
            (
                "approvals",
                report.blocks.iter().map(|b| b.approvals as f64).collect(),
            ),
        ],
    );
    let mut out: Vec<f64> = report
        .validators
        .iter()
        .map(|v| v.bytes_out as f64 / 1024.0)
        .collect();
    out.sort_by(f64::total_cmp);
    let bytes = line("Distribution's bytes out per validator", "KiB", &out);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>tranche network</title></head>\
         <body style=\"font-family:sans-serif\"><h1>tranche network</h1><p>{}</p><pre>{}</pre>\
         <div>{times}</div><div>{sent}</div><div>{bytes}</div></body></html>\n",
        escape(&report.source),
        escape(&report.table())
    )
}
