//! The property of the `prometheus_request` fuzz target: the `/metrics`
//! endpoint of `tranche run --prometheus` (hyper's HTTP/1 server with the
//! endpoint's settings, then its router) on any bytes a client sends
//! before closing its side (`tranche_prometheus::answer_bytes`,
//! the exchange in memory). It never panics and always ends; what it
//! writes back is nothing or an HTTP/1 response with a status, and a
//! 200 is the endpoint's own page or the metrics, which end `# EOF`.
//!
//! Not a module of the fuzz crate's library: the fuzz target and
//! `crates/prometheus/tests/fuzz_corpus.rs` include this file by `#[path]`.

#![allow(dead_code)]

use tranche_prometheus::answer_bytes;

/// Target name and check, for the corpus replay.
pub type Target = (&'static str, fn(&[u8]) -> bool);

/// Every target of this file.
pub const TARGETS: &[Target] = &[("prometheus_request", prometheus_request)];

/// Answers `data` as one connection's request. Returns whether the
/// endpoint answered 200.
pub fn prometheus_request(data: &[u8]) -> bool {
    let out = answer_bytes(data).expect("a runtime");
    if out.is_empty() {
        return false;
    }
    let text = String::from_utf8_lossy(&out);
    let status: u16 = text
        .strip_prefix("HTTP/1.")
        .and_then(|s| s.get(2..5))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP/1 response: {text:?}"));
    assert!((100..600).contains(&status), "status {status}");
    assert!(out.len() <= 1 << 20, "{} bytes", out.len());
    if status != 200 {
        return false;
    }
    let (_, body) = text.split_once("\r\n\r\n").expect("headers end");
    assert!(
        body == "tranche benchmark: metrics at /metrics\n" || body.ends_with("# EOF\n"),
        "a 200 of another body: {body:?}"
    );
    true
}
