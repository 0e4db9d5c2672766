//! `tranche calibrate`: measure the whole-network simulation's cost table
//! (`tranche_model::CostTable`, the CPU model of `tranche network`) on this
//! machine, running the project's own code paths, and print it or write
//! it as the YAML file `tranche network --costs FILE` reads. Each cost is
//! the median of several batches of thread CPU time (`measure`); what each
//! one runs is in `gossip` (what a validator receives), `voting` (imports,
//! blocks, commits) and `own` (our own work, the round trip), on the chain
//! of `fixture`. `--out` is checked before any work and written atomically
//! (`tranche_report::outputs`); one line per cost on stderr while it
//! measures (`--quiet`: none).

mod fixture;
mod gossip;
mod measure;
mod node_hop;
mod own;
mod voting;

use anyhow::{Context, Result};
use fixture::{Fixture, Sizes};
use measure::Plan;
use std::path::PathBuf;
use tranche_model::{Cost, CostTable};

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
}

/// The chain measured on: 500 validators (Polkadot's distribution
/// bookkeeping scale), 20 cores; small with `--quick`.
fn sizes(quick: bool) -> Sizes {
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
fn warning(cost: Cost, ns: u64, quick: bool) -> Option<String> {
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
            "{head}: this machine is much slower than the one the defaults were measured on,              or was busy (other work, a debug build, CPU frequency scaling){quick}"
        ))
    } else if ratio < 1.0 / WARN_FACTOR {
        Some(format!(
            "{head}: this machine is much faster, or the measured path skipped work it              should do (worth a look: crates/bench/src/calibrate/){quick}"
        ))
    } else {
        None
    }
}

/// The header of the file `calibrate` writes: who measured, where, when
/// and how (`outputs::COST_TABLE_HEADERS` knows its first line).
fn header(quick: bool) -> String {
    let meta = tranche_report::Meta::of(tranche_report::meta::kind::CALIBRATE, "", 0, Vec::new());
    format!(
        "{} (meta.kind calibrate)\n# commit: {}, {} build\n# date: {}\n# machine: {}\n\
         # quick: {quick}{}\n# command: {}\n",
        tranche_report::outputs::COST_TABLE_HEADERS[0],
        meta.commit,
        meta.profile,
        meta.date,
        meta.machine.describe(),
        if quick {
            " (--quick: a few iterations per cost, rough figures)"
        } else {
            ""
        },
        meta.command
    )
}

/// Measure every cost; unless `quiet`, one line on stderr per cost (a
/// cost takes seconds: lines are the progress, in a terminal too).
pub fn measure_table(plan: &Plan, quiet: bool) -> Result<CostTable> {
    let started = std::time::Instant::now();
    let sizes = sizes(plan.quick);
    if !quiet {
        tranche_report::errln!(
            "calibrate: measuring {} costs ({} validators, {} cores, {} batches each{})",
            Cost::ALL.len(),
            sizes.validators,
            sizes.cores,
            plan.batches,
            if plan.quick { ", --quick" } else { "" }
        );
    }
    let fx = Fixture::build(sizes);
    let mut table = CostTable::default();
    let set = |table: &mut CostTable, cost: Cost, ns: f64| {
        let ns = (ns.round() as u64).max(1);
        *table = table.clone().with(cost, ns);
        if let Some(w) = warning(cost, ns, plan.quick) {
            tranche_report::errln!("{w}");
        }
        if !quiet {
            tranche_report::errln!(
                "calibrate: {} = {:.3} µs (default {:.3})",
                cost.key(),
                ns as f64 / 1_000.0,
                cost.default_us()
            );
        }
    };
    for (cost, kind) in [
        (Cost::AssignmentModulo, "RelayVRFModulo"),
        (Cost::AssignmentCompact, "RelayVRFModuloCompact"),
        (Cost::AssignmentDelay, "RelayVRFDelay"),
    ] {
        set(&mut table, cost, gossip::assignment(&fx, plan, kind));
    }
    let (approval, each) = gossip::approvals(&fx, plan);
    set(&mut table, Cost::Approval, approval);
    set(&mut table, Cost::ApprovalPerCandidate, each);
    set(&mut table, Cost::Duplicate, gossip::duplicate(&fx, plan));
    let (assignment, approval) = voting::imports(&fx, plan);
    set(&mut table, Cost::ImportAssignment, assignment);
    set(&mut table, Cost::ImportApproval, approval);
    set(
        &mut table,
        Cost::BlockImport,
        voting::block_import(&fx, plan),
    );
    set(
        &mut table,
        Cost::OwnAssignment,
        own::own_assignment(&fx, plan),
    );
    set(&mut table, Cost::OwnApproval, own::own_approval(&fx, plan));
    set(&mut table, Cost::DbCommit, voting::db_commit(plan));
    set(&mut table, Cost::Route, gossip::route(&fx, plan));
    // The node's own hop; a bare channel round trip is its floor.
    let hop = node_hop::round_trip(plan).context("measuring the classic node's hop per check")?;
    set(&mut table, Cost::RoundTrip, hop.max(own::round_trip(plan)));
    if !quiet {
        let s = started.elapsed().as_secs_f64();
        tranche_report::errln!("calibrate: done in {s:.1} s");
    }
    Ok(table)
}

/// Run `tranche calibrate`.
pub fn execute(args: &CalibrateArgs) -> Result<()> {
    use tranche_report::outputs::{check_flags, Writes};
    check_flags(&[("--out", args.out.as_deref(), Writes::CostTable)], None)?;
    // `TRANCHE_SMALL=1` (the documented commands' test): --quick.
    let quick = args.quick || crate::small::on();
    let plan = if quick { Plan::QUICK } else { Plan::FULL };
    let head = header(quick);
    let table = measure_table(&plan, args.quiet)?;
    let text = head + &table.to_yaml();
    match &args.out {
        Some(path) => tranche_report::outputs::write_atomic(path, text.as_bytes())?,
        None => tranche_report::stream::out(&text)?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cost_three_times_from_its_default_is_warned_about_with_its_meaning() {
        let default_ns = (Cost::RoundTrip.default_us() * 1_000.0) as u64;
        assert_eq!(warning(Cost::RoundTrip, default_ns, false), None);
        assert_eq!(warning(Cost::RoundTrip, default_ns * 2, false), None);
        let slow = warning(Cost::RoundTrip, default_ns * 7, true).unwrap();
        assert!(
            slow.starts_with("warning: round_trip = 128.800 µs is 7.0 × its default (18.400 µs)"),
            "{slow}"
        );
        assert!(
            slow.contains("slower") && slow.contains("--quick"),
            "{slow}"
        );
        let fast = warning(Cost::RoundTrip, default_ns / 4, false).unwrap();
        assert!(
            fast.contains("1/4.0 of its default") && fast.contains("faster"),
            "{fast}"
        );
        assert!(!fast.contains("--quick"), "{fast}");
    }

    #[test]
    fn the_header_records_commit_date_machine_and_quick() {
        let h = header(true);
        let first = h.lines().next().unwrap();
        assert!(first.starts_with(tranche_report::outputs::COST_TABLE_HEADERS[0]));
        for key in [
            "# commit: ",
            "# date: ",
            "# machine: ",
            "# quick: true",
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
