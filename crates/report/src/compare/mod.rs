//! `tranche compare BASELINE.json CURRENT.json`: the regression guard.
//!
//! Runs of the two `--json` files are matched by step name, architecture
//! and worker count. Under the virtual clock with the same seed the
//! protocol figures — approval times (ms after slot start), bytes, message counts, signature
//! checks, protocol counters — are exactly reproducible (message contents
//! are random but their sizes are fixed, and the driver drains the node to
//! idle every step), so they must match exactly: any difference fails.
//! CPU figures (per block: the run's total ÷ its blocks) are compared as
//! ratios current / baseline, and only a slowdown beyond the tolerance
//! fails; an improvement passes (upstream's check was two-sided, as
//! upstream's CI bench). With `--repeat` spreads in both files a change
//! counts only outside the baseline's range (widened by the tolerance), and
//! the node's CPU ÷ floor ratios are judged too; the crypto floors are
//! shown with their spread, never judged. CPU rows whose per-block values
//! are below a noise floor in both files are shown but not judged. Wall
//! time and memory are shown only. A legend under the table says what each
//! verdict means.

use crate::results::ResultFile;
use crate::spread::exact_figures;
use crate::spread::Spread;
use crate::{ReportFile, RunReport, FORMAT_VERSION, TOOL};
use std::fmt::Write as _;
use std::path::Path;
use tranche_cli::text::{bare, counted};

/// How CPU figures are judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpuPolicy {
    /// A current/baseline ratio above `1 + tolerance` fails.
    pub tolerance: f64,
    /// CPU rows whose baseline and current per-block values (the values
    /// the rows show) are both below this many seconds are not judged
    /// (timer and scheduling noise).
    pub floor_s: f64,
    /// Show CPU rows but judge none (comparisons across machines).
    pub ignore: bool,
}

impl Default for CpuPolicy {
    fn default() -> Self {
        CpuPolicy {
            tolerance: 0.25,
            floor_s: DEFAULT_CPU_FLOOR_S,
            ignore: false,
        }
    }
}

/// The default `--cpu-floor`: CPU seconds per block.
pub const DEFAULT_CPU_FLOOR_S: f64 = 0.01;

/// `tranche compare`'s exit status when the files cannot be judged one
/// against the other (`not_comparable`); 1 is a regression, 2 a file that
/// cannot be read.
pub const EXIT_NOT_COMPARABLE: u8 = 3;

pub use crate::results::LoadError;

/// Read a `tranche run --json` report (through [`crate::results::read`]:
/// a regular file, bounded), and check that it can be judged.
pub fn load(path: &Path) -> Result<ReportFile, LoadError> {
    match crate::results::read(path)? {
        ResultFile::Run(file) => {
            check_run(&file, path)?;
            Ok(file)
        }
        other => Err(LoadError::Parse {
            path: path.display().to_string(),
            reason: format!(
                "it is {}, not a run report",
                crate::meta::kind::describe(other.kind())
            ),
        }),
    }
}

/// [`check_comparable`] of the run report read from `path`.
pub fn check_run(file: &ReportFile, path: &Path) -> Result<(), LoadError> {
    check_comparable(file).map_err(|reason| LoadError::Incompatible {
        path: path.display().to_string(),
        reason,
    })
}

/// A report another tool wrote, one of another result format, or one with
/// two runs of the same step and layout cannot be judged.
fn check_comparable(file: &ReportFile) -> Result<(), String> {
    if file.tool != TOOL {
        return Err(format!("it was written by `{}`, not by {TOOL}", file.tool));
    }
    if !READABLE_VERSIONS.contains(&file.version.as_str()) {
        return Err(format!(
            "its result format is version {}, this build reads versions {}",
            file.version,
            READABLE_VERSIONS.join(", ")
        ));
    }
    let mut seen = std::collections::HashSet::new();
    for r in &file.runs {
        if !seen.insert((&r.name, &r.architecture, r.workers)) {
            return Err(format!(
                "it holds two runs of step {} with layout {}",
                r.name,
                r.layout()
            ));
        }
    }
    Ok(())
}

