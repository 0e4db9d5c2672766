//! The `tranche` command line.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use tranche_bench::help::{self, section};
use tranche_cli::errln;
use tranche_cli::stream::out;
use tranche_conformance::vectors as conformance;

/// The version `--version` prints: the package's and the commit's.
fn version() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| {
        format!(
            "{} ({})",
            env!("CARGO_PKG_VERSION"),
            tranche_report::meta::COMMIT
        )
    })
}

/// tranche: Polkadot's approval-voting protocol, conformance checks and a
/// benchmark of it.
#[derive(Parser, Debug)]
#[command(name = "tranche", version = version(), about, long_about = None)]
struct Cli {
    /// More log lines on stderr: -v info, -vv debug, -vvv trace (default:
    /// warnings). RUST_LOG, when set, wins.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum SweepOf {
    /// A grid of `tranche run` configurations; with --html, the scaling
    /// plots (CPU per block and approval time against validators).
    #[command(after_help = section(help::SWEEP_RUN))]
    Run(tranche_bench::sweep::RunSweepArgs),
    /// A grid of `tranche network` runs.
    #[command(after_help = section(help::SWEEP_NETWORK))]
    Network(tranche_bench::sweep_network::SweepArgs),
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the approval benchmark on a test sequence.
    ///
    /// The node under test among emulated validators, on a subsystem-bench
    /// test sequence (or the embedded default).
    #[command(after_help = section(help::RUN))]
    Run(tranche_bench::run_cli::RunArgs),
    /// Simulate the whole network of validators.
    ///
    /// Every validator runs approval voting and distribution, on timely
    /// dataflow (an `!ApprovalNetwork` file, or the embedded default).
    #[command(after_help = section(help::NETWORK))]
    Network(tranche_bench::network_cli::NetworkArgs),
    /// Measure the CPU cost table on this machine.
    ///
    /// The file `--costs FILE` reads (`tranche network`, `tranche run
    /// --node model`): each cost the median of timed batches of the
    /// project's own code.
    #[command(after_help = section(help::CALIBRATE))]
    Calibrate(tranche_bench::calibrate::CalibrateArgs),
    /// A grid of runs of the benchmark or of the network.
    ///
    /// `sweep run` (validators x cores x layout x schedule of the
    /// benchmark) or `sweep network` (validators x cores x no-show x slow
    /// fractions of the simulation); one table, one JSON.
    #[command(after_help = section(help::SWEEP))]
    Sweep {
        #[command(subcommand)]
        of: SweepOf,
    },
    /// List the shipped example test sequences, or write them out.
    #[command(after_help = section(help::EXAMPLES))]
    Examples {
        /// Write every example into this folder (never over a file).
        #[arg(long, value_name = "DIR")]
        write: Option<PathBuf>,
    },
    /// Print a completion script for a shell on stdout.
    ///
    /// bash, zsh, fish, elvish or powershell.
    #[command(after_help = section(help::COMPLETIONS))]
    Completions {
        /// The shell the script is for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Recompute a conformance vector file with tranche's own primitives.
    ///
    /// Every output of the file (keys, assignments, certificates, vote
    /// payloads and signatures, wire encodings), written as a file of the
    /// same schema.
    #[command(after_help = section(help::CONFORMANCE))]
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
    /// Compare two results: exit 1 on a regression, 3 when not comparable.
    ///
    /// Two `tranche run --json` results, or two `tranche network
    /// --json` results: deterministic figures (virtual clock; every record
    /// of a network run) must match exactly, CPU may not slow down beyond
    /// the tolerance (and, with --repeat in both files, the baseline's
    /// range). Exit status 0: no regression; 1: regression; 2: a file could
    /// not be read; 3: the files are not comparable (of different kinds,
    /// another seed, configuration, layout, workers, node under test,
    /// processes, a network run's threads, clock, database, restart or
    /// result format, or no figure in common; what differs is printed in
    /// one line); 74: the output could not be written (a full disk).
    #[command(after_help = section(help::COMPARE))]
    Compare(tranche_bench::compare_cli::CompareArgs),
    /// Follow results over commits, a regression marked where it appears.
    ///
    /// Folders (or a list) of `run`,
    /// `network` and `sweep` JSON files, ordered by their `meta.date`, one
    /// series per comparable configuration (compare's rule); the headline
    /// figures of each result, each step compare's rule calls a regression
    /// marked; --html draws them against commit and date. Exit status 0
    /// whatever the regressions (read the table); 3 when results of one
    /// name are not comparable (what differs is named) or a step could not
    /// be judged; 1 when nothing could be read; 74 when the output could
    /// not be written (a full disk).
    #[command(after_help = section(help::HISTORY))]
    History(tranche_bench::history_cli::HistoryArgs),
    /// Run the voting state machine on a timed scenario, or a folder of them.
    ///
    /// In virtual time (format: testdata/scenarios/README.md); print a timeline of why each
    /// candidate was approved when it was, or write the result file. With
    /// an expected answer (NAME.expected.json beside the file, or
    /// --expected), print the first differing decision field. A folder runs
    /// every scenario below it and ends with `N passed, M failed`. Exit
    /// status 0: all equal; 1: a difference; 2: a file could not be read;
    /// 74: the output could not be written (a full disk).
    #[command(after_help = section(help::SCENARIO))]
    Scenario {
        /// A scenario file, or a folder of them.
        path: PathBuf,
        /// The expected answer to compare with (default: NAME.expected.json
        /// beside the file, when it exists).
        #[arg(long)]
        expected: Option<PathBuf>,
        /// Write the result (README schema) here instead of printing the
        /// timeline.
        #[arg(long)]
        output: Option<PathBuf>,
    },
}

/// Run the command; its exit status (`stream::exit_status` may change it).
fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Examples { write } => {
            match write {
                None => out(&tranche_bench::examples::listing())?,
                Some(dir) => {
                    for p in tranche_bench::examples::write_all(&dir)? {
                        out(&format!("wrote {}\n", p.display()))?;
                    }
                }
            }
            Ok(0)
        }
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut cmd = Cli::command();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cmd, "tranche", &mut script);
            out(&String::from_utf8_lossy(&script))?;
            Ok(0)
        }
        Command::Compare(args) => {
            // `-v` (global) lists the identical figures too.
            tranche_bench::compare_cli::execute(&args, cli.verbose > 0)
        }
        Command::History(args) => tranche_bench::history_cli::execute(&args),
        Command::Run(args) => {
            tranche_bench::run_cli::execute(args)?;
            Ok(0)
        }
        Command::Network(args) => {
            tranche_bench::network_cli::execute(&args)?;
            Ok(0)
        }
        Command::Calibrate(args) => tranche_bench::calibrate::execute(&args),
        Command::Sweep {
            of: SweepOf::Run(args),
        } => {
            tranche_bench::sweep::execute(&args)?;
            Ok(0)
        }
        Command::Sweep {
            of: SweepOf::Network(args),
        } => {
            tranche_bench::sweep_network::execute(&args)?;
            Ok(0)
        }
        Command::Scenario {
            path,
            expected,
            output,
        } => {
            // The scenario and its expected answer are inputs: never
            // overwritten by the result.
            if let Some(o) = &output {
                let inputs: Vec<&std::path::Path> = std::iter::once(path.as_path())
                    .chain(expected.as_deref())
                    .collect();
                tranche_cli::outputs::check(
                    &[("--output", o, tranche_cli::outputs::CONFORMANCE)],
                    &inputs,
                )?;
            }
            let args = tranche_conformance::scenario::command::Args {
                path,
                expected,
                output,
            };
            Ok(tranche_conformance::scenario::command::execute(&args))
        }
        Command::Conformance {
            input,
            output,
            check,
        } => {
            tranche_cli::outputs::check(
                &[("--output", &output, tranche_cli::outputs::CONFORMANCE)],
                &[&input],
            )?;
            let file = conformance::load(&input)?;
            let ours = conformance::compute(&file)
                .with_context(|| format!("computing {}", input.display()))?;
            let text = serde_json::to_string_pretty(&ours)?;
            tranche_cli::outputs::write_atomic(&output, (text + "\n").as_bytes())?;
            if check {
                let report = conformance::check::compare(&file, &ours)?;
                for f in &report.failures {
                    out(&format!("FAIL {f}\n"))?;
                }
                out(&format!("{}\n", report.summary()))?;
                if !report.failures.is_empty() {
                    return Ok(1);
                }
            }
            Ok(0)
        }
    }
}

