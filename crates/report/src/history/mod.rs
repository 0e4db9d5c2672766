//! `tranche history`: results kept over commits (`run`, `network` and
//! `sweep` JSON files), each series — one comparable configuration, by
//! `compare`'s own rule (`crate::compare::identity`: kind, seed,
//! configuration, layout, workers, node under test, processes, database,
//! restart)
//! — ordered by `meta.date` (commit ids do not order), its headline
//! figures per result, and each step from one result to the next judged
//! by `compare`'s rule (exact figures exactly, CPU within the tolerance):
//! a step it calls a regression is marked, with what failed. Results of
//! one name that fall into different series are said to be so, what
//! differs named ([`apart`]). Printed as a table (`table`), drawn as a
//! page (`page`).

mod figures;
pub mod page;
mod table;

pub use table::render;

use crate::compare::identity::{differences, series_key, Identity};
use crate::compare::{self, Comparison, CpuPolicy, Verdict};
use crate::meta::kind;
use crate::results::ResultFile;
use crate::Meta;

/// One result of a series.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The file it was read from.
    pub file: String,
    pub date: String,
    pub commit: String,
    /// The headline figures, one line per layout (run) or grid point
    /// (sweep); a network report has one.
    pub lines: Vec<Figures>,
    /// Against the result before it.
    pub step: Step,
}

/// The headline figures of one layout or grid point.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    /// `classic`, `parallel/4`, `100 vals 20 cores no-show 0.2 slow 0`...
    pub label: String,
    /// One per figure of the series' kind ([`Series::figures`]).
    pub values: Vec<Option<f64>>,
}

/// A step from one result to the next, judged as `compare` judges.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// The first result of its series.
    First,
    /// No regression.
    Pass,
    /// What `compare` calls a regression, one line per failed figure.
    Regression(Vec<String>),
    /// The two could not be judged (another result format, ...).
    NotComparable(String),
}

impl Step {
    pub fn is_regression(&self) -> bool {
        matches!(self, Step::Regression(_))
    }

    /// The table's cell.
    pub fn label(&self) -> &'static str {
        match self {
            Step::First => "first",
            Step::Pass => "pass",
            Step::Regression(_) => "REGRESSION",
            Step::NotComparable(_) => "not comparable",
        }
    }
}

/// The results of one comparable configuration, in date order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub kind: &'static str,
    /// What makes its results comparable (its first result's).
    pub identity: Identity,
    /// What was run: the step, the network file, the sweep.
    pub name: String,
    pub seed: u64,
    pub config_hash: String,
    pub points: Vec<Point>,
}

impl Series {
    /// The figures of its kind: (name, decimals shown).
    pub fn figures(&self) -> &'static [(&'static str, usize)] {
        figures::names(self.kind)
    }

    pub fn regressions(&self) -> usize {
        self.points
            .iter()
            .filter(|p| p.step.is_regression())
            .count()
    }
}

/// A file read, ready to be placed in a series.
pub struct Entry {
    pub file: String,
    pub result: ResultFile,
}

