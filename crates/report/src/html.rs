//! `tranche run --html FILE`: one self-contained HTML page with plots of
//! every run (inline SVG drawn by `html_chart.rs`; no script, no font or
//! style sheet fetched, no URL at all, so it opens offline). The headline
//! first: each step's first two plots are approval time per block (both
//! layouts, the 6 s slot marked) and the node's CPU in each block's slot
//! against the crypto floor per block (one line for each floor a layout is
//! judged by), with a legend saying which ÷ floor to read, the spread of
//! `--repeat` (or that a single run carries no run-to-run noise), and what
//! per block means. Below, folded (`<details>`), the CPU of each thread
//! group and each distribution worker, bytes in and out, and the deepest
//! channel of each kind, slot by slot. Per block is the run's total ÷ its
//! blocks, as in the table (upstream's
//! `polkadot/node/subsystem-bench/src/lib/display.rs` reports per block);
//! the bars split the run by slot, the run's tail (after the last block's
//! slot) in a bar of its own, never folded into the last block's (and no
//! tail bar where the run ended within the last slot). Runs of the same
//! step (`--architecture both`) share the plots, one colour per layout, a
//! layout's floor dashed in its colour; the run's metadata
//! (`report::meta`) heads the page and the text report follows each step.
//! Every page of the tool shares this page's frame and style sheet
//! ([`page`]): plots scale down to the window, long lines wrap or scroll
//! inside their box, so no page scrolls sideways at 800 px.

use crate::html_chart::{bar_chart, layout_colour, BarChart, Bars, Mark};
use crate::{render, Meta, RunReport, Sample};
use anyhow::Result;
use plotters::style::RGBColor;
use std::fmt::Write as _;
use tranche_cli::text::counted;

/// Seconds of a slot: blocks come one per slot from the first
/// (`tranche-workload`'s world), so block `i` (from 0) owns the samples
/// from `6 i` s to `6 (i + 1)` s; what comes after the last block's slot
/// is the run's tail.
const SLOT_S: f64 = 6.0;

/// The thread group of the driver, not part of the node.
const TEST_ENVIRONMENT: &str = "test-environment";

/// The style sheet of every page, inline (a page fetches nothing).
pub const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;color:#222}\
h1{font-size:1.6em}\
.plots{display:flex;flex-wrap:wrap;gap:8px}\
figure{margin:0;border:1px solid #ddd;min-width:0;max-width:100%;box-sizing:border-box}\
svg{display:block;max-width:100%;height:auto}\
table.meta{max-width:100%;border-collapse:collapse}\
table.meta th{text-align:left;padding-right:1em;vertical-align:top}\
table.meta td{overflow-wrap:anywhere}\
pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:12px}\
pre.wrap{white-space:pre-wrap;overflow-wrap:anywhere}\
.legend p{margin:.3em 0}details{margin:1em 0}summary{cursor:pointer}";

/// A whole page: `title` as its title and first heading, then `body`,
/// with the one style sheet; no script, no URL; well-formed XML as well
/// as HTML (void elements closed).
pub fn page(title: &str, body: &str) -> String {
    let title = escape(title);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\
         <meta name=\"viewport\" content=\"width=device-width\"/>\
         <title>{title}</title>\n<style>{STYLE}</style></head><body>\n<h1>{title}</h1>\n\
         {body}</body></html>\n"
    )
}

/// `rows` of `(name, value)` as the metadata table every page opens with.
pub fn meta_table(rows: &[(&str, String)]) -> String {
    let mut s = String::from("<table class=\"meta\">\n");
    for (k, v) in rows {
        let _ = writeln!(s, "<tr><th>{}</th><td>{}</td></tr>", escape(k), escape(v));
    }
    s.push_str("</table>\n");
    s
}

/// Text made safe inside HTML or SVG markup and attributes (either
/// quote): the one escape of every page.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The samples of each block's slot, in block order, then those of the
/// run's tail (after the last block's slot).
fn slots(run: &RunReport) -> Vec<Vec<&Sample>> {
    let n = run.blocks.len();
    let mut out: Vec<Vec<&Sample>> = vec![Vec::new(); n + 1];
    for s in &run.samples {
        let i = ((s.t_s / SLOT_S).floor().max(0.0) as usize).min(n);
        out[i].push(s);
    }
    out
}

