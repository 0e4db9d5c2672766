//! `tranche sweep run`: a grid of `tranche run` configurations —
//! validators × cores × layout (classic, parallel/N for each worker count)
//! × schedule — over one approval step (a file's first, or the embedded
//! default), one after another in this process; one table on stdout, one
//! JSON file, and an HTML page with the scaling plots (the report crate's
//! plotters charts): the node's CPU per
//! block and the slowest block's approval time against validators, one
//! line per layout and schedule. `tranche sweep network` is the same for
//! the whole-network simulation (`tranche-simulation`).
//!
//! Each grid point is the base step's YAML with `n_validators` and
//! `n_cores` replaced, parsed and checked like any file; a point the
//! configuration rules refuse is skipped with a line naming the point and
//! the bound (`at most 10 cores`), and the others run.

use crate::run::{prepare, run_step, DbKind, Progress, RunOptions};
use crate::run_cli::{ClockArg, FloorArg, ScheduleArg};
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use tranche_cli::text::{self, counted};
use tranche_config::{self as config, BenchStep};
use tranche_node::{Architecture, CheckPolicy, Schedule};
use tranche_report::html::{escape, meta_table, page};
use tranche_report::html_chart::{group_lines, line_chart_legend, Line, LineChart};
pub use tranche_report::sweep_run::RunSweepRow;

/// Most runs one sweep may ask for.
pub const MAX_SWEEP_RUNS: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LayoutArg {
    Classic,
    Parallel,
    /// Classic and parallel (as `tranche run --architecture both`).
    Both,
}

/// `tranche sweep run [FILE.yaml]`.
#[derive(Args, Debug, Clone)]
pub struct RunSweepArgs {
    /// A test sequence; its first approval step is the base (default: the
    /// embedded default of `tranche run`).
    pub file: Option<PathBuf>,
    /// Validator counts, comma-separated (default: the step's).
    #[arg(long, value_delimiter = ',')]
    pub validators: Vec<u32>,
    /// Core counts, comma-separated (default: the step's).
    #[arg(long, value_delimiter = ',')]
    pub cores: Vec<u32>,
    /// Layouts, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["classic", "parallel"])]
    pub architecture: Vec<LayoutArg>,
    /// Worker counts of the parallel layout, comma-separated.
    #[arg(long, value_delimiter = ',', default_values = ["4"])]
    pub workers: Vec<u32>,
    /// Schedules, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["fifo"])]
    pub schedule: Vec<ScheduleArg>,
    /// Which clock drives each run.
    #[arg(long, value_enum, default_value_t = ClockArg::Virtual)]
    pub clock: ClockArg,
    /// How each run's crypto floor is measured.
    #[arg(long, value_enum, default_value_t = FloorArg::Sample)]
    pub floor: FloorArg,
    /// Seed of every run (as `tranche run --seed`): message generation,
    /// the network model and random routing.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Directory of the message cache (default: the step's
    /// `workdir_prefix`).
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    /// Write every row as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the table and the scaling plots as one HTML page.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Override the step's `num_blocks` (as `tranche run --blocks`).
    #[arg(long)]
    pub blocks: Option<u32>,
    /// Print only the results: no progress on stderr.
    #[arg(long)]
    pub quiet: bool,
    /// Print each point's estimate under the chosen clock and the
    /// sweep's total, and stop: nothing generated or run.
    #[arg(long)]
    pub dry_run: bool,
}

/// `--dry-run`: a line for each point (its size, layout, schedule and
/// estimate under `clock`: the real clock waits for the slots) and the
/// total wall time.
fn dry_run(points: &[Point], clock: ClockArg) -> String {
    let mut text = String::new();
    let mut total = 0.0;
    for p in points {
        let mut e = config::estimate::of_step(&p.step);
        if clock == ClockArg::Real {
            e = e.on_real_clock(&p.step);
        }
        total += e.wall_seconds();
        text.push_str(&format!(
            "dry run: {} x {} x {}, {}, {}: {}\n",
            counted(p.step.n_validators, "validator"),
            counted(p.step.n_cores, "core"),
            counted(p.step.num_blocks, "block"),
            p.architecture.label(),
            schedule_name(p.schedule),
            e.describe()
        ));
    }
    let least = if clock == ClockArg::Real {
        "at least "
    } else {
        "about "
    };
    text.push_str(&format!(
        "dry run: {}: {least}{} of wall time in all (release build, 2 cores; less where \
         layouts share a step's generated messages)\n\
         dry run: nothing generated or run (without --dry-run the sweep starts here)\n",
        counted(points.len(), "run"),
        crate::network_cli::duration(total),
    ));
    text
}

