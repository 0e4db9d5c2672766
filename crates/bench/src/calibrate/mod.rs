//! `tranche calibrate`: measure the whole-network simulation's cost table
//! (`tranche_model::CostTable`, the CPU model of `tranche network`) on this
//! machine, running the project's own code paths, and print it or write
//! it as the YAML file `tranche network --costs FILE` reads. Each cost is
//! the median of several batches of thread CPU time (`measure`); what each
//! one runs is in `gossip` (what a validator receives), `voting` (imports,
//! blocks, commits) and `own` (our own work, the round trip), on the chain
//! of `fixture`. `--out` is checked before any work and written atomically
//! (`tranche_cli::outputs`); one line per cost on stderr while it
//! measures (`--quiet`: none).

pub mod check;
mod fixture;
mod gossip;
mod measure;
mod node_hop;
mod own;
mod voting;

use anyhow::{bail, Context, Result};
use fixture::{Fixture, Sizes};
use measure::Effort;
use std::path::{Path, PathBuf};
use tranche_cli::text::counted;
use tranche_model::{CostKind, CostTable};

/// `tranche calibrate [--out FILE] [--quick]`.
#[derive(clap::Args, Debug, Clone)]
pub struct CalibrateArgs {
    /// Write the table to this YAML file (default: print it on stdout).
    /// An existing file is replaced only when it is a table `calibrate`
    /// wrote (its first line says so).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Measure each cost with a few iterations only (seconds, not a
    /// minute; for tests: the figures are rough).
    #[arg(long)]
    pub quick: bool,
    /// No progress on stderr.
    #[arg(long)]
    pub quiet: bool,
    /// Print what the command would measure or run, and how long it
    /// would take, and stop: nothing measured or run.
    #[arg(long)]
    pub dry_run: bool,
    /// Measure on a chain of this many validators [default: 500; 40 with
    /// --quick]: distribution's bookkeeping per first-seen message grows
    /// with them (the grid's fan-out), so a table for a run of 1 000
    /// validators is best measured at 1 000. With --check: the file's
    /// steps run at this size (as `tranche run --validators`).
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(20..=2_000))]
    pub validators: Option<u32>,
    /// Measure on a chain of this many cores [default: 20; 12 with
    /// --quick]. With --check: the file's steps run with this many (as
    /// `tranche run --cores`).
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(8..=200))]
    pub cores: Option<u32>,
    /// Instead of measuring the table: hold the CPU model against the real
    /// node on this test sequence (or the bare name of an example), the
    /// real node `--runs` times on the real clock and the modelled node
    /// once, per block and per thread (`calibrate/check.rs`); exit status
    /// 1 when a judged figure is outside the tolerance.
    #[arg(long, value_name = "FILE")]
    pub check: Option<PathBuf>,
    /// With --check: runs of the real node per layout.
    #[arg(long, value_name = "N", default_value_t = 2, requires = "check",
          value_parser = clap::value_parser!(u32).range(1..=20))]
    pub runs: u32,
    /// With --check: the layouts compared.
    #[arg(long, value_enum, default_value_t = crate::run_cli::ArchArg::Both, requires = "check")]
    pub architecture: crate::run_cli::ArchArg,
    /// With --check: the parallel layout's workers.
    #[arg(long, value_name = "N", requires = "check",
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub workers: Option<u32>,
    /// With --check: the modelled node's cores [default: this machine's
    /// CPUs, which the real node runs on].
    #[arg(long, value_name = "N", requires = "check",
          value_parser = clap::value_parser!(u32).range(1..=i64::from(tranche_config::node_shape::MAX_CPU_CORES)))]
    pub node_cores: Option<u32>,
    /// With --check: the model's cost table [default: the built-in one].
    #[arg(long, value_name = "FILE", requires = "check")]
    pub costs: Option<PathBuf>,
    /// With --check: the real node's clock (virtual only for a quick look:
    /// it waits for the node and so never shows it falling behind).
    #[arg(long, value_enum, default_value_t = crate::run_cli::ClockArg::Real, requires = "check")]
    pub real_clock: crate::run_cli::ClockArg,
    /// With --check: the tolerance, per cent (times also at least 500 ms).
    #[arg(long, value_name = "PCT", default_value_t = 25.0, requires = "check",
          value_parser = tolerance)]
    pub tolerance: f64,
    /// With --check: seeds the messages, the links and routing.
    #[arg(long, default_value_t = 0, requires = "check")]
    pub seed: u64,
    /// With --check: where the messages are cached.
    #[arg(long, value_name = "DIR", requires = "check")]
    pub cache_dir: Option<PathBuf>,
    /// With --check: write the comparison as JSON to this file.
    #[arg(long, value_name = "FILE", requires = "check")]
    pub json: Option<PathBuf>,
}

