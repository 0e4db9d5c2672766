//! Fuzz target: `approval_sweep` of `fuzz/src/config.rs` (no panic; a
//! refusal is one line naming the file; the base is beside it), shared with
//! the corpus replay and smoke test of tranche-config.
#![no_main]

#[path = "../src/config.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    checks::approval_sweep(data);
});
