//! Fuzz target: `process_wire` of `fuzz/src/simulation.rs` (the hello of
//! the rendezvous at both ends and the gathered cost line: no panic; a
//! refusal is one line; what is taken is the process expected), shared
//! with the corpus replay and smoke test of tranche-simulation.
#![no_main]

#[path = "../src/simulation.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    checks::process_wire(data);
});