/// A tolerance in per cent: a finite number from 0 to 1 000.
fn tolerance(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t.is_finite() && (0.0..=1000.0).contains(&t) => Ok(t),
        _ => Err(format!("expected per cent from 0 to 1000, found {s:?}")),
    }
}

/// The chain measured on: 500 validators (Polkadot's distribution
/// bookkeeping scale), 20 cores, small with `--quick`; `--validators`
/// and `--cores` replace either.
fn sizes(quick: bool, validators: Option<u32>, cores: Option<u32>) -> Sizes {
    let base = base_sizes(quick);
    Sizes {
        validators: validators.unwrap_or(base.validators),
        cores: cores.unwrap_or(base.cores),
        blocks: base.blocks,
    }
}

fn base_sizes(quick: bool) -> Sizes {
    if quick {
        Sizes {
            validators: 40,
            // Above the 6 modulo samples: cores left for delay certificates.
            cores: 12,
            blocks: 3,
        }
    } else {
        Sizes {
            validators: 500,
            cores: 20,
            blocks: 41,
        }
    }
}

/// How far from its default a measured cost may be before it is warned
/// about: a factor of 3 either way.
const WARN_FACTOR: f64 = 3.0;

/// The warning for a cost measured `ns` nanoseconds, if it is more than
/// [`WARN_FACTOR`] from its default, with what it may mean.
fn warning(cost: CostKind, ns: u64, quick: bool) -> Option<String> {
    let measured = ns as f64 / 1_000.0;
    let default = cost.default_us();
    if default <= 0.0 {
        return None;
    }
    let ratio = measured / default;
    let quick = if quick {
        " (--quick measures a few iterations only: measure again without it)"
    } else {
        ""
    };
    let head = format!(
        "warning: {} = {measured:.3} µs is {}",
        cost.key(),
        if ratio >= 1.0 {
            format!("{ratio:.1} × its default ({default:.3} µs)")
        } else {
            format!("1/{:.1} of its default ({default:.3} µs)", 1.0 / ratio)
        }
    );
    if ratio > WARN_FACTOR {
        Some(format!(
            "{head}: this machine is much slower than the one the defaults were measured on, \
             or was busy (other work, a debug build, CPU frequency scaling){quick}"
        ))
    } else if ratio < 1.0 / WARN_FACTOR {
        Some(format!(
            "{head}: this machine is much faster, or the measured path skipped work it \
             should do (worth a look: crates/bench/src/calibrate/){quick}"
        ))
    } else {
        None
    }
}

/// The header of the file `calibrate` writes: who measured, where, when
/// and how (`outputs::COST_TABLE_HEADERS` knows its first line).
fn header(quick: bool, sizes: Sizes) -> String {
    let meta = tranche_report::meta::of(tranche_report::meta::kind::CALIBRATE, "", 0, Vec::new());
    format!(
        "{} (meta.kind calibrate)\n# commit: {}, {} build\n# date: {}\n# machine: {}\n\
         # quick: {quick}{}\n# chain: {}, {}\n# command: {}\n",
        tranche_cli::outputs::COST_TABLE_HEADERS[0],
        meta.commit,
        meta.profile,
        meta.date,
        meta.machine.describe(),
        if quick {
            " (--quick: a few iterations per cost, rough figures)"
        } else {
            ""
        },
        counted(sizes.validators, "validator"),
        counted(sizes.cores, "core"),
        meta.command
    )
}

