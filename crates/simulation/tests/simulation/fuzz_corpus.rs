//! Replays the committed corpora of the `hostfile` and `process_wire`
//! fuzz targets (`fuzz/corpus/<target>/`) with the very checks the targets
//! run (compiled in from `fuzz/src/simulation.rs`), then runs each check
//! on mutations of its corpus for a few seconds (`fuzz/src/smoke.rs`), so
//! that every `cargo test` fuzzes the hostfile and the several-process
//! wire a little.

#[path = "../../../../fuzz/src/simulation.rs"]
mod checks;
#[path = "../../../../fuzz/src/smoke.rs"]
mod smoke;

#[test]
fn the_hostfile_reader_replays_its_corpus_and_survives_a_smoke_run() {
    smoke::replay_and_smoke("hostfile", checks::hostfile);
}

#[test]
fn the_process_wire_replays_its_corpus_and_survives_a_smoke_run() {
    smoke::replay_and_smoke("process_wire", checks::process_wire);
}
