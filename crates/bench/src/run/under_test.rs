//! The node under test as the one driver (`driver.rs`) sees it: fed a
//! tick, a block, a peer's bytes; run at a moment, after which the driver
//! drains what it sent and approved (as data, [`Output`]); its CPU per
//! thread; its figures at the end. The real node on threads (`real.rs`)
//! and the simulation's model of it (`model.rs`) both implement it: `--node
//! real` and `--node model` differ only in which one is built.

use super::chain::PeerNet;
use super::meter::Meter;
use anyhow::Result;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tranche_primitives::Tick;
use tranche_results::{
    ChecksReport, DatabaseReport, ProtocolReport, RestartReport, ScheduleReport,
};
use tranche_voting::NewBlock;

/// A tick's span of the driver's time, `[start, end)` since the first
/// block's slot (under the real clock, `start` is now and `end` too).
pub(super) type Span = (Duration, Duration);

/// What the node under test did, for the driver to carry out.
pub(super) enum Output {
    /// A notification for validator `peer` (the driver counts every one,
    /// and drops those to no peer of the run).
    Send { peer: u32, bytes: Arc<[u8]> },
    /// Block `block` (its index) approved at `tick`, `after_ms` after its
    /// slot start where the node knows it (the model's own time); `None`:
    /// the driver's clock says.
    Approved {
        block: usize,
        tick: Tick,
        after_ms: Option<u64>,
    },
}

/// What a finished node under test reports of itself.
pub(super) struct NodeFigures {
    /// `real` or `model`.
    pub kind: &'static str,
    /// Each thread (and `other`, `test-environment`): its name, CPU
    /// seconds, and whether it is the node's.
    pub threads: Vec<(String, f64, bool)>,
    /// Checks (certificates and signatures) run.
    pub verifications: u64,
    pub protocol: ProtocolReport,
    pub database: DatabaseReport,
    pub checks: ChecksReport,
    pub schedule: Option<ScheduleReport>,
    pub signatures: &'static str,
    pub restart: Option<RestartReport>,
}

/// What the driver asks of the node under test.
pub(super) trait UnderTest {
    /// A tick begins (`imported` blocks so far): the node's own clock
    /// moves to it, a restart due now happens; what it sent meanwhile goes
    /// to `out`.
    fn begin_tick(&mut self, tick: Tick, imported: usize, out: &mut Vec<Output>) -> Result<()>;

    /// Block `index` (`block`), whose slot has come, is imported.
    fn import_block(&mut self, index: usize, block: NewBlock) -> Result<()>;

    /// Whether the run's first sample is taken before its first tick (the
    /// real node's start costs CPU; the model's costs none, and its
    /// samples begin after the first tick).
    const SAMPLED_AT_START: bool;

    /// Whether the node is run at the start of every tick, before the
    /// tick's messages are sent (the model: its timers and blocks are
    /// moments of its own time).
    const RUNS_AT_TICK_START: bool;

    /// The next moment within the tick `[start, end)` the node is run at,
    /// after `last` (`None`: the first since the tick's start), given what
    /// the links hold.
    fn next_moment(&self, links: &PeerNet, last: Option<Duration>, tick: Span) -> Option<Duration>;

    /// A peer's notification, as the links delivered it.
    fn deliver(&mut self, from: u32, bytes: Arc<[u8]>) -> Result<()>;

    /// Run the node at moment `at` on what was delivered (the test
    /// environment has carried `carried` messages in all so far); what it
    /// sent and approved goes to `out`.
    fn run(&mut self, at: Duration, carried: u64, out: &mut Vec<Output>) -> Result<()>;

    /// Real clock only: wait up to `wait` for the node's next output
    /// (`None`: until it is idle, at the end of the run).
    fn wait(&mut self, wait: Option<Duration>, out: &mut Vec<Output>) -> Result<()>;

    /// CPU each thread used so far (the rest of the process and the test
    /// environment included): (name, seconds).
    fn cpu_now(&self, meter: &Meter) -> Vec<(String, f64)>;

    /// The deepest queues since the last call: in all, and by kind.
    fn queue_depths(&self) -> (u64, BTreeMap<String, u64>);

    /// The node's live metrics, for the Prometheus endpoint (the real
    /// node's).
    fn metrics(&self) -> Option<&tranche_node::NodeMetrics>;

    /// Stop the node and say what it used and counted.
    fn finish(self, meter: &Meter) -> Result<NodeFigures>;
}
