//! Replays the committed corpora of the `scenario`, `scenario_expected`
//! and `conformance_vectors` fuzz targets (`fuzz/corpus/<target>/`) with
//! the very checks the targets run (compiled in from
//! `fuzz/src/conformance.rs`), then runs each check on mutations of its
//! corpus for a few seconds (`fuzz/src/smoke.rs`), so that every `cargo
//! test` fuzzes the scenario, expected-answer and vector readers a little.

#[path = "../../../../fuzz/src/conformance.rs"]
mod checks;
#[path = "../../../../fuzz/src/smoke.rs"]
mod smoke;

#[test]
fn the_scenario_reader_replays_its_corpus_and_survives_a_smoke_run() {
    smoke::replay_and_smoke("scenario", checks::scenario);
}

#[test]
fn the_expected_answer_reader_replays_its_corpus_and_survives_a_smoke_run() {
    smoke::replay_and_smoke("scenario_expected", checks::scenario_expected);
}

#[test]
fn the_vector_reader_replays_its_corpus_and_survives_a_smoke_run() {
    smoke::replay_and_smoke("conformance_vectors", checks::conformance_vectors);
}
