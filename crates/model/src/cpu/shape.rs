//! The simulated node's shape, as the `!ApprovalNetwork` file gives it:
//! its layout (classic or parallel, `crates/node/src/classic.rs`,
//! `crates/node/src/parallel.rs`), the parallel layout's workers, the
//! validator's cores and the scale of every cost; its validation, and the
//! threads of its [`Cpu`] with the node's queue capacities.

use super::{Cpu, CpuError, ThreadId, ThreadSpec};
use std::fmt;
use std::str::FromStr;

/// The node's inbox (`INBOX_CAPACITY` in `crates/node/src/layout.rs`,
/// upstream's approval-distribution inbox): the classic distribution
/// thread's queue and the parallel router's.
pub const INBOX_CAPACITY: usize = 64_000;
/// Each parallel distribution worker's bounded input
/// (`WORKER_CHANNEL_CAPACITY` in `crates/node/src/layout.rs`, upstream's
/// `DEFAULT_WORKERS_CHANNEL_SIZE` = 64 000 / 4 in
/// `polkadot/node/core/approval-voting-parallel/src/lib.rs`).
pub const WORKER_CHANNEL_CAPACITY: usize = 16_000;
/// The voting thread's bounded input, in both layouts
/// (`VOTING_CHANNEL_CAPACITY` in `crates/node/src/layout.rs`).
pub const VOTING_CHANNEL_CAPACITY: usize = 16_000;

/// The parallel layout's distribution workers by default: the node's
/// `DEFAULT_WORKERS` (`crates/node/src/messages.rs`), upstream's
/// `APPROVAL_DISTRIBUTION_WORKER_COUNT`.
pub const DEFAULT_WORKERS: u32 = 4;
/// Cores by default: Polkadot's reference hardware has 8.
pub const DEFAULT_CORES: u32 = 8;
/// The scale of every cost by default.
pub const DEFAULT_CPU_SCALE: f64 = 1.0;
/// Most distribution workers a shape may ask for.
pub const MAX_WORKERS: u32 = 1_024;
/// Most cores a shape may ask for.
pub const MAX_CORES: u32 = 4_096;

/// Which of the node's two layouts runs the validator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NodeLayout {
    /// One distribution thread that hands every check to the voting
    /// thread and waits for its verdict.
    Classic,
    /// A router, distribution workers that check crypto, one voting
    /// thread.
    #[default]
    Parallel,
}

impl NodeLayout {
    pub fn name(self) -> &'static str {
        match self {
            NodeLayout::Classic => "classic",
            NodeLayout::Parallel => "parallel",
        }
    }
}

impl fmt::Display for NodeLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for NodeLayout {
    type Err = ShapeError;

    fn from_str(s: &str) -> Result<NodeLayout, ShapeError> {
        match s {
            "classic" => Ok(NodeLayout::Classic),
            "parallel" => Ok(NodeLayout::Parallel),
            _ => Err(ShapeError::Layout {
                found: s.escape_default().to_string(),
            }),
        }
    }
}

/// Why a node shape was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ShapeError {
    #[error("layout: expected classic or parallel, found \"{found}\"")]
    Layout { found: String },
    #[error("workers: {found} is out of range (1 to {MAX_WORKERS})")]
    Workers { found: u32 },
    #[error("cores: {found} is out of range (1 to {MAX_CORES})")]
    Cores { found: u32 },
    #[error("cpu_scale: {found} is not a finite number above 0")]
    CpuScale { found: f64 },
    #[error(transparent)]
    Cpu(#[from] CpuError),
}

/// The simulated node: layout, workers (parallel only), cores, and the
/// factor every cost is multiplied by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeShape {
    pub layout: NodeLayout,
    pub workers: u32,
    pub cores: u32,
    pub cpu_scale: f64,
}

impl Default for NodeShape {
    fn default() -> NodeShape {
        NodeShape {
            layout: NodeLayout::default(),
            workers: DEFAULT_WORKERS,
            cores: DEFAULT_CORES,
            cpu_scale: DEFAULT_CPU_SCALE,
        }
    }
}