/// Result formats this build reads: its own, and 0.1.0 (before `meta`
/// and the sampled floor). Two files of different versions are still not
/// comparable ([`not_comparable`]).
pub const READABLE_VERSIONS: [&str; 2] = [FORMAT_VERSION, "0.1.0"];

/// Why two reports cannot be judged one against the other, if they
/// cannot: every reason in one line — another result format, what
/// [`identity::differences`] names (seed, configuration, layout, workers,
/// node under test, database, restart), the clock of a matched run. Runs
/// of another commit (or machine) are what `compare` is for.
pub fn not_comparable(baseline: &ReportFile, current: &ReportFile) -> Option<String> {
    for (file, which) in [(baseline, "baseline"), (current, "current file")] {
        if file.runs.is_empty() {
            return Some(format!("no figure to compare: the {which} holds no run"));
        }
    }
    let mut why: Vec<String> = Vec::new();
    let mut differ = |what: &str, b: &dyn std::fmt::Display, c: &dyn std::fmt::Display| {
        why.push(format!("the {what} differs: baseline {b}, current {c}"));
    };
    if baseline.version != current.version {
        differ("result format version", &baseline.version, &current.version);
    }
    let (b, c) = (
        identity::Identity::of_run(baseline),
        identity::Identity::of_run(current),
    );
    // Files without `meta` (older ones) say their seed run by run.
    let seeds_said = b.seed.is_some() && c.seed.is_some();
    let identity = identity::differences(&b, &c);
    for b in &baseline.runs {
        let Some(c) = current.runs.iter().find(|c| key(c) == key(b)) else {
            continue;
        };
        if b.seed != c.seed && !seeds_said {
            differ(&format!("seed of {}", label(b)), &b.seed, &c.seed);
        }
        if b.clock != c.clock {
            differ(&format!("clock of {}", label(b)), &b.clock, &c.clock);
        }
    }
    // The version first, then the identity, then the runs.
    let at = usize::from(baseline.version != current.version);
    why.splice(at..at, identity);
    (!why.is_empty()).then(|| tranche_cli::text::one_line(&why.join("; ")))
}

/// The verdict on one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Same,
    /// A deterministic figure differs, or a CPU figure slowed down beyond
    /// the tolerance.
    Regression,
    /// CPU faster than the baseline beyond the tolerance: passes.
    Improved,
    /// Within the tolerance.
    Within,
    /// Shown, not judged.
    Info,
    /// Shown, not judged: the figure varies with thread timing even under
    /// the virtual clock (`crate::timing`).
    Varies,
}

impl Verdict {
    fn label(self) -> &'static str {
        match self {
            Verdict::Same => "same",
            Verdict::Regression => "FAIL",
            Verdict::Improved => "faster",
            Verdict::Within => "ok",
            Verdict::Info => "-",
            Verdict::Varies => "varies",
        }
    }
}

/// One compared figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// `step [layout]`.
    pub run: String,
    pub figure: String,
    pub baseline: String,
    pub current: String,
    /// `+12`, `x1.10`, or empty.
    pub difference: String,
    pub verdict: Verdict,
}

/// Everything compared.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub rows: Vec<Row>,
    /// Runs of the current file without a baseline (not judged).
    pub new_runs: Vec<String>,
    /// Runs of the baseline without a current twin (listed, not failed).
    pub missing_runs: Vec<String>,
}

