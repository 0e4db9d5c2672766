//! The `!ApprovalNetwork` objective (`tranche network`), read with the
//! same field reader as the test sequences' steps: every key checked
//! against the objective's list (with a "did you mean" hint), every value
//! read with its type, the session's parameters by the steps' own
//! [`read_session`]. Bounds that depend on several keys are checked
//! afterwards by `NetworkSpec::validate`.

use yaml_serde::Value;

use super::fields::{describe, Fields, Tracker};
use super::size::read_session;
use crate::error::ConfigErrorKind as Kind;
use crate::network_spec::{DelayMs, Latency, NetworkSpec, Offline, OfflineSpan};
use crate::node_shape::{Batch, Layout, NodeShape};
use crate::Schema;

/// Every key of the objective.
pub(crate) const KEYS: &[&str] = &[
    "n_validators",
    "n_cores",
    "num_blocks",
    "needed_approvals",
    "relay_vrf_modulo_samples",
    "n_delay_tranches",
    "zeroth_delay_tranche_width",
    "no_show_slots",
    "max_validators_per_core",
    "enable_assignments_v2",
    "max_approval_coalesce_count",
    "peer_bandwidth",
    "latency",
    "loss_probability",
    "reconnect_delay_ms",
    "check_delay_ms",
    "no_show_fraction",
    "slow_fraction",
    "slow_factor",
    "offline",
    "run_after_last_block_secs",
    "finality",
    "trigger_all_tranches",
    "node",
];

const PLACE: &str = "in an !ApprovalNetwork file";

/// Reads the objective from YAML text (tag and mapping), defaults filled
/// in from [`NetworkSpec::default`]; no cross-key bounds yet.
pub(crate) fn read_network_spec(text: &str) -> Result<NetworkSpec, Kind> {
    let map = super::read_tagged(text, "ApprovalNetwork")?;
    read_spec(&Fields::new(&map, ""))
}

fn read_spec(f: &Fields<'_>) -> Result<NetworkSpec, Kind> {
    f.check_keys(KEYS, PLACE, None)?;
    let d = NetworkSpec::default();
    let mut t = Tracker::default();
    Ok(NetworkSpec {
        n_validators: f.u32("n_validators")?.unwrap_or(d.n_validators),
        n_cores: f.u32("n_cores")?.unwrap_or(d.n_cores),
        num_blocks: f.u32("num_blocks")?.unwrap_or(d.num_blocks),
        session: read_session(f, &mut t, Schema::G2G3)?,
        max_validators_per_core: f
            .u32("max_validators_per_core")?
            .unwrap_or(d.max_validators_per_core),
        enable_assignments_v2: f
            .bool("enable_assignments_v2")?
            .unwrap_or(d.enable_assignments_v2),
        max_approval_coalesce_count: f
            .u32("max_approval_coalesce_count")?
            .unwrap_or(d.max_approval_coalesce_count),
        peer_bandwidth: f.u64("peer_bandwidth")?.unwrap_or(d.peer_bandwidth),
        latency: match f.get("latency") {
            None => d.latency,
            Some(Value::Null) => None,
            Some(_) => Some(read_latency(f)?),
        },
        loss_probability: f.f64("loss_probability")?.unwrap_or(d.loss_probability),
        check_delay_ms: match f.mapping("check_delay_ms", "a mapping {mean, std_dev}")? {
            None => d.check_delay_ms,
            Some(m) => read_delay(&m, "check_delay_ms")?,
        },
        reconnect_delay_ms: match f.mapping("reconnect_delay_ms", "a mapping {mean, std_dev}")? {
            None => d.reconnect_delay_ms,
            Some(m) => read_delay(&m, "reconnect_delay_ms")?,
        },
        no_show_fraction: f.f64("no_show_fraction")?.unwrap_or(d.no_show_fraction),
        slow_fraction: f.f64("slow_fraction")?.unwrap_or(d.slow_fraction),
        slow_factor: f.f64("slow_factor")?.unwrap_or(d.slow_factor),
        offline: read_offline(f)?,
        run_after_last_block_secs: f
            .u64("run_after_last_block_secs")?
            .unwrap_or(d.run_after_last_block_secs),
        finality: f.bool("finality")?.unwrap_or(d.finality),
        trigger_all_tranches: f
            .bool("trigger_all_tranches")?
            .unwrap_or(d.trigger_all_tranches),
        node: match f.mapping(
            "node",
            "a mapping {layout, workers, cores, cpu_scale, batch}",
        )? {
            None => None,
            Some(m) => Some(read_node(&m)?),
        },
    })
}

