//! The crypto floor of a run of Polkadot's node: what the VRFs and
//! signatures of the unique messages the node was sent cost on their own,
//! measured by tranche's floor (`tranche_bench::floor`, what `tranche run`
//! reports beside its own node), and the node's CPU as a multiple of it.

use crate::prepared::Prepared;
use anyhow::{bail, Result};
use tranche_bench::floor::{CryptoFloor, FloorMessages, FloorMode};
use tranche_bench::run::Progress;
use tranche_workload::producer::MessageId;

/// The node's own tasks: Polkadot's approval subsystems and what they
/// spawn (`approval-voting…`, `approval-distribution…`, `approval-checks`);
/// the overseer, the harness's mocks and the dummy subsystems are not the
/// node's work.
pub fn is_node_task(name: &str) -> bool {
    name.starts_with("approval-")
}

/// Measure the floor of the unique messages `sent` (by bundle and index,
/// in the order first sent) in `mode`, a sample drawn from `seed`.
pub fn measure(
    prepared: &Prepared,
    sent: &[MessageId],
    mode: FloorMode,
    seed: u64,
) -> Result<CryptoFloor> {
    let world = &prepared.tranche.world;
    let bundles = &prepared.tranche.messages.bundles;
    let messages = sent.iter().filter_map(|id| {
        let bundle = bundles.get(id.bundle as usize)?;
        let i = id.index as usize;
        let m = bundle
            .assignments
            .get(i)
            .or_else(|| bundle.approvals.get(i - bundle.assignments.len()))?;
        Some((bundle.block, m))
    });
    let selected = FloorMessages::new(world, messages, mode, seed);
    let session = tranche_primitives::Session::new(world.session.clone());
    let phase = Progress::Quiet.phase("crypto floor", "messages", selected.len() as u64);
    let floor = selected.measure(&session, &phase);
    if floor.failures > 0 {
        bail!(
            "{} generated messages failed their own crypto check",
            floor.failures
        );
    }
    Ok(floor)
}