impl Comparison {
    pub fn regressions(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.verdict == Verdict::Regression)
            .count()
    }

    pub fn passed(&self) -> bool {
        self.regressions() == 0
    }

    /// The table, run by run, its columns as wide as their longest entry,
    /// the verdict line and a legend of the verdicts. Identical figures are
    /// counted, and listed only when `verbose`.
    pub fn render(&self, verbose: bool) -> String {
        // Every cell as a terminal may show it: control characters
        // escaped, cut after 80 bytes with its length.
        let safe: Vec<Row> = self
            .rows
            .iter()
            .filter(|r| verbose || r.verdict != Verdict::Same)
            .map(|r| Row {
                run: bare(&r.run),
                figure: bare(&r.figure),
                baseline: bare(&r.baseline),
                current: bare(&r.current),
                difference: bare(&r.difference),
                verdict: r.verdict,
            })
            .collect();
        let shown: Vec<&Row> = safe.iter().collect();
        let width = |min: usize, f: fn(&Row) -> &str| {
            shown
                .iter()
                .map(|r| f(r).chars().count())
                .fold(min, usize::max)
        };
        let (wf, wb, wc, wd) = (
            width(6, |r| &r.figure),
            width(8, |r| &r.baseline),
            width(7, |r| &r.current),
            width(4, |r| &r.difference),
        );
        // `{:<w$}` pads by chars: "÷" is one.
        let line = |f: &str, b: &str, c: &str, d: &str, v: &str| {
            format!("  {f:<wf$}  {b:>wb$}  {c:>wc$}  {d:>wd$}  {v}\n")
        };
        let mut s = String::new();
        let mut current_run: Option<&str> = None;
        for r in &shown {
            if current_run != Some(r.run.as_str()) {
                current_run = Some(r.run.as_str());
                let _ = writeln!(s, "\n{}", r.run);
                s.push_str(&line("figure", "baseline", "current", "diff", "verdict"));
            }
            s.push_str(&line(
                &r.figure,
                &r.baseline,
                &r.current,
                &r.difference,
                r.verdict.label(),
            ));
        }
        s.push('\n');
        for n in &self.new_runs {
            let _ = writeln!(s, "note: {} has no baseline run; not compared", bare(n));
        }
        for n in &self.missing_runs {
            let _ = writeln!(s, "note: {} has no current run; not compared", bare(n));
        }
        let same = self
            .rows
            .iter()
            .filter(|r| r.verdict == Verdict::Same)
            .count();
        if !verbose && same > 0 {
            let _ = writeln!(
                s,
                "{} identical (not listed; -v lists them)",
                counted(same, "figure")
            );
        }
        s.push_str(VERDICT_LEGEND);
        let (judged, n) = (self.judged(), self.regressions());
        let shown_only = self.rows.len() - judged;
        let also = if shown_only == 0 {
            String::new()
        } else {
            format!("; {shown_only} more shown, not judged")
        };
        if n == 0 {
            let _ = writeln!(
                s,
                "PASS: {} judged, no regression{also}",
                counted(judged, "figure")
            );
        } else {
            let _ = writeln!(
                s,
                "REGRESSION: {n} of {} judged failed{also}",
                counted(judged, "figure")
            );
        }
        s
    }

    /// The rows judged: those with a verdict other than shown (`-`,
    /// `varies`).
    pub fn judged(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| !matches!(r.verdict, Verdict::Info | Verdict::Varies))
            .count()
    }
}

