//! Fuzz target: `scenario_expected` of `fuzz/src/conformance.rs` (an
//! expected answer: no panic; a refusal is one line; every difference from
//! a run is one line, escaped and cut), shared with the corpus replay and
//! smoke test of tranche-conformance.
#![no_main]

#[path = "../src/conformance.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    checks::scenario_expected(data);
});
