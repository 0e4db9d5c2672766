//! `tranche compare BASELINE.json CURRENT.json`: the regression guard.
//!
//! Runs of the two `--json` files are matched by step name, architecture
//! and worker count. Under the virtual clock with the same seed the
//! protocol figures — approval times (ms after slot start), bytes, message counts, signature
//! checks, protocol counters — are exactly reproducible (message contents
//! are random but their sizes are fixed, and the driver drains the node to
//! idle every step), so they must match exactly: any difference fails.
//! CPU figures are compared as ratios current / baseline, and only a
//! slowdown beyond the tolerance fails; an improvement passes (upstream's
//! check was two-sided, as upstream's CI bench). CPU rows below a
//! noise floor are shown but not judged. Wall time and memory are shown
//! only.

use crate::repeat::Spread;
use crate::{ReportFile, RunReport, FORMAT_VERSION, TOOL};
use std::fmt::Write as _;
use std::path::Path;

/// How CPU figures are judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpuPolicy {
    /// A current/baseline ratio above `1 + tolerance` fails.
    pub tolerance: f64,
    /// Rows whose baseline and current totals are both below this many
    /// seconds are not judged (timer and scheduling noise).
    pub floor_s: f64,
    /// Show CPU rows but judge none (comparisons across machines).
    pub ignore: bool,
}

impl Default for CpuPolicy {
    fn default() -> Self {
        CpuPolicy {
            tolerance: 0.25,
            floor_s: 0.05,
            ignore: false,
        }
    }
}

/// A file could not be read as a `--json` report.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not a tranche --json report: {reason}")]
    Parse { path: String, reason: String },
    #[error("{path} cannot be compared: {reason}")]
    Incompatible { path: String, reason: String },
}