/// What each verdict of the table means.
pub const VERDICT_LEGEND: &str = "\
verdicts: same = identical; FAIL = a deterministic figure differs, or CPU
  slowed beyond the tolerance (and the baseline's --repeat range); ok = CPU
  within them; faster = CPU faster beyond them (passes);
  - = shown, not judged (wall time, memory, test-environment, the crypto
  floors, ratios without --repeat in both files, CPU under --cpu-floor per
  block, --ignore-cpu, figures that vary under the real clock); varies =
  a count that depends on how the node's threads interleave, even under
  the virtual clock (database commits, certificates checked ahead, ...;
  docs/observability.md), shown, not judged.
CPU per block = the run's total ÷ its blocks; [min..max] = the --repeat range.
";

/// Runs are matched by step, architecture and workers. A step's name
/// starts with the path of its file as given on the command line; only the
/// file's name counts, so that a baseline matches wherever it is run from.
fn key(r: &RunReport) -> (String, String, usize) {
    let step = match r.name.rsplit_once(" #") {
        Some((path, rest)) => {
            let file = Path::new(path)
                .file_name()
                .map_or_else(|| path.to_owned(), |f| f.to_string_lossy().into_owned());
            format!("{file} #{rest}")
        }
        None => r.name.clone(),
    };
    (step, r.architecture.clone(), r.workers)
}

fn label(r: &RunReport) -> String {
    format!("{} [{}]", r.name, r.layout())
}

/// Figures that describe the run's setup: judged under either clock.
const CONFIG_FIGURES: [&str; 4] = ["seed", "validators", "cores", "blocks"];

/// The run's timing-dependent figures (`crate::timing::TIMING_DEPENDENT`,
/// but the per-sample ones), by the words of their rows
/// (`crate::timing::label`), counts as integers and per-block figures to
/// one decimal; the `schedule` ones only where the run has them.
fn timing_figures(r: &RunReport) -> Vec<(String, String)> {
    let v = serde_json::to_value(r).unwrap_or_default();
    crate::timing::TIMING_DEPENDENT
        .iter()
        .filter_map(|path| {
            let (head, field) = path.split_once('.')?;
            let value = v.get(head)?.get(field)?;
            let shown = match value {
                serde_json::Value::Number(n) if n.is_u64() => n.to_string(),
                serde_json::Value::Number(n) => format!("{:.1}", n.as_f64()?),
                _ => return None,
            };
            (head != "samples").then(|| (crate::timing::label(path).to_owned(), shown))
        })
        .collect()
}

/// `b - a` of two figures as the rows show them, with as many decimals
/// as they have (`+12`, `-0.3`); `changed` where they are no numbers.
pub(crate) fn signed_diff(a: &str, b: &str) -> String {
    let decimals = |v: &str| v.split_once('.').map_or(0, |(_, d)| d.len());
    match (a.parse::<i128>(), b.parse::<i128>()) {
        (Ok(x), Ok(y)) => format!("{:+}", y - x),
        _ => match (a.parse::<f64>(), b.parse::<f64>()) {
            (Ok(x), Ok(y)) if x.is_finite() && y.is_finite() => {
                format!("{:+.*}", decimals(a).max(decimals(b)), y - x)
            }
            _ => "changed".into(),
        },
    }
}

/// How a CPU figure is judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Judged {
    /// The node's CPU: judged.
    Node,
    /// A ratio of the node's CPU to a floor: judged only with the spreads
    /// of both files (one run's floor estimate is too noisy).
    Ratio,
    /// Shown only (the test environment, the floors).
    Shown,
}

/// A CPU figure of a run in the report's unit, CPU seconds per block (or
/// a ratio).
pub(crate) struct CpuFigure {
    pub(crate) name: String,
    pub(crate) value: f64,
    /// The spread of `value` over `--repeat` runs (absent: one run).
    pub(crate) spread: Option<(f64, f64)>,
    pub(crate) judged: Judged,
    /// Decimals shown.
    pub(crate) digits: usize,
}

impl CpuFigure {
    /// `-` for a figure the run did not produce (NaN: a floor with
    /// `--floor off`, a ratio to it).
    pub(crate) fn show(&self) -> String {
        let d = self.digits;
        if !self.value.is_finite() {
            return "-".into();
        }
        match self.spread {
            Some((lo, hi)) => format!("{:.d$} [{lo:.d$}..{hi:.d$}]", self.value),
            None => format!("{:.d$}", self.value),
        }
    }
}

