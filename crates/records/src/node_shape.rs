//! The simulated node's shape as data: its layout (classic or parallel),
//! the parallel layout's workers, the validator's cores, the scale of every
//! cost and how a moment's notifications become jobs ([`Batch`]), with
//! their defaults. Read from a file and checked by the configuration
//! (`tranche_config::node_shape`), carried by the network report, run by
//! the model (`tranche_model::cpu::shape`).

use crate::layout::{Layout, DEFAULT_WORKERS};
use serde::{Deserialize, Serialize};

/// Cores by default: Polkadot's reference hardware has 8.
pub const DEFAULT_CORES: u32 = 8;
/// The scale of every cost by default.
pub const DEFAULT_CPU_SCALE: f64 = 1.0;

/// How the simulated node's threads take the notifications that reach a
/// validator in one moment (one millisecond of virtual time).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Batch {
    /// One job each, as the node takes them: its bounded channel hands
    /// distribution one notification at a time (and the classic layout
    /// waits on voting for each). The model `tranche calibrate --check`
    /// compares with the node.
    #[default]
    Notification,
    /// All of a moment's notifications as one job on each thread they
    /// reach: one busy interval a moment instead of one a notification, and
    /// their forwards and imports handed on together when the last is
    /// handled. Coarser than the node (a bounded queue counts a moment's
    /// batch as one message); cheaper to simulate (docs/network.md).
    Moment,
}

impl Batch {
    /// The name a file gives it (`node.batch`).
    pub fn name(self) -> &'static str {
        match self {
            Batch::Notification => "notification",
            Batch::Moment => "moment",
        }
    }

    fn is_default(&self) -> bool {
        *self == Batch::default()
    }
}

impl std::str::FromStr for Batch {
    type Err = ();

    /// `notification` or `moment` ([`Batch::name`]), exactly.
    fn from_str(s: &str) -> Result<Batch, ()> {
        [Batch::Notification, Batch::Moment]
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or(())
    }
}

/// The simulated node: layout, workers (parallel only), cores, the
/// factor every cost is multiplied by, and how a moment's notifications
/// become jobs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NodeShape {
    pub layout: Layout,
    pub workers: u32,
    pub cores: u32,
    pub cpu_scale: f64,
    /// Left out of what is written while it is the default, so that a
    /// record of a run without it reads as before.
    #[serde(skip_serializing_if = "Batch::is_default")]
    pub batch: Batch,
}

impl Default for NodeShape {
    fn default() -> NodeShape {
        NodeShape {
            layout: Layout::default(),
            workers: DEFAULT_WORKERS as u32,
            cores: DEFAULT_CORES,
            cpu_scale: DEFAULT_CPU_SCALE,
            batch: Batch::Notification,
        }
    }
}