/// The process's allocator: jemalloc on Linux, as Polkadot's node binary
/// (`polkadot/src/main.rs`). The simulation frees on one worker thread
/// what another allocated (every notification crosses workers), which
/// glibc's per-thread arenas serve with a lock and a consolidation each.
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// What clap answers instead of a command: `--help` and `--version` on
/// stdout through `stream::out`, so that a full or closed stdout is one
/// error line and status 1 (or 141 quietly), as for every command; a
/// usage error as clap prints it (status 2).
fn clap_answer(mut e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    use std::io::IsTerminal;
    let shown = matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion);
    if !shown || std::io::stdout().is_terminal() {
        true_usage(&mut e, std::env::args().skip(1));
        e.exit();
    }
    // A failed stdout is remembered: `exit_status` prints its one line.
    let _ = out(&e.render().to_string());
    ExitCode::from(tranche_cli::stream::exit_status(0))
}

/// A usage error's `Usage:` line made the command's own: clap writes the
/// argument it suggests into it (`tranche run --badflag` gave `Usage:
/// tranche run --backlog <N> [FILE]`, an option the user never typed).
/// The command is found from `args` (the words after the binary that name
/// subcommands, in order).
fn true_usage(e: &mut clap::Error, args: impl Iterator<Item = String>) {
    use clap::error::{ContextKind, ContextValue};
    use clap::CommandFactory;
    if e.get(ContextKind::Usage).is_none() {
        return;
    }
    let mut cmd = Cli::command();
    cmd.build();
    let mut at = &cmd;
    for word in args {
        if word.starts_with('-') {
            continue;
        }
        match at.find_subcommand(&word) {
            Some(sub) => at = sub,
            None => break,
        }
    }
    let usage = at.clone().render_usage();
    e.insert(ContextKind::Usage, ContextValue::StyledStr(usage));
}

