//! The corpus replay and the bounded smoke run shared by the `fuzz_corpus`
//! tests of the readers' crates: every file of a target's committed corpus
//! (`fuzz/corpus/<target>/`) goes through the target's check, at least one
//! accepted and one refused, then the check runs on deterministic mutations
//! of the corpus (bytes changed, runs deleted or repeated, seeds spliced,
//! hostile tokens inserted) for a bounded time, so that every `cargo test`
//! fuzzes each reader a little.
//!
//! Not a module of the fuzz crate's library: a test includes it by `#[path]`
//! beside the file of its target's checks (`fuzz/src/<name>.rs`). It needs
//! nothing but std, so any crate's test can include it.

#![allow(dead_code)]

use std::path::Path;
use std::time::{Duration, Instant};

/// A target's check: whether the reader accepted the bytes; a broken
/// property panics.
pub type Check = fn(&[u8]) -> bool;

/// How long a smoke run lasts.
pub const SMOKE_TIME: Duration = Duration::from_secs(3);

/// What a mutation may insert: the values a hostile input holds, for text
/// readers (YAML, JSON, HTTP, host:port lines) and binary ones alike.
const TOKENS: &[&[u8]] = &[
    b"-1",
    b"0",
    b"-0",
    b"1e308",
    b"NaN",
    b".inf",
    b"18446744073709551616",
    b"4294967296",
    b"65536",
    b"\x1b]0;pwn\x07",
    b"\n",
    b"\r\n",
    b":",
    b"::",
    b"[",
    b"]",
    b"{",
    b"}",
    b",",
    b"\"",
    b"null",
    b"true",
    b"#",
    b"!",
    b"&a",
    b"*a",
    b"\xff\xff\xff\x7f",
    b"\x00\x00\x00\x80",
    b"tranche2",
];

/// The committed corpus of `target`: each file's name and bytes, in name
/// order.
pub fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a folder entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&f).unwrap())
        })
        .collect()
}

/// Runs `check` on `input`; a panic fails the test, the input kept in the
/// temporary folder for `cargo fuzz run`.
fn run_one(target: &str, check: Check, input: &[u8], what: &str) -> bool {
    match std::panic::catch_unwind(|| check(input)) {
        Ok(accepted) => accepted,
        Err(_) => {
            let kept = std::env::temp_dir().join(format!("tranche-fuzz-{target}-crash"));
            std::fs::write(&kept, input).unwrap();
            panic!(
                "{target}: {what} fails the check (kept in {})",
                kept.display()
            );
        }
    }
}

/// Replays the corpus of `target`: no file fails the check, at least one
/// is accepted and one refused. Returns the corpus.
pub fn replay(target: &str, check: Check) -> Vec<(String, Vec<u8>)> {
    let files = corpus(target);
    assert!(!files.is_empty(), "the corpus of {target} is empty");
    let accepted = files
        .iter()
        .filter(|(name, bytes)| run_one(target, check, bytes, name))
        .count();
    assert!(accepted > 0, "no file of the {target} corpus is accepted");
    assert!(
        accepted < files.len(),
        "no file of the {target} corpus is refused"
    );
    files
}

/// A deterministic mutation of `seeds[pick]` (xorshift `state`).
fn mutate(seeds: &[(String, Vec<u8>)], state: &mut u64) -> Vec<u8> {
    let mut next = || {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state as usize
    };
    let mut out = seeds[next() % seeds.len()].1.clone();
    for _ in 0..1 + next() % 4 {
        let at = next() % (out.len() + 1);
        let end = (at + 1 + next() % 64).min(out.len());
        match next() % 5 {
            0 if at < out.len() => out[at] = next() as u8,
            1 if at < end => {
                out.drain(at..end);
            }
            2 if at < end => {
                let run = out[at..end].to_vec();
                out.splice(at..at, run);
            }
            3 => {
                let other = &seeds[next() % seeds.len()].1;
                let from = next() % (other.len() + 1);
                let to = (from + next() % 256).min(other.len());
                out.splice(at..at, other[from..to].iter().copied());
            }
            _ => {
                let token = TOKENS[next() % TOKENS.len()];
                out.splice(at..at, token.iter().copied());
            }
        }
    }
    out
}

/// Runs `check` on mutations of the corpus of `target` for at most
/// [`SMOKE_TIME`] (and at most `most` mutations). Returns how many ran.
pub fn smoke(target: &str, check: Check, most: usize) -> usize {
    let seeds = corpus(target);
    let deadline = Instant::now() + SMOKE_TIME;
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut runs = 0;
    while runs < most && Instant::now() < deadline {
        let input = mutate(&seeds, &mut state);
        run_one(target, check, &input, &format!("mutation {runs}"));
        runs += 1;
    }
    eprintln!("{target} smoke: {runs} mutations");
    assert!(runs >= seeds.len().min(most), "only {runs} mutations ran");
    runs
}

/// [`replay`] then [`smoke`] with at most 20 000 mutations: the whole test
/// of one target.
pub fn replay_and_smoke(target: &str, check: Check) {
    replay(target, check);
    smoke(target, check, 20_000);
}
