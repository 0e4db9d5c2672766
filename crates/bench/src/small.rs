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
use tranche_config::BenchConfig;

/// Validators of a cut configuration: enough outside a backing group for
/// the default `needed_approvals` (30).
pub const VALIDATORS: u32 = 40;
/// Cores of a cut configuration (40 validators form 8 backing groups).
pub const CORES: u32 = 8;

/// Whether `TRANCHE_SMALL=1` is set.
pub fn on() -> bool {
    std::env::var_os("TRANCHE_SMALL").is_some_and(|v| v == "1")
}

/// The sizes a test sequence is resized to (`tranche_config::resize`), none when it is
/// small already or small mode is off.
pub fn run_sizes(config: &BenchConfig) -> Vec<(&'static str, u32)> {
    if !on() {
        return Vec::new();
    }
    let mut sizes = Vec::new();
    if config.steps.iter().any(|s| s.n_validators > 100) {
        sizes.extend([("n_validators", VALIDATORS), ("n_cores", CORES)]);
    }
    if config.steps.iter().any(|s| s.num_blocks > 3) {
        sizes.push(("num_blocks", 3));
    }
    sizes
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
