//! The `tranche-polkadot` command: `run` a tranche test sequence on
//! Polkadot's approval subsystems and print (and optionally write as JSON)
//! each block's approval time and the CPU of each subsystem thread.

use anyhow::Result;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use tranche_polkadot::run::{prepare, run, ClockKind, Layout};
use tranche_polkadot::{load_config, report};

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

#[derive(clap::Args)]
struct RunArgs {
    /// A test-sequence YAML (`TestConfiguration` with `!ApprovalVoting` steps).
    file: PathBuf,
    /// Node layout [default: the file's `approval_voting_parallel_enabled`, else parallel].
    #[arg(long, value_enum)]
    architecture: Option<ArchArg>,
    /// Override the file's `n_validators` (every step's).
    #[arg(long)]
    validators: Option<u32>,
    /// Override the file's `n_cores` (every step's).
    #[arg(long)]
    cores: Option<u32>,
    /// Override the file's `num_blocks` (every step's).
    #[arg(long)]
    blocks: Option<u32>,
    /// Which clock drives the run.
    #[arg(long, value_enum, default_value = "real")]
    clock: ClockArg,
    /// Seeds message generation.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// No progress lines on stderr.
    #[arg(long)]
    quiet: bool,
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
    let sizes = (args.validators, args.cores, args.blocks);
    let config = load_config(&args.file, sizes, args.seed)?;
    let mut steps = Vec::new();
    let mut all_approved = true;
    for step in &config.steps {
        let prepared = prepare(step, args.seed)?;
        let mut runs = Vec::new();
        for layout in layouts(args.architecture, step.approval_voting_parallel_enabled) {
            let clock = match args.clock {
                ClockArg::Real => ClockKind::Real,
                ClockArg::Virtual => ClockKind::Virtual,
            };
            let outcome = run(&prepared, layout, clock, !args.quiet)?;
            print!("{}", report::table(step, &outcome));
            all_approved &= outcome.all_approved();
            runs.push(outcome);
        }
        steps.push((step.clone(), runs));
    }
    if let Some(path) = &args.json {
        let value = report::json(args.seed, &steps);
        std::fs::write(path, serde_json::to_string_pretty(&value)? + "\n")
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    Ok(all_approved)
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run_command(args),
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
