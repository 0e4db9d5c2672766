//! Fuzz target: `conformance_vectors` of `fuzz/src/conformance.rs` (the
//! conformance vector file: no panic; a refusal is one line; a small
//! accepted file computes and compares with its outputs), shared with the
//! corpus replay and smoke test of tranche-conformance.
#![no_main]

#[path = "../src/conformance.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    checks::conformance_vectors(data);
});
