//! The size of a run, from its `TestConfiguration` keys: validators,
//! availability cores and the backing groups that fill them, candidates
//! included per block, blocks, the session's approval parameters, and PoV
//! sizes (upstream `polkadot/node/subsystem-bench/src/lib/configuration.rs`).

use super::fields::{Fields, Tracker, NO_DEFAULT};
use super::objective::Defaults;
use crate::error::ConfigErrorKind as Kind;
use crate::session::{bound, SessionParams};
use crate::Schema;
use tranche_cli::text::counted;
use tranche_records::limits::{MAX_BLOCKS, MAX_CORES, MAX_VALIDATORS};

/// The bounds, as errors name them.
pub(super) use crate::session::{TRANCHES_BOUND, VALIDATORS_BOUND};
pub(super) const CORES_BOUND: &str = "the most cores of a session, limits::MAX_CORES";

const MAX_VALIDATORS_PER_CORE: u32 = 5;
const POV_SIZE_KIB: u64 = 5120;

/// `n_validators`: the node under test and at least one other.
pub(super) fn read_validators(f: &Fields<'_>, d: &Defaults, t: &mut Tracker) -> Result<u32, Kind> {
    let n_validators =
        t.or_schema_default(f, "n_validators", f.u32("n_validators")?, d.n_validators)?;
    if n_validators < 2 {
        return Err(f.impossible(
            "n_validators",
            n_validators,
            "a run needs the node under test and at least one other validator",
        ));
    }
    f.in_range(
        "n_validators",
        n_validators,
        2,
        MAX_VALIDATORS,
        VALIDATORS_BOUND,
    )
}

/// `n_cores` and `max_validators_per_core` (the backing-group size): as
/// many cores as backing groups at most.
pub(super) fn read_cores(
    f: &Fields<'_>,
    d: &Defaults,
    t: &mut Tracker,
    schema: Schema,
    n_validators: u32,
) -> Result<(u32, u32), Kind> {
    let n_cores = t.or_schema_default(f, "n_cores", f.u32("n_cores")?, d.n_cores)?;
    let max_validators_per_core = read_group_size(f, t)?;
    check_cores(f, schema, n_validators, n_cores, max_validators_per_core)?;
    Ok((n_cores, max_validators_per_core))
}

/// `max_validators_per_core`: the backing-group size, at least 1.
fn read_group_size(f: &Fields<'_>, t: &mut Tracker) -> Result<u32, Kind> {
    let max_validators_per_core = t.or(
        "max_validators_per_core",
        f.u32("max_validators_per_core")?,
        MAX_VALIDATORS_PER_CORE,
    );
    if max_validators_per_core == 0 {
        return Err(f.impossible(
            "max_validators_per_core",
            0,
            "backing groups need at least one validator",
        ));
    }
    f.in_range(
        "max_validators_per_core",
        max_validators_per_core,
        1,
        MAX_VALIDATORS,
        VALIDATORS_BOUND,
    )
}

/// Every core needs a candidate, and every candidate a backing group of
/// its own (G1: single validators; G2/G3: groups of
/// `max_validators_per_core`).
fn check_cores(
    f: &Fields<'_>,
    schema: Schema,
    n_validators: u32,
    n_cores: u32,
    max_validators_per_core: u32,
) -> Result<(), Kind> {
    if n_cores == 0 {
        return Err(f.impossible("n_cores", 0, "a block needs at least one candidate"));
    }
    f.in_range("n_cores", n_cores, 1, MAX_CORES, CORES_BOUND)?;
    let g1 = schema == Schema::G1;
    let groups = if g1 {
        n_validators
    } else {
        n_validators.div_ceil(max_validators_per_core)
    };
    if n_cores > groups {
        let how = if g1 {
            format!(
                "{} form {}",
                counted(n_validators, "validator"),
                counted(groups, "single-validator backing group")
            )
        } else {
            format!(
                "{} in groups of {max_validators_per_core} form {}",
                counted(n_validators, "validator"),
                counted(groups, "backing group")
            )
        };
        return Err(f.impossible(
            "n_cores",
            n_cores,
            format!("{how}, one per core: at most {}", counted(groups, "core")),
        ));
    }
    Ok(())
}

/// G1 `n_included_candidates` (required, `1..=n_cores`); every core in
/// G2/G3.
pub(super) fn read_included_candidates(
    f: &Fields<'_>,
    schema: Schema,
    n_cores: u32,
) -> Result<u32, Kind> {
    if schema != Schema::G1 {
        return Ok(n_cores);
    }
    let v = f.required(
        "n_included_candidates",
        f.u32("n_included_candidates")?,
        NO_DEFAULT,
    )?;
    if v == 0 || v > n_cores {
        return Err(f.impossible(
            "n_included_candidates",
            v,
            format!("must be between 1 and n_cores ({n_cores})"),
        ));
    }
    Ok(v)
}

/// `num_blocks`: required, `1..=MAX_BLOCKS`.
pub(super) fn read_num_blocks(f: &Fields<'_>) -> Result<u32, Kind> {
    let num_blocks = f.required("num_blocks", f.u32("num_blocks")?, NO_DEFAULT)?;
    f.in_range(
        "num_blocks",
        num_blocks,
        1,
        MAX_BLOCKS,
        "the most relay blocks of a run, limits::MAX_BLOCKS",
    )
}

/// Reads the session's approval parameters (keys in G2/G3, the defaults
/// as constants in G1; defaults and bounds from `config::session`), then
/// checks the G3 keys that only other objectives use.
pub(super) fn read_session(
    f: &Fields<'_>,
    t: &mut Tracker,
    schema: Schema,
) -> Result<SessionParams, Kind> {
    let g1 = schema == Schema::G1;
    let mut param = |key: &'static str, default: u32| {
        if g1 {
            Ok(default)
        } else {
            let b = bound(key);
            f.in_range(key, t.or(key, f.u32(key)?, default), 0, b.max, b.why)
        }
    };
    let d = SessionParams::DEFAULT;
    let session = SessionParams {
        needed_approvals: param("needed_approvals", d.needed_approvals)?,
        zeroth_delay_tranche_width: param(
            "zeroth_delay_tranche_width",
            d.zeroth_delay_tranche_width,
        )?,
        relay_vrf_modulo_samples: param("relay_vrf_modulo_samples", d.relay_vrf_modulo_samples)?,
        n_delay_tranches: param("n_delay_tranches", d.n_delay_tranches)?,
        no_show_slots: param("no_show_slots", d.no_show_slots)?,
    };
    if !g1 {
        // Read by G3 mocks of other objectives; checked, then ignored.
        for key in [
            "max_candidate_depth",
            "allowed_ancestry_len",
            "minimum_backing_votes",
        ] {
            f.u32(key)?;
        }
    }
    Ok(session)
}

/// Reads `min_pov_size` and `max_pov_size`, KiB (min at most max).
pub(super) fn read_pov_sizes(f: &Fields<'_>, t: &mut Tracker) -> Result<(u64, u64), Kind> {
    let min_kib = t.or("min_pov_size", f.u64("min_pov_size")?, POV_SIZE_KIB);
    let max_kib = t.or("max_pov_size", f.u64("max_pov_size")?, POV_SIZE_KIB);
    if min_kib > max_kib {
        return Err(f.impossible(
            "min_pov_size",
            min_kib,
            format!("above max_pov_size ({max_kib})"),
        ));
    }
    Ok((min_kib, max_kib))
}