/// One grid point: the step and how to run it.
struct Point {
    step: BenchStep,
    architecture: Architecture,
    schedule: Schedule,
}

fn schedule_of(s: ScheduleArg) -> Schedule {
    match s {
        ScheduleArg::Fifo => Schedule::Fifo,
        ScheduleArg::UsefulFirst => Schedule::UsefulFirst,
    }
}

fn schedule_name(s: Schedule) -> &'static str {
    match s {
        Schedule::Fifo => "fifo",
        Schedule::UsefulFirst => "useful-first",
    }
}

/// The base step's YAML with its size replaced (`tranche_config::resize`), parsed and
/// checked.
fn step_with(
    text: &str,
    source: &str,
    n: u32,
    cores: u32,
    blocks: Option<u32>,
) -> Result<BenchStep> {
    let mut sizes = vec![("n_validators", n), ("n_cores", cores)];
    match blocks {
        Some(b) => sizes.push(("num_blocks", b)),
        None if crate::small::on() => sizes.push(("num_blocks", 2)),
        None => {}
    }
    let text = tranche_config::resize::resized(text, source, &sizes)?;
    let name = format!("{source} [validators {n}, cores {cores}]");
    let cfg = config::parse(&text, &name)?;
    config::check_not_vacuous(&cfg)?;
    Ok(cfg
        .steps
        .into_iter()
        .next()
        .expect("a parsed file has a step"))
}

/// One axis of a sweep's grid: the values asked for (each once, in the
/// order first asked), or the base's one.
pub fn axis<T: Clone + PartialEq>(asked: &[T], base: T) -> Vec<T> {
    if asked.is_empty() {
        vec![base]
    } else {
        unique(asked)
    }
}

/// `values` without repeats, in the order each first appears: a value
/// asked for twice (`--architecture both,classic`) runs once.
pub fn unique<T: Clone + PartialEq>(values: &[T]) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(values.len());
    for v in values {
        if !out.contains(v) {
            out.push(v.clone());
        }
    }
    out
}

/// A sweep of `runs` runs, at least one and at most `max`; else why not.
pub fn check_runs(runs: usize, max: usize) -> Result<(), String> {
    match runs {
        0 => Err("the sweep has no runs".to_owned()),
        r if r > max => Err(format!("{} asked for; at most {max}", counted(r, "run"))),
        _ => Ok(()),
    }
}

