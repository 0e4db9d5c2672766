//! Replays the committed corpora of the `approval_network` and
//! `approval_sweep` fuzz targets (`fuzz/corpus/<target>/`) with the very
//! checks the targets run (compiled in from `fuzz/src/config.rs`), then
//! runs each check on mutations of its corpus for a few seconds
//! (`fuzz/src/smoke.rs`), so that every `cargo test` fuzzes both readers a
//! little.

#[path = "../../../../fuzz/src/config.rs"]
mod checks;
#[path = "../../../../fuzz/src/smoke.rs"]
mod smoke;

#[test]
fn the_approval_network_reader_replays_its_corpus_and_survives_a_smoke_run() {
    smoke::replay_and_smoke("approval_network", checks::approval_network);
}

#[test]
fn the_approval_sweep_reader_replays_its_corpus_and_survives_a_smoke_run() {
    smoke::replay_and_smoke("approval_sweep", checks::approval_sweep);
}
