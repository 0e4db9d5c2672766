//! The loader proper: walks the YAML tree of a test sequence, checks every
//! key against the step's schema, reads each value with its type and
//! bounds, and fills in upstream defaults. This module owns the top level
//! (`TestConfiguration`, the list of steps) and the assembly of one
//! [`BenchStep`]; its submodules read the parts of a step.
//!
//! The tree is read as a generic [`yaml_serde::Value`] rather than through
//! derived `Deserialize` impls: upstream's layout (a flattened struct next
//! to an externally tagged enum) cannot be combined with
//! `deny_unknown_fields`, and walking the tree lets every error name the
//! exact key path.

mod approvals;
mod fields;
mod links;
pub(super) mod network_spec;
mod objective;
mod size;
pub(super) mod sweep;

use yaml_serde::{Mapping, Value};

use super::error::{one_line, ConfigError, ConfigErrorKind as Kind};
use super::{BenchConfig, BenchStep, Schema, SkippedStep};
use approvals::read_options;
use fields::{describe, describe_file, key_name, Fields, Tracker};
use links::{read_bandwidth, read_connectivity, read_error_percent, read_latency};
use objective::{check_schema_keys, defaults, read_objective, Objective};
use size::{
    read_cores, read_included_candidates, read_num_blocks, read_pov_sizes, read_session,
    read_validators,
};

/// The top-level key.
const ROOT_KEY: &str = "TestConfiguration";

/// Parses a whole test sequence.
pub(super) fn parse_sequence(text: &str, source: &str) -> Result<BenchConfig, ConfigError> {
    let fail = |kind| ConfigError::new(source, None, kind);
    let mut root = crate::yaml::read(text).map_err(|e| fail(read_error(e)))?;
    root.apply_merge()
        .map_err(|e| fail(Kind::Yaml(one_line(&e.to_string()))))?;
    let items = step_list(&root).map_err(fail)?;
    let mut steps = Vec::new();
    let mut skipped = Vec::new();
    for (i, step) in items.iter().enumerate() {
        let n = i + 1;
        match parse_step(step, n, source).map_err(|kind| ConfigError::new(source, Some(n), kind))? {
            Parsed::Approval(s) => steps.push(*s),
            Parsed::Other(objective) => skipped.push(SkippedStep { step: n, objective }),
        }
    }
    if steps.is_empty() {
        let names: Vec<_> = skipped.iter().map(|s| s.objective.as_str()).collect();
        return Err(fail(Kind::Structure(format!(
            "no approval step (`!ApprovalVoting` or `!ApprovalsTest`) to run; found only {}",
            names.join(", ")
        ))));
    }
    Ok(BenchConfig {
        source: source.to_owned(),
        steps,
        skipped,
    })
}

/// The kind of error for a YAML input [`crate::yaml::read`] refused.
pub(super) fn read_error(e: crate::yaml::ReadError) -> Kind {
    match e {
        crate::yaml::ReadError::Bounds(b) => Kind::Bounds(b),
        crate::yaml::ReadError::Yaml(y) => Kind::Yaml(y),
        crate::yaml::ReadError::TooLarge { .. } => Kind::TooLarge {
            max: tranche_cli::input::MAX_INPUT_FILE_BYTES,
        },
    }
}

/// The mapping of a file that is one value tagged `!{tag}` (an empty
/// mapping for the tag alone), merge keys applied; anything else is
/// refused saying what the file is instead.
pub(super) fn read_tagged(text: &str, tag: &str) -> Result<Mapping, Kind> {
    let mut root = crate::yaml::read(text).map_err(read_error)?;
    root.apply_merge()
        .map_err(|e| Kind::Yaml(one_line(&e.to_string())))?;
    match root {
        Value::Tagged(t) if t.tag == tag => match t.value {
            Value::Mapping(m) => Ok(m),
            Value::Null => Ok(Mapping::new()),
            other => Err(Kind::Structure(format!(
                "`!{tag}` must be followed by a mapping of its keys, found {}",
                describe(&other)
            ))),
        },
        Value::Tagged(t) => Err(Kind::Structure(format!(
            "not an `!{tag}` file: its tag is {}",
            tranche_cli::text::code(&t.tag.to_string())
        ))),
        other => Err(Kind::Structure(format!(
            "not an `!{tag}` file: it must start with the tag `!{tag}`, found {}",
            describe_file(&other)
        ))),
    }
}

/// The list of steps under the single top-level key.
fn step_list(root: &Value) -> Result<&[Value], Kind> {
    let top = match root {
        Value::Mapping(m) => m,
        Value::Null => {
            return Err(Kind::Structure(format!(
                "the file is empty; a test sequence starts with `{ROOT_KEY}:`"
            )))
        }
        other => {
            return Err(Kind::Structure(format!(
                "the top level must be a mapping with the key `{ROOT_KEY}`, found {}",
                describe_file(other)
            )))
        }
    };
    for key in top.keys() {
        let name = key_name(key).map_err(|k| k("the top level"))?;
        if name != ROOT_KEY {
            return Err(Kind::UnknownKey {
                key: name.to_owned(),
                place: "at the top level".into(),
                hint: format!(": the only top-level key is `{ROOT_KEY}`"),
            });
        }
    }
    let items = match top.get(ROOT_KEY) {
        None => {
            return Err(Kind::MissingKey {
                key: ROOT_KEY.into(),
                why: "the list of steps".into(),
            })
        }
        Some(Value::Sequence(items)) => items,
        Some(other) => {
            return Err(Kind::WrongType {
                key: ROOT_KEY.into(),
                expected: "a list of steps",
                found: describe(other),
            })
        }
    };
    if items.is_empty() {
        return Err(Kind::Structure(format!("`{ROOT_KEY}` has no steps")));
    }
    Ok(items)
}

