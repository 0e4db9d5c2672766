//! Replays the committed corpus of the `cost_table` fuzz target
//! (`fuzz/corpus/cost_table/`) as a regular test, with the very checks the
//! target runs (compiled in from `fuzz/src/model.rs`), then a bounded smoke
//! run of the same checks on mutations of the corpus (a fixed seed, at most
//! a few seconds), so that every `cargo test` fuzzes the reader a little.

#[path = "../../../fuzz/src/model.rs"]
mod checks;

use rand::{Rng, SeedableRng};
use std::path::Path;
use std::time::{Duration, Instant};

/// The corpus files of target `name`, in name order.
fn corpus(name: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../fuzz/corpus/{name}"));
    let mut entries: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    entries
        .iter()
        .filter_map(|e| std::fs::read(e.path()).ok())
        .collect()
}

#[test]
fn cost_table_corpus_replays_and_its_mutations_hold() {
    for (name, check) in checks::TARGETS {
        let seeds = corpus(name);
        let accepted = seeds.iter().filter(|s| check(s)).count();
        assert!(accepted > 0, "no file of the {name} corpus is accepted");
        assert!(
            accepted < seeds.len(),
            "no file of the {name} corpus is refused"
        );
        // The smoke run: byte flips, insertions of YAML's own punctuation,
        // cuts and splices of two seeds.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(43);
        let punctuation = b"[]{}:,-&*!|>'\"#?\n 0123456789.e";
        let end = Instant::now() + Duration::from_secs(3);
        let mut runs = 0;
        while runs < 20_000 && Instant::now() < end {
            let mut bytes = seeds[rng.gen_range(0..seeds.len())].clone();
            for _ in 0..rng.gen_range(1..8) {
                let at = rng.gen_range(0..=bytes.len());
                match rng.gen_range(0..4) {
                    0 if at < bytes.len() => bytes[at] = rng.gen(),
                    1 => bytes.insert(at, punctuation[rng.gen_range(0..punctuation.len())]),
                    2 => bytes.truncate(at),
                    _ => {
                        let other = &seeds[rng.gen_range(0..seeds.len())];
                        let from = rng.gen_range(0..=other.len());
                        bytes.splice(at..at, other[from..].iter().copied());
                    }
                }
            }
            if std::panic::catch_unwind(|| check(&bytes)).is_err() {
                panic!(
                    "{name}: a mutation fails the check: {:?}",
                    String::from_utf8_lossy(&bytes)
                );
            }
            runs += 1;
        }
        eprintln!(
            "{name}: {} seeds, {accepted} accepted, {runs} mutations",
            seeds.len()
        );
        assert!(runs > 100, "only {runs} mutations in the time");
    }
}