/// The CPU figures of a run, the node total first, then the floors and
/// the ratios, then each thread. The test environment's CPU is shown, not
/// judged.
fn cpu_figures(r: &RunReport) -> Vec<CpuFigure> {
    let blocks = f64::from(r.num_blocks.max(1));
    let reps = r.repeats.as_ref();
    let spread = |s: Option<&Spread>, d: f64| {
        s.filter(|s| s.max > 0.0)
            .map(|s| s.per(d))
            .map(|s| (s.min, s.max))
    };
    let fig = |name: String, value: f64, s: Option<(f64, f64)>, judged, digits| CpuFigure {
        name,
        value,
        spread: s,
        judged,
        digits,
    };
    let f = &r.crypto_floor;
    // A floor not measured (`--floor off`, older files without the
    // batched one) and the ratios to it are no figures: NaN, shown `-`.
    let made = |v: f64, floor_s: f64| {
        if f.mode == "off" || floor_s <= 0.0 {
            f64::NAN
        } else {
            v
        }
    };
    let mut v = vec![
        fig(
            "node total, CPU s per block".into(),
            r.node_cpu_s / blocks,
            spread(reps.map(|x| &x.node_cpu_s), blocks),
            Judged::Node,
            4,
        ),
        fig(
            "crypto floor, one-by-one, CPU s per block".into(),
            made(f.cpu_s / blocks, f.cpu_s),
            spread(reps.map(|x| &x.floor_cpu_s), blocks),
            Judged::Shown,
            4,
        ),
        fig(
            "crypto floor, batched, CPU s per block".into(),
            made(f.batched_cpu_s / blocks, f.batched_cpu_s),
            spread(reps.map(|x| &x.batched_floor_cpu_s), blocks),
            Judged::Shown,
            4,
        ),
        fig(
            "node total ÷ one-by-one floor".into(),
            made(f.node_ratio, f.cpu_s),
            spread(reps.map(|x| &x.node_ratio), 1.0),
            Judged::Ratio,
            2,
        ),
        fig(
            "node total ÷ batched floor".into(),
            made(f.node_ratio_batched, f.batched_cpu_s),
            spread(reps.map(|x| &x.node_ratio_batched), 1.0),
            Judged::Ratio,
            2,
        ),
    ];
    for c in &r.cpu {
        v.push(fig(
            format!("{}, CPU s per block", c.name),
            c.total_s / blocks,
            spread(reps.and_then(|x| x.cpu_s.get(&c.name)), blocks),
            if c.node { Judged::Node } else { Judged::Shown },
            4,
        ));
    }
    v
}

/// Judge a CPU figure by its ratio to the baseline; with the spreads of
/// both (`--repeat` in both files) a slowdown counts only beyond the
/// baseline's maximum plus the tolerance, an improvement only below its
/// minimum less the tolerance.
pub(crate) fn judge_cpu(
    base: &CpuFigure,
    cur: &CpuFigure,
    policy: &CpuPolicy,
) -> (String, Verdict) {
    if base.value <= 0.0 || !base.value.is_finite() || !cur.value.is_finite() {
        return (String::new(), Verdict::Info);
    }
    let ratio = cur.value / base.value;
    let spreads = base.spread.is_some() && cur.spread.is_some();
    let (lo, hi) = match (base.spread, spreads) {
        (Some(b), true) => b,
        _ => (base.value, base.value),
    };
    let diff = format!("x{ratio:.2}");
    let quiet =
        base.judged != Judged::Ratio && base.value < policy.floor_s && cur.value < policy.floor_s;
    let judged = match base.judged {
        Judged::Node => true,
        Judged::Ratio => spreads,
        Judged::Shown => false,
    };
    let verdict = if policy.ignore || quiet || !judged {
        Verdict::Info
    } else if cur.value > hi * (1.0 + policy.tolerance) {
        Verdict::Regression
    } else if cur.value < lo / (1.0 + policy.tolerance) {
        Verdict::Improved
    } else {
        Verdict::Within
    };
    (diff, verdict)
}

/// The row of a figure of the baseline, `baseline` its value, against the
/// current run's `figures` (`absent` where it has none); `verdict` is told
/// whether the two are the same.
pub(crate) fn valued_row(
    run: &str,
    figure: String,
    baseline: String,
    figures: &[(String, String)],
    verdict: impl Fn(bool) -> Verdict,
) -> Row {
    let current = figures
        .iter()
        .find(|(n, _)| *n == figure)
        .map_or_else(|| "absent".to_owned(), |(_, v)| v.clone());
    let same = current == baseline;
    Row {
        run: run.to_owned(),
        figure,
        difference: if same {
            String::new()
        } else {
            signed_diff(&baseline, &current)
        },
        verdict: verdict(same),
        baseline,
        current,
    }
}

