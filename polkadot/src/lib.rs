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
//! - [`virtual_clock`]: Polkadot's `Clock` over virtual ticks and the
//!   one-thread executor the virtual clock runs every task on;
//! - [`run`]: a step prepared once, run per layout and clock;
//! - [`report`]: the table and the JSON.

pub mod chain;
pub mod drive;
pub mod mocks;
pub mod node;
pub mod report;
pub mod run;
pub mod spawner;
pub mod virtual_clock;

use anyhow::Result;
use std::path::Path;
use tranche_config::BenchConfig;

/// A test sequence read with tranche's config crate, each step resized by
/// the given `(key, value)` sizes (`n_validators`, `n_cores`,
/// `num_blocks`).
pub fn load_config(path: &Path, sizes: &[(&str, u32)]) -> Result<BenchConfig> {
    let source = path.display().to_string();
    // The error names the file and the cause; one line.
    let text = tranche_config::input::read_text(path, tranche_config::input::MAX_INPUT_FILE_BYTES)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let text = if sizes.is_empty() {
        text
    } else {
        tranche_config::resize::resized(&text, &source, sizes)?
    };
    Ok(tranche_config::parse(&text, &source)?)
}
