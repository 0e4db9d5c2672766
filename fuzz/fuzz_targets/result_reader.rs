//! Fuzz target: `result_reader` of `fuzz/src/results.rs` (no panic; a
//! refusal is one line; an accepted result compares with itself and is
//! followed by `history` without a control character reaching the text),
//! shared with the corpus replay test of tranche-report.
#![no_main]

#[path = "../src/results.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    checks::result_reader(data);
});
