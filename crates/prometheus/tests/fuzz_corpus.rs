//! Replays the committed corpus of the `prometheus_request` fuzz target
//! (`fuzz/src/prometheus.rs`: the `/metrics` endpoint's HTTP exchange on
//! the bytes of one connection) and runs it for a bounded time on
//! mutations of that corpus, through the shared `fuzz/src/smoke.rs`, so
//! that every `cargo test` fuzzes the endpoint a little.

#[path = "../../../fuzz/src/prometheus.rs"]
mod prometheus_checks;
#[path = "../../../fuzz/src/smoke.rs"]
mod smoke;

#[test]
fn the_prometheus_request_replays_its_corpus_and_survives_a_smoke_run() {
    smoke::replay_and_smoke("prometheus_request", prometheus_checks::prometheus_request);
}
