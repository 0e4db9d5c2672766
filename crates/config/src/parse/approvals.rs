//! The approval options of a step, from the mapping after its `objective`
//! tag: coalescing of approvals, the tranches sent and considered, no-shows,
//! the message-cache directory, and G1's pass/fail thresholds (upstream
//! `polkadot/node/subsystem-bench/src/lib/approval/mod.rs` `ApprovalsOptions`).

use super::fields::{Fields, Tracker};
use super::objective::Defaults;
use super::size::{CORES_BOUND, TRANCHES_BOUND, VALIDATORS_BOUND};
use crate::error::ConfigErrorKind as Kind;
use crate::{Coalescing, G1Thresholds, Schema};
use tranche_records::limits::{MAX_CORES, MAX_DELAY_TRANCHES, MAX_VALIDATORS};

const LAST_CONSIDERED_TRANCHE: u32 = 89;
const SEND_TILL_TRANCHE: u32 = 89;
const G1_THRESHOLD: f64 = 6.0;

/// The `ApprovalsOptions` of a step, checked.
pub(super) struct ApprovalOptions {
    pub(super) coalescing: Coalescing,
    pub(super) coalesce_tranche_diff: u32,
    pub(super) enable_assignments_v2: bool,
    pub(super) last_considered_tranche: u32,
    pub(super) send_till_tranche: Option<u32>,
    pub(super) stop_when_approved: bool,
    pub(super) workdir_prefix: String,
    pub(super) num_no_shows_per_candidate: u32,
    pub(super) approval_voting_parallel_enabled: Option<bool>,
    pub(super) blocks_per_session: Option<u32>,
    pub(super) g1_thresholds: Option<G1Thresholds>,
}

/// Reads the approval options `o` of a `schema` step.
pub(super) fn read_options(
    o: &Fields<'_>,
    d: &Defaults,
    t: &mut Tracker,
    schema: Schema,
) -> Result<ApprovalOptions, Kind> {
    let g1 = schema == Schema::G1;
    let coalescing = if g1 {
        read_uniform_coalescing(o, t)?
    } else {
        read_normal_coalescing(o, t)?
    };
    let coalesce_tranche_diff = read_coalesce_tranche_diff(o)?;
    let enable_assignments_v2 = t.or(
        "enable_assignments_v2",
        o.bool("enable_assignments_v2")?,
        false,
    );
    let mut tranche = |key: &'static str, default: u32| {
        let v = t.or(key, o.u32(key)?, default);
        o.in_range(key, v, 0, MAX_DELAY_TRANCHES, TRANCHES_BOUND)
    };
    let last_considered_tranche = tranche("last_considered_tranche", LAST_CONSIDERED_TRANCHE)?;
    let send_till_tranche = if g1 {
        Some(tranche("send_till_tranche", SEND_TILL_TRANCHE)?)
    } else {
        None
    };
    let stop_when_approved = t.or("stop_when_approved", o.bool("stop_when_approved")?, true);
    let workdir_prefix = read_workdir_prefix(o, d, t)?;
    let num_no_shows_per_candidate = o.in_range(
        "num_no_shows_per_candidate",
        t.or(
            "num_no_shows_per_candidate",
            o.u32("num_no_shows_per_candidate")?,
            0,
        ),
        0,
        MAX_VALIDATORS,
        VALIDATORS_BOUND,
    )?;
    let approval_voting_parallel_enabled = if g1 {
        None
    } else {
        o.bool("approval_voting_parallel_enabled")?
    };
    // tranche's extension: a new session every N blocks.
    let blocks_per_session = if g1 {
        None
    } else {
        o.u32("blocks_per_session")?
            .map(|n| {
                o.in_range(
                    "blocks_per_session",
                    n,
                    1,
                    tranche_records::limits::MAX_BLOCKS,
                    "from 1 to the most blocks of a run, limits::MAX_BLOCKS",
                )
            })
            .transpose()?
    };
    let g1_thresholds = if g1 {
        Some(read_g1_thresholds(o, t)?)
    } else {
        None
    };
    Ok(ApprovalOptions {
        coalescing,
        coalesce_tranche_diff,
        enable_assignments_v2,
        last_considered_tranche,
        send_till_tranche,
        stop_when_approved,
        workdir_prefix,
        num_no_shows_per_candidate,
        approval_voting_parallel_enabled,
        blocks_per_session,
        g1_thresholds,
    })
}

