//! `tranche run --html FILE`: one self-contained HTML page with plots of
//! every run (inline SVG drawn by `html_chart.rs`; no script, no font or
//! style sheet fetched, no URL at all, so it opens offline). Every plot is
//! per block, as upstream's `polkadot/node/subsystem-bench/src/lib/display.rs`
//! reports per block: approval time (the 6 s slot marked), CPU of each
//! thread group and each distribution worker, bytes in and out, and the
//! deepest channel of each kind. Runs of the same step
//! (`--architecture both`) share the plots, one colour per layout; the
//! run's metadata (`report::meta`) heads the page and the text report
//! follows each step.

use crate::html_chart::{bar_chart, layout_colour, Bars, Mark};
use crate::{render, Meta, RunReport, Sample};
use anyhow::Result;
use std::fmt::Write as _;

/// Seconds of a slot: blocks come one per slot from the first
/// (`tranche-workload`'s world), so block `i` (from 0) owns the samples
/// from `6 i` s to `6 (i + 1)` s, the last block everything after.
const SLOT_S: f64 = 6.0;

/// Text made safe inside HTML or SVG markup and attributes (either
/// quote): the one escape of every page.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The samples of each block's slot, in block order.
fn slots(run: &RunReport) -> Vec<Vec<&Sample>> {
    let n = run.blocks.len();
    let mut out: Vec<Vec<&Sample>> = vec![Vec::new(); n];
    for s in &run.samples {
        if n > 0 {
            let i = ((s.t_s / SLOT_S).floor().max(0.0) as usize).min(n - 1);
            out[i].push(s);
        }
    }
    out
}

/// What a cumulative figure grew by during each block's slot.
fn per_block_growth(run: &RunReport, f: impl Fn(&Sample) -> Option<f64>) -> Vec<Option<f64>> {
    let mut before = 0.0;
    slots(run)
        .iter()
        .map(|slot| {
            let end = slot.iter().rev().find_map(|s| f(s))?;
            let grew = (end - before).max(0.0);
            before = end;
            Some(grew)
        })
        .collect()
}

/// The highest value of a figure during each block's slot.
fn per_block_peak(run: &RunReport, f: impl Fn(&Sample) -> Option<f64>) -> Vec<Option<f64>> {
    slots(run)
        .iter()
        .map(|slot| slot.iter().filter_map(|s| f(s)).reduce(f64::max))
        .collect()
}

/// One plot's bars: a layout each, from `values` of its run; a layout
/// with no value in the plot (a thread group it does not have) is left
/// out, legend included.
fn bars(
    group: &[&RunReport],
    layouts: &[String],
    values: impl Fn(&RunReport) -> Vec<Option<f64>>,
) -> Vec<Bars> {
    group
        .iter()
        .map(|r| Bars {
            layout: r.layout(),
            colour: layout_colour(&r.layout(), layouts),
            values: values(r),
        })
        .filter(|b| b.values.iter().any(Option::is_some))
        .collect()
}

