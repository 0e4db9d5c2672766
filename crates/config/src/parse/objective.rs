//! A step's objective and the schema it selects: the `objective` tag
//! (`!ApprovalVoting` for G2/G3, `!ApprovalsTest` for G1, or another
//! upstream objective that is skipped), the keys each schema allows beside
//! it and in its options, and the defaults that differ between the schemas
//! (upstream `polkadot/node/subsystem-bench/src/lib/configuration.rs`
//! `TestConfiguration` and `polkadot/node/subsystem-bench/src/lib/approval/mod.rs`
//! `ApprovalsOptions`).

use tranche_links::LatencyModel;
use yaml_serde::{Mapping, Value};

use super::fields::{describe, Fields};
use crate::error::ConfigErrorKind as Kind;
use crate::Schema;

/// Upstream objectives that are not approval benchmarks.
const OTHER_OBJECTIVES: &[&str] = &[
    "DataAvailabilityRead",
    "DataAvailabilityWrite",
    "StatementDistribution",
    "TestSequence",
];

/// `TestConfiguration` keys of both schemas.
const COMMON_STEP_KEYS: &[&str] = &[
    "objective",
    "n_validators",
    "n_cores",
    "max_validators_per_core",
    "min_pov_size",
    "max_pov_size",
    "peer_bandwidth",
    "bandwidth",
    "latency",
    "connectivity",
    "num_blocks",
];

/// `ApprovalsOptions` keys of both schemas.
const COMMON_OPTION_KEYS: &[&str] = &[
    "last_considered_tranche",
    "coalesce_tranche_diff",
    "enable_assignments_v2",
    "stop_when_approved",
    "workdir_prefix",
    "num_no_shows_per_candidate",
];

/// The keys only one schema has, beside the common ones.
struct OwnKeys {
    /// `TestConfiguration` keys.
    step: &'static [&'static str],
    /// `ApprovalsOptions` keys.
    options: &'static [&'static str],
    /// The schema, as hints name it.
    owner: &'static str,
}

const G1_KEYS: OwnKeys = OwnKeys {
    step: &["n_included_candidates", "error"],
    options: &[
        "min_coalesce",
        "max_coalesce",
        "send_till_tranche",
        "approval_distribution_expected_tof",
        "approval_distribution_cpu_ms",
        "approval_voting_cpu_ms",
    ],
    owner: "the G1 schema (`!ApprovalsTest`)",
};

/// The last three step keys are read by G3-era mocks for other objectives;
/// accepted and ignored.
const G2G3_KEYS: OwnKeys = OwnKeys {
    step: &[
        "needed_approvals",
        "zeroth_delay_tranche_width",
        "relay_vrf_modulo_samples",
        "n_delay_tranches",
        "no_show_slots",
        "max_candidate_depth",
        "allowed_ancestry_len",
        "minimum_backing_votes",
    ],
    options: &[
        "coalesce_mean",
        "coalesce_std_dev",
        "approval_voting_parallel_enabled",
        "blocks_per_session",
    ],
    owner: "the G2/G3 schema (`!ApprovalVoting`)",
};

/// Defaults that differ between the schemas.
pub(super) struct Defaults {
    pub(super) n_validators: Option<u32>,
    pub(super) n_cores: Option<u32>,
    pub(super) bandwidth: u64,
    pub(super) latency: LatencyModel,
    pub(super) connectivity: u8,
    pub(super) workdir_prefix: Option<&'static str>,
}

const G1_DEFAULTS: Defaults = Defaults {
    n_validators: None,
    n_cores: None,
    bandwidth: 52_428_800,
    latency: LatencyModel::None,
    connectivity: 100,
    workdir_prefix: None,
};

const G3_DEFAULTS: Defaults = Defaults {
    n_validators: Some(300),
    n_cores: Some(60),
    bandwidth: 44_040_192,
    latency: LatencyModel::Normal {
        mean_ms: 30.0,
        std_dev_ms: 2.0,
    },
    connectivity: 90,
    workdir_prefix: Some("/tmp"),
};

/// The defaults of `schema`: G1's for `!ApprovalsTest`, the newest (G3)
/// for `!ApprovalVoting`.
pub(super) fn defaults(schema: Schema) -> &'static Defaults {
    match schema {
        Schema::G1 => &G1_DEFAULTS,
        Schema::G2G3 => &G3_DEFAULTS,
    }
}

/// What a step's `objective` asks for.
pub(super) enum Objective<'a> {
    /// An approval benchmark of `schema`; `options` is `None` when the tag
    /// has no value.
    Approval {
        schema: Schema,
        options: Option<&'a Mapping>,
    },
    /// Another upstream objective, by name; not run.
    Other(String),
}

/// Reads the `objective` of a step.
pub(super) fn read_objective(step: &Mapping) -> Result<Objective<'_>, Kind> {
    match step.get("objective") {
        None => Err(Kind::MissingKey {
            key: "objective".into(),
            why: "e.g. `objective: !ApprovalVoting` followed by its options".into(),
        }),
        Some(Value::Tagged(t)) => {
            let name = t.tag.to_string();
            let name = name.trim_start_matches('!');
            let schema = match name {
                "ApprovalVoting" => Schema::G2G3,
                "ApprovalsTest" => Schema::G1,
                other if OTHER_OBJECTIVES.contains(&other) => {
                    return Ok(Objective::Other(other.to_owned()))
                }
                other => return Err(Kind::UnknownObjective(other.to_owned())),
            };
            let options = match &t.value {
                Value::Mapping(m) => Some(m),
                Value::Null => None,
                other => {
                    return Err(Kind::WrongType {
                        key: "objective".into(),
                        expected: "a mapping of approval options after the tag",
                        found: describe(other),
                    })
                }
            };
            Ok(Objective::Approval { schema, options })
        }
        Some(Value::String(s)) if OTHER_OBJECTIVES.contains(&s.as_str()) => {
            Ok(Objective::Other(s.clone()))
        }
        Some(Value::String(s)) if s == "ApprovalVoting" || s == "ApprovalsTest" => {
            Err(Kind::WrongType {
                key: "objective".into(),
                expected: "the tag form `!ApprovalVoting` / `!ApprovalsTest` with its options",
                found: describe(&Value::String(s.clone())),
            })
        }
        Some(Value::String(s)) => Err(Kind::UnknownObjective(s.clone())),
        Some(other) => Err(Kind::WrongType {
            key: "objective".into(),
            expected: "a tagged objective such as `!ApprovalVoting`",
            found: describe(other),
        }),
    }
}

/// Rejects a key of the step (`fields`) or of its options (`options`)
/// that `schema` does not know, naming the other schema where the key is
/// one of its own.
pub(super) fn check_schema_keys(
    schema: Schema,
    fields: &Fields<'_>,
    options: &Fields<'_>,
) -> Result<(), Kind> {
    let (own, other) = match schema {
        Schema::G1 => (&G1_KEYS, &G2G3_KEYS),
        Schema::G2G3 => (&G2G3_KEYS, &G1_KEYS),
    };
    let place = format!("in a {} step", schema.tag());
    fields.check_keys(
        &[COMMON_STEP_KEYS, own.step].concat(),
        &place,
        Some((other.step, other.owner)),
    )?;
    options.check_keys(
        &[COMMON_OPTION_KEYS, own.options].concat(),
        &format!("in the {} options", schema.tag()),
        Some((other.options, other.owner)),
    )
}
