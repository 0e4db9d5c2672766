//! The simulated node's shape, as the `!ApprovalNetwork` key `node` gives
//! it: its layout (classic or parallel, as `crates/node/src/classic.rs`
//! and `crates/node/src/parallel.rs` run them), the parallel layout's
//! workers, the validator's cores, the scale of every cost and how a
//! moment's notifications become jobs ([`Batch`]), with their defaults and
//! bounds. The threads a shape has are the model crate's
//! (`tranche_model::cpu::shape`).

use tranche_cli::text::quote;
use tranche_records::layout::UnknownLayout;

/// The parallel layout's distribution workers by default: the node's one
/// constant (upstream's `APPROVAL_DISTRIBUTION_WORKER_COUNT`), re-exported.
pub use tranche_records::layout::DEFAULT_WORKERS;
/// Most distribution workers a shape may ask for.
pub const MAX_WORKERS: u32 = 1_024;
/// Most CPU cores a shape may ask for (not the availability cores of
/// `tranche_records::limits::MAX_CORES`).
pub const MAX_CPU_CORES: u32 = 4_096;

/// Which of the node's two layouts runs the validator: the one layout
/// type of the node, the simulation and their configuration.
pub use tranche_records::layout::Layout;
/// The shape itself, its batching and their defaults: plain data in
/// `tranche_records`, re-exported.
pub use tranche_records::node_shape::{Batch, NodeShape, DEFAULT_CORES, DEFAULT_CPU_SCALE};

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

/// The shape if every field is in range: workers and cores 1 to their
/// maximum (workers are checked in both layouts), `cpu_scale` finite and
/// above 0.
pub fn validate(shape: &NodeShape) -> Result<(), ShapeError> {
    if !(1..=MAX_WORKERS).contains(&shape.workers) {
        return Err(ShapeError::Workers {
            found: shape.workers,
        });
    }
    if !(1..=MAX_CPU_CORES).contains(&shape.cores) {
        return Err(ShapeError::Cores { found: shape.cores });
    }
    if !(shape.cpu_scale.is_finite() && shape.cpu_scale > 0.0) {
        return Err(ShapeError::CpuScale {
            found: shape.cpu_scale,
        });
    }
    Ok(())
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
        assert_eq!(validate(&shape), Ok(()));
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
        let bad = |shape: NodeShape| validate(&shape).unwrap_err().to_string();
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
