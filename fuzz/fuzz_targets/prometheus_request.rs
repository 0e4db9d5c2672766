//! Fuzz target: `prometheus_request` of `fuzz/src/prometheus.rs` (the
//! `/metrics` endpoint's exchange on any request bytes: no panic, always
//! ends, an HTTP/1 response or nothing), shared with the corpus replay and
//! smoke test of tranche-report.
#![no_main]

#[path = "../src/prometheus.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    checks::prometheus_request(data);
});
