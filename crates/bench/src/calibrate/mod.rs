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

use anyhow::{bail, Context, Result};
use fixture::{Fixture, Sizes};
use measure::Plan;
use std::path::{Path, PathBuf};
use tranche_model::{Cost, CostTable};

/// `tranche calibrate [--out FILE] [--quick]`.
#[derive(clap::Args, Debug, Clone)]
pub struct CalibrateArgs {
    /// Write the table to this YAML file (default: print it on stdout).
    /// An existing file is replaced only when it is a .yaml or .yml file.
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

/// Refuse an `--out` that is a folder, exists and is not a regular file,
/// is an existing file of another kind than YAML, or lies in a folder we
/// cannot write in.
fn check_out(path: &Path) -> Result<()> {
    let named = || format!("--out {}", path.display());
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => bail!("{}: is a folder, not a file", named()),
        Ok(meta) if !meta.is_file() => bail!("{}: exists and is not a regular file", named()),
        Ok(_) => {
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !["yaml", "yml"].iter().any(|y| y.eq_ignore_ascii_case(ext)) {
                bail!(
                    "{}: exists and is not a .yaml file; not replaced (remove it or pick another name)",
                    named()
                );
            }
            let dir = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            tempfile::Builder::new()
                .prefix(".tranche-check-")
                .tempfile_in(dir)
                .with_context(|| format!("{}: cannot write in {}", named(), dir.display()))?;
            Ok(())
        }
        // Not there yet: the outputs' own check (the folder is writable).
        Err(_) => tranche_report::outputs::check_flags(&[("--out", Some(path))], None),
    }
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
    if let Some(path) = &args.out {
        check_out(path)?;
    }
    let plan = if args.quick { Plan::QUICK } else { Plan::FULL };
    let table = measure_table(&plan, args.quiet)?;
    let text = table.to_yaml();
    match &args.out {
        Some(path) => tranche_report::outputs::write_atomic(path, text.as_bytes())?,
        None => tranche_report::stream::out(&text)?,
    }
    Ok(())
}