/// What a cumulative figure grew by during each block's slot, then during
/// the tail (`None` where no sample fell in it).
fn per_slot_growth(run: &RunReport, f: impl Fn(&Sample) -> Option<f64>) -> Vec<Option<f64>> {
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

/// The highest value of a figure during each block's slot, then the tail.
fn per_slot_peak(run: &RunReport, f: impl Fn(&Sample) -> Option<f64>) -> Vec<Option<f64>> {
    slots(run)
        .iter()
        .map(|slot| slot.iter().filter_map(|s| f(s)).reduce(f64::max))
        .collect()
}

/// The node's cumulative CPU at a sample: every group but the driver's.
fn node_cpu(s: &Sample) -> Option<f64> {
    let v: f64 = s
        .cpu_s
        .iter()
        .filter(|(k, _)| k.as_str() != TEST_ENVIRONMENT)
        .map(|(_, v)| v)
        .sum();
    (!s.cpu_s.is_empty()).then_some(v)
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
            name: r.layout(),
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

/// Whether some run of the group went on after its last block's slot.
fn has_tail(group: &[&RunReport]) -> bool {
    group
        .iter()
        .any(|r| slots(r).last().is_some_and(|tail| !tail.is_empty()))
}

/// The x labels of the slot plots: the block numbers, then `tail` where
/// a run went on after the last block's slot.
fn slot_labels(group: &[&RunReport]) -> Vec<String> {
    let mut v: Vec<String> = group[0]
        .blocks
        .iter()
        .map(|b| b.number.to_string())
        .collect();
    if has_tail(group) {
        v.push("tail".into());
    }
    v
}

/// The x axis of the slot plots.
fn slot_x(group: &[&RunReport]) -> &'static str {
    if has_tail(group) {
        "block's slot (tail: after the last slot)"
    } else {
        "block's slot"
    }
}

/// Slot bars cut to the plot's groups (no tail value without a tail).
fn fit(mut bars: Vec<Bars>, groups: &[String]) -> Vec<Bars> {
    for b in &mut bars {
        b.values.truncate(groups.len());
    }
    bars
}

/// The floor each layout is judged by, per block: one line per layout,
/// dashed in the layout's colour.
fn floor_marks(group: &[&RunReport], layouts: &[String]) -> Vec<Mark> {
    let mut marks: Vec<Mark> = Vec::new();
    for r in group {
        let f = &r.crypto_floor;
        let (y, kind) = if r.batches_signatures() {
            (f.batched_per_block_s, "batched")
        } else {
            (f.per_block_s, "one by one")
        };
        if y <= 0.0 {
            continue;
        }
        marks.push(Mark {
            y,
            label: format!("floor, {kind} ({}), per block", r.layout()),
            colour: layout_colour(&r.layout(), layouts),
            dashed: true,
        });
    }
    marks
}

/// The two headline plots of a step: approval time per block, and the
/// node's CPU by slot against the floor each layout is judged by.
fn headline_plots(group: &[&RunReport], layouts: &[String]) -> Result<[String; 2]> {
    let blocks: Vec<String> = group[0]
        .blocks
        .iter()
        .map(|b| b.number.to_string())
        .collect();
    let approval = bar_chart(
        &BarChart {
            title: "Approval time per block",
            x_desc: "block",
            y_desc: "s after slot start",
            groups: &blocks,
            integer: false,
        },
        &bars(group, layouts, |r| {
            r.blocks
                .iter()
                .map(|b| b.approved_after_ms.map(|ms| ms as f64 / 1e3))
                .collect()
        }),
        &[Mark {
            y: SLOT_S,
            label: "slot (6 s)".into(),
            colour: RGBColor(0, 0, 0),
            dashed: false,
        }],
    )?;
    let groups = slot_labels(group);
    let mut cpu_bars = fit(
        bars(group, layouts, |r| per_slot_growth(r, node_cpu)),
        &groups,
    );
    for b in &mut cpu_bars {
        if let Some(r) = group.iter().find(|r| r.layout() == b.layout) {
            let per_block = r.node_cpu_s / f64::from(r.num_blocks.max(1));
            b.name = format!("{} node, {per_block:.4} s/block", b.layout);
        }
    }
    let marks = floor_marks(group, layouts);
    let cpu = bar_chart(
        &BarChart {
            // Without a floor (`--floor off`) there is none to draw.
            title: if group.iter().any(|r| r.has_floor()) {
                "Node CPU by block slot against the crypto floor"
            } else {
                "Node CPU by block slot"
            },
            x_desc: slot_x(group),
            y_desc: "CPU s",
            groups: &groups,
            integer: false,
        },
        &cpu_bars,
        &marks,
    )?;
    Ok([approval, cpu])
}

/// The folded plots of a step, as SVG strings.
fn detail_plots(group: &[&RunReport], layouts: &[String]) -> Result<Vec<String>> {
    let groups = slot_labels(group);
    let x_desc = slot_x(group);
    let chart = |title: &str, y_desc: &str, integer: bool, bars: Vec<Bars>| {
        let c = BarChart {
            title,
            x_desc,
            y_desc,
            groups: &groups,
            integer,
        };
        bar_chart(&c, &fit(bars, &groups), &[])
    };
    let mut plots = Vec::new();
    type Cpu = fn(&Sample) -> &std::collections::BTreeMap<String, f64>;
    for (what, map) in [
        ("", (|s| &s.cpu_s) as Cpu),
        ("worker ", |s| &s.worker_cpu_s),
    ] {
        for g in keys(group, map) {
            let b = bars(group, layouts, |r| {
                per_slot_growth(r, |s| map(s).get(g).copied())
            });
            plots.push(chart(
                &format!("CPU by slot: {what}{g}"),
                "CPU s",
                false,
                b,
            )?);
        }
    }
    type Bytes = fn(&Sample) -> u64;
    for (what, f) in [
        ("in (received)", (|s| s.received_bytes) as Bytes),
        ("out (sent)", |s| s.sent_bytes),
    ] {
        let b = bars(group, layouts, |r| {
            per_slot_growth(r, |s| Some(f(s) as f64 / 1024.0))
        });
        plots.push(chart(&format!("Bytes {what} by slot"), "KiB", false, b)?);
    }
    for k in keys(group, |s| &s.queue_depth_by_kind) {
        let b = bars(group, layouts, |r| {
            per_slot_peak(r, |s| s.queue_depth_by_kind.get(k).map(|d| *d as f64))
        });
        plots.push(chart(
            &format!("Deepest {k} channel by slot"),
            "messages",
            true,
            b,
        )?);
    }
    Ok(plots)
}

/// The legend under the headline plots: which ratio to read and why, the
/// spread (or that there is none), what per block means.
fn headline_legend(group: &[&RunReport]) -> String {
    let mut s = String::from("<div class=\"legend\">\n");
    for r in group {
        let (kind, why) = if r.batches_signatures() {
            (
                "batched",
                "it verifies approval signatures in batches, so the least its checks could cost is the batched floor",
            )
        } else {
            (
                "one-by-one",
                "it checks each signature alone, as Polkadot does, so the least its checks could cost is the one-by-one floor",
            )
        };
        // Of repeats, the median of each run's ratio (not the medians'
        // ratio), said so.
        let whose = r.repeats.as_ref().map_or(String::new(), |rep| {
            format!(", the median of the {} runs' ratios", rep.runs)
        });
        let _ = match r.own_floor_ratio() {
            Some(ratio) => writeln!(
                s,
                "<p><b>{}</b>: node CPU ÷ {kind} floor = <b>{ratio:.2}</b>{whose} (read this ratio: {why}).</p>",
                escape(&r.layout())
            ),
            None => writeln!(
                s,
                "<p><b>{}</b>: node CPU ÷ {kind} floor = <b>-</b> (no floor measured: \
                 <code>--floor off</code>).</p>",
                escape(&r.layout())
            ),
        };
    }
    if let Some(rep) = group.iter().find_map(|r| r.repeats.as_ref()) {
        let _ = writeln!(
            s,
            "<p>{} are the medians of {} (after {} warm-up); their range is below.</p>",
            if group.iter().any(|r| r.has_floor()) {
                "CPU, wall time, the floors and the ratios to them"
            } else {
                "CPU and wall time"
            },
            counted(rep.runs, "measured run"),
            rep.warmup
        );
    }
    let spread =
        crate::spread::render_spread(&group.iter().map(|r| (*r).clone()).collect::<Vec<_>>());
    if spread.is_empty() && group.iter().all(|r| r.is_model()) {
        s.push_str(
            "<p>One run of each layout: the model's CPU is modelled (the cost table's time), \
             exact for a configuration and seed; the floors and wall time vary between \
             runs.</p>\n",
        );
    } else if spread.is_empty() {
        s.push_str(
            "<p>One run of each layout: run-to-run noise is not included in these figures \
             (CPU and wall time vary between runs); <code>--repeat N</code> reports the median \
             and range of N runs.</p>\n",
        );
    } else {
        let _ = writeln!(s, "<pre class=\"spread\">{}</pre>", escape(&spread));
    }
    for r in group {
        let f = &r.crypto_floor;
        if f.mode == "sample" {
            let _ = writeln!(
                s,
                "<p><b>{}</b>: the floor is estimated from a sample of {} of {}; its \
                 95 % interval {:.4}..{:.4} s is the sampling error of that estimate only.</p>",
                escape(&r.layout()),
                f.sampled_messages(),
                counted(f.population_messages(), "message"),
                f.interval_s.0,
                f.interval_s.1
            );
        }
    }
    s.push_str(
        "<p>Per block is the run's total ÷ its blocks, as in the table; the bars split the \
         run by block slot (6 s each), the run's tail after the last block's slot in a bar \
         of its own.</p>\n</div>\n",
    );
    s
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
    meta_table(&[
        ("tool", format!("{} (result format {})", m.tool, m.version)),
        ("commit", m.commit.clone()),
        ("build", m.profile.clone()),
        ("command", m.command.clone()),
        ("date", m.date.clone()),
        ("machine", machine),
        ("database", m.database.clone()),
        ("seed", m.seed.to_string()),
        ("config hash", m.config_hash.clone()),
    ])
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
            "<p>{}, {}, {}, clock {}, seed {}; {}. \
             Per block: the run's total ÷ its blocks.</p>",
            counted(first.n_validators, "validator"),
            counted(first.n_cores, "core"),
            counted(first.num_blocks, "block"),
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
        for svg in headline_plots(&group, &layouts)? {
            plot_id += 1;
            let _ = writeln!(body, "<figure id=\"plot-{plot_id}\">{svg}</figure>");
        }
        body.push_str("</div>\n");
        body.push_str(&headline_legend(&group));
        let details = detail_plots(&group, &layouts)?;
        let _ = writeln!(
            body,
            "<details><summary>CPU of each thread group and worker, bytes, channel depth, \
             by slot ({})</summary>\n<div class=\"plots\">",
            counted(details.len(), "plot")
        );
        for svg in details {
            plot_id += 1;
            let _ = writeln!(body, "<figure id=\"plot-{plot_id}\">{svg}</figure>");
        }
        body.push_str("</div></details>\n");
        let owned: Vec<RunReport> = group.iter().map(|r| (*r).clone()).collect();
        let _ = writeln!(body, "<pre>{}</pre></section>", escape(&render(&owned)));
    }
    Ok(page("tranche run report", &body))
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

    /// The `<svg>…</svg>` elements of a page, in order.
    fn svgs(html: &str) -> Vec<&str> {
        html.match_indices("<svg")
            .map(|(i, _)| &html[i..i + html[i..].find("</svg>").unwrap()])
            .collect()
    }

    #[test]
    fn per_slot_figures_are_growth_within_the_slot_and_the_tail_is_apart() {
        let mut r = run("classic", 1);
        // Samples at 0 .. 5.5 s belong to block 1, 6 .. 11.5 s to block 2,
        // from 12 s on to the run's tail.
        let kib = per_slot_growth(&r, |s| Some(s.received_bytes as f64 / 1024.0));
        assert_eq!(kib, vec![Some(11.0), Some(12.0), None]);
        let depth = per_slot_peak(&r, |s| {
            s.queue_depth_by_kind
                .get("approval-voting")
                .map(|d| *d as f64)
        });
        assert_eq!(depth, vec![Some(11.0), Some(23.0), None]);
        // A long tail: 40 KiB more after the last slot goes to the tail,
        // not to block 2's bar.
        let mut last = r.samples.last().unwrap().clone();
        last.t_s = 30.0;
        last.received_bytes += 40 * 1024;
        r.samples.push(last);
        let kib = per_slot_growth(&r, |s| Some(s.received_bytes as f64 / 1024.0));
        assert_eq!(kib, vec![Some(11.0), Some(12.0), Some(40.0)]);
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
        let meta = crate::meta::collect("redb", 7, &[]);
        let html = render_html(&[run("classic", 1), run("parallel", 4)], Some(&meta)).unwrap();
        // The two headline plots, then folded: CPU of one group and one
        // worker, bytes in and out, one channel kind.
        assert_eq!(html.matches("<svg").count(), 7);
        assert_eq!(html.matches("<figure id=\"plot-").count(), 7);
        assert_eq!(html.matches("<details>").count(), 1);
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
            per_slot_growth(r, |s| s.cpu_s.get("approval-distribution").copied())
        });
        assert_eq!(only.len(), 1);
        assert_eq!(only[0].layout, "classic");
        assert!(
            html.contains("run-to-run noise is not included"),
            "a single run says so"
        );
        assert!(html.contains(&format!("<td>{}</td>", meta.config_hash)));
        assert!(html.contains("<th>seed</th><td>7</td>"));
        for external in [
            "http://", "https://", "src=", "href=", "url(", "@import", "<script", "<link",
        ] {
            assert!(!html.contains(external), "the page names {external}");
        }
    }

    #[test]
    fn the_first_two_plots_are_the_headline_with_title_legend_and_floor_inside() {
        let mut classic = run("classic", 1);
        let mut parallel = run("parallel", 4);
        for (r, ratio) in [(&mut classic, 3.3), (&mut parallel, 1.4)] {
            r.crypto_floor.per_block_s = 0.2;
            r.crypto_floor.batched_per_block_s = 0.1;
            r.crypto_floor.node_ratio = ratio;
            r.crypto_floor.node_ratio_batched = ratio * 2.0;
        }
        // A sample after the last block's slot: the run has a tail.
        let mut tail = classic.samples.last().unwrap().clone();
        tail.t_s = 13.0;
        classic.samples.push(tail);
        let html = render_html(&[classic, parallel], None).unwrap();
        let svgs = svgs(&html);
        assert!(svgs[0].contains("Approval time per block"), "{}", svgs[0]);
        assert!(svgs[0].contains("slot (6 s)") && svgs[0].contains("classic"));
        let cpu = svgs[1];
        assert!(cpu.contains("Node CPU by block slot against the crypto floor"));
        assert!(cpu.contains("floor, one by one (classic)"), "{cpu}");
        assert!(cpu.contains("floor, batched (parallel/4)"), "{cpu}");
        assert!(cpu.contains("classic node, 1.0000 s/block"), "{cpu}");
        assert!(
            cpu.contains(">\ntail\n</text>"),
            "the tail has its own group"
        );
        // Every per-thread plot comes after, folded.
        let folded = html.find("<details>").unwrap();
        assert!(html.find("CPU by slot: approval-voting").unwrap() > folded);
        // Which ratio to read: classic 3.30 (one by one), parallel 2.80
        // (batched).
        assert!(html.contains("<b>classic</b>: node CPU ÷ one-by-one floor = <b>3.30</b>"));
        assert!(html.contains("<b>parallel/4</b>: node CPU ÷ batched floor = <b>2.80</b>"));
    }

    /// Issue 41: without a floor (`--floor off`) the plot and the notes
    /// speak of none.
    #[test]
    fn without_a_floor_the_page_names_none() {
        let mut r = run("parallel", 4);
        r.crypto_floor.mode = "off".into();
        r.repeats = Some(crate::repeat::Repeats {
            runs: 3,
            warmup: 1,
            ..Default::default()
        });
        let html = render_html(&[r], None).unwrap();
        assert!(svgs(&html)[1].contains("Node CPU by block slot"));
        assert!(!html.contains("against the crypto floor"));
        assert!(html.contains("<p>CPU and wall time are the medians of 3 measured runs"));
        assert!(html.contains("(no floor measured: <code>--floor off</code>)"));
    }

    /// Issue 60: a repeated run's ratio is the median of each run's, and
    /// the page says so; a model's CPU is exact, not noise.
    #[test]
    fn the_headline_says_whose_median_and_what_is_exact() {
        let mut r = run("parallel", 4);
        let html = render_html(std::slice::from_ref(&r), None).unwrap();
        assert!(!html.contains("runs' ratios"));
        assert!(html.contains("(CPU and wall time vary between runs)"));
        r.repeats = Some(crate::repeat::Repeats {
            runs: 5,
            warmup: 1,
            ..Default::default()
        });
        let html = render_html(std::slice::from_ref(&r), None).unwrap();
        assert!(
            html.contains("</b>, the median of the 5 runs' ratios (read"),
            "{html}"
        );
        let mut model = run("parallel", 4);
        model.node_under_test = "model".into();
        let html = render_html(&[model], None).unwrap();
        assert!(html.contains("the model's CPU is modelled"), "{html}");
        assert!(!html.contains("(CPU and wall time vary between runs)"));
    }

    #[test]
    fn each_layouts_floor_interval_is_under_the_headline() {
        let mut classic = run("classic", 1);
        let mut parallel = run("parallel", 4);
        classic.crypto_floor.interval_s = (0.1177, 0.1235);
        parallel.crypto_floor.interval_s = (0.1101, 0.1199);
        let html = render_html(&[classic, parallel], None).unwrap();
        for (layout, interval) in [
            ("classic", "0.1177..0.1235"),
            ("parallel/4", "0.1101..0.1199"),
        ] {
            let p = format!("<b>{layout}</b>: the floor is estimated from a sample of 4 of 10");
            let at = html.find(&p).unwrap_or_else(|| panic!("{p}"));
            assert!(html[at..].starts_with(&p) && html[at..at + 200].contains(interval));
        }
    }

    #[test]
    fn no_tail_slot_where_the_runs_ended_within_their_last_slot() {
        // Samples up to 11.5 s, two blocks of 6 s: nothing after.
        let html = render_html(&[run("classic", 1)], None).unwrap();
        assert!(!html.contains(">\ntail\n</text>"), "an empty tail slot");
        assert!(html.contains(">\n2\n</text>"));
    }

    #[test]
    fn each_layout_has_its_floor_dashed_in_its_colour() {
        let mut classic = run("classic", 1);
        let mut parallel = run("parallel", 4);
        let mut other = run("parallel", 8);
        for r in [&mut classic, &mut parallel, &mut other] {
            r.crypto_floor.per_block_s = 0.2;
            r.crypto_floor.batched_per_block_s = 0.1;
        }
        let layouts: Vec<String> = ["classic", "parallel/4", "parallel/8"]
            .map(str::to_owned)
            .to_vec();
        let marks = floor_marks(&[&classic, &parallel, &other], &layouts);
        assert_eq!(marks.len(), 3, "a floor per layout, batched twice included");
        for (m, layout) in marks.iter().zip(&layouts) {
            assert!(m.dashed && m.label.contains(layout.as_str()), "{}", m.label);
            assert_eq!(m.colour, layout_colour(layout, &layouts));
        }
    }

    #[test]
    fn a_count_plot_has_integer_ticks_only() {
        let mut r = run("classic", 1);
        for smp in &mut r.samples {
            smp.queue_depth_by_kind = [("approval-voting".to_owned(), 1)].into();
        }
        let html = render_html(&[r], None).unwrap();
        let depth = svgs(&html)
            .into_iter()
            .find(|s| s.contains("Deepest approval-voting channel"))
            .unwrap();
        // plotters writes each text on a line of its own.
        let text = |t: &str| depth.contains(&format!(">\n{t}\n</text>"));
        for tick in ["0.1", "0.2", "0.5", "0.9"] {
            assert!(!text(tick), "tick {tick} in {depth}");
        }
        assert!(text("0") && text("1"), "{depth}");
    }

    #[test]
    fn a_repeated_run_shows_its_spread_under_the_headline() {
        let runs: Vec<RunReport> = [1.8, 2.0, 2.4]
            .iter()
            .map(|cpu| RunReport {
                node_cpu_s: *cpu,
                ..run("classic", 1)
            })
            .collect();
        let r = crate::repeat::combine(runs, 0).unwrap();
        let html = render_html(&[r], None).unwrap();
        let legend =
            &html[html.find("<div class=\"legend\">").unwrap()..html.find("<details>").unwrap()];
        assert!(legend.contains("node CPU per block, s"), "{legend}");
        assert!(legend.contains("1.0000    0.9000    1.2000"), "{legend}");
        assert!(
            !legend.contains("run-to-run noise is not included"),
            "{legend}"
        );
    }
}
