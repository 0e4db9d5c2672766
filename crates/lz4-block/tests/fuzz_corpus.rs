//! Replays the committed corpus of the `lz4_decompress` fuzz target
//! (`fuzz/corpus/lz4_decompress/`) with the very check the target runs
//! (compiled in from `fuzz/src/lz4.rs`), then runs it on mutations of the
//! corpus for a few seconds (`fuzz/src/smoke.rs`), so that every `cargo
//! test` fuzzes the LZ4 block decompression a little.

#[path = "../../../fuzz/src/lz4.rs"]
mod checks;
#[path = "../../../fuzz/src/smoke.rs"]
mod smoke;

#[test]
fn lz4_decompress_replays_its_corpus_and_survives_a_smoke_run() {
    smoke::replay_and_smoke("lz4_decompress", checks::lz4_decompress);
}
