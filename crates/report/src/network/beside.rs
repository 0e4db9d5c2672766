//! `tranche network --beside FILE.json`: earlier runs of the same
//! network drawn beside this one — the same objective and seed, only the
//! simulated node (`node`: layout, workers, cores) differing, so that
//! what differs between the figures is the node's and nothing else (the
//! rule [`not_beside`]). What it gives: a label per run
//! ([`node_label`]), the approval time of every run against block number
//! as lines for the page (`crate::network::page`), and a table per block
//! and run for the terminal and the page ([`table`]).

use super::SimulationReport;
use crate::html_chart::Line;
use crate::meta::kind;
use crate::results::{read, ResultFile};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use tranche_config::approval_network::NetworkSpec;

/// Most earlier runs one page draws beside its own.
pub const MAX_BESIDE: usize = 4;

/// The simulated node of a run, in a few words: `classic, 8 cores`,
/// `parallel/4, 8 cores`, `parallel/4, 8 cores, a job a moment` (with
/// `batch: moment`), or `no CPU model` (every input takes no time).
pub fn node_label(spec: &NetworkSpec) -> String {
    match spec.node {
        None => "no CPU model".to_owned(),
        Some(n) => {
            // What differs from the defaults, after the cores.
            let mut rest = if n.cpu_scale == 1.0 {
                String::new()
            } else {
                format!(", costs x{}", n.cpu_scale)
            };
            if n.batch == tranche_config::node_shape::Batch::Moment {
                rest.push_str(", a job a moment");
            }
            match n.layout {
                tranche_config::node_shape::Layout::Classic => {
                    format!("classic, {} cores{rest}", n.cores)
                }
                tranche_config::node_shape::Layout::Parallel => {
                    format!("parallel/{}, {} cores{rest}", n.workers, n.cores)
                }
            }
        }
    }
}

/// The keys of an objective as YAML values, `node` left out.
fn keys_without_node(spec: &NetworkSpec) -> Vec<(String, String)> {
    let Ok(yaml_serde::Value::Mapping(map)) = yaml_serde::to_value(spec) else {
        return Vec::new();
    };
    map.into_iter()
        .filter_map(|(k, v)| {
            let key = k.as_str()?.to_owned();
            (key != "node").then(|| (key, yaml_serde::to_string(&v).unwrap_or_default()))
        })
        .collect()
}

/// Why `other` cannot be drawn beside a run of `spec` with `seed`: a
/// different seed, or an objective that differs in a key other than
/// `node` (the keys named, with both values). `None`: it can.
pub fn not_beside(spec: &NetworkSpec, seed: u64, other: &SimulationReport) -> Option<String> {
    if other.seed != seed {
        return Some(format!(
            "it ran with seed {}, this run with seed {seed}",
            other.seed
        ));
    }
    let ours = keys_without_node(spec);
    let theirs = keys_without_node(&other.spec);
    let differ: Vec<String> = ours
        .iter()
        .filter_map(|(key, value)| {
            let found = theirs.iter().find(|(k, _)| k == key).map(|(_, v)| v);
            (found != Some(value)).then(|| {
                format!(
                    "{key} ({} there, {} here)",
                    found.map_or("absent", |v| v.trim()),
                    value.trim()
                )
            })
        })
        .collect();
    (!differ.is_empty()).then(|| {
        format!(
            "its objective differs in {}: only `node` may differ",
            differ.join(", ")
        )
    })
}

/// The labels of `runs`, each its node's, made distinct by a number where
/// two runs simulated the same node.
pub fn labels(runs: &[&SimulationReport]) -> Vec<String> {
    let plain: Vec<String> = runs.iter().map(|r| node_label(&r.spec)).collect();
    plain
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if plain.iter().filter(|o| *o == l).count() > 1 {
                format!("{l} (run {})", i + 1)
            } else {
                l.clone()
            }
        })
        .collect()
}

/// Why an earlier result cannot be drawn beside this run: the file and
/// what is wrong with it, on one line.
#[derive(Debug, thiserror::Error)]
#[error("--beside {path}: {message}")]
pub struct BesideError {
    pub path: String,
    pub message: String,
}