/// Every grid point that can run, in row order (validators outermost),
/// and a line for each cell that cannot ([`possible`]).
fn grid(args: &RunSweepArgs) -> Result<(Vec<Point>, Vec<String>)> {
    let (text, source) = match &args.file {
        Some(p) => (
            tranche_cli::input::read_text(p, tranche_cli::input::MAX_INPUT_FILE_BYTES)
                .map_err(|e| anyhow::anyhow!("{}: {e}", text::path(p)))?,
            p.display().to_string(),
        ),
        None => (
            config::DEFAULT_YAML.to_owned(),
            config::DEFAULT_SOURCE.to_owned(),
        ),
    };
    let base = config::parse(&text, &source).map_err(|e| match &args.file {
        Some(p) => crate::input_kind::explain(p, e, "a YAML test sequence"),
        None => e.into(),
    })?;
    let first = &base.steps[0];
    let (mut ns, mut cs) = (
        axis(&args.validators, first.n_validators),
        axis(&args.cores, first.n_cores),
    );
    crate::small::axes(&mut ns, &mut cs);
    let mut layouts = Vec::new();
    for l in &args.architecture {
        if matches!(l, LayoutArg::Classic | LayoutArg::Both) {
            layouts.push(Architecture::CLASSIC);
        }
        if matches!(l, LayoutArg::Parallel | LayoutArg::Both) {
            for &w in &args.workers {
                if !(1..=64).contains(&w) {
                    bail!("--workers {w}: a parallel layout has 1 to 64 workers");
                }
                layouts.push(Architecture::parallel(w as usize));
            }
        }
    }
    let layouts = unique(&layouts);
    let schedules = unique(&args.schedule);
    let runs = ns.len() * cs.len() * layouts.len() * schedules.len();
    check_runs(runs, MAX_SWEEP_RUNS).map_err(|e| anyhow::anyhow!(e))?;
    let mut cells = Vec::new();
    for &n in &ns {
        for &c in &cs {
            cells.push(step_with(&text, &source, n, c, args.blocks).map_err(|e| format!("{e:#}")));
        }
    }
    let (steps, skipped) = possible(cells).map_err(|e| anyhow::anyhow!(e))?;
    let mut points = Vec::new();
    for step in steps {
        for &architecture in &layouts {
            for &s in &schedules {
                points.push(Point {
                    step: step.clone(),
                    architecture,
                    schedule: schedule_of(s),
                });
            }
        }
    }
    Ok((points, skipped))
}

/// The cells of a grid that can run, and why each other cannot (one line
/// each, naming the cell and the bound); an error when none can.
pub fn possible<T>(cells: Vec<Result<T, String>>) -> Result<(Vec<T>, Vec<String>), String> {
    let total = cells.len();
    let (mut ok, mut skipped) = (Vec::new(), Vec::new());
    for cell in cells {
        match cell {
            Ok(c) => ok.push(c),
            Err(why) => skipped.push(why),
        }
    }
    match (ok.is_empty(), skipped.first()) {
        (true, Some(first)) if total == 1 => Err(first.clone()),
        (true, Some(first)) => Err(format!(
            "none of the {total} cells of the sweep can run; the first: {first}"
        )),
        _ => Ok((ok, skipped)),
    }
}

/// Tell on stderr which cells of a grid a sweep skips, a line each.
pub fn tell_skipped(skipped: &[String]) {
    for why in skipped {
        tranche_cli::errln!("sweep: skipped {why}");
    }
}

/// The `meta` of a sweep's JSON: its configuration lists the swept
/// values (`meta::sweep_fields`) of every point's step and layout.
fn sweep_meta(args: &RunSweepArgs, points: &[Point]) -> tranche_report::Meta {
    let configs: Vec<Vec<String>> = points
        .iter()
        .map(|p| {
            let mut lines = tranche_report::meta::config_fields(std::slice::from_ref(&p.step));
            lines.push(format!("layout: {}", p.architecture.label()));
            lines.push(format!("schedule: {}", schedule_name(p.schedule)));
            lines
        })
        .collect();
    let mut config = tranche_report::meta::sweep_fields(&configs);
    config.push(format!("clock: {:?}", args.clock).to_lowercase());
    let kind = tranche_report::meta::kind::SWEEP_RUN;
    tranche_report::meta::of(kind, "redb", args.seed, config)
}