fn main() -> ExitCode {
    tranche_cli::stream::install_panic_net();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_answer(e),
    };
    let level = match cli.verbose {
        0 => log::LevelFilter::Warn,
        1 => log::LevelFilter::Info,
        2 => log::LevelFilter::Debug,
        _ => log::LevelFilter::Trace,
    };
    // ParityDB warns on dropping a database whose commit failed (it tries
    // to apply the half-written log again: "Shutdown error: Corruption");
    // the store has already said what failed, and the next opening drops
    // the half record by its checksum (docs/durability.md). Shown with -v.
    let parity_db = if cli.verbose == 0 {
        log::LevelFilter::Error
    } else {
        level
    };
    env_logger::Builder::new()
        .filter_level(level)
        .filter_module("parity-db", parity_db)
        .parse_default_env()
        .format_target(false)
        .format_timestamp(None)
        .init();
    let status = match run(cli) {
        Ok(status) => status,
        Err(e) => {
            // A failed stream says so itself (`stream::exit_status`).
            if tranche_cli::stream::failure().is_none() {
                errln!("error: {e:#}");
            }
            1
        }
    };
    ExitCode::from(tranche_cli::stream::exit_status(status))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Issue 60: `sweep run --seed` had no help text. Every argument of
    /// every command has one.
    #[test]
    fn every_argument_has_help() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for a in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
                if a.get_help().is_none() && a.get_long_help().is_none() {
                    missing.push(format!("{path} {}", a.get_id()));
                }
            }
            for sub in cmd.get_subcommands() {
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        walk(&Cli::command(), "tranche", &mut missing);
        assert!(missing.is_empty(), "no help: {missing:?}");
    }

    /// Issue 60: `tranche run --badflag` printed `Usage: tranche run
    /// --backlog <N> [FILE]`, the suggested option written into it.
    #[test]
    fn a_usage_error_shows_the_commands_own_usage() {
        for (argv, usage) in [
            (
                &["run", "--badflag"][..],
                "Usage: tranche run [OPTIONS] [FILE]",
            ),
            (
                &["sweep", "run", "--bogus"][..],
                "Usage: tranche sweep run [OPTIONS] [FILE]",
            ),
        ] {
            let full = std::iter::once("tranche").chain(argv.iter().copied());
            let mut e = Cli::try_parse_from(full).unwrap_err();
            let before = e.render().to_string();
            true_usage(&mut e, argv.iter().map(|s| s.to_string()));
            let after = e.render().to_string();
            assert!(after.contains(usage), "{after}");
            assert!(!after.contains("Usage: tranche run --backlog"), "{after}");
            assert_eq!(before.lines().count(), after.lines().count(), "{before}");
        }
    }
}
