//! `tranche compare BASE CUR` and the judging policy shared with
//! `tranche history`: two run reports or two network reports, read through
//! the checked input path (`tranche_report::results`); files of other
//! kinds are said plainly not to be comparable.

use anyhow::Result;
use std::path::PathBuf;
use tranche_cli::errln;
use tranche_cli::text::escape_controls;
use tranche_report::compare::files::{compare_files, Outcome};
use tranche_report::compare::{CpuPolicy, EXIT_NOT_COMPARABLE};

/// How CPU is judged (`compare` and `history`).
#[derive(clap::Args, Debug, Clone)]
pub struct PolicyArgs {
    /// Relative CPU slowdown allowed (0.25: up to 25 % more CPU passes).
    /// Faster is never a failure.
    #[arg(long, default_value_t = 0.25, value_parser = parse_tolerance)]
    pub cpu_tolerance: f64,
    /// CPU rows whose per-block values (CPU s per block, as the rows
    /// show) are below this in both files are shown but not judged.
    #[arg(long, default_value_t = tranche_report::compare::DEFAULT_CPU_FLOOR_S, value_parser = parse_tolerance)]
    pub cpu_floor: f64,
    /// Show CPU rows but judge none (baseline from another machine).
    #[arg(long)]
    pub ignore_cpu: bool,
}

impl PolicyArgs {
    pub fn policy(&self) -> CpuPolicy {
        CpuPolicy {
            tolerance: self.cpu_tolerance,
            floor_s: self.cpu_floor,
            ignore: self.ignore_cpu,
        }
    }
}

/// `tranche compare`.
#[derive(clap::Args, Debug, Clone)]
pub struct CompareArgs {
    /// The reference result (`tranche run --json` or `tranche network
    /// --json`).
    pub baseline: PathBuf,
    /// The result to judge, of the same kind.
    pub current: PathBuf,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

fn parse_tolerance(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not a number >= 0 (e.g. 0.25)")),
    }
}

/// Run `tranche compare`; its exit status. `verbose` lists the identical
/// figures too.
pub fn execute(args: &CompareArgs, verbose: bool) -> Result<u8> {
    match compare_files(&args.baseline, &args.current, &args.policy.policy()) {
        Outcome::Unreadable(e) => {
            errln!("error: {}", escape_controls(&e.to_string()));
            Ok(2)
        }
        Outcome::NotComparable(why) => {
            errln!("not comparable: {}", escape_controls(&why));
            Ok(EXIT_NOT_COMPARABLE)
        }
        Outcome::Compared(c) => {
            tranche_cli::stream::out(&c.render(verbose))?;
            Ok(if c.passed() { 0 } else { 1 })
        }
    }
}
