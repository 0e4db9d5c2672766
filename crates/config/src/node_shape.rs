//! The simulated node's shape, as the `!ApprovalNetwork` key `node` gives
//! it: its layout (classic or parallel, as `crates/node/src/classic.rs`
//! and `crates/node/src/parallel.rs` run them), the parallel layout's
//! workers, the validator's cores, the scale of every cost and how a
//! moment's notifications become jobs ([`Batch`]), with their defaults and
//! bounds. The threads a shape has are the model crate's
//! (`tranche_model::cpu::shape`).

use crate::text::quote;
use serde::{Deserialize, Serialize};
use tranche_records::layout::UnknownLayout;

/// The parallel layout's distribution workers by default: the node's one
/// constant (upstream's `APPROVAL_DISTRIBUTION_WORKER_COUNT`), re-exported.
pub use tranche_records::layout::DEFAULT_WORKERS;
/// Cores by default: Polkadot's reference hardware has 8.
pub const DEFAULT_CORES: u32 = 8;
/// The scale of every cost by default.
pub const DEFAULT_CPU_SCALE: f64 = 1.0;
/// Most distribution workers a shape may ask for.
pub const MAX_WORKERS: u32 = 1_024;
/// Most CPU cores a shape may ask for (not the availability cores of
/// `tranche_records::limits::MAX_CORES`).
pub const MAX_CPU_CORES: u32 = 4_096;

/// Which of the node's two layouts runs the validator: the one layout
/// type of the node, the simulation and their configuration.
pub use tranche_records::layout::Layout;

impl From<UnknownLayout> for ShapeError {
    fn from(e: UnknownLayout) -> ShapeError {
        ShapeError::Layout { found: e.found }
    }
}

/// Why a node shape was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ShapeError {
    #[error("layout: expected classic or parallel, found {}", quote(found))]
    Layout { found: String },
    #[error("workers: {found} is out of range (1 to {MAX_WORKERS})")]
    Workers { found: u32 },
    #[error("cores: {found} is out of range (1 to {MAX_CPU_CORES})")]
    Cores { found: u32 },
    #[error("cpu_scale: {found} is not a finite number above 0")]
    CpuScale { found: f64 },
}

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

impl ShapeError {
    /// The key of `node` at fault, as a file names it (`node.workers`).
    pub fn key(&self) -> &'static str {
        match self {
            ShapeError::Layout { .. } => "node.layout",
            ShapeError::Workers { .. } => "node.workers",
            ShapeError::Cores { .. } => "node.cores",
            ShapeError::CpuScale { .. } => "node.cpu_scale",
        }
    }

    /// The value found, as an error line shows it.
    pub fn found(&self) -> String {
        match self {
            ShapeError::Layout { found } => quote(found),
            ShapeError::Workers { found } | ShapeError::Cores { found } => found.to_string(),
            ShapeError::CpuScale { found } => found.to_string(),
        }
    }

    /// What the value must be.
    pub fn expected(&self) -> String {
        match self {
            ShapeError::Layout { .. } => "must be classic or parallel".into(),
            ShapeError::Workers { .. } => format!("must be 1 to {MAX_WORKERS}"),
            ShapeError::Cores { .. } => format!("must be 1 to {MAX_CPU_CORES}"),
            ShapeError::CpuScale { .. } => "must be a finite number above 0".into(),
        }
    }
}

impl NodeShape {
    /// The shape if every field is in range: workers and cores 1 to their
    /// maximum (workers are checked in both layouts), `cpu_scale` finite
    /// and above 0.
    pub fn validate(&self) -> Result<(), ShapeError> {
        if !(1..=MAX_WORKERS).contains(&self.workers) {
            return Err(ShapeError::Workers {
                found: self.workers,
            });
        }
        if !(1..=MAX_CPU_CORES).contains(&self.cores) {
            return Err(ShapeError::Cores { found: self.cores });
        }
        if !(self.cpu_scale.is_finite() && self.cpu_scale > 0.0) {
            return Err(ShapeError::CpuScale {
                found: self.cpu_scale,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_parallel_with_the_nodes_four_workers_on_eight_cores() {
        let shape = NodeShape::default();
        assert_eq!(shape.layout, Layout::Parallel);
        assert_eq!((shape.workers, shape.cores), (4, 8));
        assert_eq!(shape.cpu_scale, 1.0);
        assert_eq!(shape.batch, Batch::Notification);
        assert_eq!(shape.validate(), Ok(()));
    }

    #[test]
    fn batch_is_written_only_when_it_is_not_the_default() {
        let plain = serde_json::to_string(&NodeShape::default()).unwrap();
        assert!(!plain.contains("batch"), "{plain}");
        let moment = NodeShape {
            batch: Batch::Moment,
            ..NodeShape::default()
        };
        let text = serde_json::to_string(&moment).unwrap();
        assert!(text.contains(r#""batch":"moment""#), "{text}");
        let back: NodeShape = serde_json::from_str(&text).unwrap();
        assert_eq!(back, moment);
        let old: NodeShape = serde_json::from_str(&plain).unwrap();
        assert_eq!(old.batch, Batch::Notification);
        for b in [Batch::Notification, Batch::Moment] {
            assert_eq!(b.name().parse::<Batch>(), Ok(b));
        }
        assert!("Moment".parse::<Batch>().is_err());
    }

    #[test]
    fn out_of_range_fields_are_refused_naming_the_field() {
        let bad = |shape: NodeShape| shape.validate().unwrap_err().to_string();
        let base = NodeShape::default();
        assert_eq!(
            bad(NodeShape { workers: 0, ..base }),
            "workers: 0 is out of range (1 to 1024)"
        );
        assert_eq!(
            bad(NodeShape {
                workers: MAX_WORKERS + 1,
                ..base
            }),
            "workers: 1025 is out of range (1 to 1024)"
        );
        assert_eq!(
            bad(NodeShape { cores: 0, ..base }),
            "cores: 0 is out of range (1 to 4096)"
        );
        for scale in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let message = bad(NodeShape {
                cpu_scale: scale,
                ..base
            });
            assert!(message.starts_with("cpu_scale: "), "{message}");
        }
    }

    #[test]
    fn a_name_that_is_no_layout_is_a_shape_error_on_one_line() {
        let err = ShapeError::from("Parallel\n".parse::<Layout>().unwrap_err()).to_string();
        assert_eq!(
            err,
            "layout: expected classic or parallel, found \"Parallel\\n\""
        );
    }
}
