//! The `tranche` command line.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use tranche_bench::conformance;

/// tranche: Polkadot's approval-voting protocol, conformance checks and a
/// benchmark of it.
#[derive(Parser, Debug)]
#[command(name = "tranche", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Recompute every output of a conformance vector file with tranche's
    /// own primitives (keys, assignments, certificates, vote payloads and
    /// signatures, wire encodings) and write a file of the same schema.
    Conformance {
        /// A file in the `polkadot-approval-conformance/1` schema; its
        /// output fields are ignored.
        #[arg(long)]
        input: PathBuf,
        /// Where to write the computed file.
        #[arg(long)]
        output: PathBuf,
        /// Also compare the result with the input's outputs, as Polkadot's
        /// checker would, print one line per failure and a summary, and
        /// exit non-zero on any failure.
        #[arg(long)]
        check: bool,
    },
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Conformance {
            input,
            output,
            check,
        } => {
            let file = conformance::load(&input)?;
            let ours = conformance::compute(&file)
                .with_context(|| format!("computing {}", input.display()))?;
            let text = serde_json::to_string_pretty(&ours)?;
            std::fs::write(&output, text + "\n")
                .with_context(|| format!("cannot write {}", output.display()))?;
            if check {
                let report = conformance::check::compare(&file, &ours)?;
                for f in &report.failures {
                    println!("FAIL {f}");
                }
                println!("{}", report.summary());
                if !report.failures.is_empty() {
                    return Ok(ExitCode::FAILURE);
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
