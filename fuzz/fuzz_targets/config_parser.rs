//! Fuzz target: `config_parser` of `fuzz/src/workload.rs` (no panic; a refusal is one
//! line), shared with the corpus replay test of tranche-workload.
#![no_main]

#[path = "../src/workload.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    checks::config_parser(data);
});
