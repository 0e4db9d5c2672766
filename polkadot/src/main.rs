//! The `tranche-polkadot` command: `run` a tranche test sequence on
//! Polkadot's approval subsystems and print (and optionally write as JSON)
//! each block's approval time and the CPU of each subsystem thread.

use anyhow::Result;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use tranche_bench::run_cli::FloorArg;
use tranche_polkadot::run::{prepare, run_with_floor, ClockKind, FloorMode, Layout};
use tranche_polkadot::{crosscheck, load_config, report};

#[derive(Parser)]
#[command(
    name = "tranche-polkadot",
    version,
    about = "Polkadot's approval subsystems on tranche's workload"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a YAML test sequence (as `tranche run` reads it) on Polkadot's node.
    Run(RunArgs),
    /// Run a YAML test sequence on Polkadot's node and on tranche's at the
    /// virtual clock, the same messages at the same ticks, and compare
    /// when each block is approved (exit 2 where they differ).
    CrossCheck(CrossCheckArgs),
}

#[derive(clap::Args)]
struct CrossCheckArgs {
    /// A test-sequence YAML (`TestConfiguration` with `!ApprovalVoting` steps).
    file: PathBuf,
    /// Node layout compared [default: both].
    #[arg(long, value_enum, default_value = "both")]
    architecture: ArchArg,
    /// The clock both nodes run on: at the virtual clock their approvals
    /// must agree; at the real clock they are measured side by side.
    #[arg(long, value_enum, default_value = "virtual")]
    clock: ClockArg,
    #[command(flatten)]
    sizes: SizeArgs,
    /// Seeds message generation.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// No progress lines on stderr.
    #[arg(long)]
    quiet: bool,
}

/// Every step's sizes, overriding the file's.
#[derive(clap::Args)]
struct SizeArgs {
    /// Override the file's `n_validators` (every step's).
    #[arg(long)]
    validators: Option<u32>,
    /// Override the file's `n_cores` (every step's).
    #[arg(long)]
    cores: Option<u32>,
    /// Override the file's `num_blocks` (every step's).
    #[arg(long)]
    blocks: Option<u32>,
}

