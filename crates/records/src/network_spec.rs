//! What a whole-network simulation runs, as data: `NetworkSpec` and the
//! parts it is made of, with their defaults. The configuration's reader
//! (`tranche_config`'s `parse/network_spec.rs`) builds it from a file and
//! `approval_network` checks the values and estimates the run; the
//! network report carries it (serde). Plain data here, so that a result
//! holds it without linking the reader.

use crate::node_shape::NodeShape;
use crate::session_params::SessionParams;
use serde::{Deserialize, Serialize};

/// One-way latency of every link, drawn once per pair of validators.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Latency {
    /// Mean, milliseconds (`!ApprovalVoting`'s `mean_latency_ms`).
    pub mean_latency_ms: f64,
    /// Standard deviation, milliseconds (`!ApprovalVoting`'s `std_dev`).
    pub std_dev: f64,
}

/// A normal distribution in milliseconds, truncated at zero.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelayMs {
    /// Mean, milliseconds.
    pub mean: f64,
    /// Standard deviation, milliseconds.
    pub std_dev: f64,
}

pub use crate::record::OfflineSpan;

/// Validators that go offline: a share of them, and when.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Offline {
    /// Share of the validators, 0.0..=1.0.
    pub fraction: f64,
    #[serde(flatten)]
    pub span: OfflineSpan,
}

/// A whole-network simulation, normalised (every key has its value). A
/// file is read by the objective's field reader (`parse/network_spec.rs`,
/// strict keys); serde is for the report that carries the spec.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NetworkSpec {
    /// Validators, every one a node (default 100; 2..=2000).
    pub n_validators: u32,
    /// Availability cores, one candidate each per block (default 20;
    /// 1..=backing groups).
    pub n_cores: u32,
    /// Relay blocks, one per 6 s slot (default 5).
    pub num_blocks: u32,
    /// The session's approval parameters (defaults 30 / 0 / 6 / 89 / 3,
    /// `config::session`); their keys sit at the top level of the file.
    #[serde(flatten)]
    pub session: SessionParams,
    /// Backing-group size (default 5).
    pub max_validators_per_core: u32,
    /// Compact multi-core tranche-0 assignments (default true).
    pub enable_assignments_v2: bool,
    /// Session parameter: most candidates one approval signature covers
    /// (default 6, Polkadot's and Kusama's value).
    pub max_approval_coalesce_count: u32,
    /// Every validator's bandwidth, bytes per second, egress and ingress
    /// apart (default 44 040 192, as `!ApprovalVoting`).
    pub peer_bandwidth: u64,
    /// Link latency, or `null` for none (default 30 ms, sd 2.0, as
    /// `!ApprovalVoting`). Every link takes at least 1 ms.
    pub latency: Option<Latency>,
    /// Probability that a notification fails on its link (default 0): the
    /// pair disconnects and reconnects after `reconnect_delay_ms`, views
    /// are exchanged and what the other lacks is re-sent.
    pub loss_probability: f64,
    /// How long a pair stays disconnected after a failed notification,
    /// drawn per failure (default mean 1000 ms, sd 250; our choice:
    /// upstream reconnects through its peer-set manager within seconds).
    pub reconnect_delay_ms: DelayMs,
    /// Duration of one candidate check (availability recovery and
    /// validation), drawn per check (default mean 1000 ms, sd 200).
    pub check_delay_ms: DelayMs,
    /// Share of validators that trigger their assignments but never send
    /// approvals (default 0).
    pub no_show_fraction: f64,
    /// Share of validators whose checks take `slow_factor` times longer
    /// (default 0).
    pub slow_fraction: f64,
    /// Factor of the slow validators' check delays (default 4.0; >= 1).
    pub slow_factor: f64,
    /// Groups of validators going offline at a block (default none).
    pub offline: Vec<Offline>,
    /// How long the simulation goes on after the last block's slot,
    /// seconds of virtual time (default 60).
    pub run_after_last_block_secs: u64,
    /// Model finality (default false): each validator tells every other
    /// one the highest block it approved with all its ancestors, as far
    /// as GRANDPA's voting rules let it vote (two blocks behind the best
    /// at least; `crates/model/src/finality.rs`); a block more than two
    /// thirds of the validators voted for is finalized, and
    /// voting and distribution prune it. Without it nothing is finalized
    /// during a run, and distribution's aggression starts once 16 blocks
    /// are unfinalized.
    pub finality: bool,
    /// Every validator triggers its assignment of every tranche when the
    /// tranche comes, needed or not (default false): the load of
    /// upstream's throughput test, where every tranche is sent.
    pub trigger_all_tranches: bool,
    /// The CPU model of every validator (default none: every input is
    /// handled in zero time, as before the model existed). With it, each
    /// input costs the cost table's time on the threads of the layout,
    /// which share the validator's cores.
    pub node: Option<NodeShape>,
}

impl Default for NetworkSpec {
    fn default() -> Self {
        let session = SessionParams::DEFAULT;
        NetworkSpec {
            n_validators: 100,
            n_cores: 20,
            num_blocks: 5,
            session,
            max_validators_per_core: 5,
            enable_assignments_v2: true,
            max_approval_coalesce_count: 6,
            peer_bandwidth: 44_040_192,
            latency: Some(Latency {
                mean_latency_ms: 30.0,
                std_dev: 2.0,
            }),
            loss_probability: 0.0,
            reconnect_delay_ms: DelayMs {
                mean: 1000.0,
                std_dev: 250.0,
            },
            check_delay_ms: DelayMs {
                mean: 1000.0,
                std_dev: 200.0,
            },
            no_show_fraction: 0.0,
            slow_fraction: 0.0,
            slow_factor: 4.0,
            offline: Vec::new(),
            run_after_last_block_secs: 60,
            finality: false,
            trigger_all_tranches: false,
            node: None,
        }
    }
}