/// `latency: {mean_latency_ms, std_dev}`, both required.
fn read_latency(f: &Fields<'_>) -> Result<Latency, Kind> {
    let l = f
        .mapping("latency", "null or a mapping {mean_latency_ms, std_dev}")?
        .expect("present and not null");
    l.check_keys(&["mean_latency_ms", "std_dev"], "in `latency`", None)?;
    let why = "`latency` needs both `mean_latency_ms` and `std_dev`, or `latency: null`";
    Ok(Latency {
        mean_latency_ms: l.required("mean_latency_ms", l.f64("mean_latency_ms")?, why)?,
        std_dev: l.required("std_dev", l.f64("std_dev")?, why)?,
    })
}

/// A delay law `{mean, std_dev}` at `key`, both required.
fn read_delay(m: &Fields<'_>, key: &str) -> Result<DelayMs, Kind> {
    m.check_keys(&["mean", "std_dev"], &format!("in `{key}`"), None)?;
    let why = format!("`{key}` needs both `mean` and `std_dev`");
    let why = why.as_str();
    Ok(DelayMs {
        mean: m.required("mean", m.f64("mean")?, why)?,
        std_dev: m.required("std_dev", m.f64("std_dev")?, why)?,
    })
}

/// `offline: [{fraction, at_block}, ...]`.
fn read_offline(f: &Fields<'_>) -> Result<Vec<Offline>, Kind> {
    let items = match f.get("offline") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Sequence(items)) => items,
        Some(other) => {
            return Err(Kind::WrongType {
                key: "offline".into(),
                expected: "a list of {fraction, at_block}",
                found: describe(other),
            })
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let Value::Mapping(map) = item else {
                return Err(Kind::WrongType {
                    key: format!("offline[{i}]"),
                    expected: "a mapping {fraction, at_block}",
                    found: describe(item),
                });
            };
            let o = Fields::new(map, format!("offline[{i}]."));
            o.check_keys(
                &["fraction", "at_block", "until_block"],
                "in an `offline` group",
                None,
            )?;
            let why = "an offline group needs `fraction` and `at_block`";
            Ok(Offline {
                fraction: o.required("fraction", o.f64("fraction")?, why)?,
                span: OfflineSpan {
                    at_block: o.required("at_block", o.u32("at_block")?, why)?,
                    until_block: o.u32("until_block")?,
                },
            })
        })
        .collect()
}

/// `node: {layout, workers, cores, cpu_scale, batch}`, every key optional
/// (defaults in [`NodeShape::default`]), `workers` with layout parallel
/// only (the classic layout has no workers: refused, not ignored); bounds
/// checked by `NetworkSpec::validate`.
fn read_node(m: &Fields<'_>) -> Result<NodeShape, Kind> {
    m.check_keys(
        &["layout", "workers", "cores", "cpu_scale", "batch"],
        "in `node`",
        None,
    )?;
    let d = NodeShape::default();
    let layout = match m.string("layout")? {
        None => d.layout,
        Some(name) => name
            .parse::<Layout>()
            .map_err(|_| m.impossible("layout", &name, "must be classic or parallel"))?,
    };
    let batch = match m.string("batch")? {
        None => d.batch,
        Some(name) => name
            .parse::<Batch>()
            .map_err(|_| m.impossible("batch", &name, "must be notification or moment"))?,
    };
    let workers = m.u32("workers")?;
    if let (Layout::Classic, Some(w)) = (layout, workers) {
        return Err(m.impossible(
            "workers",
            w,
            "the classic layout has one distribution thread: workers are for layout parallel",
        ));
    }
    Ok(NodeShape {
        layout,
        workers: workers.unwrap_or(d.workers),
        cores: m.u32("cores")?.unwrap_or(d.cores),
        cpu_scale: m.f64("cpu_scale")?.unwrap_or(d.cpu_scale),
        batch,
    })
}
