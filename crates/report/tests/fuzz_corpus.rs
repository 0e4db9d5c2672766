//! Replays the committed corpus of the `result_reader` fuzz target
//! (`fuzz/corpus/result_reader/`) as a regular test, with the very checks
//! the target runs (compiled in from `fuzz/src/results.rs`), then runs the
//! target for a bounded time on mutations of that corpus (the smoke mode:
//! deterministic mutations for at most 3 seconds), so that every `cargo
//! test` fuzzes the result reader a little; the same for the
//! `prometheus_request` target (`fuzz/src/prometheus.rs`, the `/metrics`
//! endpoint's HTTP request) through the shared `fuzz/src/smoke.rs`.

#[path = "../../../fuzz/src/results.rs"]
mod checks;
#[path = "../../../fuzz/src/prometheus.rs"]
mod prometheus_checks;
#[path = "../../../fuzz/src/smoke.rs"]
mod smoke;

#[test]
fn the_prometheus_request_replays_its_corpus_and_survives_a_smoke_run() {
    smoke::replay_and_smoke("prometheus_request", prometheus_checks::prometheus_request);
}

use std::path::Path;
use std::time::{Duration, Instant};

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/result_reader");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|f| (f.display().to_string(), std::fs::read(&f).unwrap()))
        .collect()
}

#[test]
fn the_result_reader_corpus_replays_without_panic() {
    let files = corpus();
    assert!(!files.is_empty(), "the corpus is empty");
    let accepted = files
        .iter()
        .filter(|(name, bytes)| {
            std::panic::catch_unwind(|| checks::result_reader(bytes))
                .unwrap_or_else(|_| panic!("{name} fails the check"))
        })
        .count();
    assert!(accepted > 0, "no file of the corpus is accepted");
    assert!(accepted < files.len(), "no file of the corpus is refused");
}

/// Tokens a mutation inserts: the values a hostile file holds.
const TOKENS: &[&str] = &[
    "-5",
    "1e308",
    "-0",
    "18446744073709551616",
    "\"\\u001b[31m\"",
    "null",
    "{",
    "}",
    "[",
    "]",
    ",",
    "\"yesterday\"",
    "\"\"",
    "true",
    "0.5",
    "\"tool\":\"tranche\",",
];

/// A deterministic mutation of `seed` (xorshift `state`): a byte changed,
/// a run deleted or repeated, a token inserted.
fn mutate(seed: &[u8], state: &mut u64) -> Vec<u8> {
    let mut next = || {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    };
    let mut out = seed.to_vec();
    for _ in 0..1 + next() % 3 {
        let at = (next() as usize) % out.len().max(1);
        let at = at.min(out.len());
        let end = (at + 1 + (next() as usize) % 64).min(out.len());
        match next() % 4 {
            0 if at < out.len() => out[at] = next() as u8,
            1 => {
                out.drain(at..end);
            }
            2 => {
                let run = out[at..end].to_vec();
                out.splice(at..at, run);
            }
            _ => {
                let token = TOKENS[(next() as usize) % TOKENS.len()].as_bytes();
                out.splice(at..at, token.iter().copied());
            }
        }
    }
    out
}

#[test]
fn the_result_reader_survives_a_bounded_smoke_fuzz() {
    let files = corpus();
    let deadline = Instant::now() + Duration::from_secs(3);
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut runs = 0;
    'all: for round in 0..4000 {
        for (name, seed) in &files {
            if Instant::now() > deadline {
                break 'all;
            }
            let input = mutate(seed, &mut state);
            if std::panic::catch_unwind(|| checks::result_reader(&input)).is_err() {
                let kept = std::env::temp_dir().join("tranche-result-reader-crash.json");
                std::fs::write(&kept, &input).unwrap();
                panic!(
                    "round {round}, a mutation of {name} fails the check (kept in {})",
                    kept.display()
                );
            }
            runs += 1;
        }
    }
    assert!(runs >= files.len(), "{runs} mutations ran");
    eprintln!("result_reader smoke: {runs} mutations");
}
