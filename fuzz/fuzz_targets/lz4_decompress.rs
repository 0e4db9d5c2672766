//! Fuzz target: `lz4_decompress` of `fuzz/src/lz4.rs` (no panic; no
//! allocation for a size the block cannot hold; an accepted block is the
//! size asked for and round-trips), shared with the corpus replay and smoke
//! test of the vendored lz4 crate (`crates/lz4-block`).
#![no_main]

#[path = "../src/lz4.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    checks::lz4_decompress(data);
});