/// Measure every cost; unless `quiet`, one line on stderr per cost (a
/// cost takes seconds: lines are the progress, in a terminal too).
pub fn measure_table(effort: &Effort, sizes: Sizes, quiet: bool) -> Result<CostTable> {
    let started = std::time::Instant::now();
    if !quiet {
        tranche_cli::errln!(
            "calibrate: measuring {} costs ({}, {}, {} each{})",
            CostKind::ALL.len(),
            counted(sizes.validators, "validator"),
            counted(sizes.cores, "core"),
            counted(effort.batches, "batch"),
            if effort.quick { ", --quick" } else { "" }
        );
    }
    let fx = Fixture::build(sizes);
    let mut table = CostTable::default();
    let set = |table: &mut CostTable, cost: CostKind, ns: f64| {
        let ns = (ns.round() as u64).max(1);
        *table = table.clone().with(cost, ns);
        if let Some(w) = warning(cost, ns, effort.quick) {
            tranche_cli::errln!("{w}");
        }
        if !quiet {
            tranche_cli::errln!(
                "calibrate: {} = {:.3} µs (default {:.3})",
                cost.key(),
                ns as f64 / 1_000.0,
                cost.default_us()
            );
        }
    };
    for (cost, kind) in [
        (CostKind::AssignmentModulo, "RelayVRFModulo"),
        (CostKind::AssignmentCompact, "RelayVRFModuloCompact"),
        (CostKind::AssignmentDelay, "RelayVRFDelay"),
    ] {
        set(&mut table, cost, gossip::assignment(&fx, effort, kind));
    }
    let (approval, each) = gossip::approvals(&fx, effort);
    set(&mut table, CostKind::Approval, approval);
    set(&mut table, CostKind::ApprovalPerCandidate, each);
    // Batched, a vote of one candidate costs what was measured.
    let batched = gossip::approval_batched(&fx, effort) - each;
    set(&mut table, CostKind::ApprovalBatched, batched.max(1.0));
    set(
        &mut table,
        CostKind::Duplicate,
        gossip::duplicate(&fx, effort),
    );
    let (assignment, approval) = voting::imports(&fx, effort);
    set(&mut table, CostKind::ImportAssignment, assignment);
    set(&mut table, CostKind::ImportApproval, approval);
    set(
        &mut table,
        CostKind::BlockImport,
        voting::block_import(&fx, effort),
    );
    set(
        &mut table,
        CostKind::OwnAssignment,
        own::own_assignment(&fx, effort),
    );
    set(
        &mut table,
        CostKind::OwnApproval,
        own::own_approval(&fx, effort),
    );
    set(&mut table, CostKind::DbCommit, voting::db_commit(effort));
    set(&mut table, CostKind::Route, gossip::route(&fx, effort));
    // The node's own round trip, each thread's side; a bare channel
    // round trip is the voting side's floor.
    let imports = (table.import_assignment() + table.import_approval()) as f64 / 2.0;
    let hop = node_hop::round_trip(effort, table.duplicate() as f64, imports)
        .context("measuring the classic node's round trip per check")?;
    set(
        &mut table,
        CostKind::RoundTrip,
        hop.voting_ns.max(own::round_trip(effort)),
    );
    set(
        &mut table,
        CostKind::RoundTripDistribution,
        hop.distribution_ns,
    );
    // The rest of the wait is the wake-up: a delay, not CPU.
    let wake = (hop.wait_ns - table.round_trip() as f64).max(0.0);
    set(&mut table, CostKind::RoundTripWake, wake);
    set(&mut table, CostKind::EnvironmentMessage, hop.environment_ns);
    if !quiet {
        tranche_cli::errln!(
            "calibrate: (the classic node's wall-clock wait per check beyond the check: {:.3} µs; \
             round_trip_wake is that less voting's side)",
            hop.wait_ns / 1_000.0
        );
    }
    if !quiet {
        let s = started.elapsed().as_secs_f64();
        tranche_cli::errln!("calibrate: done in {s:.1} s");
    }
    Ok(table)
}

