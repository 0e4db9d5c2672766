//! Replays the committed corpus of the `store_rows` fuzz target
//! (`fuzz/corpus/store_rows/`: rows as a damaged database would hand
//! them to a restart) with the very check the target runs (compiled in
//! from `fuzz/src/store.rs`), then runs it on mutations of its corpus for
//! a few seconds (`fuzz/src/smoke.rs`), so that every `cargo test` fuzzes
//! the row decoder a little.

#[path = "../../../../fuzz/src/store.rs"]
mod checks;
#[path = "../../../../fuzz/src/smoke.rs"]
mod smoke;

#[test]
fn the_store_row_decoder_replays_its_corpus_and_survives_a_smoke_run() {
    smoke::replay_and_smoke("store_rows", checks::store_rows);
}