/// Series out of `entries`, each in `meta.date` order (a tie in file
/// name order), every step judged under `policy`; and a line for each
/// file left out (no `meta.date`: written before results carried one; no
/// run or grid point: nothing to follow).
pub fn build(entries: Vec<Entry>, policy: &CpuPolicy) -> (Vec<Series>, Vec<String>) {
    let mut skipped = Vec::new();
    let mut dated: Vec<(i64, Meta, Entry)> = Vec::new();
    for e in entries {
        let when = e
            .result
            .meta()
            .and_then(|m| crate::results::date_seconds(&m.date).map(|t| (t, m.clone())));
        let file = tranche_cli::text::bare(&e.file);
        match when {
            None => skipped.push(format!(
                "{file}: no meta.date (written before results carried one); left out"
            )),
            Some(_) if figures::of(&e.result).is_empty() => skipped.push(format!(
                "{file}: it holds no run or grid point, nothing to follow; left out"
            )),
            Some((t, m)) => dated.push((t, m, e)),
        }
    }
    dated.sort_by(|(a, _, x), (b, _, y)| a.cmp(b).then(x.file.cmp(&y.file)));
    let mut series: Vec<(Series, Option<ResultFile>)> = Vec::new();
    for (_, meta, entry) in dated {
        let k = entry.result.kind();
        let id = Identity::of(&entry.result);
        let key = series_key(&id);
        let at = series
            .iter()
            .position(|(s, _)| series_key(&s.identity) == key);
        let at = at.unwrap_or_else(|| {
            series.push((
                Series {
                    kind: k,
                    name: figures::name(&entry.result),
                    seed: id.seed.unwrap_or(meta.seed),
                    config_hash: id.config_hash.clone(),
                    identity: id,
                    points: Vec::new(),
                },
                None,
            ));
            series.len() - 1
        });
        let (s, previous) = &mut series[at];
        let step = match previous {
            None => Step::First,
            Some(prev) => judge(prev, &entry.result, policy),
        };
        s.points.push(Point {
            file: entry.file,
            date: meta.date.clone(),
            commit: meta.commit.clone(),
            lines: figures::of(&entry.result),
            step,
        });
        *previous = Some(entry.result);
    }
    (series.into_iter().map(|(s, _)| s).collect(), skipped)
}

/// For each two series of one kind and name (the same step, network file
/// or sweep) that are not comparable, a line naming what differs: their
/// results are followed apart, never judged one against the other.
pub fn apart(series: &[Series]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, a) in series.iter().enumerate() {
        for (j, b) in series.iter().enumerate().skip(i + 1) {
            if a.kind != b.kind || a.name != b.name {
                continue;
            }
            if let Some(why) = differences(&a.identity, &b.identity) {
                out.push(format!(
                    "series {} and {} ({}): {why}; followed apart, never judged one against \
                     the other",
                    i + 1,
                    j + 1,
                    tranche_cli::text::bare(&a.name)
                ));
            }
        }
    }
    out
}

/// The step from `prev` to `cur` (one kind), by `compare`'s rule.
fn judge(prev: &ResultFile, cur: &ResultFile, policy: &CpuPolicy) -> Step {
    let judged = match (prev, cur) {
        (ResultFile::Run(b), ResultFile::Run(c)) => compare::not_comparable(b, c)
            .map(Err)
            .unwrap_or_else(|| Ok(compare::compare(b, c, policy))),
        (ResultFile::Network(b), ResultFile::Network(c)) => compare::network::not_comparable(b, c)
            .map(Err)
            .unwrap_or_else(|| Ok(compare::network::compare(b, c, policy))),
        (ResultFile::SweepRun(b), ResultFile::SweepRun(c)) => Ok(figures::sweep_run(b, c, policy)),
        (ResultFile::SweepNetwork(b), ResultFile::SweepNetwork(c)) => {
            Ok(figures::sweep_network(b, c, policy))
        }
        _ => Err(format!(
            "{} after {}",
            kind::describe(cur.kind()),
            kind::describe(prev.kind())
        )),
    };
    match judged {
        Err(why) => Step::NotComparable(why),
        Ok(c) if c.rows.is_empty() => {
            Step::NotComparable("no figure in common with the result before".into())
        }
        Ok(c) => step_of(&c),
    }
}

fn step_of(c: &Comparison) -> Step {
    let failed: Vec<String> = c
        .rows
        .iter()
        .filter(|r| r.verdict == Verdict::Regression)
        .map(|r| {
            let diff = if r.difference.is_empty() {
                String::new()
            } else {
                format!(" ({})", r.difference)
            };
            let b = tranche_cli::text::bare;
            format!(
                "{}: {} -> {}{} [{}]",
                b(&r.figure),
                b(&r.baseline),
                b(&r.current),
                b(&diff),
                b(&r.run)
            )
        })
        .collect();
    if failed.is_empty() {
        Step::Pass
    } else {
        Step::Regression(failed)
    }
}

#[cfg(test)]
mod tests;
