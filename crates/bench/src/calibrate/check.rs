//! `tranche calibrate --check FILE`: the CPU model held against the real
//! node on the same work. For each approval step of the file and each
//! layout, the real node runs `--runs` times on the real clock (it varies
//! from run to run) and the modelled node (`tranche run --node model`)
//! once, on the same messages, peers and links; per block the approval
//! time, and the judged thread's CPU per block (classic: voting; parallel:
//! the mean worker; the busiest at real sizes, not always at small ones,
//! where the parallel layout's database thread can be), are judged against the real runs' range, widened by
//! the tolerance: a time by max(tolerance, 500 ms), a CPU figure by the
//! tolerance. Every other thread's CPU is shown beside, not judged. The
//! exit status is 1 when a judged figure falls outside.

use anyhow::{bail, Context, Result};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;
use tranche_cli::progress::Progress;
use tranche_cli::text::counted;
use tranche_config::BenchStep;
use tranche_model::CostTable;
use tranche_node::{Architecture, Layout, DEFAULT_WORKERS};
use tranche_report::RunReport;

use crate::floor::FloorMode;
use crate::run::{prepare, run_step, ClockKind, DbKind, ModelOptions, NodeUnderTest, RunOptions};

/// Approval times are judged at least this loosely, ms: the real clock's
/// own resolution is a 500 ms tick.
pub const MIN_TIME_TOLERANCE_MS: f64 = 500.0;

/// What to compare, and how.
#[derive(Debug, Clone)]
pub struct CheckPlan {
    pub file: PathBuf,
    /// Real-node runs of each layout.
    pub runs: u32,
    pub layouts: Vec<Architecture>,
    /// The modelled node's cores.
    pub cores: u32,
    pub costs: CostTable,
    /// The real node's clock (real; virtual for quick looks and tests).
    pub real_clock: ClockKind,
    /// Relative tolerance, 0.25 = 25 %.
    pub tolerance: f64,
    pub seed: u64,
    pub cache_dir: Option<PathBuf>,
    pub quiet: bool,
    /// The file's steps resized (`--validators`, `--cores`).
    /// `--validators`, `--cores`.
    pub sizes: (Option<u32>, Option<u32>),
}

/// One judged figure: the real runs' range, the model, whether it is in.
#[derive(Debug, Clone, Serialize)]
pub struct Judged {
    pub what: String,
    pub real_min: Option<f64>,
    pub real_max: Option<f64>,
    pub model: Option<f64>,
    pub within: bool,
}

/// A thread's CPU per block, shown beside.
#[derive(Debug, Clone, Serialize)]
pub struct Beside {
    pub thread: String,
    pub real_min: f64,
    pub real_max: f64,
    pub model: f64,
}

/// One step and layout.
#[derive(Debug, Clone, Serialize)]
pub struct LayoutCheck {
    pub step: String,
    pub layout: String,
    pub judged: Vec<Judged>,
    pub threads: Vec<Beside>,
}

/// The whole comparison, as `--json` writes it.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    /// Who made it, how, where (`meta.kind`: `calibrate-check`).
    pub meta: tranche_report::Meta,
    pub file: String,
    pub runs: u32,
    pub cores: u32,
    pub tolerance: f64,
    pub real_clock: String,
    pub checks: Vec<LayoutCheck>,
    /// Every judged figure within its tolerance.
    pub pass: bool,
}

/// Whether `model` is within the range of `real`, widened by `slack`.
fn judge(
    what: String,
    real: &[Option<f64>],
    model: Option<f64>,
    slack: impl Fn(f64) -> f64,
) -> Judged {
    let known: Vec<f64> = real.iter().flatten().copied().collect();
    let (lo, hi) = match (
        known.iter().copied().reduce(f64::min),
        known.iter().copied().reduce(f64::max),
    ) {
        (Some(lo), Some(hi)) if known.len() == real.len() => (Some(lo), Some(hi)),
        // Not every real run has it (a block never approved): only a
        // model that has it neither is within.
        _ => (None, None),
    };
    let within = match (lo, hi, model) {
        (Some(lo), Some(hi), Some(m)) => m >= lo - slack(lo) && m <= hi + slack(hi),
        (None, None, None) => true,
        _ => false,
    };
    Judged {
        what,
        real_min: lo,
        real_max: hi,
        model,
        within,
    }
}