/// The row of a CPU figure, judged by [`judge_cpu`].
pub(crate) fn cpu_row(run: &str, base: CpuFigure, cur: &CpuFigure, policy: &CpuPolicy) -> Row {
    let (difference, verdict) = judge_cpu(&base, cur, policy);
    Row {
        run: run.to_owned(),
        baseline: base.show(),
        current: cur.show(),
        figure: base.name,
        difference,
        verdict,
    }
}

/// A figure shown, not judged (wall time, memory), with its ratio.
pub(crate) fn shown_row(run: &str, figure: &str, baseline: f64, current: f64) -> Row {
    Row {
        run: run.to_owned(),
        figure: figure.into(),
        baseline: format!("{baseline:.2}"),
        current: format!("{current:.2}"),
        difference: if baseline > 0.0 {
            format!("x{:.2}", current / baseline)
        } else {
            String::new()
        },
        verdict: Verdict::Info,
    }
}

/// Compare every baseline run with its current twin.
pub fn compare(baseline: &ReportFile, current: &ReportFile, policy: &CpuPolicy) -> Comparison {
    let mut rows = Vec::new();
    let mut missing_runs = Vec::new();
    for b in &baseline.runs {
        let run = label(b);
        let Some(c) = current.runs.iter().find(|c| key(c) == key(b)) else {
            missing_runs.push(run);
            continue;
        };
        let exact = b.clock == "virtual" && c.clock == "virtual";
        if b.clock != c.clock {
            rows.push(Row {
                run: run.clone(),
                figure: "clock".into(),
                baseline: b.clock.clone(),
                current: c.clock.clone(),
                difference: "changed".into(),
                verdict: Verdict::Regression,
            });
        }
        let cur_figures = exact_figures(c);
        for (name, bv) in exact_figures(b) {
            let setup = CONFIG_FIGURES.contains(&name.as_str());
            rows.push(valued_row(&run, name, bv, &cur_figures, |same| {
                match (same, exact || setup) {
                    (true, _) => Verdict::Same,
                    (false, true) => Verdict::Regression,
                    // Under the real clock these figures vary run to run.
                    (false, false) => Verdict::Info,
                }
            }));
        }
        let cur_timing = timing_figures(c);
        for (name, bv) in timing_figures(b) {
            rows.push(valued_row(&run, name, bv, &cur_timing, |_| Verdict::Varies));
        }
        // Figures only the current run has (a newer tool) are not judged.
        let cur_cpu = cpu_figures(c);
        for bf in cpu_figures(b) {
            let Some(cf) = cur_cpu.iter().find(|f| f.name == bf.name) else {
                rows.push(Row {
                    run: run.clone(),
                    baseline: bf.show(),
                    figure: bf.name,
                    current: "absent".into(),
                    difference: String::new(),
                    verdict: Verdict::Info,
                });
                continue;
            };
            rows.push(cpu_row(&run, bf, cf, policy));
        }
        for (name, bv, cv) in [
            ("wall time, s", b.wall_time_s, c.wall_time_s),
            (
                "peak memory, MiB",
                b.peak_memory_bytes as f64 / 1048576.0,
                c.peak_memory_bytes as f64 / 1048576.0,
            ),
        ] {
            rows.push(shown_row(&run, name, bv, cv));
        }
    }
    let new_runs = current
        .runs
        .iter()
        .filter(|c| !baseline.runs.iter().any(|b| key(b) == key(c)))
        .map(label)
        .collect();
    Comparison {
        rows,
        new_runs,
        missing_runs,
    }
}

pub mod files;
pub mod identity;
pub mod network;

#[cfg(test)]
mod tests;
