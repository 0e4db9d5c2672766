//! What a whole-network run hands back on process 0, as plain data: every
//! validator's record, what the run cost and the CPU model's threads by
//! name. The engine (`tranche_simulation::simulate`) returns it;
//! `tranche_report::network::SimulationReport::of_run` makes the report.

use crate::cost::RunCost;
use crate::record::NodeRecord;

/// One finished network run.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct NetworkRun {
    /// Every validator's record, in validator order.
    pub records: Vec<NodeRecord>,
    /// What the run cost, every process's figures gathered.
    pub cost: RunCost,
    /// With the CPU model: the layout's threads by name, in the records'
    /// order; empty without it.
    pub threads: Vec<String>,
}
