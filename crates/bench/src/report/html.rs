//! `tranche run --html FILE`: one self-contained HTML page with plots of
//! every run (inline SVG drawn by plotters' SVG backend; no script, no
//! font or style sheet fetched, so it opens offline): approval time per
//! block, CPU per thread group over time, bytes in and out over time and
//! queue depth over time. Runs of the same step (`--architecture both`)
//! are overlaid in the same plots; the text report follows.

use crate::report::{render, RunReport};
use anyhow::{anyhow, Result};
use plotters::prelude::*;
use std::fmt::Write as _;

/// One line of a plot.
struct Series {
    name: String,
    points: Vec<(f64, f64)>,
}

const WIDTH: u32 = 600;
const HEIGHT: u32 = 360;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn range(values: impl Iterator<Item = f64>, from_zero: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if from_zero {
        lo = lo.min(0.0);
    }
    if hi - lo < 1e-9 {
        hi = lo + 1.0;
    }
    (lo, hi + (hi - lo) * 0.05)
}

/// How a chart is drawn.
struct Style {
    /// Circles at the data points, integer x labels (one per block).
    per_block: bool,
    legend: SeriesLabelPosition,
}

const OVER_TIME: Style = Style {
    per_block: false,
    legend: SeriesLabelPosition::LowerRight,
};