/// The keys of a per-sample map over the runs, in first-seen order.
fn keys<'a, V: 'a>(
    group: &[&'a RunReport],
    map: impl Fn(&'a Sample) -> &'a std::collections::BTreeMap<String, V>,
) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for s in group.iter().flat_map(|r| &r.samples) {
        for k in map(s).keys() {
            if !out.contains(&k.as_str()) {
                out.push(k);
            }
        }
    }
    out
}

/// Every plot of one step, as SVG strings.
fn step_plots(group: &[&RunReport], layouts: &[String]) -> Result<Vec<String>> {
    let blocks: Vec<u32> = group[0].blocks.iter().map(|b| b.number).collect();
    let mut plots = vec![bar_chart(
        "Approval time per block",
        "s after slot start",
        &blocks,
        &bars(group, layouts, |r| {
            r.blocks
                .iter()
                .map(|b| b.approved_after_ms.map(|ms| ms as f64 / 1e3))
                .collect()
        }),
        Some(&Mark {
            y: SLOT_S,
            label: "slot (6 s)".into(),
        }),
    )?];
    type Cpu = fn(&Sample) -> &std::collections::BTreeMap<String, f64>;
    for (what, map) in [
        ("", (|s| &s.cpu_s) as Cpu),
        ("worker ", |s| &s.worker_cpu_s),
    ] {
        for g in keys(group, map) {
            plots.push(bar_chart(
                &format!("CPU per block: {what}{g}"),
                "CPU s",
                &blocks,
                &bars(group, layouts, |r| {
                    per_block_growth(r, |s| map(s).get(g).copied())
                }),
                None,
            )?);
        }
    }
    type Bytes = fn(&Sample) -> u64;
    for (what, f) in [
        ("in (received)", (|s| s.received_bytes) as Bytes),
        ("out (sent)", |s| s.sent_bytes),
    ] {
        plots.push(bar_chart(
            &format!("Bytes {what} per block"),
            "KiB",
            &blocks,
            &bars(group, layouts, |r| {
                per_block_growth(r, |s| Some(f(s) as f64 / 1024.0))
            }),
            None,
        )?);
    }
    for k in keys(group, |s| &s.queue_depth_by_kind) {
        plots.push(bar_chart(
            &format!("Deepest {k} channel per block"),
            "messages",
            &blocks,
            &bars(group, layouts, |r| {
                per_block_peak(r, |s| s.queue_depth_by_kind.get(k).map(|d| *d as f64))
            }),
            None,
        )?);
    }
    Ok(plots)
}

/// The run's metadata as a table.
fn meta_header(meta: Option<&Meta>) -> String {
    let Some(m) = meta else {
        return "<p>No metadata (a report of result format 0.1.0).</p>\n".into();
    };
    let machine = format!(
        "{} CPUs, {}, {:.1} GiB",
        m.machine.nproc,
        if m.machine.cpu_model.is_empty() {
            "unknown CPU"
        } else {
            &m.machine.cpu_model
        },
        m.machine.memory_bytes as f64 / (1u64 << 30) as f64
    );
    let rows = [
        ("tool", format!("{} (result format {})", m.tool, m.version)),
        ("commit", m.commit.clone()),
        ("build", m.profile.clone()),
        ("command", m.command.clone()),
        ("date", m.date.clone()),
        ("machine", machine),
        ("database", m.database.clone()),
        ("seed", m.seed.to_string()),
        ("config hash", m.config_hash.clone()),
    ];
    let mut s = String::from("<table class=\"meta\">\n");
    for (k, v) in rows {
        let _ = writeln!(s, "<tr><th>{k}</th><td>{}</td></tr>", escape(&v));
    }
    s.push_str("</table>\n");
    s
}

/// The page for every run of an invocation.
pub fn render_html(runs: &[RunReport], meta: Option<&Meta>) -> Result<String> {
    let mut steps: Vec<&str> = Vec::new();
    let mut layouts: Vec<String> = Vec::new();
    for r in runs {
        if !steps.contains(&r.name.as_str()) {
            steps.push(&r.name);
        }
        if !layouts.contains(&r.layout()) {
            layouts.push(r.layout());
        }
    }
    let mut body = meta_header(meta);
    let mut plot_id = 0;
    for step in steps {
        let group: Vec<&RunReport> = runs.iter().filter(|r| r.name == step).collect();
        let first = group[0];
        let _ = writeln!(body, "<section><h2>{}</h2>", escape(step));
        let _ = writeln!(
            body,
            "<p>{} validators, {} cores, {} blocks, clock {}, seed {}; {}. \
             Figures per block are taken over the block's 6 s slot.</p>",
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
        for svg in step_plots(&group, &layouts)? {
            plot_id += 1;
            let _ = writeln!(body, "<figure id=\"plot-{plot_id}\">{svg}</figure>");
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
         table.meta th{{text-align:left;padding-right:1em}}\
         pre{{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:12px}}\
         </style></head><body>\n<h1>tranche run report</h1>\n{body}</body></html>\n"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::*;

    /// Two blocks of 6 s; CPU and bytes grow linearly, 2 workers.
    fn run(architecture: &str, workers: usize) -> RunReport {
        let mut samples = Vec::new();
        for t in 0..24u64 {
            let t_s = t as f64 * 0.5;
            samples.push(Sample {
                t_s,
                tick: t,
                cpu_s: [("approval-voting".to_owned(), t_s * 0.1)].into(),
                worker_cpu_s: [("approval-voting-parallel-0".to_owned(), t_s)].into(),
                received_bytes: t * 1024,
                sent_bytes: t * 2048,
                queue_depth: t,
                queue_depth_by_kind: [("approval-voting".to_owned(), t)].into(),
                approved_blocks: 0,
            });
        }
        let mut r = fixture::run();
        r.name = "a <step>".into();
        r.architecture = architecture.into();
        r.workers = workers;
        r.samples = samples;
        r
    }

    #[test]
    fn per_block_figures_are_growth_within_the_slot_not_cumulative() {
        let r = run("classic", 1);
        // Samples at 0 .. 5.5 s belong to block 1, 6 .. 11.5 s to block 2.
        let kib = per_block_growth(&r, |s| Some(s.received_bytes as f64 / 1024.0));
        assert_eq!(kib, vec![Some(11.0), Some(12.0)]);
        let depth = per_block_peak(&r, |s| {
            s.queue_depth_by_kind
                .get("approval-voting")
                .map(|d| *d as f64)
        });
        assert_eq!(depth, vec![Some(11.0), Some(23.0)]);
    }

    #[test]
    fn a_layout_keeps_its_colour_in_every_plot() {
        let layouts = vec!["parallel/4".to_owned(), "classic".to_owned()];
        assert_eq!(
            layout_colour("classic", &layouts),
            layout_colour("classic", &["classic".to_owned()])
        );
        assert_ne!(
            layout_colour("classic", &layouts),
            layout_colour("parallel/4", &layouts)
        );
    }

    #[test]
    fn the_page_is_self_contained_with_every_plot_and_the_metadata() {
        let meta = Meta::collect("redb", 7, &[]);
        let html = render_html(&[run("classic", 1), run("parallel", 4)], Some(&meta)).unwrap();
        // Approval, CPU of one group and one worker, bytes in and out,
        // one channel kind.
        assert_eq!(html.matches("<svg").count(), 6);
        assert_eq!(html.matches("<figure id=\"plot-").count(), 6);
        assert!(html.contains("a &lt;step&gt;"));
        assert!(html.contains("slot (6 s)"));
        assert!(html.contains("parallel/4") && html.contains("classic"));
        assert!(html.contains("worker approval-voting-parallel-0"));
        // A thread group of one layout only: the other is not in its legend.
        let mut classic = run("classic", 1);
        for smp in &mut classic.samples {
            smp.cpu_s.insert("approval-distribution".into(), smp.t_s);
        }
        let both = [&classic, &run("parallel", 4)];
        let layouts = vec!["classic".to_owned(), "parallel/4".to_owned()];
        let only = bars(&both, &layouts, |r| {
            per_block_growth(r, |s| s.cpu_s.get("approval-distribution").copied())
        });
        assert_eq!(only.len(), 1);
        assert_eq!(only[0].layout, "classic");
        assert!(html.contains(&format!("<td>{}</td>", meta.config_hash)));
        assert!(html.contains("<th>seed</th><td>7</td>"));
        for external in [
            "http://", "https://", "src=", "href=", "url(", "@import", "<script", "<link",
        ] {
            assert!(!html.contains(external), "the page names {external}");
        }
    }
}