impl SizeArgs {
    fn get(&self) -> (Option<u32>, Option<u32>, Option<u32>) {
        (self.validators, self.cores, self.blocks)
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ArchArg {
    /// approval-voting + approval-distribution.
    Classic,
    /// approval-voting-parallel and its workers.
    Parallel,
    /// Both, one after the other on the same messages.
    Both,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ClockArg {
    /// Wall time, 500 ms ticks; each subsystem task on its own thread.
    Real,
    /// Ticks advance when the node is idle; every task on one thread.
    Virtual,
}

impl From<ClockArg> for ClockKind {
    fn from(arg: ClockArg) -> Self {
        match arg {
            ClockArg::Real => ClockKind::Real,
            ClockArg::Virtual => ClockKind::Virtual,
        }
    }
}

#[derive(clap::Args)]
struct RunArgs {
    /// A test-sequence YAML (`TestConfiguration` with `!ApprovalVoting` steps).
    file: PathBuf,
    /// Node layout [default: the file's `approval_voting_parallel_enabled`, else parallel].
    #[arg(long, value_enum)]
    architecture: Option<ArchArg>,
    #[command(flatten)]
    sizes: SizeArgs,
    /// Which clock drives the run.
    #[arg(long, value_enum, default_value = "real")]
    clock: ClockArg,
    /// Seeds message generation.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write the runs as tranche's result (`tranche run --json`'s format,
    /// node under test `polkadot 36.0.0`): `tranche compare` and
    /// `tranche history` read it.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write tranche's HTML report of the runs to this file.
    #[arg(long)]
    html: Option<PathBuf>,
    /// No progress lines on stderr.
    #[arg(long)]
    quiet: bool,
    /// How the crypto floor of the messages the node was sent is measured
    /// (as `tranche run --floor`): a seeded sample, every message, or not.
    #[arg(long, value_enum, default_value = "sample")]
    floor: FloorArg,
}

fn layouts(arg: Option<ArchArg>, file_says_parallel: Option<bool>) -> Vec<Layout> {
    match arg {
        Some(ArchArg::Classic) => vec![Layout::Classic],
        Some(ArchArg::Parallel) => vec![Layout::Parallel],
        Some(ArchArg::Both) => vec![Layout::Classic, Layout::Parallel],
        None if file_says_parallel == Some(false) => vec![Layout::Classic],
        None => vec![Layout::Parallel],
    }
}

fn run_command(args: RunArgs) -> Result<bool> {
    use tranche_cli::outputs;
    // The outputs are checked before any work (as `tranche run` does): a
    // file that is not one of ours is never overwritten.
    outputs::check_flags(
        &[
            (
                "--json",
                args.json.as_deref(),
                tranche_report::results::writes(tranche_report::meta::kind::RUN),
            ),
            ("--html", args.html.as_deref(), outputs::HTML),
        ],
        &[Some(args.file.as_path())],
    )?;
    let config = load_config(&args.file, args.sizes.get(), args.seed)?;
    let meta = tranche_report::meta::collect(report::DATABASE, args.seed, &config.steps);
    let (clock, floor) = (ClockKind::from(args.clock), FloorMode::from(args.floor));
    let mut runs = Vec::new();
    let mut all_approved = true;
    for step in &config.steps {
        let prepared = prepare(step, args.seed)?;
        for layout in layouts(args.architecture, step.approval_voting_parallel_enabled) {
            let outcome = run_with_floor(&prepared, layout, clock, !args.quiet, floor)?;
            print!("{}", report::table(step, &outcome));
            all_approved &= outcome.all_approved();
            runs.push(report::run_report(&prepared, &outcome, args.seed));
        }
    }
    if let Some(path) = &args.json {
        let file = tranche_report::ReportFile::with_meta(runs.clone(), meta.clone());
        let text = serde_json::to_string_pretty(&file)?;
        outputs::write_atomic(path, (text + "\n").as_bytes())?;
    }
    if let Some(path) = &args.html {
        let page = tranche_report::html::render_html(&runs, Some(&meta))?;
        outputs::write_atomic(path, page.as_bytes())?;
    }
    Ok(all_approved)
}

fn cross_check_command(args: CrossCheckArgs) -> Result<bool> {
    let config = load_config(&args.file, args.sizes.get(), args.seed)?;
    let clock = ClockKind::from(args.clock);
    let mut all_agree = true;
    for step in &config.steps {
        let prepared = prepare(step, args.seed)?;
        for layout in layouts(Some(args.architecture), None) {
            let comparison = crosscheck::compare(&prepared, layout, clock, !args.quiet)?;
            println!("{}", step.name);
            print!("{}", crosscheck::table(&comparison));
            all_agree &= comparison.agrees();
        }
    }
    Ok(all_agree)
}

fn main() {
    let cli = Cli::parse();
    // Polkadot's subsystems' own log lines (upstream's targets, such as
    // `parachain::approval-voting`), when RUST_LOG asks for them.
    if std::env::var_os("RUST_LOG").is_some() {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .init();
    }
    let result = match cli.command {
        Command::Run(args) => run_command(args),
        Command::CrossCheck(args) => cross_check_command(args).map(|agree| {
            if !agree {
                eprintln!(
                    "tranche-polkadot: the two nodes approved some blocks at different ticks"
                );
                std::process::exit(2);
            }
            true
        }),
    };
    match result {
        Ok(true) => {}
        Ok(false) => {
            eprintln!("tranche-polkadot: some blocks were not approved");
            std::process::exit(2);
        }
        Err(e) => {
            eprintln!("tranche-polkadot: {e:#}");
            std::process::exit(1);
        }
    }
}
