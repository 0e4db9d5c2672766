//! `TRANCHE_SMALL=1`: every command run small, so that the test of the
//! commands README.md and docs/ show (`crates/bench/tests/bench/documented.rs`)
//! runs each of them as written, on its own files, in about a minute in
//! all. Not for measuring: the sizes are cut, whatever the file or the
//! flags say.
//!
//! - `run`: a step of more than 100 validators gets 40 validators and 8
//!   cores; at most 3 blocks; the virtual clock.
//! - `network`, `sweep network`: 40 validators, 8 cores, at most 2 blocks
//!   (or as many as the offline groups' last block needs).
//! - `sweep run`: every cell 40 validators and 8 cores, at most 2 blocks
//!   (the validator and core axes collapse to one cell).
//! - `calibrate`: `--quick`; `calibrate --check` one real-node run on the
//!   virtual clock, its file cut as `run`'s.

use tranche_config::approval_network::NetworkSpec;

/// The sizes a cut configuration gets: the test sequence's cut is
/// `config::resolve`'s (`tranche run`, `calibrate --check`); the network's
/// and the sweeps' below use the same.
use tranche_config::resolve::{SMALL_CORES as CORES, SMALL_VALIDATORS as VALIDATORS};

/// Whether `TRANCHE_SMALL=1` is set.
pub fn on() -> bool {
    std::env::var_os("TRANCHE_SMALL").is_some_and(|v| v == "1")
}

/// A network spec cut to size (nothing when small mode is off).
pub fn network(spec: &mut NetworkSpec) {
    if !on() {
        return;
    }
    let offline = spec
        .offline
        .iter()
        .map(|o| o.span.until_block.unwrap_or(o.span.at_block))
        .max()
        .unwrap_or(0);
    spec.n_validators = VALIDATORS;
    spec.n_cores = CORES;
    spec.num_blocks = spec.num_blocks.min(2.max(offline));
}

/// A sweep's validator and core axes, cut to one cell.
pub fn axes(validators: &mut Vec<u32>, cores: &mut Vec<u32>) {
    if on() {
        *validators = vec![VALIDATORS];
        *cores = vec![CORES];
    }
}
