//! The threads of a simulated node's shape (`NodeShape`, the
//! `!ApprovalNetwork` key `node`, in `tranche_config::node_shape`):
//! classic or parallel as `crates/node/src/classic.rs` and
//! `crates/node/src/parallel.rs` run them, with the node's queue
//! capacities (`tranche_validator::layout`), and a [`Cpu`] of them.

use super::{Cpu, CpuError, ThreadId, ThreadSpec};
pub use tranche_config::node_shape::{
    Layout, NodeShape, ShapeError, DEFAULT_CORES, DEFAULT_CPU_SCALE, DEFAULT_WORKERS,
    MAX_CPU_CORES, MAX_WORKERS,
};

/// The node's queue capacities, from the one place the node reads them
/// too: the inbox (the classic distribution thread's queue and the
/// parallel router's), each parallel worker's input, the voting thread's.
pub use tranche_validator::layout::{
    INBOX_CAPACITY, VOTING_CHANNEL_CAPACITY, WORKER_CHANNEL_CAPACITY,
};

/// The thread of the benchmark's test environment, when `tranche run
/// --node model` puts it on the modelled cores (after the node's threads;
/// the real run's report names its driver so too).
pub const ENVIRONMENT_THREAD: &str = "test-environment";

/// Why no CPU could be built for a shape.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Shape(#[from] ShapeError),
    #[error(transparent)]
    Cpu(#[from] CpuError),
}

/// Where the jobs of a node shape go: the router (parallel only), the
/// distribution threads (classic: one; parallel: the workers, by index),
/// the voting thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeThreads {
    pub router: Option<ThreadId>,
    pub distribution: Vec<ThreadId>,
    pub voting: ThreadId,
    /// The test environment's thread, last, when it shares the cores.
    pub environment: Option<ThreadId>,
}

/// The node's threads, named as the node names them, with its queue
/// capacities: classic `[approval-distribution, approval-voting]`;
/// parallel `[approval-voting-parallel (router),
/// approval-voting-parallel-0 .. N-1 (workers),
/// approval-voting-parallel-db (voting)]`.
pub fn threads(shape: &NodeShape) -> Result<Vec<ThreadSpec>, ShapeError> {
    tranche_config::node_shape::validate(shape)?;
    Ok(match shape.layout {
        Layout::Classic => vec![
            ThreadSpec::new("approval-distribution", Some(INBOX_CAPACITY)),
            ThreadSpec::new("approval-voting", Some(VOTING_CHANNEL_CAPACITY)),
        ],
        Layout::Parallel => {
            let mut threads = vec![ThreadSpec::new(
                "approval-voting-parallel",
                Some(INBOX_CAPACITY),
            )];
            threads.extend((0..shape.workers).map(|i| {
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

/// Where each kind of job goes on a CPU built from [`threads`].
pub fn roles(shape: &NodeShape) -> Result<NodeThreads, ShapeError> {
    tranche_config::node_shape::validate(shape)?;
    Ok(match shape.layout {
        Layout::Classic => NodeThreads {
            router: None,
            distribution: vec![ThreadId(0)],
            voting: ThreadId(1),
            environment: None,
        },
        Layout::Parallel => {
            let workers = shape.workers as usize;
            NodeThreads {
                router: Some(ThreadId(0)),
                distribution: (1..=workers).map(ThreadId).collect(),
                voting: ThreadId(workers + 1),
                environment: None,
            }
        }
    })
}

/// A CPU of this shape, idle at time 0, and where its jobs go; with
/// `environment`, one more thread after the node's,
/// [`ENVIRONMENT_THREAD`] (unbounded: its jobs are charges, no messages).
pub fn cpu<J, O>(
    shape: &NodeShape,
    environment: bool,
) -> Result<(Cpu<J, O>, NodeThreads), BuildError> {
    let mut roles = roles(shape)?;
    let mut threads = threads(shape)?;
    if environment {
        roles.environment = Some(ThreadId(threads.len()));
        threads.push(ThreadSpec::new(ENVIRONMENT_THREAD, None));
    }
    let cpu = Cpu::new(threads, shape.cores)?;
    Ok((cpu, roles))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_out_of_range_builds_no_threads() {
        let base = NodeShape::default();
        assert!(cpu::<(), ()>(&NodeShape { cores: 0, ..base }, false).is_err());
        assert!(threads(&NodeShape { workers: 0, ..base }).is_err());
    }

    #[test]
    fn classic_is_distribution_then_voting_with_the_nodes_capacities() {
        let shape = NodeShape {
            layout: Layout::Classic,
            workers: 7,
            ..NodeShape::default()
        };
        let threads = threads(&shape).unwrap();
        assert_eq!(
            threads,
            vec![
                ThreadSpec::new("approval-distribution", Some(64_000)),
                ThreadSpec::new("approval-voting", Some(16_000)),
            ]
        );
        let (cpu, roles) = cpu::<(), ()>(&shape, false).unwrap();
        assert_eq!(cpu.cores(), 8);
        assert_eq!(roles.router, None);
        assert_eq!(
            cpu.name(roles.distribution[0]),
            Some("approval-distribution")
        );
        assert_eq!(roles.distribution.len(), 1);
        assert_eq!(cpu.name(roles.voting), Some("approval-voting"));
        assert_eq!(roles.environment, None);
        // The benchmark's test environment, when asked for, comes last.
        let (cpu, roles) = super::cpu::<(), ()>(&shape, true).unwrap();
        let env = roles.environment.unwrap();
        assert_eq!(cpu.name(env), Some(ENVIRONMENT_THREAD));
        assert_eq!(env.index(), cpu.threads().count() - 1);
        assert_eq!(cpu.name(roles.voting), Some("approval-voting"));
    }

    #[test]
    fn parallel_is_router_workers_voting_and_the_roles_name_them() {
        let shape = NodeShape {
            workers: 3,
            cores: 2,
            ..NodeShape::default()
        };
        let (cpu, roles) = cpu::<(), ()>(&shape, false).unwrap();
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
        let caps: Vec<_> = threads(&shape)
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
}
