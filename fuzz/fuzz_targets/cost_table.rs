//! Fuzz target: `cost_table` of `fuzz/src/model.rs` (no panic; a refusal is
//! one line; an accepted table round-trips), shared with the corpus replay
//! test of tranche-model.
#![no_main]

#[path = "../src/model.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    checks::cost_table(data);
});