/// Draw a line chart into an SVG string.
fn chart(
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[Series],
    style: Style,
) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        let err = |e: DrawingAreaErrorKind<std::io::Error>| anyhow!("cannot draw {title}: {e}");
        root.fill(&WHITE).map_err(err)?;
        let (x0, x1) = range(
            series.iter().flat_map(|s| s.points.iter().map(|p| p.0)),
            false,
        );
        let (y0, y1) = range(
            series.iter().flat_map(|s| s.points.iter().map(|p| p.1)),
            true,
        );
        let mut c = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(err)?;
        let x_labels = if style.per_block {
            ((x1 - x0).round() as usize + 1).clamp(2, 20)
        } else {
            10
        };
        c.configure_mesh()
            .x_labels(x_labels)
            .x_label_formatter(&|x| {
                if style.per_block {
                    format!("{x:.0}")
                } else {
                    format!("{x}")
                }
            })
            .x_desc(x_desc)
            .y_desc(y_desc)
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(err)?;
        if series.iter().all(|s| s.points.is_empty()) {
            root.draw(&Text::new(
                "no data in this report",
                ((WIDTH / 2 - 80) as i32, (HEIGHT / 2) as i32),
                ("sans-serif", 16),
            ))
            .map_err(err)?;
        }
        for (i, s) in series.iter().enumerate() {
            let color = Palette99::pick(i).mix(1.0);
            c.draw_series(LineSeries::new(
                s.points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(err)?
            .label(s.name.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
            if style.per_block {
                c.draw_series(s.points.iter().map(|p| Circle::new(*p, 4, color.filled())))
                    .map_err(err)?;
            }
        }
        if !series.is_empty() {
            c.configure_series_labels()
                .position(style.legend)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.4))
                .label_font(("sans-serif", 12))
                .draw()
                .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

fn approval_series(runs: &[&RunReport]) -> Vec<Series> {
    runs.iter()
        .map(|r| Series {
            name: r.layout(),
            points: r
                .blocks
                .iter()
                .filter_map(|b| {
                    b.approved_after_ms
                        .map(|ms| (f64::from(b.number), ms as f64 / 1e3))
                })
                .collect(),
        })
        .collect()
}

fn cpu_series(runs: &[&RunReport]) -> Vec<Series> {
    let mut out = Vec::new();
    for r in runs {
        let mut groups: Vec<&String> = Vec::new();
        for s in &r.samples {
            for g in s.cpu_s.keys() {
                if !groups.contains(&g) {
                    groups.push(g);
                }
            }
        }
        for g in groups {
            out.push(Series {
                name: format!("{}: {g}", r.layout()),
                points: r
                    .samples
                    .iter()
                    .filter_map(|s| s.cpu_s.get(g).map(|v| (s.t_s, *v)))
                    .collect(),
            });
        }
    }
    out
}

fn bytes_series(runs: &[&RunReport]) -> Vec<Series> {
    let mut out = Vec::new();
    for r in runs {
        let kib = |name: &str, f: fn(&crate::report::Sample) -> u64| Series {
            name: format!("{}: {name}", r.layout()),
            points: r
                .samples
                .iter()
                .map(|s| (s.t_s, f(s) as f64 / 1024.0))
                .collect(),
        };
        out.push(kib("received", |s| s.received_bytes));
        out.push(kib("sent", |s| s.sent_bytes));
    }
    out
}

fn depth_series(runs: &[&RunReport]) -> Vec<Series> {
    runs.iter()
        .map(|r| Series {
            name: r.layout(),
            points: r
                .samples
                .iter()
                .map(|s| (s.t_s, s.queue_depth as f64))
                .collect(),
        })
        .collect()
}

/// The page for every run of an invocation.
pub fn render_html(runs: &[RunReport]) -> Result<String> {
    let mut steps: Vec<&str> = Vec::new();
    for r in runs {
        if !steps.contains(&r.name.as_str()) {
            steps.push(&r.name);
        }
    }
    let mut body = String::new();
    for step in steps {
        let group: Vec<&RunReport> = runs.iter().filter(|r| r.name == step).collect();
        let first = group[0];
        let time = if first.clock == "virtual" {
            "time since the first slot, s (virtual)"
        } else {
            "time since the first slot, s"
        };
        let _ = writeln!(body, "<section><h2>{}</h2>", escape(step));
        let _ = writeln!(
            body,
            "<p>{} validators, {} cores, {} blocks, clock {}, seed {}; {}.</p>",
            first.n_validators,
            first.n_cores,
            first.num_blocks,
            escape(&first.clock),
            first.seed,
            escape(
                &group
                    .iter()
                    .map(|r| r.layout())
                    .collect::<Vec<_>>()
                    .join(" and ")
            )
        );
        body.push_str("<div class=\"plots\">\n");
        for svg in [
            chart(
                "Approval time per block",
                "block",
                "s after slot start",
                &approval_series(&group),
                Style {
                    per_block: true,
                    legend: SeriesLabelPosition::UpperRight,
                },
            )?,
            chart(
                "CPU per thread group (cumulative)",
                time,
                "CPU s",
                &cpu_series(&group),
                OVER_TIME,
            )?,
            chart(
                "Bytes in and out (cumulative)",
                time,
                "KiB",
                &bytes_series(&group),
                OVER_TIME,
            )?,
            chart(
                "Queue depth (deepest per channel since the last sample, summed)",
                time,
                "messages",
                &depth_series(&group),
                Style {
                    per_block: false,
                    legend: SeriesLabelPosition::UpperRight,
                },
            )?,
        ] {
            let _ = writeln!(body, "<figure>{svg}</figure>");
        }
        body.push_str("</div>\n");
        let owned: Vec<RunReport> = group.iter().map(|r| (*r).clone()).collect();
        let _ = writeln!(body, "<pre>{}</pre></section>", escape(&render(&owned)));
    }
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>tranche run report</title>\n<style>\
         body{{font-family:sans-serif;margin:1.5em;color:#222}}\
         .plots{{display:flex;flex-wrap:wrap;gap:8px}}\
         figure{{margin:0;border:1px solid #ddd}}\
         pre{{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:12px}}\
         </style></head><body>\n<h1>tranche run report</h1>\n{body}</body></html>\n"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::*;

    #[test]
    fn the_page_is_self_contained_with_four_plots_per_step() {
        let mut samples = Vec::new();
        for t in 0..5u64 {
            samples.push(Sample {
                t_s: t as f64 * 0.5,
                tick: t,
                cpu_s: [("approval-voting".to_owned(), t as f64 * 0.1)].into(),
                received_bytes: t * 1000,
                sent_bytes: t * 2000,
                queue_depth: t,
                approved_blocks: 0,
            });
        }
        let run = RunReport {
            name: "a <step>".into(),
            architecture: "classic".into(),
            workers: 1,
            clock: "virtual".into(),
            seed: 0,
            n_validators: 10,
            n_cores: 2,
            num_blocks: 1,
            blocks: vec![BlockReport {
                number: 1,
                approved_tick: Some(4),
                approved_after_ms: Some(2000),
            }],
            network: NetworkReport::default(),
            cpu: vec![],
            node_cpu_s: 0.0,
            counts: Counts::default(),
            generation: GenerationReport::default(),
            crypto_floor: FloorReport::default(),
            wall_time_s: 0.0,
            peak_memory_bytes: 0,
            protocol: ProtocolReport::default(),
            samples,
        };
        let mut parallel = run.clone();
        parallel.architecture = "parallel".into();
        parallel.workers = 4;
        let html = render_html(&[run, parallel]).unwrap();
        assert_eq!(html.matches("<svg").count(), 4);
        assert!(html.contains("a &lt;step&gt;"));
        assert!(html.contains("parallel/4: received"));
        assert!(!html.contains("src=") && !html.contains("href="));
        assert!(!html.contains("<script"));
        assert!(!html.contains("<link"));
    }
}