/// Where the jobs of a node shape go: the router (parallel only), the
/// distribution threads (classic: one; parallel: the workers, by index),
/// the voting thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeThreads {
    pub router: Option<ThreadId>,
    pub distribution: Vec<ThreadId>,
    pub voting: ThreadId,
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
        if !(1..=MAX_CORES).contains(&self.cores) {
            return Err(ShapeError::Cores { found: self.cores });
        }
        if !(self.cpu_scale.is_finite() && self.cpu_scale > 0.0) {
            return Err(ShapeError::CpuScale {
                found: self.cpu_scale,
            });
        }
        Ok(())
    }

    /// The node's threads, named as the node names them, with its queue
    /// capacities: classic `[approval-distribution, approval-voting]`;
    /// parallel `[approval-voting-parallel (router),
    /// approval-voting-parallel-0 .. N-1 (workers),
    /// approval-voting-parallel-db (voting)]`.
    pub fn threads(&self) -> Result<Vec<ThreadSpec>, ShapeError> {
        self.validate()?;
        Ok(match self.layout {
            NodeLayout::Classic => vec![
                ThreadSpec::new("approval-distribution", Some(INBOX_CAPACITY)),
                ThreadSpec::new("approval-voting", Some(VOTING_CHANNEL_CAPACITY)),
            ],
            NodeLayout::Parallel => {
                let mut threads = vec![ThreadSpec::new(
                    "approval-voting-parallel",
                    Some(INBOX_CAPACITY),
                )];
                threads.extend((0..self.workers).map(|i| {
                    ThreadSpec::new(
                        format!("approval-voting-parallel-{i}"),
                        Some(WORKER_CHANNEL_CAPACITY),
                    )
                }));
                threads.push(ThreadSpec::new(
                    "approval-voting-parallel-db",
                    Some(VOTING_CHANNEL_CAPACITY),
                ));
                threads
            }
        })
    }

    /// Where each kind of job goes on a CPU built from [`Self::threads`].
    pub fn roles(&self) -> Result<NodeThreads, ShapeError> {
        self.validate()?;
        Ok(match self.layout {
            NodeLayout::Classic => NodeThreads {
                router: None,
                distribution: vec![ThreadId(0)],
                voting: ThreadId(1),
            },
            NodeLayout::Parallel => {
                let workers = self.workers as usize;
                NodeThreads {
                    router: Some(ThreadId(0)),
                    distribution: (1..=workers).map(ThreadId).collect(),
                    voting: ThreadId(workers + 1),
                }
            }
        })
    }

    /// A CPU of this shape, idle at time 0, and where its jobs go.
    pub fn cpu<J, O>(&self) -> Result<(Cpu<J, O>, NodeThreads), ShapeError> {
        let roles = self.roles()?;
        let cpu = Cpu::new(self.threads()?, self.cores)?;
        Ok((cpu, roles))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_parallel_with_the_nodes_four_workers_on_eight_cores() {
        let shape = NodeShape::default();
        assert_eq!(shape.layout, NodeLayout::Parallel);
        assert_eq!((shape.workers, shape.cores), (4, 8));
        assert_eq!(shape.cpu_scale, 1.0);
        assert_eq!(shape.validate(), Ok(()));
    }

    #[test]
    fn classic_is_distribution_then_voting_with_the_nodes_capacities() {
        let shape = NodeShape {
            layout: NodeLayout::Classic,
            workers: 7,
            ..NodeShape::default()
        };
        let threads = shape.threads().unwrap();
        assert_eq!(
            threads,
            vec![
                ThreadSpec::new("approval-distribution", Some(64_000)),
                ThreadSpec::new("approval-voting", Some(16_000)),
            ]
        );
        let (cpu, roles) = shape.cpu::<(), ()>().unwrap();
        assert_eq!(cpu.cores(), 8);
        assert_eq!(roles.router, None);
        assert_eq!(
            cpu.name(roles.distribution[0]),
            Some("approval-distribution")
        );
        assert_eq!(roles.distribution.len(), 1);
        assert_eq!(cpu.name(roles.voting), Some("approval-voting"));
    }

    #[test]
    fn parallel_is_router_workers_voting_and_the_roles_name_them() {
        let shape = NodeShape {
            workers: 3,
            cores: 2,
            ..NodeShape::default()
        };
        let (cpu, roles) = shape.cpu::<(), ()>().unwrap();
        let names: Vec<_> = cpu.threads().map(|(_, n)| n.to_owned()).collect();
        assert_eq!(
            names,
            [
                "approval-voting-parallel",
                "approval-voting-parallel-0",
                "approval-voting-parallel-1",
                "approval-voting-parallel-2",
                "approval-voting-parallel-db"
            ]
        );
        let caps: Vec<_> = shape
            .threads()
            .unwrap()
            .iter()
            .map(|t| t.capacity)
            .collect();
        assert_eq!(
            caps,
            [
                Some(64_000),
                Some(16_000),
                Some(16_000),
                Some(16_000),
                Some(16_000)
            ]
        );
        assert_eq!(
            cpu.name(roles.router.unwrap()),
            Some("approval-voting-parallel")
        );
        let workers: Vec<_> = roles.distribution.iter().map(|&t| cpu.name(t)).collect();
        assert_eq!(
            workers,
            [
                Some("approval-voting-parallel-0"),
                Some("approval-voting-parallel-1"),
                Some("approval-voting-parallel-2")
            ]
        );
        assert_eq!(cpu.name(roles.voting), Some("approval-voting-parallel-db"));
        assert_eq!(cpu.cores(), 2);
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
        assert!(NodeShape { cores: 0, ..base }.cpu::<(), ()>().is_err());
        assert!(NodeShape { workers: 0, ..base }.threads().is_err());
    }

    #[test]
    fn layouts_parse_by_name_and_refuse_anything_else_on_one_line() {
        assert_eq!("classic".parse(), Ok(NodeLayout::Classic));
        assert_eq!("parallel".parse(), Ok(NodeLayout::Parallel));
        assert_eq!(NodeLayout::Classic.to_string(), "classic");
        let err = "Parallel\n".parse::<NodeLayout>().unwrap_err().to_string();
        assert_eq!(
            err,
            "layout: expected classic or parallel, found \"Parallel\\n\""
        );
    }
}