/// Read the earlier results `paths` names and check each may be drawn
/// beside a run of `spec` with `seed` ([`not_beside`]): before the run,
/// so a long run does not fail at its end.
pub fn load(
    paths: &[PathBuf],
    spec: &NetworkSpec,
    seed: u64,
) -> Result<Vec<SimulationReport>, BesideError> {
    let fail = |path: &Path, message: String| BesideError {
        path: path.display().to_string(),
        message: tranche_cli::text::one_line(&message),
    };
    if paths.len() > MAX_BESIDE {
        return Err(fail(
            &paths[MAX_BESIDE],
            format!("at most {MAX_BESIDE} earlier runs are drawn beside one"),
        ));
    }
    let mut out = Vec::new();
    for path in paths {
        let report = match read(path) {
            Ok(ResultFile::Network(n)) => n.report,
            Ok(other) => {
                return Err(fail(
                    path,
                    format!(
                        "{}, not a `tranche network --json` result",
                        kind::describe(other.kind())
                    ),
                ))
            }
            Err(e) => return Err(fail(path, e.to_string())),
        };
        if let Some(why) = not_beside(spec, seed, &report) {
            return Err(fail(path, why));
        }
        out.push(report);
    }
    Ok(out)
}

/// Approval time against block number, seconds after each block's slot
/// start: for every run its p50, p99 and max lines and the median moment
/// the validators had enough assignments (one colour per run), a block
/// without the figure left out of that line (a line without points left
/// out).
pub fn approval_lines(runs: &[&SimulationReport]) -> Vec<Line> {
    let labels = labels(runs);
    let mut out = Vec::new();
    for (run, label) in runs.iter().zip(&labels) {
        type Pick = fn(&super::BlockSummary) -> Option<u64>;
        let figures: [(&str, Pick); 4] = [
            ("p50", |b| b.p50_ms),
            ("p99", |b| b.p99_ms),
            ("max", |b| b.max_ms),
            ("enough assignments, p50", |b| b.enough_p50_ms),
        ];
        for (figure, pick) in figures {
            out.push(Line {
                name: format!("{label}: {figure}"),
                layout: label.clone(),
                points: run
                    .blocks
                    .iter()
                    .filter_map(|b| Some((f64::from(b.number), pick(b)? as f64 / 1000.0)))
                    .collect(),
            });
        }
    }
    out.retain(|l| !l.points.is_empty());
    out
}

/// A figure in seconds with two decimals, or "-" where the run has none.
fn secs(ms: Option<u64>) -> String {
    ms.map_or_else(|| "-".to_owned(), |ms| format!("{:.2}", ms as f64 / 1000.0))
}

/// Per block and run: when the expected validators approved (p50, p99,
/// max) and had enough assignments (p50), seconds after the slot start;
/// then per run the modelled threads' busiest median and largest busy
/// share and the median validator's bytes out per block.
pub fn table(runs: &[&SimulationReport]) -> String {
    let labels = labels(runs);
    // The node column as wide as its longest label, so columns align.
    let w = labels
        .iter()
        .map(|l| l.chars().count())
        .fold(28, usize::max);
    let mut s = String::from("per block and node, s after the slot start:\n");
    let _ = writeln!(
        s,
        "{:>5}  {:<w$}  {:>8} {:>8} {:>8} {:>8} {:>9}",
        "block", "node", "p50", "p99", "max", "enough", "approved"
    );
    let blocks = runs.iter().map(|r| r.blocks.len()).max().unwrap_or(0);
    for i in 0..blocks {
        for (run, label) in runs.iter().zip(&labels) {
            let Some(b) = run.blocks.get(i) else { continue };
            let _ = writeln!(
                s,
                "{:>5}  {:<w$}  {:>8} {:>8} {:>8} {:>8} {:>9}",
                b.number,
                label,
                secs(b.p50_ms),
                secs(b.p99_ms),
                secs(b.max_ms),
                secs(b.enough_p50_ms),
                format!("{}/{}", b.approved, b.expected)
            );
        }
    }
    s.push_str(&per_node(runs, &labels, w));
    s
}

