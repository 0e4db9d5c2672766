//! Fuzz target: `hostfile` of `fuzz/src/simulation.rs` (no panic; a refusal
//! is one line; an accepted hostfile has 1 to 64 distinct plain
//! `host:port` lines), shared with the corpus replay and smoke test of
//! tranche-simulation.
#![no_main]

#[path = "../src/simulation.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    checks::hostfile(data);
});
