//! Fuzz target: `scenario` of `fuzz/src/conformance.rs` (the scenario file:
//! no panic; a refusal is one line; a small accepted scenario runs and its
//! result compared with itself has no difference), shared with the corpus
//! replay and smoke test of tranche-conformance.
#![no_main]

#[path = "../src/conformance.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    checks::scenario(data);
});