/// Per run: the busiest modelled thread (by its median validator's busy
/// share), that share and the largest, and the median validator's bytes
/// out per block; each a column of its own, two blanks apart, the node
/// column `w` wide ("-" where a run has no CPU model).
fn per_node(runs: &[&SimulationReport], labels: &[String], w: usize) -> String {
    let rows: Vec<[String; 4]> = runs
        .iter()
        .map(|run| {
            let busiest = run.cpu.as_ref().and_then(|c| {
                c.threads
                    .iter()
                    .max_by(|a, b| a.p50_busy.total_cmp(&b.p50_busy))
            });
            let pct = |v: f64| format!("{:.1} %", v * 100.0);
            let per_block = if run.blocks.is_empty() {
                "-".to_owned()
            } else {
                format!(
                    "{:.1} MiB",
                    run.bytes_out.p50 as f64 / run.blocks.len() as f64 / f64::from(1u32 << 20)
                )
            };
            match busiest {
                Some(t) => [t.name.clone(), pct(t.p50_busy), pct(t.max_busy), per_block],
                None => ["-".into(), "-".into(), "-".into(), per_block],
            }
        })
        .collect();
    let head = ["busiest thread", "p50 busy", "max busy", "out/block"];
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain([head[i].len()])
            .max()
            .unwrap_or(0)
    };
    let (t, b, m, o) = (width(0), width(1), width(2), width(3));
    let mut s = String::from(
        "per node: the busiest modelled thread, its busy share (median validator, largest), \
         bytes out per validator and block (median):\n",
    );
    let _ = writeln!(
        s,
        "  {:<w$}  {:<t$}  {:>b$}  {:>m$}  {:>o$}",
        "node", head[0], head[1], head[2], head[3]
    );
    for (label, r) in labels.iter().zip(&rows) {
        let _ = writeln!(
            s,
            "  {label:<w$}  {:<t$}  {:>b$}  {:>m$}  {:>o$}",
            r[0], r[1], r[2], r[3]
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use tranche_config::node_shape::{Layout, NodeShape};

    fn report(spec: NetworkSpec, seed: u64, p50: &[Option<u64>]) -> SimulationReport {
        let mut r = SimulationReport::new("x.yaml", &spec, seed, Vec::new(), Default::default());
        r.blocks = p50
            .iter()
            .enumerate()
            .map(|(i, ms)| super::super::BlockSummary {
                number: i as u32 + 1,
                expected: 10,
                approved: if ms.is_some() { 10 } else { 0 },
                min_ms: *ms,
                p50_ms: *ms,
                p99_ms: ms.map(|m| m + 500),
                max_ms: ms.map(|m| m + 1000),
                last: None,
                assignments: 0,
                approvals: 0,
                max_tranche: 0,
                by_tranche: Vec::new(),
                tranches_triggered: 0,
                no_shows_max: 0,
                no_shows_sum: 0,
                finalized: None,
                finalized_p50_ms: None,
                enough_p50_ms: None,
            })
            .collect();
        r
    }

    fn shaped(layout: Layout) -> NetworkSpec {
        NetworkSpec {
            node: Some(NodeShape {
                layout,
                ..NodeShape::default()
            }),
            ..NetworkSpec::default()
        }
    }

    #[test]
    fn only_the_node_may_differ() {
        let classic = report(shaped(Layout::Classic), 0, &[Some(4000)]);
        assert_eq!(not_beside(&shaped(Layout::Parallel), 0, &classic), None);
        let why = not_beside(&shaped(Layout::Parallel), 1, &classic).unwrap();
        assert!(why.contains("seed 0") && why.contains("seed 1"), "{why}");
        let mut more = shaped(Layout::Parallel);
        more.n_validators += 1;
        let why = not_beside(&more, 0, &classic).unwrap();
        assert!(why.contains("n_validators (100 there, 101 here)"), "{why}");
        assert!(!why.contains("node ("), "{why}");
    }

    #[test]
    fn labels_name_the_node_and_part_equal_ones() {
        let c = report(shaped(Layout::Classic), 0, &[]);
        let p = report(shaped(Layout::Parallel), 0, &[]);
        let none = report(NetworkSpec::default(), 0, &[]);
        assert_eq!(
            labels(&[&c, &p, &none]),
            ["classic, 8 cores", "parallel/4, 8 cores", "no CPU model"]
        );
        assert_eq!(
            labels(&[&p, &p]),
            ["parallel/4, 8 cores (run 1)", "parallel/4, 8 cores (run 2)"]
        );
        let mut moment = shaped(Layout::Parallel);
        if let Some(n) = moment.node.as_mut() {
            n.batch = tranche_config::node_shape::Batch::Moment;
        }
        let m = report(moment, 0, &[Some(4000)]);
        assert_eq!(
            labels(&[&p, &m]),
            ["parallel/4, 8 cores", "parallel/4, 8 cores, a job a moment"]
        );
        // A label longer than the column widens it: the columns align.
        let p = report(shaped(Layout::Parallel), 0, &[Some(4000)]);
        let text = table(&[&p, &m]);
        // The header and a row per run: each column ends where the
        // header's does, so every line is as long.
        let widths: Vec<usize> = text
            .lines()
            .skip(1)
            .take(3)
            .map(|l| l.chars().count())
            .collect();
        assert_eq!(widths.len(), 3, "{text}");
        assert!(widths.iter().all(|&n| n == widths[0]), "{text}");
        // Issue 60: the longest label never runs into the next column
        // ("...a job a moment approval-voting-parallel-db"): two blanks
        // after every node, the per-node part a header of its own.
        let mut busy = m.clone();
        busy.cpu = Some(crate::network::CpuSummary {
            threads: vec![crate::network::ThreadBusy {
                name: "approval-voting-parallel-db".into(),
                p50_busy: 0.001,
                max_busy: 0.002,
                saturated: Vec::new(),
            }],
            cores: crate::network::ThreadBusy {
                name: "cores".into(),
                p50_busy: 0.0,
                max_busy: 0.0,
                saturated: Vec::new(),
            },
        });
        let text = table(&[&p, &busy]);
        assert!(
            text.contains("a job a moment  approval-voting-parallel-db"),
            "{text}"
        );
        assert!(text.contains("a job a moment      4.00"), "{text}");
        let head = text.lines().find(|l| l.contains("busiest thread")).unwrap();
        let row = text.lines().find(|l| l.contains("parallel-db")).unwrap();
        assert_eq!(head.find("busiest"), row.find("approval-voting"), "{text}");
    }

    #[test]
    fn lines_per_run_leave_out_unapproved_blocks() {
        let c = report(shaped(Layout::Classic), 0, &[Some(4000), None, Some(9000)]);
        let p = report(
            shaped(Layout::Parallel),
            0,
            &[Some(3500), Some(3600), Some(3700)],
        );
        let lines = approval_lines(&[&p, &c]);
        // No run here has the moment of enough assignments: no such line.
        assert_eq!(lines.len(), 6);
        assert_eq!(lines[0].name, "parallel/4, 8 cores: p50");
        assert_eq!(lines[0].points, [(1.0, 3.5), (2.0, 3.6), (3.0, 3.7)]);
        assert_eq!(lines[5].name, "classic, 8 cores: max");
        assert_eq!(lines[5].points, [(1.0, 5.0), (3.0, 10.0)]);
        assert_eq!(lines[3].layout, lines[5].layout);
    }

    #[test]
    fn the_table_says_dash_for_what_a_run_lacks() {
        let c = report(shaped(Layout::Classic), 0, &[Some(4000), None]);
        let p = report(shaped(Layout::Parallel), 0, &[Some(3500), Some(3600)]);
        let t = table(&[&p, &c]);
        let row = t
            .lines()
            .find(|l| l.trim_start().starts_with('2') && l.contains("classic"))
            .unwrap();
        assert!(row.contains(" -") && row.contains("0/10"), "{row}");
        let row = t
            .lines()
            .find(|l| l.trim_start().starts_with('2') && l.contains("parallel"))
            .unwrap();
        assert!(row.contains("3.60") && row.contains("10/10"), "{row}");
        // No CPU model in these reports: the busy share is "-", not 0.
        assert!(
            t.lines()
                .any(|l| l.contains("classic") && l.contains(" - ")),
            "{t}"
        );
    }
}
