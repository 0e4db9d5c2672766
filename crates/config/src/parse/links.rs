//! The emulated links of a step, from its `TestConfiguration` keys:
//! `peer_bandwidth` and `bandwidth`, `latency` (normal, or G1's uniform
//! `{min_latency, max_latency}` durations), `connectivity`, and G1's
//! `error` (upstream `polkadot/node/subsystem-bench/src/lib/configuration.rs`).

use std::time::Duration;

use tranche_links::LatencyModel;

use super::fields::{Fields, Tracker};
use crate::error::ConfigErrorKind as Kind;
use crate::Schema;

const LATENCY_NORMAL_KEYS: &[&str] = &["mean_latency_ms", "std_dev"];
const LATENCY_UNIFORM_KEYS: &[&str] = &["min_latency", "max_latency"];
const DURATION_KEYS: &[&str] = &["secs", "nanos"];

/// The least bandwidth upstream's limiter can run: it refills
/// `bandwidth / 10` bytes per 100 ms.
const MIN_BANDWIDTH: u64 = 10;

/// `latency`, if present: `null`, `{mean_latency_ms, std_dev}`, or (G1
/// only) `{min_latency: {secs, nanos}, max_latency: {secs, nanos}}`.
pub(super) fn read_latency(f: &Fields<'_>, schema: Schema) -> Result<Option<LatencyModel>, Kind> {
    if f.get("latency").is_some() {
        parse_latency(f, schema == Schema::G1).map(Some)
    } else {
        Ok(None)
    }
}

/// G1 `error`, the message-loss percentage; 0 in G2/G3.
pub(super) fn read_error_percent(
    f: &Fields<'_>,
    t: &mut Tracker,
    schema: Schema,
) -> Result<u8, Kind> {
    if schema == Schema::G1 {
        Ok(t.or("error", f.percent("error")?, 0))
    } else {
        Ok(0)
    }
}

/// A bandwidth in bytes/s, at least [`MIN_BANDWIDTH`].
pub(super) fn read_bandwidth(
    f: &Fields<'_>,
    t: &mut Tracker,
    key: &'static str,
    default: u64,
) -> Result<u64, Kind> {
    let v = t.or(key, f.u64(key)?, default);
    if v < MIN_BANDWIDTH {
        return Err(f.impossible(
            key,
            v,
            format!(
                "at least {MIN_BANDWIDTH} bytes/s: the limiter refills bandwidth/10 bytes \
                 every 100 ms"
            ),
        ));
    }
    Ok(v)
}

/// `connectivity`: a percentage of the other validators that connects at
/// least one of them.
pub(super) fn read_connectivity(
    f: &Fields<'_>,
    t: &mut Tracker,
    default: u8,
    n_validators: u32,
) -> Result<u8, Kind> {
    let connectivity = t.or("connectivity", f.percent("connectivity")?, default);
    let connected = (u64::from(n_validators) - 1) * u64::from(connectivity) / 100;
    if connected == 0 {
        return Err(f.impossible(
            "connectivity",
            connectivity,
            format!(
                "{connectivity}% of the {} other validators connects none of them",
                n_validators - 1
            ),
        ));
    }
    Ok(connectivity)
}

/// `latency`, present.
fn parse_latency(f: &Fields<'_>, g1: bool) -> Result<LatencyModel, Kind> {
    let Some(l) = f.mapping("latency", "null or a mapping")? else {
        return Ok(LatencyModel::None);
    };
    let uniform = LATENCY_UNIFORM_KEYS.iter().any(|k| l.get(k).is_some());
    if uniform && g1 {
        l.check_keys(LATENCY_UNIFORM_KEYS, "in `latency`", None)?;
        let min = parse_duration(&l, "min_latency")?;
        let max = parse_duration(&l, "max_latency")?;
        if min > max {
            return Err(l.impossible(
                "min_latency",
                format!("{min:?}"),
                format!("above max_latency ({max:?})"),
            ));
        }
        return Ok(LatencyModel::Uniform { min, max });
    }
    let elsewhere = (!g1).then_some((
        LATENCY_UNIFORM_KEYS,
        "the G1 schema (`!ApprovalsTest`) only",
    ));
    l.check_keys(LATENCY_NORMAL_KEYS, "in `latency`", elsewhere)?;
    let why = "`latency` needs both `mean_latency_ms` and `std_dev`, or `latency: null`";
    let mean_ms = l.required("mean_latency_ms", l.u64("mean_latency_ms")?, why)?;
    let std_dev_ms = l.required("std_dev", l.non_negative_f64("std_dev")?, why)?;
    // Whole milliseconds, as upstream's `usize` field.
    Ok(LatencyModel::Normal {
        mean_ms: mean_ms as f64,
        std_dev_ms,
    })
}

/// A serde `Duration` mapping `{secs, nanos}`.
fn parse_duration(l: &Fields<'_>, key: &str) -> Result<Duration, Kind> {
    let why = "a duration is `{secs, nanos}`";
    let d = l.required(key, l.mapping(key, "a mapping `{secs, nanos}`")?, why)?;
    d.check_keys(DURATION_KEYS, &format!("in `latency.{key}`"), None)?;
    let secs = d.required("secs", d.u64("secs")?, why)?;
    let nanos = d.required("nanos", d.u32("nanos")?, why)?;
    let carry = u64::from(nanos / 1_000_000_000);
    match secs.checked_add(carry) {
        Some(secs) => Ok(Duration::new(secs, nanos % 1_000_000_000)),
        None => Err(d.impossible("secs", secs, "the duration overflows")),
    }
}
