//! The classic layout's round trip measured on the node itself — for
//! each check distribution hands to the voting worker and waits for —
//! as each thread's CPU per check: a small approval run of `tranche
//! run`'s driver (virtual clock, classic layout, redb in a temporary
//! folder, every unique message's crypto measured alone: the floor) and
//! the threads' own CPU clocks. The voting thread's side is its CPU less
//! the checks (the floor), its database and its imports; the distribution
//! thread's side is its CPU less its own handling of every copy it
//! received (`duplicate` each), both per check. The node's counter of the
//! wait (`checks.round_trip_us`: distribution's wall-clock wait less
//! voting's check, docs/observability.md) is given beside them, and the
//! test environment's CPU per message it carried (the driver's thread).

use anyhow::{bail, Context, Result};
use tranche_cli::progress::Progress;
use tranche_node::{Architecture, CheckPolicy};

use super::measure::Effort;
use crate::floor::FloorMode;
use crate::run::{prepare, run_step, ClockKind, DbKind, RunOptions};

/// The run: every tranche sent, as the throughput test; `{n}` validators,
/// `{c}` cores, `{b}` blocks.
const STEP: &str = "TestConfiguration:
- objective: !ApprovalVoting
    coalesce_mean: 3.0
    coalesce_std_dev: 1.0
    enable_assignments_v2: true
    last_considered_tranche: 89
    stop_when_approved: false
    coalesce_tranche_diff: 12
    workdir_prefix: \"/tmp\"
  n_validators: {n}
  n_cores: {c}
  needed_approvals: 10
  num_blocks: {b}
";

/// The classic node's round trip per check: each thread's CPU and the
/// wait, ns.
#[derive(Debug, Clone, Copy)]
pub struct Hop {
    /// The voting thread's CPU per check beyond the check.
    pub voting_ns: f64,
    /// The distribution thread's CPU per check.
    pub distribution_ns: f64,
    /// Distribution's wall-clock wait per check beyond the check.
    pub wait_ns: f64,
    /// The test environment's CPU per message it carried to or from the
    /// node.
    pub environment_ns: f64,
}

/// The classic node's round trip per check, with `duplicate_ns` the
/// distribution thread's own handling of each copy it receives and
/// `import_ns` voting's import of each checked item.
pub fn round_trip(effort: &Effort, duplicate_ns: f64, import_ns: f64) -> Result<Hop> {
    let (n, c, b) = if effort.quick {
        (20, 4, 1)
    } else {
        (100, 20, 2)
    };
    let text = STEP
        .replace("{n}", &n.to_string())
        .replace("{c}", &c.to_string())
        .replace("{b}", &b.to_string());
    let config = tranche_config::parse(&text, "calibrate (node hop)")?;
    let step = &config.steps[0];
    let cache = tempfile::tempdir().context("a temporary folder for the run's messages")?;
    let options = RunOptions {
        architecture: Architecture::CLASSIC,
        clock: ClockKind::Virtual,
        seed: 0,
        cache_dir: cache.path().to_owned(),
        db: DbKind::Redb,
        progress: Progress::Quiet,
        floor: FloorMode::Full,
        db_path: None,
        restart_at_block: None,
        checks: CheckPolicy::default(),
        node: Default::default(),
    };
    let prepared = prepare(
        &tranche_config::resolve::Plan::of(step, options.seed),
        &options,
    )?;
    let report = run_step(step, &prepared, &options)?;
    let checks = report.checks.round_trips;
    if checks == 0 {
        bail!("the classic run made no round trip to measure");
    }
    let cpu = |name: &str| {
        report
            .cpu
            .iter()
            .find(|c| c.name == name)
            .map_or(0.0, |c| c.total_s * 1e9)
    };
    let n = checks as f64;
    let voting = cpu("approval-voting")
        - report.crypto_floor.cpu_s * 1e9
        - report.database.cpu_s * 1e9
        - n * import_ns;
    let distribution =
        cpu("approval-distribution") - report.counts.deliveries as f64 * duplicate_ns;
    let carried = (report.counts.deliveries + report.counts.messages_from_node).max(1) as f64;
    Ok(Hop {
        voting_ns: (voting / n).max(0.0),
        distribution_ns: (distribution / n).max(0.0),
        wait_ns: report.checks.round_trip_us * 1_000.0,
        environment_ns: cpu("test-environment") / carried,
    })
}