/// Run `tranche sweep run`; returns its rows.
pub fn execute(args: &RunSweepArgs) -> Result<Vec<RunSweepRow>> {
    use tranche_cli::outputs;
    use tranche_report::meta::kind;
    outputs::check_flags(
        &[
            (
                "--json",
                args.json.as_deref(),
                tranche_report::results::writes(kind::SWEEP_RUN),
            ),
            ("--html", args.html.as_deref(), outputs::HTML),
        ],
        &[args.file.as_deref()],
    )?;
    let (points, skipped) = grid(args)?;
    tell_skipped(&skipped);
    if args.dry_run {
        tranche_cli::stream::out(&dry_run(&points, args.clock))?;
        return Ok(Vec::new());
    }
    let meta = sweep_meta(args, &points);
    let mut rows = Vec::new();
    for (i, p) in points.iter().enumerate() {
        let options = RunOptions {
            architecture: p.architecture,
            clock: args.clock.kind(),
            seed: args.seed,
            cache_dir: args
                .cache_dir
                .clone()
                .unwrap_or_else(|| PathBuf::from(&p.step.workdir_prefix)),
            db: DbKind::Redb,
            progress: Progress::detect(true),
            floor: args.floor.into(),
            db_path: None,
            restart_at_block: None,
            checks: CheckPolicy {
                schedule: p.schedule,
                ..CheckPolicy::default()
            },
            node: Default::default(),
        };
        let prepared = prepare(
            &tranche_config::resolve::Plan::of(&p.step, options.seed),
            &options,
        )?;
        let r = run_step(&p.step, &prepared, &options)
            .with_context(|| format!("running {}", p.step.name))?;
        let blocks = f64::from(r.num_blocks.max(1));
        let row = RunSweepRow {
            n_validators: r.n_validators,
            n_cores: r.n_cores,
            layout: p.architecture.label(),
            schedule: schedule_name(p.schedule).into(),
            all_approved: r.blocks.iter().all(|b| b.approved_after_ms.is_some()),
            max_approval_ms: r.blocks.iter().filter_map(|b| b.approved_after_ms).max(),
            node_cpu_per_block_s: r.node_cpu_s / blocks,
            floor_per_block_s: if r.batches_signatures() {
                r.crypto_floor.batched_per_block_s
            } else {
                r.crypto_floor.per_block_s
            },
            node_ratio: r.floor_ratio(),
            floor: if !r.has_floor() {
                ""
            } else if r.batches_signatures() {
                "batched"
            } else {
                "one-by-one"
            }
            .into(),
            wall_s: r.wall_time_s,
            peak_memory_mib: r.peak_memory_bytes as f64 / 1048576.0,
        };
        if !args.quiet {
            progress(
                i,
                points.len(),
                (row.n_validators, row.n_cores),
                &format!("{}, {}", row.layout, row.schedule),
                row.wall_s,
            );
        }
        rows.push(row);
    }
    let text = table(&rows) + &tranche_report::sweep_run::legend(&rows);
    tranche_cli::stream::out(&text)?;
    if let Some(path) = &args.json {
        let file = tranche_report::results::SweepFile {
            meta: meta.clone(),
            rows: rows.clone(),
        };
        let json = serde_json::to_string_pretty(&file).expect("rows serialise") + "\n";
        tranche_cli::outputs::write_atomic(path, json.as_bytes())?;
    }
    if let Some(path) = &args.html {
        tranche_cli::outputs::write_atomic(path, html(&rows, &text, args.seed)?.as_bytes())?;
    }
    Ok(rows)
}

/// A floor figure's cell: `-` where no floor was measured.
fn floor_cell(r: &RunSweepRow, shown: String) -> String {
    if r.floor_per_block_s > 0.0 {
        shown
    } else {
        "-".into()
    }
}

/// One row's cells in the table's column order.
fn cells(r: &RunSweepRow) -> Vec<String> {
    let approved = if r.all_approved { "all" } else { "NOT all" };
    let slowest = r.max_approval_ms.map_or("-".into(), |v| v.to_string());
    vec![
        format!("{}", r.n_validators),
        format!("{}", r.n_cores),
        r.layout.clone(),
        r.schedule.clone(),
        approved.to_owned(),
        slowest,
        format!("{:.3}", r.node_cpu_per_block_s),
        // No floor measured (`--floor off`): no floor, no ratio.
        floor_cell(r, format!("{:.3}", r.floor_per_block_s)),
        floor_cell(r, format!("{:.2}", r.node_ratio)),
        format!("{:.1}", r.wall_s),
        format!("{:.0}", r.peak_memory_mib),
    ]
}