/// Read a `--json` report.
pub fn load(path: &Path) -> Result<ReportFile, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|source| LoadError::Read {
        path: path.display().to_string(),
        source,
    })?;
    let file: ReportFile = serde_json::from_str(&text).map_err(|e| LoadError::Parse {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    check_comparable(&file).map_err(|reason| LoadError::Incompatible {
        path: path.display().to_string(),
        reason,
    })?;
    Ok(file)
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
/// cannot: another result format, seed, configuration, clock or database.
/// Runs of another commit (or machine) are what `compare` is for.
pub fn not_comparable(baseline: &ReportFile, current: &ReportFile) -> Option<String> {
    let differ = |what: &str, b: &dyn std::fmt::Display, c: &dyn std::fmt::Display| {
        Some(format!("the {what} differs: baseline {b}, current {c}"))
    };
    if baseline.version != current.version {
        return differ("result format version", &baseline.version, &current.version);
    }
    if let (Some(b), Some(c)) = (&baseline.meta, &current.meta) {
        if b.seed != c.seed {
            return differ("seed", &b.seed, &c.seed);
        }
        if b.config_hash != c.config_hash {
            return differ(
                "configuration (config_hash)",
                &b.config_hash,
                &c.config_hash,
            );
        }
        if b.database != c.database {
            return differ("database", &b.database, &c.database);
        }
    }
    for b in &baseline.runs {
        let Some(c) = current.runs.iter().find(|c| key(c) == key(b)) else {
            continue;
        };
        if b.seed != c.seed {
            return differ(&format!("seed of {}", label(b)), &b.seed, &c.seed);
        }
        if b.clock != c.clock {
            return differ(&format!("clock of {}", label(b)), &b.clock, &c.clock);
        }
    }
    None
}

/// The verdict on one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Same,
    /// A deterministic figure differs, a CPU figure slowed down beyond the
    /// tolerance, or a run is missing.
    Regression,
    /// CPU faster than the baseline beyond the tolerance: passes.
    Improved,
    /// Within the tolerance.
    Within,
    /// Shown, not judged.
    Info,
}

impl Verdict {
    fn label(self) -> &'static str {
        match self {
            Verdict::Same => "same",
            Verdict::Regression => "FAIL",
            Verdict::Improved => "faster",
            Verdict::Within => "ok",
            Verdict::Info => "-",
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

    /// The table, run by run, and the verdict line. Identical figures are
    /// counted, and listed only when `verbose`.
    pub fn render(&self, verbose: bool) -> String {
        let mut s = String::new();
        let mut current_run: Option<&str> = None;
        for r in &self.rows {
            if !verbose && r.verdict == Verdict::Same {
                continue;
            }
            if current_run != Some(r.run.as_str()) {
                current_run = Some(r.run.as_str());
                let _ = writeln!(s, "\n{}", r.run);
                let _ = writeln!(
                    s,
                    "  {:<40} {:>14} {:>14} {:>10}  verdict",
                    "figure", "baseline", "current", "diff"
                );
            }
            let _ = writeln!(
                s,
                "  {:<40} {:>14} {:>14} {:>10}  {}",
                r.figure,
                r.baseline,
                r.current,
                r.difference,
                r.verdict.label()
            );
        }
        s.push('\n');
        for n in &self.new_runs {
            let _ = writeln!(s, "note: {n} has no baseline run; not compared");
        }
        let same = self
            .rows
            .iter()
            .filter(|r| r.verdict == Verdict::Same)
            .count();
        if !verbose && same > 0 {
            let _ = writeln!(s, "{same} figures identical (not listed; -v lists them)");
        }
        let n = self.regressions();
        if n == 0 {
            let _ = writeln!(
                s,
                "PASS: {} figures compared, no regression",
                self.rows.len()
            );
        } else {
            let _ = writeln!(
                s,
                "REGRESSION: {n} of {} figures compared failed",
                self.rows.len()
            );
        }
        s
    }
}

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

/// Every deterministic figure of a run, by name.
pub(crate) fn exact_figures(r: &RunReport) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = Vec::new();
    let mut put = |name: &str, value: String| v.push((name.to_owned(), value));
    put("seed", r.seed.to_string());
    put("validators", r.n_validators.to_string());
    put("cores", r.n_cores.to_string());
    put("blocks", r.num_blocks.to_string());
    for b in &r.blocks {
        put(
            &format!("block {} approved, ms after slot start", b.number),
            b.approved_after_ms
                .map_or_else(|| "never".to_owned(), |t| t.to_string()),
        );
    }
    put("bytes received", r.network.received_bytes.to_string());
    put("bytes sent", r.network.sent_bytes.to_string());
    let c = &r.counts;
    put("unique messages from peers", c.unique_messages.to_string());
    put("deliveries to the node", c.deliveries.to_string());
    put("lost by the network", c.lost.to_string());
    put("withheld approvals", c.withheld_approvals.to_string());
    put(
        "notifications sent by the node",
        c.messages_from_node.to_string(),
    );
    put(
        "signature and certificate checks",
        c.verifications.to_string(),
    );
    put(
        "crypto floor assignments",
        r.crypto_floor.assignments.to_string(),
    );
    put(
        "crypto floor approvals",
        r.crypto_floor.approvals.to_string(),
    );
    let f = &r.crypto_floor;
    put("crypto floor mode", f.mode.clone());
    put(
        "crypto floor messages verified",
        format!("{} of {}", f.sampled_messages(), f.population_messages()),
    );
    let p = &r.protocol;
    put("imported candidates", p.imported_candidates.to_string());
    for (kind, n) in &p.assignments_imported {
        put(&format!("assignments imported ({kind})"), n.to_string());
    }
    put("approvals imported", p.approvals_imported.to_string());
    put("candidates approved", p.candidates_approved.to_string());
    put("approved by one third", p.approved_by_one_third.to_string());
    put("no-shows tolerated", p.no_shows.to_string());
    put("no-shows observed", p.observed_no_shows.to_string());
    for (kind, n) in &p.reputation_changes {
        put(&format!("reputation changes ({kind})"), n.to_string());
    }
    v
}

fn signed_diff(a: &str, b: &str) -> String {
    match (a.parse::<i128>(), b.parse::<i128>()) {
        (Ok(x), Ok(y)) => format!("{:+}", y - x),
        _ => "changed".into(),
    }
}

/// A CPU figure of a run in the report's unit, CPU seconds per block.
struct CpuFigure {
    name: String,
    per_block: f64,
    /// The spread of `per_block` over `--repeat` runs (absent: one run).
    spread: Option<(f64, f64)>,
    /// The run total, for the noise floor.
    total: f64,
    /// Part of the node (judged); else shown only.
    node: bool,
}

/// The CPU figures of a run, the node total first. The test
/// environment's CPU is shown, not judged.
fn cpu_figures(r: &RunReport) -> Vec<CpuFigure> {
    let blocks = f64::from(r.num_blocks.max(1));
    let spread = |s: Option<&Spread>| s.map(|s| s.per(blocks)).map(|s| (s.min, s.max));
    let reps = r.repeats.as_ref();
    let mut v = vec![CpuFigure {
        name: "node total, CPU s per block".to_owned(),
        per_block: r.node_cpu_s / blocks,
        spread: spread(reps.map(|x| &x.node_cpu_s)),
        total: r.node_cpu_s,
        node: true,
    }];
    for c in &r.cpu {
        v.push(CpuFigure {
            name: format!("{}, CPU s per block", c.name),
            per_block: c.total_s / blocks,
            spread: spread(reps.and_then(|x| x.cpu_s.get(&c.name))),
            total: c.total_s,
            node: c.node,
        });
    }
    v
}

/// Judge a CPU figure by its ratio to the baseline; with the spreads of
/// both (`--repeat` in both files) a slowdown counts only beyond the
/// baseline's maximum plus the tolerance, an improvement only below its
/// minimum less the tolerance.
fn judge_cpu(base: &CpuFigure, cur: &CpuFigure, policy: &CpuPolicy) -> (String, Verdict) {
    if base.per_block <= 0.0 {
        return (String::new(), Verdict::Info);
    }
    let ratio = cur.per_block / base.per_block;
    let (lo, hi) = match (base.spread, cur.spread) {
        (Some(b), Some(_)) => b,
        _ => (base.per_block, base.per_block),
    };
    let diff = format!("x{ratio:.2}");
    let quiet = base.total < policy.floor_s && cur.total < policy.floor_s;
    let verdict = if policy.ignore || quiet || !base.node {
        Verdict::Info
    } else if cur.per_block > hi * (1.0 + policy.tolerance) {
        Verdict::Regression
    } else if cur.per_block < lo / (1.0 + policy.tolerance) {
        Verdict::Improved
    } else {
        Verdict::Within
    };
    (diff, verdict)
}

/// Compare every baseline run with its current twin.
pub fn compare(baseline: &ReportFile, current: &ReportFile, policy: &CpuPolicy) -> Comparison {
    let mut rows = Vec::new();
    for b in &baseline.runs {
        let run = label(b);
        let Some(c) = current.runs.iter().find(|c| key(c) == key(b)) else {
            rows.push(Row {
                run,
                figure: "run".into(),
                baseline: "present".into(),
                current: "missing".into(),
                difference: String::new(),
                verdict: Verdict::Regression,
            });
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
            let cv = cur_figures
                .iter()
                .find(|(n, _)| *n == name)
                .map_or_else(|| "absent".to_owned(), |(_, v)| v.clone());
            let same = cv == bv;
            let setup = CONFIG_FIGURES.contains(&name.as_str());
            let verdict = match (same, exact || setup) {
                (true, _) => Verdict::Same,
                (false, true) => Verdict::Regression,
                // Under the real clock these figures vary run to run.
                (false, false) => Verdict::Info,
            };
            rows.push(Row {
                run: run.clone(),
                figure: name,
                difference: if same {
                    String::new()
                } else {
                    signed_diff(&bv, &cv)
                },
                baseline: bv,
                current: cv,
                verdict,
            });
        }
        // Figures only the current run has (a newer tool) are not judged.
        let cur_cpu = cpu_figures(c);
        for bf in cpu_figures(b) {
            let Some(cf) = cur_cpu.iter().find(|f| f.name == bf.name) else {
                rows.push(Row {
                    run: run.clone(),
                    figure: bf.name,
                    baseline: format!("{:.4}", bf.per_block),
                    current: "absent".into(),
                    difference: String::new(),
                    verdict: Verdict::Info,
                });
                continue;
            };
            let (difference, verdict) = judge_cpu(&bf, cf, policy);
            rows.push(Row {
                run: run.clone(),
                figure: bf.name,
                baseline: format!("{:.4}", bf.per_block),
                current: format!("{:.4}", cf.per_block),
                difference,
                verdict,
            });
        }
        for (name, bv, cv) in [
            ("wall time, s", b.wall_time_s, c.wall_time_s),
            (
                "peak memory, MiB",
                b.peak_memory_bytes as f64 / 1048576.0,
                c.peak_memory_bytes as f64 / 1048576.0,
            ),
        ] {
            rows.push(Row {
                run: run.clone(),
                figure: name.into(),
                baseline: format!("{bv:.2}"),
                current: format!("{cv:.2}"),
                difference: if bv > 0.0 {
                    format!("x{:.2}", cv / bv)
                } else {
                    String::new()
                },
                verdict: Verdict::Info,
            });
        }
    }
    let new_runs = current
        .runs
        .iter()
        .filter(|c| !baseline.runs.iter().any(|b| key(b) == key(c)))
        .map(label)
        .collect();
    Comparison { rows, new_runs }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::*;

    use crate::fixture::run;

    fn with_meta(r: RunReport) -> ReportFile {
        let cfg = tranche_workload::config::embedded_default().unwrap();
        ReportFile::with_meta(vec![r], Meta::collect("redb", 0, &cfg.steps))
    }

    #[test]
    fn another_seed_config_clock_database_or_format_is_not_comparable() {
        let base = with_meta(run());
        assert_eq!(not_comparable(&base, &with_meta(run())), None);
        let mut commit = with_meta(run());
        commit.meta.as_mut().unwrap().commit = "0123456789ab".into();
        assert_eq!(not_comparable(&base, &commit), None, "commits may differ");
        type Change = fn(&mut ReportFile);
        let cases: [(&str, Change); 6] = [
            ("seed", |f| f.meta.as_mut().unwrap().seed = 1),
            ("configuration (config_hash)", |f| {
                f.meta.as_mut().unwrap().config_hash = "ffff".into()
            }),
            ("database", |f| {
                f.meta.as_mut().unwrap().database = "memory".into()
            }),
            ("result format version", |f| f.version = "0.1.0".into()),
            ("seed of ci [parallel/4]", |f| {
                f.meta = None;
                f.runs[0].seed = 1
            }),
            ("clock of ci [parallel/4]", |f| {
                f.runs[0].clock = "real".into()
            }),
        ];
        for (what, change) in cases {
            let mut cur = with_meta(run());
            change(&mut cur);
            let why = not_comparable(&base, &cur).unwrap_or_else(|| panic!("{what}"));
            assert!(why.starts_with(&format!("the {what} differs")), "{why}");
        }
    }

    fn file(r: RunReport) -> ReportFile {
        ReportFile::new(vec![r])
    }

    #[test]
    fn identical_results_pass() {
        let c = compare(&file(run()), &file(run()), &CpuPolicy::default());
        assert!(c.passed(), "{}", c.render(true));
        assert!(c.render(false).contains("PASS"));
    }

    #[test]
    fn a_changed_byte_count_fails() {
        let mut cur = run();
        cur.network.sent_bytes += 1;
        let c = compare(&file(run()), &file(cur), &CpuPolicy::default());
        assert_eq!(c.regressions(), 1);
        let row = c
            .rows
            .iter()
            .find(|r| r.verdict == Verdict::Regression)
            .unwrap();
        assert_eq!(row.figure, "bytes sent");
        assert_eq!(row.difference, "+1");
        assert!(c.render(false).contains("REGRESSION"));
    }

    #[test]
    fn figures_are_in_the_reports_units() {
        let c = compare(&file(run()), &file(run()), &CpuPolicy::default());
        let figures: Vec<&str> = c.rows.iter().map(|r| r.figure.as_str()).collect();
        assert!(figures.contains(&"block 1 approved, ms after slot start"));
        assert!(figures.contains(&"node total, CPU s per block"));
        let node = c
            .rows
            .iter()
            .find(|r| r.figure.starts_with("node total"))
            .unwrap();
        assert_eq!(node.baseline, "1.0000", "2 s over 2 blocks");
        assert!(!figures.iter().any(|f| f.contains("tick")), "{figures:?}");
    }

    #[test]
    fn cpu_inside_the_tolerance_passes_outside_fails_and_faster_passes() {
        let policy = CpuPolicy {
            tolerance: 0.25,
            ..Default::default()
        };
        let mut slower = run();
        slower.node_cpu_s = 2.4; // x1.20
        assert!(compare(&file(run()), &file(slower), &policy).passed());
        let mut much_slower = run();
        much_slower.node_cpu_s = 2.6; // x1.30
        let c = compare(&file(run()), &file(much_slower.clone()), &policy);
        assert_eq!(c.regressions(), 1, "{}", c.render(true));
        let mut faster = run();
        faster.node_cpu_s = 0.5;
        faster.cpu[0].total_s = 0.2;
        let c = compare(&file(run()), &file(faster), &policy);
        assert!(c.passed());
        assert!(c.rows.iter().any(|r| r.verdict == Verdict::Improved));
        // Rows under the noise floor are shown, not judged; --ignore-cpu
        // judges none.
        let mut noisy = run();
        noisy.cpu[1].total_s = 0.01;
        assert!(compare(&file(run()), &file(noisy), &policy).passed());
        let ignore = CpuPolicy {
            ignore: true,
            ..policy
        };
        assert!(compare(&file(run()), &file(much_slower), &ignore).passed());
    }

    #[test]
    fn approval_ticks_and_missing_runs_fail_new_runs_are_noted() {
        let mut cur = run();
        cur.blocks[1].approved_after_ms = Some(4500);
        assert!(!compare(&file(run()), &file(cur), &CpuPolicy::default()).passed());
        let mut other = run();
        other.workers = 2;
        let c = compare(&file(run()), &file(other), &CpuPolicy::default());
        assert!(!c.passed());
        assert_eq!(c.new_runs, vec!["ci [parallel/2]".to_owned()]);
        // The same step run through another path still matches.
        let mut a = run();
        a.name = "ci/guard.yaml #1 ApprovalVoting".into();
        let mut b = a.clone();
        b.name = "/work/x/ci/guard.yaml #1 ApprovalVoting".into();
        assert!(compare(&file(a.clone()), &file(b), &CpuPolicy::default()).passed());
        let mut other_step = a.clone();
        other_step.name = "ci/guard.yaml #2 ApprovalVoting".into();
        assert!(!compare(&file(a), &file(other_step), &CpuPolicy::default()).passed());
    }

    #[test]
    fn real_clock_figures_are_shown_not_judged() {
        let mut a = run();
        a.clock = "real".into();
        let mut b = a.clone();
        b.blocks[0].approved_after_ms = Some(5500);
        b.network.received_bytes += 10;
        assert!(compare(&file(a.clone()), &file(b.clone()), &CpuPolicy::default()).passed());
        b.seed = 1;
        assert!(!compare(&file(a), &file(b), &CpuPolicy::default()).passed());
    }

    #[test]
    fn bad_files_are_one_line_errors_naming_the_file() {
        let dir = std::env::temp_dir().join(format!("tranche-compare-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = dir.join("bad.json");
        std::fs::write(&bad, "{ not json").unwrap();
        let e = load(&bad).unwrap_err().to_string();
        assert!(e.contains("bad.json") && !e.contains('\n'), "{e}");
        let e = load(&dir.join("absent.json")).unwrap_err().to_string();
        assert!(e.contains("absent.json") && !e.contains('\n'), "{e}");
        let old = dir.join("old.json");
        let mut v = serde_json::to_value(file(run())).unwrap();
        v["runs"][0].as_object_mut().unwrap().remove("samples");
        v["runs"][0].as_object_mut().unwrap().remove("protocol");
        std::fs::write(&old, v.to_string()).unwrap();
        assert!(load(&old).is_ok(), "files without samples still load");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn another_tool_another_format_or_duplicate_runs_are_refused() {
        let dir = std::env::temp_dir().join(format!("tranche-compare-x-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, v: &serde_json::Value| {
            let p = dir.join(name);
            std::fs::write(&p, v.to_string()).unwrap();
            p
        };
        let good = serde_json::to_value(file(run())).unwrap();
        let mut other = good.clone();
        other["tool"] = "subsystem-bench".into();
        let e = load(&write("other.json", &other)).unwrap_err().to_string();
        assert!(e.contains("written by `subsystem-bench`"), "{e}");
        let mut newer = good.clone();
        newer["version"] = "9.9.9".into();
        let e = load(&write("newer.json", &newer)).unwrap_err().to_string();
        assert!(e.contains("result format is version 9.9.9"), "{e}");
        let mut older = good.clone();
        older["version"] = "0.1.0".into();
        assert!(load(&write("older.json", &older)).is_ok(), "0.1.0 is read");
        let mut twice = good.clone();
        let r = twice["runs"][0].clone();
        twice["runs"].as_array_mut().unwrap().push(r);
        let e = load(&write("twice.json", &twice)).unwrap_err().to_string();
        assert!(e.contains("two runs of step"), "{e}");
        assert!(!e.contains('\n'));
        assert!(load(&write("good.json", &good)).is_ok());
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[cfg(test)]
mod older_files {
    use super::*;

    /// The committed CI baseline was written by an earlier build: a file
    /// without the fields added since still loads, those reading 0.
    #[test]
    fn the_committed_baseline_loads_with_the_fields_added_since() {
        let path = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../ci/baseline.json"
        ));
        let file = load(path).unwrap();
        assert!(!file.runs.is_empty());
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        // Take away what later versions added: it must still load.
        for run in v["runs"].as_array_mut().unwrap() {
            run["generation"].as_object_mut().unwrap().remove("cpu_s");
            run["crypto_floor"]
                .as_object_mut()
                .unwrap()
                .remove("batched_cpu_s");
            run["protocol"]
                .as_object_mut()
                .unwrap()
                .remove("reputation_changes");
            run.as_object_mut().unwrap().remove("schedule");
        }
        let older: ReportFile = serde_json::from_value(v).unwrap();
        assert_eq!(older.runs.len(), file.runs.len());
        assert_eq!(older.runs[0].generation.cpu_s, 0.0);
    }
}
