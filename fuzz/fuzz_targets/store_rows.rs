//! Fuzz target: `store_rows` of `fuzz/src/store.rs` (the store's row
//! decoder and the restore after it: no panic; a refusal is one line),
//! shared with the corpus replay and smoke test of tranche-voting.
#![no_main]

#[path = "../src/store.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    checks::store_rows(data);
});