/// The sweep's table.
pub fn table(rows: &[RunSweepRow]) -> String {
    let cells: Vec<Vec<String>> = rows.iter().map(cells).collect();
    tranche_report::columns(
        &[
            "vals",
            "cores",
            "layout",
            "schedule",
            "approved",
            "slowest ms",
            "node CPU-s/b",
            "floor CPU-s/b",
            "÷ floor",
            "wall s",
            "peak MiB",
        ],
        &cells,
    )
}

/// Each row's parameters besides validators (the plots' x axis), as the
/// series and the legend name them.
fn params(r: &RunSweepRow) -> Vec<(&'static str, String)> {
    vec![
        ("layout", r.layout.clone()),
        ("schedule", r.schedule.clone()),
        ("cores", counted(r.n_cores, "core")),
    ]
}

/// Each row's series name (the values of the parameters that vary over
/// the rows) and the legend's heading naming those parameters.
fn series_names(rows: &[RunSweepRow]) -> (Vec<String>, String) {
    tranche_report::html_chart::sweep_series(&rows.iter().map(params).collect::<Vec<_>>())
}

/// The lines of a plot: one per combination of the parameters that vary
/// (layout, schedule, cores), points by validators, each its own colour.
fn series(rows: &[RunSweepRow], y: impl Fn(&RunSweepRow) -> Option<f64>) -> Vec<Line> {
    let (names, _) = series_names(rows);
    group_lines(
        rows.iter()
            .zip(names)
            .filter_map(|(r, name)| Some((name.clone(), name, (f64::from(r.n_validators), y(r)?)))),
    )
}

/// Each layout's crypto floor per block (the floor it is judged by) as a
/// reference line, one per layout and core count (the floor does not
/// depend on the schedule), in the colour of that layout's first series:
/// one point per validator count (the floor of its first row there).
/// None where no floor was measured (`--floor off`: 0).
fn floor_lines(rows: &[RunSweepRow]) -> Vec<Line> {
    let (names, _) = series_names(rows);
    let cores_vary = rows.iter().any(|r| r.n_cores != rows[0].n_cores);
    let mut colour_of: Vec<((String, u32), String)> = Vec::new();
    for (r, name) in rows.iter().zip(&names) {
        let key = (r.layout.clone(), r.n_cores);
        if !colour_of.iter().any(|c| c.0 == key) {
            colour_of.push((key, name.clone()));
        }
    }
    group_lines(rows.iter().filter(|r| r.floor_per_block_s > 0.0).map(|r| {
        let key = (r.layout.clone(), r.n_cores);
        let colour = colour_of.iter().find(|c| c.0 == key).map(|c| c.1.clone());
        let cores = if cores_vary {
            format!(", {}", counted(r.n_cores, "core"))
        } else {
            String::new()
        };
        (
            format!("floor ({}, {}{cores})", r.layout, r.floor),
            colour.unwrap_or_default(),
            (f64::from(r.n_validators), r.floor_per_block_s),
        )
    }))
    .into_iter()
    .map(|mut l| {
        l.points.dedup_by(|a, b| a.0 == b.0);
        l
    })
    .collect()
}

/// The page: how it was made (commit, seed, command), the two scaling
/// plots, then the table (inline SVG, no external resource; the frame and
/// style of every page, `tranche_report::html::page`).
fn html(rows: &[RunSweepRow], table: &str, seed: u64) -> Result<String> {
    let cpu = series(rows, |r| Some(r.node_cpu_per_block_s));
    let approval = series(rows, |r| r.max_approval_ms.map(|ms| ms as f64 / 1000.0));
    let (_, heading) = series_names(rows);
    let cpu = line_chart_legend(
        &LineChart {
            title: "Node CPU per block against validators",
            x_desc: "validators",
            y_desc: "node CPU-s per block",
            y_from_data: false,
        },
        &cpu,
        &floor_lines(rows),
        Some(&heading),
    )?;
    // The axis from the data: equal times read as a flat line in the
    // middle, a difference of a tick shows.
    let approval = line_chart_legend(
        &LineChart {
            title: "Slowest block's approval against validators",
            x_desc: "validators",
            y_desc: "s after slot start",
            y_from_data: true,
        },
        &approval,
        &[],
        Some(&heading),
    )?;
    let meta = meta_table(&[
        ("commit", tranche_report::meta::COMMIT.to_owned()),
        ("seed", seed.to_string()),
        ("command", std::env::args().collect::<Vec<_>>().join(" ")),
    ]);
    let body = format!(
        "{meta}<div class=\"plots\">\n<figure id=\"plot-1\">{cpu}</figure>\n\
         <figure id=\"plot-2\">{approval}</figure>\n</div>\n<pre>{}</pre>\n",
        escape(table)
    );
    Ok(page("tranche sweep run", &body))
}

