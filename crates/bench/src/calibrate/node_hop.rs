//! `round_trip` measured on the node itself: the classic layout's hop per
//! check — distribution hands a check to the voting worker and waits for
//! the verdict — beyond the check. A small approval run of `tranche run`'s
//! driver (virtual clock, classic layout, redb in a temporary folder) and
//! the node's own counter of that wait (`ProtocolCounters::round_trip`:
//! distribution's wait less voting's check, per check; the report's
//! `checks.round_trip_us`, docs/observability.md).

use anyhow::{bail, Context, Result};
use tranche_node::{Architecture, CheckPolicy};
use tranche_report::progress::Progress;

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

/// The classic node's wait per check beyond the check, ns.
pub fn round_trip(effort: &Effort) -> Result<f64> {
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
        floor: FloorMode::Off,
        db_path: None,
        restart_at_block: None,
        checks: CheckPolicy::default(),
        node: Default::default(),
    };
    let prepared = prepare(step, &options)?;
    let report = run_step(step, &prepared, &options)?;
    if report.checks.round_trips == 0 {
        bail!("the classic run made no round trip to measure");
    }
    Ok(report.checks.round_trip_us * 1_000.0)
}