/// The judged thread's CPU per block: classic the voting thread, parallel
/// the mean distribution worker (the busiest at real sizes).
fn busiest(r: &RunReport) -> Option<f64> {
    if r.architecture == "classic" {
        return r
            .cpu
            .iter()
            .find(|c| c.name == "approval-voting")
            .map(|c| c.per_block_s);
    }
    let workers: Vec<f64> = r
        .cpu
        .iter()
        .filter(|c| {
            c.name
                .strip_prefix("approval-voting-parallel-")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(|c| c.per_block_s)
        .collect();
    (!workers.is_empty()).then(|| workers.iter().sum::<f64>() / workers.len() as f64)
}

/// Compare one step's layout: the real runs against the model's one.
fn compare(
    step: &BenchStep,
    reals: &[RunReport],
    model: &RunReport,
    tolerance: f64,
) -> LayoutCheck {
    let mut judged = Vec::new();
    for (i, b) in model.blocks.iter().enumerate() {
        let real = tranche_report::block_approval_ms(reals, i);
        let m = b.approved_after_ms.map(|ms| ms as f64);
        judged.push(judge(
            format!("block {} approved, ms after its slot", b.number),
            &real,
            m,
            |x| (x * tolerance).max(MIN_TIME_TOLERANCE_MS),
        ));
    }
    let name = if model.architecture == "classic" {
        "approval-voting"
    } else {
        "mean distribution worker"
    };
    let real: Vec<Option<f64>> = reals.iter().map(busiest).collect();
    judged.push(judge(
        format!("judged thread ({name}), CPU s per block"),
        &real,
        busiest(model),
        |x| x * tolerance,
    ));
    let threads = model
        .cpu
        .iter()
        .map(|c| {
            let real: Vec<f64> = reals
                .iter()
                .map(|r| {
                    r.cpu
                        .iter()
                        .find(|x| x.name == c.name)
                        .map_or(0.0, |x| x.per_block_s)
                })
                .collect();
            Beside {
                thread: c.name.clone(),
                real_min: real.iter().copied().fold(f64::INFINITY, f64::min),
                real_max: real.iter().copied().fold(0.0, f64::max),
                model: c.per_block_s,
            }
        })
        .collect();
    LayoutCheck {
        step: step.name.clone(),
        layout: if model.architecture == "classic" {
            "classic".into()
        } else {
            format!("parallel/{}", model.workers)
        },
        judged,
        threads,
    }
}

/// Run the comparison.
pub fn run(plan: &CheckPlan) -> Result<CheckReport> {
    // `TRANCHE_SMALL=1` (the documented commands' test): one real run on
    // the virtual clock, the file cut to size.
    let small;
    let plan = if crate::small::on() {
        small = CheckPlan {
            runs: 1,
            real_clock: ClockKind::Virtual,
            ..plan.clone()
        };
        &small
    } else {
        plan
    };
    if plan.runs == 0 {
        bail!("--runs 0: the real node must run at least once");
    }
    let resolved = resolve(plan, plan.quiet)?;
    let config = &resolved.config;
    if !plan.quiet {
        tranche_cli::errln!("{}", estimate(plan, &config.steps));
    }
    let mut meta = tranche_report::meta::collect("redb", plan.seed, &config.steps);
    meta.kind = tranche_report::meta::kind::CALIBRATE_CHECK.into();
    let mut checks = Vec::new();
    for (step, step_plan) in resolved.steps() {
        let cache_dir = plan
            .cache_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from(&step.workdir_prefix));
        let options =
            |architecture: Architecture, node: NodeUnderTest, clock: ClockKind| RunOptions {
                architecture,
                clock,
                seed: plan.seed,
                cache_dir: cache_dir.clone(),
                db: match node {
                    NodeUnderTest::Real => DbKind::Redb,
                    NodeUnderTest::Model(_) => DbKind::Memory,
                },
                progress: Progress::detect(plan.quiet),
                floor: FloorMode::Off,
                db_path: None,
                restart_at_block: None,
                checks: Default::default(),
                node,
            };
        let first = options(plan.layouts[0], NodeUnderTest::Real, plan.real_clock);
        let prepared =
            prepare(step_plan, &first).with_context(|| format!("preparing {}", step.name))?;
        for &arch in &plan.layouts {
            let real_options = options(arch, NodeUnderTest::Real, plan.real_clock);
            let mut reals = Vec::new();
            for _ in 0..plan.runs {
                reals.push(run_step(step, &prepared, &real_options)?);
            }
            let model = NodeUnderTest::Model(ModelOptions {
                cores: plan.cores,
                costs: plan.costs.clone(),
            });
            let model = run_step(step, &prepared, &options(arch, model, ClockKind::Virtual))?;
            checks.push(compare(step, &reals, &model, plan.tolerance));
        }
    }
    let pass = checks.iter().all(|c| c.judged.iter().all(|j| j.within));
    Ok(CheckReport {
        meta,
        file: plan.file.display().to_string(),
        runs: plan.runs,
        cores: plan.cores,
        tolerance: plan.tolerance,
        real_clock: plan.real_clock.name().into(),
        checks,
        pass,
    })
}

/// The check's file resolved with its size flags and seed, as `tranche
/// run` resolves one (`config::resolve`); a vacuous step is not refused,
/// the check compares whatever the file runs.
fn resolve(plan: &CheckPlan, quiet: bool) -> Result<tranche_config::resolve::Resolved> {
    let (validators, cores) = plan.sizes;
    crate::sequence::resolve_file(
        Some(&plan.file),
        (validators, cores, None),
        true,
        plan.seed,
        quiet,
    )
}

/// `--dry-run`: the estimate of the check, the file read and sized;
/// nothing run.
pub fn dry_run(plan: &CheckPlan) -> Result<String> {
    let config = resolve(plan, true)?.config;
    Ok(format!("{}; nothing run", estimate(plan, &config.steps)))
}

/// What the check will take, told before its work: each step's real runs
/// (on their clock: the real one waits for the slots) and model runs,
/// per layout, from `tranche run`'s estimate.
fn estimate(plan: &CheckPlan, steps: &[BenchStep]) -> String {
    let (mut least, mut most) = (0.0, 0.0);
    let runs = plan.layouts.len() as f64;
    for step in steps {
        let virtual_run = tranche_config::estimate::of_step(step);
        let real_run = match plan.real_clock {
            ClockKind::Real => virtual_run.on_real_clock(step),
            ClockKind::Virtual => virtual_run,
        };
        let (lo, hi) = real_run
            .real_clock
            .unwrap_or((real_run.seconds, real_run.seconds));
        least += runs * (f64::from(plan.runs) * lo + virtual_run.seconds);
        most += runs * (f64::from(plan.runs) * hi + virtual_run.seconds);
    }
    let (least, most) = (
        crate::network_cli::duration(least),
        crate::network_cli::duration(most),
    );
    let time = if least == most {
        least
    } else {
        format!("{least}–{most}")
    };
    format!(
        "calibrate --check: {} x {} x ({} of the real node + 1 of the model): about {time} \
         (release build, 2 cores)",
        counted(steps.len(), "step"),
        counted(plan.layouts.len(), "layout"),
        counted(plan.runs, "run"),
    )
}

fn range(lo: Option<f64>, hi: Option<f64>, digits: usize) -> String {
    match (lo, hi) {
        (Some(lo), Some(hi)) if lo == hi => format!("{lo:.digits$}"),
        (Some(lo), Some(hi)) => format!("{lo:.digits$}..{hi:.digits$}"),
        _ => "never".into(),
    }
}

/// The comparison as the terminal shows it.
pub fn render(r: &CheckReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "calibrate --check {}: the real node {} on the {} clock against the model on {}; \
         judged within max({:.0} %, {} ms) of the real range for times, {:.0} % for CPU",
        r.file,
        counted(r.runs, "time"),
        r.real_clock,
        counted(r.cores, "core"),
        r.tolerance * 100.0,
        MIN_TIME_TOLERANCE_MS,
        r.tolerance * 100.0
    );
    for c in &r.checks {
        let _ = writeln!(out, "\n{} — {}", c.step, c.layout);
        let _ = writeln!(out, "{:<60} {:>16} {:>10}  within", "", "real", "model");
        for j in &c.judged {
            // Seconds to four decimals, as every table (0.0049 and 0.0031
            // are not "0.00" and "0.00").
            let digits = if j.what.contains("CPU") { 4 } else { 0 };
            let model = j.model.map_or("never".into(), |m| format!("{m:.digits$}"));
            let mark = if j.within { "yes" } else { "NO" };
            let _ = writeln!(
                out,
                "{:<60} {:>16} {:>10}  {mark}",
                j.what,
                range(j.real_min, j.real_max, digits),
                model
            );
        }
        for t in &c.threads {
            let _ = writeln!(
                out,
                "{:<60} {:>16} {:>10}  (shown)",
                format!("{}, CPU s per block", t.thread),
                range(Some(t.real_min), Some(t.real_max), 4),
                format!("{:.4}", t.model)
            );
        }
    }
    let (n, within) = r
        .checks
        .iter()
        .flat_map(|c| &c.judged)
        .fold((0, 0), |(n, w), j| (n + 1, w + usize::from(j.within)));
    let _ = writeln!(
        out,
        "\n{}: {within} of {n} judged figures within the tolerance",
        if r.pass { "PASS" } else { "FAIL" }
    );
    out
}

/// The layouts `--architecture` names (`both` by default), with the
/// parallel layout's workers.
pub fn layouts(layouts: &[Layout], workers: Option<u32>) -> Vec<Architecture> {
    let workers = workers.map_or(DEFAULT_WORKERS, |w| w as usize);
    layouts
        .iter()
        .map(|l| match l {
            Layout::Classic => Architecture::CLASSIC,
            Layout::Parallel => Architecture::parallel(workers),
        })
        .collect()
}
