//! `tranche run`: the benchmark's command line — which file, which
//! architecture, which clock — and what it prints and writes.

use crate::run::{prepare, run_step_observed, ClockKind, DbKind, NodeUnderTest, RunOptions};
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use tranche_cli::text::counted;
use tranche_config::resolve::Resolved;
use tranche_config::{self as config, BenchConfig};
use tranche_node::{Architecture, Layout, DEFAULT_WORKERS};
use tranche_prometheus::Exporter;
use tranche_report::{render, Meta, ReportFile, RunReport};

/// `--architecture`: one of the node's layouts (`tranche_node::Layout`),
/// or both side by side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ArchArg {
    /// approval-distribution + approval-voting (crypto in voting).
    Classic,
    /// A router, N distribution workers that check crypto, one voting worker.
    Parallel,
    /// Both, one after the other on the same messages, side by side.
    Both,
}

impl ArchArg {
    /// The layouts it names, classic first.
    pub fn layouts(self) -> &'static [Layout] {
        match self {
            ArchArg::Classic => &[Layout::Classic],
            ArchArg::Parallel => &[Layout::Parallel],
            ArchArg::Both => &[Layout::Classic, Layout::Parallel],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ClockArg {
    /// Wall-clock time, 500 ms ticks: shows queueing and CPU contention.
    Real,
    /// Ticks advance when the node is idle: deterministic protocol timing.
    Virtual,
}

impl ClockArg {
    /// The driver's clock of this flag.
    pub fn kind(self) -> ClockKind {
        match self {
            ClockArg::Real => ClockKind::Real,
            ClockArg::Virtual => ClockKind::Virtual,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DbArg {
    /// An embedded redb database in a temporary directory.
    Redb,
    /// In memory, as upstream's benchmark.
    Memory,
    /// ParityDB, the database Polkadot's node keeps its parachains data in
    /// (docs/durability.md), in a temporary directory.
    ParityDb,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SignaturesArg {
    /// The approvals a worker drained together as one batch verification
    /// (a failing batch is bisected: the same verdicts).
    Batched,
    /// Each signature alone, as upstream.
    OneByOne,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScheduleArg {
    /// Arrival order, as upstream.
    Fifo,
    /// A worker that is behind checks first the messages that can still
    /// change an approval, lowest tranche first.
    UsefulFirst,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FloorArg {
    /// Verify a seeded sample of the unique messages (a few per cent of
    /// each kind); report the estimate with its 95 % interval.
    Sample,
    /// Verify every unique message.
    Full,
    /// Do not measure the crypto floor.
    Off,
}

/// The size flags of `tranche run` and `tranche network`, one set for
/// both: each overrides the file's value (every step's, for a test
/// sequence).
#[derive(Args, Debug, Clone, Default)]
pub struct SizeArgs {
    /// Override the file's `n_validators` (every step's).
    #[arg(long)]
    pub validators: Option<u32>,
    /// Override the file's `n_cores` (every step's).
    #[arg(long)]
    pub cores: Option<u32>,
    /// Override the file's `num_blocks` (every step's).
    #[arg(long)]
    pub blocks: Option<u32>,
}

/// Run the approval benchmark on a test sequence.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// A subsystem-bench test-sequence YAML (`TestConfiguration` list with
    /// `!ApprovalVoting` or `!ApprovalsTest` steps), or the bare name of an
    /// example `tranche examples` lists (run from the binary where no file
    /// of that name is here). Without it, an embedded default runs: 100
    /// validators, 20 cores, 3 blocks, best case.
    pub file: Option<PathBuf>,
    /// Node layout. Default: the file's `approval_voting_parallel_enabled`
    /// if present, else parallel. The flag wins over the file.
    #[arg(long, value_enum)]
    pub architecture: Option<ArchArg>,
    #[command(flatten)]
    pub size: SizeArgs,
    /// Distribution workers of the parallel layout.
    #[arg(long, default_value_t = DEFAULT_WORKERS as u32, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub workers: u32,
    /// Which clock drives the run [default: real; with --node model the
    /// model's own time].
    #[arg(long, value_enum)]
    pub clock: Option<ClockArg>,
    /// Seeds message generation, the network model and random routing.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Directory of the message cache. Wins over the file's
    /// `workdir_prefix`.
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    /// Write every figure of the report as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Where the node under test keeps its approval database [default:
    /// redb].
    #[arg(long, value_enum)]
    pub db: Option<DbArg>,
    /// Nothing on stderr but warnings and errors: no progress bars or lines.
    #[arg(long)]
    pub quiet: bool,
    /// Print each step's estimate (messages, memory, time) and whether it
    /// fits this machine, then stop: nothing generated or run.
    #[arg(long)]
    pub dry_run: bool,
    /// How the crypto floor is measured (see docs/observability.md).
    #[arg(long, value_enum, default_value_t = FloorArg::Sample)]
    pub floor: FloorArg,
    /// Serve Prometheus metrics at http://ADDR/metrics for the whole
    /// invocation (e.g. 127.0.0.1:9999; port 0 picks a free port). The
    /// address bound is printed on stderr.
    #[arg(long, value_name = "ADDR")]
    pub prometheus: Option<String>,
    /// With --prometheus: keep serving this many seconds (at most 3600)
    /// after the last run, so that a scraper sees the final figures.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 0,
        requires = "prometheus",
        value_parser = clap::value_parser!(u64).range(0..=3600)
    )]
    pub prometheus_hold: u64,
    /// Write a CPU flamegraph (SVG) of the invocation, sampled in process.
    #[arg(long, value_name = "FILE.svg")]
    pub profile: Option<PathBuf>,
    /// Write a self-contained HTML report with plots of every run.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Run steps in which every candidate is approved at import
    /// (`needed_approvals` 0, or above the validators outside a backing
    /// group), which measure nothing and are refused otherwise.
    #[arg(long)]
    pub allow_vacuous: bool,
    /// Measure each layout N times on the same prepared messages; CPU, the
    /// crypto floors and the node ÷ floor ratios are reported as the median
    /// with its range (min–max) over the N runs, one line per figure.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
    /// Keep the node's database in this folder (one subfolder per step and
    /// layout, emptied at the start of each run) instead of a temporary
    /// folder removed at the end.
    #[arg(long, value_name = "DIR")]
    pub db_path: Option<PathBuf>,
    /// Stop the node abruptly at the start of block N's slot (workers
    /// stopped where they are, the database abandoned without a final
    /// commit), start it again on the same database and carry on. Needs
    /// --db redb or parity-db.
    #[arg(long, value_name = "N")]
    pub restart_at_block: Option<u32>,
    /// With --repeat: unmeasured warm-up runs of each layout before the N.
    #[arg(long, value_name = "K", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub warmup: u32,
    /// How the parallel layout's workers verify approval signatures (the
    /// classic layout checks one by one, as upstream's did) [default:
    /// batched].
    #[arg(long, value_enum)]
    pub signatures: Option<SignaturesArg>,
    /// In which order a distribution worker checks its backlog.
    #[arg(long, value_enum, default_value_t = ScheduleArg::Fifo)]
    pub schedule: ScheduleArg,
    /// With --schedule useful-first: messages a worker's backlog holds
    /// (default: as many as its bounded input, 16 000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub backlog: Option<u64>,
    /// Parallel layout, fifo: messages a worker drains at once to check
    /// their certificates back to back before handling them in order (0:
    /// each certificate when its message is handled; decisions and sends
    /// are the same either way).
    #[arg(long, value_name = "N", default_value_t = tranche_node::DEFAULT_AHEAD_BATCH as u64,
          value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub check_ahead: u64,
    /// What runs as the node under test: the real node on threads, or the
    /// whole-network simulation's model of it on its modelled CPU, among
    /// the same peers and messages (its CPU is modelled, its time the
    /// model's: it implies the virtual clock).
    #[arg(long, value_enum, default_value_t = NodeArg::Real)]
    pub node: NodeArg,
    /// With --node model: the cores the modelled node's threads share.
    #[arg(long, value_name = "N", default_value_t = tranche_config::node_shape::DEFAULT_CORES,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(tranche_config::node_shape::MAX_CPU_CORES)))]
    pub node_cores: u32,
    /// With --node model: the CPU model's cost table (`tranche calibrate
    /// --out FILE`) [default: the built-in table].
    #[arg(long, value_name = "FILE")]
    pub costs: Option<PathBuf>,
}

/// `--node`: what runs as the node under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NodeArg {
    /// The node on real threads.
    Real,
    /// The simulation's model of the node on its modelled CPU.
    Model,
}

impl RunArgs {
    /// The clock of the run: the flag, else the model's time with `--node
    /// model`, else real.
    pub fn clock(&self) -> ClockArg {
        match (self.clock, self.node) {
            (Some(c), _) => c,
            (None, NodeArg::Model) => ClockArg::Virtual,
            (None, NodeArg::Real) => ClockArg::Real,
        }
    }

    /// The database of the run: the flag, else redb.
    pub fn db(&self) -> DbArg {
        self.db.unwrap_or(DbArg::Redb)
    }
}

/// `--prometheus ADDR` needs a port (a host alone cannot be bound).
fn check_prometheus_addr(addr: &str) -> Result<()> {
    let port = addr.rsplit_once(':').map(|(_, p)| p.parse::<u16>());
    if !matches!(port, Some(Ok(_))) {
        bail!(
            "--prometheus {}: an address with a port is needed, e.g. 127.0.0.1:9615 (port 0 \
             picks a free one)",
            tranche_cli::text::bare(addr)
        );
    }
    Ok(())
}

/// The node under test `--node` asks for; with `model`, the flags that
/// mean nothing to a model are refused, each on one line.
fn node_under_test(args: &RunArgs) -> Result<crate::run::NodeUnderTest> {
    if args.node == NodeArg::Real {
        if args.costs.is_some() {
            bail!("--costs is the modelled node's cost table: it needs --node model");
        }
        return Ok(crate::run::NodeUnderTest::Real);
    }
    let refused = [
        (
            args.clock == Some(ClockArg::Real),
            "--clock real (the model's time is virtual)",
        ),
        (args.db.is_some(), "--db (the model keeps no database)"),
        (
            args.db_path.is_some(),
            "--db-path (the model keeps no database)",
        ),
        (
            args.restart_at_block.is_some(),
            "--restart-at-block (the model does not crash)",
        ),
        (
            args.schedule != ScheduleArg::Fifo,
            "--schedule useful-first (the model takes its input in arrival order)",
        ),
        (
            args.check_ahead != tranche_node::DEFAULT_AHEAD_BATCH as u64,
            "--check-ahead (the model charges each check as it comes)",
        ),
        (
            args.signatures.is_some(),
            "--signatures (the model charges each signature one by one)",
        ),
        (
            args.prometheus.is_some(),
            "--prometheus (the model's figures are in the report)",
        ),
        (
            args.repeat > 1,
            "--repeat (the model gives the same figures every time)",
        ),
    ];
    if let Some((_, flag)) = refused.iter().find(|(given, _)| *given) {
        bail!("--node model does not take {flag}");
    }
    let costs = match &args.costs {
        Some(path) => tranche_model::CostTable::load(path)?,
        None => tranche_model::CostTable::default(),
    };
    Ok(crate::run::NodeUnderTest::Model(crate::run::ModelOptions {
        cores: args.node_cores,
        costs,
    }))
}

/// The `--signatures`, `--schedule` and `--check-ahead` choices.
fn check_policy(args: &RunArgs) -> tranche_node::CheckPolicy {
    tranche_node::CheckPolicy {
        signatures: match args.signatures.unwrap_or(SignaturesArg::Batched) {
            SignaturesArg::Batched => tranche_node::SignatureCheck::Batched,
            SignaturesArg::OneByOne => tranche_node::SignatureCheck::OneByOne,
        },
        schedule: match args.schedule {
            ScheduleArg::Fifo => tranche_node::Schedule::Fifo,
            ScheduleArg::UsefulFirst => tranche_node::Schedule::UsefulFirst,
        },
        backlog: args.backlog.map(|n| n as usize),
        ahead: args.check_ahead as usize,
    }
}

fn architectures(args: &RunArgs, file_choice: Option<bool>) -> Vec<Architecture> {
    let layouts = match (args.architecture, file_choice) {
        (Some(choice), _) => choice.layouts(),
        (None, Some(false)) => ArchArg::Classic.layouts(),
        (None, _) => ArchArg::Parallel.layouts(),
    };
    layouts
        .iter()
        .map(|layout| match layout {
            Layout::Classic => Architecture::CLASSIC,
            Layout::Parallel => Architecture::parallel(args.workers as usize),
        })
        .collect()
}

/// What a run announces before its work: the steps that take long (their
/// estimate) and the steps skipped; nothing with `--quiet`.
fn notes(
    config: &config::BenchConfig,
    estimates: &[config::estimate::RunEstimate],
    quiet: bool,
) -> Vec<String> {
    if quiet {
        return Vec::new();
    }
    let long = config
        .steps
        .iter()
        .zip(estimates)
        .filter(|(_, c)| c.wall_seconds() >= 10.0)
        .map(|(step, c)| format!("note: {}: {}", step.name, c.describe()));
    let skipped = config.skipped.iter().map(|s| {
        format!(
            "note: step {} ({}) is not an approval benchmark; skipped",
            s.step, s.objective
        )
    });
    long.chain(skipped).collect()
}

/// Each step's estimate under the clock of the run: the real clock waits
/// for the slots the virtual one skips.
fn estimates_on(resolved: &Resolved, clock: ClockArg) -> Vec<config::estimate::RunEstimate> {
    resolved
        .steps()
        .map(|(step, plan)| match clock {
            ClockArg::Real => plan.estimate.on_real_clock(step),
            ClockArg::Virtual => plan.estimate,
        })
        .collect()
}

/// `--dry-run`: each step's size and estimate under `clock`, and whether
/// it fits the memory available (`None`: unknown), on stdout; nothing
/// generated.
fn dry_run(resolved: &Resolved, available: Option<u64>, clock: ClockArg) -> String {
    let mut s = String::new();
    for (step, e) in resolved
        .config
        .steps
        .iter()
        .zip(estimates_on(resolved, clock))
    {
        let fits = match available {
            Some(a) if e.bytes > a => format!("does not fit: {} MiB available", a >> 20),
            Some(a) => format!("fits: {} MiB available", a >> 20),
            None => "memory available unknown".to_owned(),
        };
        s.push_str(&format!(
            "dry run: {} — {} x {} x {}: {}; {fits}\n",
            step.name,
            counted(step.n_validators, "validator"),
            counted(step.n_cores, "core"),
            counted(step.num_blocks, "block"),
            e.describe()
        ));
    }
    s.push_str("dry run: nothing generated or run (without --dry-run the run starts here)\n");
    s
}

/// Run every approval step of the file (or the embedded default): the
/// flags checked before any output, the file read, the estimate, the
/// services the run serves (Prometheus, the profiler), each step run in
/// each layout, then what the run could not approve.
pub fn execute(mut args: RunArgs) -> Result<()> {
    if crate::small::on() {
        args.clock = Some(ClockArg::Virtual);
    }
    let node = check_flags(&args)?;
    let resolved = resolve_args(&args)?;
    check_restarts(&args, &resolved.config)?;
    let available = config::estimate::mem_available();
    if args.dry_run {
        let text = dry_run(&resolved, available, args.clock());
        return tranche_cli::stream::out(&text).map_err(Into::into);
    }
    // The estimate before work: refuse what cannot fit, announce what takes long.
    if let Some(refused) = resolved.too_large(available) {
        return Err(refused.into());
    }
    let estimates = estimates_on(&resolved, args.clock());
    for line in notes(&resolved.config, &estimates, args.quiet) {
        tranche_cli::errln!("{line}");
    }
    let exporter = match &args.prometheus {
        Some(addr) => {
            let ex = Exporter::start(addr)?;
            tranche_cli::errln!("prometheus: serving http://{}/metrics", ex.addr());
            Some(ex)
        }
        None => None,
    };
    let profiler = match &args.profile {
        Some(_) => Some(crate::profile::Profiler::start()?),
        None => None,
    };
    let runs = run_steps(&args, &resolved, &node, exporter.as_ref())?;
    if let (Some(p), Some(path)) = (profiler, &args.profile) {
        p.finish(path)?;
        if !args.quiet {
            tranche_cli::errln!("profile: wrote {}", path.display());
        }
    }
    if let Some(path) = args.html.as_ref().filter(|_| !args.quiet) {
        tranche_cli::errln!("html: wrote {}", path.display());
    }
    if exporter.is_some() && args.prometheus_hold > 0 {
        tranche_cli::errln!(
            "prometheus: serving the final figures for {} s more",
            args.prometheus_hold
        );
        std::thread::sleep(std::time::Duration::from_secs(args.prometheus_hold));
    }
    all_approved(&runs)
}

/// The flags on their own, before any output: the outputs' kinds, the node
/// under test, the flags that need another, the Prometheus address.
fn check_flags(args: &RunArgs) -> Result<NodeUnderTest> {
    use tranche_cli::outputs;
    use tranche_report::meta::kind;
    outputs::check_flags(
        &[
            (
                "--json",
                args.json.as_deref(),
                tranche_report::results::writes(kind::RUN),
            ),
            ("--html", args.html.as_deref(), outputs::HTML),
            ("--profile", args.profile.as_deref(), outputs::SVG),
        ],
        &[args.file.as_deref(), args.costs.as_deref()],
    )?;
    let node = node_under_test(args)?;
    if args.restart_at_block.is_some() && args.db() == DbArg::Memory {
        bail!("--restart-at-block needs a database on disk (--db redb or parity-db): a restart in memory would start from nothing");
    }
    if args.backlog.is_some() && args.schedule != ScheduleArg::UsefulFirst {
        bail!("--backlog sizes the backlog of --schedule useful-first; with fifo there is none");
    }
    if args.architecture == Some(ArchArg::Classic) && args.workers as usize != DEFAULT_WORKERS {
        tranche_cli::errln!(
            "warning: --workers {} has no effect with --architecture classic (one distribution \
             worker)",
            args.workers
        );
    }
    if let Some(addr) = &args.prometheus {
        check_prometheus_addr(addr)?;
    }
    Ok(node)
}

/// The file's steps against the restart flag, before any output: a
/// restart a step cannot take.
fn check_restarts(args: &RunArgs, config: &BenchConfig) -> Result<()> {
    if args.node == NodeArg::Real {
        for step in &config.steps {
            crate::run::check_restart(
                args.restart_at_block,
                step.num_blocks,
                args.db() != DbArg::Memory,
            )?;
        }
    }
    Ok(())
}

/// The options of one layout's run of a step.
fn run_options(
    args: &RunArgs,
    step: &config::BenchStep,
    node: &NodeUnderTest,
    arch: Architecture,
) -> RunOptions {
    RunOptions {
        architecture: arch,
        clock: args.clock().kind(),
        seed: args.seed,
        cache_dir: args
            .cache_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from(&step.workdir_prefix)),
        db: match args.db() {
            DbArg::Redb => DbKind::Redb,
            DbArg::Memory => DbKind::Memory,
            DbArg::ParityDb => DbKind::ParityDb,
        },
        progress: crate::run::Progress::detect(args.quiet),
        floor: args.floor.into(),
        db_path: args.db_path.clone(),
        restart_at_block: args.restart_at_block,
        checks: check_policy(args),
        node: node.clone(),
    }
}

/// Every step in each of its layouts, the header first and each step's
/// table and results written as soon as it ends (a later failing step
/// cannot lose them).
fn run_steps(
    args: &RunArgs,
    resolved: &Resolved,
    node: &NodeUnderTest,
    exporter: Option<&Exporter>,
) -> Result<Vec<RunReport>> {
    let meta = invocation_meta(args, &resolved.config);
    tranche_cli::stream::out(&meta.header())?;
    let mut runs = Vec::new();
    for (step, plan) in resolved.steps() {
        let layouts = architectures(args, step.approval_voting_parallel_enabled);
        // The messages of a step are the same for every layout: prepared
        // once, run against each.
        let Some(&first) = layouts.first() else {
            continue;
        };
        let prepared = prepare(plan, &run_options(args, step, node, first))
            .with_context(|| format!("preparing {}", step.name))?;
        for arch in layouts {
            let options = run_options(args, step, node, arch);
            let report = run_repeated(args, step, &prepared, &options, exporter)
                .with_context(|| format!("running {}", step.name))?;
            if let Some(ex) = exporter {
                ex.finish_run(&report);
            }
            runs.push(report);
        }
        let step_runs: Vec<_> = runs
            .iter()
            .filter(|r| r.name == step.name)
            .cloned()
            .collect();
        // The table carries the `--repeat` spread (`report::repeat`).
        tranche_cli::stream::out(&format!("{}\n", render(&step_runs)))?;
        write_results(args, &runs, &meta)?;
    }
    Ok(runs)
}

/// An error saying why, where some block of some run was never approved.
fn all_approved(runs: &[RunReport]) -> Result<()> {
    let unapproved: usize = runs
        .iter()
        .map(|r| {
            r.blocks
                .iter()
                .filter(|b| b.approved_tick.is_none())
                .count()
        })
        .sum();
    if unapproved == 0 {
        return Ok(());
    }
    let never = format!(
        "{} never approved",
        match unapproved {
            1 => "1 block was".to_owned(),
            n => format!("{n} blocks were"),
        }
    );
    let stalled: usize = runs.iter().map(|r| r.stalls.len()).sum();
    if stalled > 0 {
        bail!(
            "{never}: {} stalled, {} no-shows never covered because upstream's generator rule held back their next \
             assignments (the \"stalled\" lines above; docs/quirks.md)",
            counted(stalled, "candidate"),
            if stalled == 1 { "its" } else { "their" }
        );
    }
    let withheld: u64 = runs.iter().map(|r| r.counts.withheld_approvals).sum();
    if withheld > 0 {
        bail!(
            "{never}: {} withheld as no-shows {} not all covered by later tranches (the \
             \"why\" line above)",
            counted(withheld, "approval"),
            if withheld == 1 { "was" } else { "were" }
        );
    }
    bail!("{never} (see the report above)")
}

/// The command line's configuration, resolved in one call to config
/// (`config::resolve`): the file's text with the size flags, the small
/// mode's cut, the checks and each step's plan.
fn resolve_args(args: &RunArgs) -> Result<Resolved> {
    crate::sequence::resolve_file(
        args.file.as_deref(),
        (args.size.validators, args.size.cores, args.size.blocks),
        args.allow_vacuous,
        args.seed,
        args.quiet,
    )
}

/// One layout's report: `--warmup` runs discarded, then `--repeat` runs
/// folded into one (`report::repeat`); a single run as it is.
fn run_repeated(
    args: &RunArgs,
    step: &tranche_config::BenchStep,
    prepared: &crate::run::Prepared,
    options: &RunOptions,
    exporter: Option<&Exporter>,
) -> Result<tranche_report::RunReport> {
    for _ in 0..args.warmup {
        run_step_observed(step, prepared, options, None)?;
    }
    let mut measured = Vec::new();
    for _ in 0..args.repeat {
        measured.push(run_step_observed(step, prepared, options, exporter)?);
    }
    if args.repeat == 1 && args.warmup == 0 {
        return Ok(measured.remove(0));
    }
    tranche_report::repeat::combine(measured, args.warmup as usize)
}

/// The JSON and HTML files of the runs so far, each written atomically.
fn write_results(args: &RunArgs, runs: &[tranche_report::RunReport], meta: &Meta) -> Result<()> {
    if let Some(path) = &args.json {
        let file = ReportFile::with_meta(runs.to_vec(), meta.clone());
        let text = serde_json::to_string_pretty(&file)?;
        tranche_cli::outputs::write_atomic(path, (text + "\n").as_bytes())?;
    }
    if let Some(path) = &args.html {
        let page = tranche_report::html::render_html(runs, Some(meta))?;
        tranche_cli::outputs::write_atomic(path, page.as_bytes())?;
    }
    Ok(())
}

/// The metadata of this invocation (`report::meta`).
fn invocation_meta(args: &RunArgs, config: &BenchConfig) -> Meta {
    let database = match (args.node, args.db()) {
        (NodeArg::Model, _) => "model",
        (_, DbArg::Redb) => "redb",
        (_, DbArg::Memory) => "memory",
        (_, DbArg::ParityDb) => "parity-db",
    };
    Meta {
        restart_at_block: args.restart_at_block,
        ..tranche_report::meta::collect(database, args.seed, &config.steps)
    }
}

impl From<FloorArg> for crate::floor::FloorMode {
    fn from(arg: FloorArg) -> Self {
        match arg {
            FloorArg::Sample => crate::floor::FloorMode::Sample,
            FloorArg::Full => crate::floor::FloorMode::Full,
            FloorArg::Off => crate::floor::FloorMode::Off,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_announces_no_estimate() {
        let config = config::embedded_default().unwrap();
        let long = vec![config::estimate::RunEstimate {
            messages: 1,
            sent: 1,
            bytes: 1,
            seconds: 60.0,
            real_clock: None,
        }];
        let loud = notes(&config, &long, false);
        assert_eq!(loud.len(), 1, "{loud:?}");
        assert!(loud[0].starts_with("note: "), "{loud:?}");
        assert!(notes(&config, &long, true).is_empty());
    }
}
