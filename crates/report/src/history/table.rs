//! The table of `tranche history`: per series a heading, a row per
//! result and layout (or grid point) with its headline figures and the
//! step's verdict, and under it what each regression was.

use super::{Series, Step};
use std::fmt::Write as _;
use tranche_cli::text::{bare, counted, escape_controls};

/// The commit as the table shows it: 12 hex digits, as `--version`.
fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// One series' table.
pub fn series_table(s: &Series) -> String {
    let figures = s.figures();
    let mut headers = vec!["#", "date", "commit", "line"];
    headers.extend(figures.iter().map(|(n, _)| *n));
    headers.push("step");
    let mut cells: Vec<Vec<String>> = Vec::new();
    for (i, p) in s.points.iter().enumerate() {
        for (j, line) in p.lines.iter().enumerate() {
            let first = j == 0;
            let mut row = vec![
                if first {
                    (i + 1).to_string()
                } else {
                    String::new()
                },
                if first { p.date.clone() } else { String::new() },
                if first {
                    short(&p.commit).to_owned()
                } else {
                    String::new()
                },
                line.label.clone(),
            ];
            row.extend(line.values.iter().zip(figures).map(|(v, (_, d))| {
                v.map_or_else(|| "-".to_owned(), |v| format!("{v:.d$}", d = *d))
            }));
            row.push(if first {
                p.step.label().to_owned()
            } else {
                String::new()
            });
            cells.push(row);
        }
    }
    let mut out = crate::columns(&headers, &cells);
    for (i, p) in s.points.iter().enumerate() {
        match &p.step {
            Step::Regression(failed) => {
                let _ = writeln!(
                    out,
                    "regression at #{} (commit {}, {}):",
                    i + 1,
                    bare(short(&p.commit)),
                    bare(&p.file)
                );
                for f in failed {
                    let _ = writeln!(out, "  {}", escape_controls(f));
                }
            }
            Step::NotComparable(why) => {
                let why = escape_controls(why);
                let _ = writeln!(out, "#{} not comparable with #{i}: {why}", i + 1);
            }
            _ => {}
        }
    }
    out
}

/// The heading of a series: what was run, and what makes its results
/// comparable.
pub fn heading(s: &Series) -> String {
    let id = &s.identity;
    let mut what = format!("seed {}, config {}", s.seed, bare(&s.config_hash));
    if !id.layouts.is_empty() {
        what.push_str(&format!(", layout {}", bare(&id.layouts.join("+"))));
    }
    if !id.workers.is_empty() {
        let w: Vec<String> = id.workers.iter().map(usize::to_string).collect();
        what.push_str(&format!(", workers {}", w.join("+")));
    }
    if !id.node.is_empty() {
        what.push_str(&format!(", node {}", bare(&id.node.join("+"))));
    }
    if let Some(p) = id.processes {
        what.push_str(&format!(", {}", counted(p, "process")));
    }
    if let Some(t) = id.threads {
        what.push_str(&format!(", {}", counted(t, "thread")));
    }
    if !id.database.is_empty() {
        what.push_str(&format!(", database {}", bare(&id.database)));
    }
    if !id.restarts.is_empty() {
        let at: Vec<String> = id.restarts.iter().map(u32::to_string).collect();
        what.push_str(&format!(", restart at block {}", at.join("+")));
    }
    format!(
        "{}: {} ({what}), {} in meta.date order, {}",
        s.kind,
        bare(&s.name),
        counted(s.points.len(), "result"),
        counted(s.regressions(), "regression")
    )
}

/// The whole text: each series' heading and table, then a line per file
/// left out and the verdict over all.
pub fn render(series: &[Series], skipped: &[String]) -> String {
    let mut out = String::new();
    for s in series {
        let _ = writeln!(out, "{}\n", heading(s));
        out.push_str(&series_table(s));
        out.push('\n');
    }
    for line in skipped {
        let _ = writeln!(out, "note: {}", escape_controls(line));
    }
    for line in super::apart(series) {
        let _ = writeln!(out, "not comparable: {line}");
    }
    let regressions: usize = series.iter().map(Series::regressions).sum();
    let results: usize = series.iter().map(|s| s.points.len()).sum();
    let _ = writeln!(
        out,
        "{}, {}, {} compare {} a regression (compare's rule: exact figures exactly, CPU \
         within the tolerance)",
        counted(series.len(), "series"),
        counted(results, "result"),
        counted(regressions, "step"),
        if regressions == 1 { "calls" } else { "call" }
    );
    out
}