/// A sweep's progress line on stderr, for both sweeps: the cell's number,
/// its size and its other coordinates (`rest`), and how long it took.
pub(crate) fn progress(
    i: usize,
    of: usize,
    (validators, cores): (u32, u32),
    rest: &str,
    wall_s: f64,
) {
    tranche_cli::errln!(
        "sweep: {}/{of} ({}, {}, {rest}) in {wall_s:.1} s",
        i + 1,
        counted(validators, "validator"),
        counted(cores, "core"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_axis_is_the_values_asked_for_or_the_base_and_the_runs_are_bounded() {
        assert_eq!(axis(&[], 5u32), vec![5]);
        assert_eq!(axis(&[1u32, 2], 5), vec![1, 2]);
        assert_eq!(check_runs(0, 4), Err("the sweep has no runs".to_owned()));
        assert_eq!(check_runs(4, 4), Ok(()));
        assert_eq!(
            check_runs(5, 4),
            Err("5 runs asked for; at most 4".to_owned())
        );
    }

    #[test]
    fn a_swept_step_keeps_the_base_and_takes_the_size() {
        let s = step_with(config::DEFAULT_YAML, "default", 40, 8, None).unwrap();
        let base = &config::embedded_default().unwrap().steps[0];
        assert_eq!((s.n_validators, s.n_cores), (40, 8));
        assert_eq!(s.num_blocks, base.num_blocks);
        assert_eq!(s.session.needed_approvals, base.session.needed_approvals);
        // A size the rules refuse names the point.
        let e = step_with(config::DEFAULT_YAML, "default", 1, 8, None).unwrap_err();
        assert!(format!("{e:#}").contains("validators 1"), "{e:#}");
    }

    /// A row of `n` validators on `layout` at `cpu` node CPU-s per block
    /// (the floor half of it).
    fn row(n: u32, layout: &str, cpu: f64) -> RunSweepRow {
        RunSweepRow {
            n_validators: n,
            n_cores: 4,
            layout: layout.into(),
            schedule: "fifo".into(),
            all_approved: true,
            max_approval_ms: Some(100),
            node_cpu_per_block_s: cpu,
            floor_per_block_s: cpu / 2.0,
            node_ratio: 2.0,
            floor: "one-by-one".into(),
            wall_s: 0.0,
            peak_memory_mib: 0.0,
        }
    }

    #[test]
    fn series_are_per_layout_and_schedule_sorted_by_validators() {
        let rows = [
            row(40, "classic", 2.0),
            row(20, "classic", 1.0),
            row(20, "parallel/4", 0.5),
        ];
        let s = series(&rows, |r| Some(r.node_cpu_per_block_s));
        assert_eq!(s.len(), 2);
        // Only the layout varies: it alone names the series.
        assert_eq!(s[0].name, "classic");
        assert_eq!(s[0].layout, "classic");
        assert_eq!(s[0].points, vec![(20.0, 1.0), (40.0, 2.0)]);
        assert_eq!(s[1].points, vec![(20.0, 0.5)]);
        let f = floor_lines(&rows);
        assert_eq!(f.len(), 2, "a floor per layout");
        assert_eq!(f[0].points, vec![(20.0, 0.5), (40.0, 1.0)]);
        assert_eq!(f[0].layout, "classic");
        assert_eq!(f[1].name, "floor (parallel/4, one-by-one)");
    }

    #[test]
    fn a_series_per_combination_of_what_varies_each_named_in_its_own_colour_and_marker() {
        // `--cores 10,20 --schedule fifo,useful-first` on both layouts.
        let mut rows = Vec::new();
        for layout in ["classic", "parallel/4"] {
            for schedule in ["fifo", "useful-first"] {
                for cores in [10, 20] {
                    for n in [100, 200] {
                        let mut r = row(n, layout, f64::from(cores) / 10.0);
                        r.schedule = schedule.into();
                        r.n_cores = cores;
                        rows.push(r);
                    }
                }
            }
        }
        let s = series(&rows, |r| Some(r.node_cpu_per_block_s));
        assert_eq!(s.len(), 8, "a series per layout x schedule x cores");
        assert!(
            s.iter().all(|l| l.points.len() == 2),
            "100 and 200 validators each"
        );
        assert_eq!(s[0].name, "classic, fifo, 10 cores");
        assert_eq!(s[1].name, "classic, fifo, 20 cores");
        let (_, heading) = series_names(&rows);
        assert_eq!(heading, "series: layout, schedule, cores");
        let page = html(&rows, &table(&rows), 7).unwrap();
        for l in &s {
            assert!(
                page.contains(&format!("\n{}\n", l.name)),
                "{} in the legend",
                l.name
            );
        }
        assert!(page.contains("\nseries: layout, schedule, cores\n"));
        // Each series its own colour.
        let mut colours: Vec<&str> = page
            .split("<polyline")
            .skip(1)
            .filter_map(|p| p.split("stroke=\"").nth(1)?.split('"').next())
            .collect();
        colours.sort_unstable();
        colours.dedup();
        assert!(colours.len() >= 8, "{colours:?}");
        // Each its own marker: circles, squares, triangles and crosses.
        assert!(page.contains("<circle") && page.contains("<rect") && page.contains("<polygon"));
        // The table's legend names the columns.
        assert!(tranche_report::sweep_run::legend(&rows).contains("slowest ms ="));
    }

    #[test]
    fn without_a_floor_its_cells_are_dashes() {
        let mut r = row(100, "classic", 1.0);
        r.floor_per_block_s = 0.0;
        r.node_ratio = 0.0;
        let c = cells(&r);
        assert_eq!((c[7].as_str(), c[8].as_str()), ("-", "-"));
        assert_eq!(cells(&row(100, "classic", 1.0))[8], "2.00");
    }

    #[test]
    fn the_page_has_the_floor_a_dashed_classic_and_how_it_was_made() {
        let row = |n, layout: &str| row(n, layout, 1.0);
        let rows = [
            row(100, "classic"),
            row(200, "classic"),
            row(100, "parallel/4"),
        ];
        let page = html(&rows, &table(&rows), 7).unwrap();
        assert!(
            page.contains("<th>commit</th>")
                && page.contains("<th>seed</th><td>7</td>")
                && page.contains("<th>command</th>")
        );
        assert!(
            page.contains("\nfloor (classic, one-by-one)\n")
                && page.contains("\nfloor (parallel/4, one-by-one)\n"),
            "a floor line per layout in the legend"
        );
        assert!(
            page.find("<svg").unwrap() < page.find("<pre>").unwrap(),
            "plots first"
        );
        assert!(page.contains(tranche_report::html::STYLE));
        assert!(page.contains("stroke-dasharray") || page.matches("<polyline").count() > 2);
        // The header's columns stand apart.
        let header = table(&rows).lines().next().unwrap().to_owned();
        assert!(
            header.contains(" floor CPU-s/b  ") && !header.contains("CPU-s/b ÷"),
            "{header}"
        );
    }

    #[test]
    fn architecture_both_is_classic_and_parallel() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            args: RunSweepArgs,
        }
        let cli = Cli::try_parse_from(["t", "--architecture", "both"]).unwrap();
        let (points, _) = grid(&cli.args).unwrap();
        let layouts: Vec<_> = points.iter().map(|p| p.architecture).collect();
        assert_eq!(
            layouts,
            vec![Architecture::CLASSIC, Architecture::parallel(4)]
        );
    }
}