enum Parsed {
    Approval(Box<BenchStep>),
    Other(String),
}

fn parse_step(step: &Value, n: usize, source: &str) -> Result<Parsed, Kind> {
    let map = match step {
        Value::Mapping(m) => m,
        other => {
            return Err(Kind::WrongType {
                key: "step".into(),
                expected: "a mapping with `objective` and the configuration keys",
                found: describe(other),
            })
        }
    };
    let (schema, options) = match read_objective(map)? {
        Objective::Approval { schema, options } => (schema, options),
        Objective::Other(name) => return Ok(Parsed::Other(name)),
    };
    let empty = Mapping::new();
    let fields = Fields::new(map, "");
    let opts = Fields::new(options.unwrap_or(&empty), "objective.");
    check_schema_keys(schema, &fields, &opts)?;
    let step = build(schema, &fields, &opts, n, source)?;
    Ok(Parsed::Approval(Box::new(step)))
}

/// Reads step number `step` of `source` from its keys `f` and its approval
/// options `o`, in schema order: validators, cores and blocks, session
/// parameters, PoV sizes, network, approval options.
fn build(
    schema: Schema,
    f: &Fields<'_>,
    o: &Fields<'_>,
    step: usize,
    source: &str,
) -> Result<BenchStep, Kind> {
    let d = defaults(schema);
    let mut t = Tracker::default();
    let n_validators = read_validators(f, d, &mut t)?;
    let (n_cores, max_validators_per_core) = read_cores(f, d, &mut t, schema, n_validators)?;
    let n_included_candidates = read_included_candidates(f, schema, n_cores)?;
    let num_blocks = read_num_blocks(f)?;
    let session = read_session(f, &mut t, schema)?;
    let (min_pov_size_kib, max_pov_size_kib) = read_pov_sizes(f, &mut t)?;
    let peer_bandwidth = read_bandwidth(f, &mut t, "peer_bandwidth", d.bandwidth)?;
    let bandwidth = read_bandwidth(f, &mut t, "bandwidth", d.bandwidth)?;
    let latency = t.or("latency", read_latency(f, schema)?, d.latency);
    let connectivity = read_connectivity(f, &mut t, d.connectivity, n_validators)?;
    let error_percent = read_error_percent(f, &mut t, schema)?;
    let options = read_options(o, d, &mut t, schema)?;
    let step = BenchStep {
        name: format!("{source} #{step} {}", schema.objective_name()),
        step,
        schema,
        n_validators,
        n_cores,
        n_included_candidates,
        num_blocks,
        session,
        max_validators_per_core,
        min_pov_size_kib,
        max_pov_size_kib,
        peer_bandwidth,
        bandwidth,
        latency,
        connectivity,
        error_percent,
        coalescing: options.coalescing,
        coalesce_tranche_diff: options.coalesce_tranche_diff,
        enable_assignments_v2: options.enable_assignments_v2,
        last_considered_tranche: options.last_considered_tranche,
        send_till_tranche: options.send_till_tranche,
        stop_when_approved: options.stop_when_approved,
        workdir_prefix: options.workdir_prefix,
        num_no_shows_per_candidate: options.num_no_shows_per_candidate,
        approval_voting_parallel_enabled: options.approval_voting_parallel_enabled,
        blocks_per_session: options.blocks_per_session,
        g1_thresholds: options.g1_thresholds,
        defaulted: t.defaulted,
    };
    check_end_tick(&step)?;
    Ok(step)
}

/// The run's end tick (see [`BenchStep::drain_ticks`]) must fit in a tick
/// with room for the driver's grace period. The bounds on blocks, tranches,
/// no-show slots and no-shows keep it below 10^9; this is the checked proof.
fn check_end_tick(step: &BenchStep) -> Result<(), Kind> {
    let end = step
        .last_block_tick()
        .zip(step.drain_ticks())
        .and_then(|(last, drain)| last.checked_add(drain));
    match end {
        Some(end) if end <= u64::from(u32::MAX) => Ok(()),
        _ => Err(Kind::Structure(format!(
            "the run would end after tick {} (num_blocks {}, n_delay_tranches {}, no_show_slots \
             {}, num_no_shows_per_candidate {}): more than {} ticks",
            end.map_or("2^64".into(), |e| e.to_string()),
            step.num_blocks,
            step.session.n_delay_tranches,
            step.session.no_show_slots,
            step.num_no_shows_per_candidate,
            u32::MAX
        ))),
    }
}
