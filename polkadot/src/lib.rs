//! `tranche-polkadot`: Polkadot's own approval-voting,
//! approval-distribution and approval-voting-parallel subsystems (the
//! crates.io 36.0.0 / 0.19.0 releases) run on tranche's workload, so that
//! Polkadot's node, not only tranche's, can be measured on tranche's test
//! sequences (issue 58). GPL-3.0-only, as the crates it links.
//!
//! - [`chain`]: tranche's world made Polkadot's chain (headers, receipts,
//!   BABE epoch, session info) before the peers' messages are generated;
//! - [`mocks`]: the subsystems around the node, answered by the harness;
//! - [`spawner`]: one named thread per task, CPU per thread name;
//! - [`node`]: the overseer with Polkadot's subsystems in either layout;
//! - [`drive`]: the real-clock and virtual-clock drivers;
//! - [`inbound`]: the peers' messages through tranche's emulated links;
//! - [`virtual_clock`]: Polkadot's `Clock` over virtual ticks and the
//!   one-thread executor the virtual clock runs every task on;
//! - [`run`]: a step prepared once, run per layout and clock;
//! - [`floor`]: the crypto floor of the messages the node was sent;
//! - [`report`]: the table and the JSON;
//! - [`crosscheck`]: Polkadot's node and tranche's on the same messages at
//!   the same ticks, their approvals compared block by block.

pub mod chain;
pub mod crosscheck;
pub mod drive;
pub mod floor;
pub mod inbound;
pub mod mocks;
pub mod node;
pub mod prepared;
pub mod report;
pub mod run;
pub mod spawner;
pub mod virtual_clock;

use anyhow::Result;
use std::path::Path;
use tranche_config::BenchConfig;

/// A test sequence read with tranche's config crate and resolved as
/// `tranche run` resolves one (`tranche_config::resolve`): every step
/// sized by `--validators`, `--cores`, `--blocks`, parsed and checked.
pub fn load_config(
    path: &Path,
    (validators, cores, blocks): (Option<u32>, Option<u32>, Option<u32>),
    seed: u64,
) -> Result<BenchConfig> {
    let source = path.display().to_string();
    // The error names the file and the cause; one line.
    let text = tranche_config::read_sequence(path)?;
    let ask = tranche_config::resolve::Ask {
        text: &text,
        source: &source,
        validators,
        cores,
        blocks,
        small: false,
        allow_vacuous: true,
        seed,
    };
    Ok(tranche_config::resolve::resolve(&ask)?.config)
}