/// `tranche calibrate --check FILE`: the comparison, printed (and
/// written with --json); failure when a judged figure is outside.
fn execute_check(args: &CalibrateArgs, file: &Path) -> Result<u8> {
    use tranche_cli::outputs::check_flags;
    check_flags(
        &[(
            "--json",
            args.json.as_deref(),
            tranche_report::results::writes(tranche_report::meta::kind::CALIBRATE_CHECK),
        )],
        &[Some(file), args.costs.as_deref()],
    )?;
    let costs = match &args.costs {
        Some(path) => CostTable::load(path)?,
        None => CostTable::default(),
    };
    let cores = args
        .node_cores
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u32));
    let plan = check::CheckPlan {
        file: file.to_owned(),
        runs: args.runs,
        layouts: check::layouts(args.architecture.layouts(), args.workers),
        cores,
        costs,
        real_clock: args.real_clock.kind(),
        tolerance: args.tolerance / 100.0,
        seed: args.seed,
        cache_dir: args.cache_dir.clone(),
        quiet: args.quiet,
        sizes: (args.validators, args.cores),
    };
    if args.dry_run {
        tranche_cli::stream::out(&format!("{}\n", check::dry_run(&plan)?))?;
        return Ok(0);
    }
    let report = check::run(&plan)?;
    tranche_cli::stream::out(&check::render(&report))?;
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report)? + "\n";
        tranche_cli::outputs::write_atomic(path, text.as_bytes())?;
    }
    if crate::small::on() {
        // The documented commands' test: sizes cut, nothing to judge by.
        tranche_cli::errln!(
            "calibrate --check: TRANCHE_SMALL=1, sizes cut: the verdict is not judged"
        );
        return Ok(0);
    }
    Ok(if report.pass { 0 } else { 1 })
}

/// Run `tranche calibrate`.
pub fn execute(args: &CalibrateArgs) -> Result<u8> {
    if let Some(file) = &args.check {
        if args.out.is_some() || args.quick {
            bail!("--check compares the model with the node; it takes no --out or --quick");
        }
        return execute_check(args, file);
    }
    use tranche_cli::outputs::{check_flags, Writes};
    check_flags(&[("--out", args.out.as_deref(), Writes::CostTable)], &[])?;
    // `TRANCHE_SMALL=1` (the documented commands' test): --quick.
    let quick = args.quick || crate::small::on();
    let effort = if quick { Effort::QUICK } else { Effort::FULL };
    let sizes = sizes(quick, args.validators, args.cores);
    if args.dry_run {
        tranche_cli::stream::out(&format!(
            "calibrate: would measure {} costs ({}, {}, {} each): about {}; nothing measured\n",
            CostKind::ALL.len(),
            counted(sizes.validators, "validator"),
            counted(sizes.cores, "core"),
            counted(effort.batches, "batch"),
            if quick { "seconds" } else { "a minute" }
        ))?;
        return Ok(0);
    }
    let head = header(quick, sizes);
    let table = measure_table(&effort, sizes, args.quiet)?;
    let text = head + &table.to_yaml();
    match &args.out {
        Some(path) => tranche_cli::outputs::write_atomic(path, text.as_bytes())?,
        None => tranche_cli::stream::out(&text)?,
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cost_three_times_from_its_default_is_warned_about_with_its_meaning() {
        let default_ns = (CostKind::RoundTrip.default_us() * 1_000.0) as u64;
        assert_eq!(warning(CostKind::RoundTrip, default_ns, false), None);
        assert_eq!(warning(CostKind::RoundTrip, default_ns * 2, false), None);
        let slow = warning(CostKind::RoundTrip, default_ns * 7, true).unwrap();
        assert!(
            slow.starts_with("warning: round_trip = 128.800 µs is 7.0 × its default (18.400 µs)"),
            "{slow}"
        );
        assert!(
            slow.contains("slower") && slow.contains("--quick"),
            "{slow}"
        );
        let fast = warning(CostKind::RoundTrip, default_ns / 4, false).unwrap();
        assert!(
            fast.contains("1/4.0 of its default") && fast.contains("faster"),
            "{fast}"
        );
        assert!(!fast.contains("--quick"), "{fast}");
        // Issue 41: one space between words, in either warning.
        for w in [&slow, &fast] {
            assert!(!w.contains("  "), "{w}");
        }
    }

    #[test]
    fn the_header_records_commit_date_machine_quick_and_chain() {
        let h = header(true, sizes(true, Some(1_000), None));
        let first = h.lines().next().unwrap();
        assert!(first.starts_with(tranche_cli::outputs::COST_TABLE_HEADERS[0]));
        for key in [
            "# commit: ",
            "# date: ",
            "# machine: ",
            "# quick: true",
            "# chain: 1000 validators, 12 cores",
            "# command: ",
        ] {
            assert!(h.contains(key), "{key} in {h}");
        }
        assert!(h.lines().all(|l| l.starts_with("# ")), "{h}");
        // The table still reads with its header.
        let text = h + &CostTable::default().to_yaml();
        assert_eq!(
            CostTable::from_yaml_str(&text).unwrap(),
            CostTable::default()
        );
    }
}