/// G1: `min_coalesce..=max_coalesce`, `1 <= min <= max`.
fn read_uniform_coalescing(o: &Fields<'_>, t: &mut Tracker) -> Result<Coalescing, Kind> {
    let min = t.or("min_coalesce", o.u32("min_coalesce")?, 1);
    let max = t.or("max_coalesce", o.u32("max_coalesce")?, 1);
    if min == 0 {
        return Err(o.impossible(
            "min_coalesce",
            0,
            "an approval covers at least one candidate",
        ));
    }
    if min > max {
        return Err(o.impossible("min_coalesce", min, format!("above max_coalesce ({max})")));
    }
    // An approval covers candidates of different cores.
    o.in_range("max_coalesce", max, 1, MAX_CORES, CORES_BOUND)?;
    Ok(Coalescing::Uniform { min, max })
}

/// G2/G3: `coalesce_mean` and a non-negative `coalesce_std_dev`.
fn read_normal_coalescing(o: &Fields<'_>, t: &mut Tracker) -> Result<Coalescing, Kind> {
    let mean = t.or("coalesce_mean", o.f32("coalesce_mean")?, 1.0);
    let std_dev = t.or("coalesce_std_dev", o.f32("coalesce_std_dev")?, 1.0);
    if std_dev < 0.0 {
        return Err(o.impossible(
            "coalesce_std_dev",
            std_dev,
            "a standard deviation is not negative",
        ));
    }
    // An approval covers candidates of different cores.
    for (key, v) in [("coalesce_mean", mean), ("coalesce_std_dev", std_dev)] {
        if v.abs() > MAX_CORES as f32 {
            return Err(o.impossible(
                key,
                v,
                format!("its magnitude must be at most {MAX_CORES} ({CORES_BOUND})"),
            ));
        }
    }
    Ok(Coalescing::Normal { mean, std_dev })
}

/// `coalesce_tranche_diff`: required, at least 1.
fn read_coalesce_tranche_diff(o: &Fields<'_>) -> Result<u32, Kind> {
    let coalesce_tranche_diff = o.required(
        "coalesce_tranche_diff",
        o.u32("coalesce_tranche_diff")?,
        "required: upstream has no default for it; its examples use 12",
    )?;
    if coalesce_tranche_diff == 0 {
        return Err(o.impossible(
            "coalesce_tranche_diff",
            0,
            "must be at least 1: with 0 every assignment flushes an empty approval queue",
        ));
    }
    o.in_range(
        "coalesce_tranche_diff",
        coalesce_tranche_diff,
        1,
        MAX_DELAY_TRANCHES,
        TRANCHES_BOUND,
    )
}

/// `workdir_prefix`: the message cache's directory, not empty.
fn read_workdir_prefix(o: &Fields<'_>, d: &Defaults, t: &mut Tracker) -> Result<String, Kind> {
    let workdir_prefix = t.or_schema_default(
        o,
        "workdir_prefix",
        o.string("workdir_prefix")?,
        d.workdir_prefix.map(str::to_owned),
    )?;
    if workdir_prefix.is_empty() {
        return Err(o.impossible(
            "workdir_prefix",
            "\"\"",
            "the message cache needs a directory",
        ));
    }
    Ok(workdir_prefix)
}

/// G1's three thresholds, each non-negative.
fn read_g1_thresholds(o: &Fields<'_>, t: &mut Tracker) -> Result<G1Thresholds, Kind> {
    let mut threshold = |key: &'static str| -> Result<f64, Kind> {
        Ok(t.or(key, o.non_negative_f64(key)?, G1_THRESHOLD))
    };
    Ok(G1Thresholds {
        approval_distribution_expected_tof: threshold("approval_distribution_expected_tof")?,
        approval_distribution_cpu_ms: threshold("approval_distribution_cpu_ms")?,
        approval_voting_cpu_ms: threshold("approval_voting_cpu_ms")?,
    })
}
