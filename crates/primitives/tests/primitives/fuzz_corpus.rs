//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/*`) as a regular
//! test: every file goes through the decoder of its target with the very
//! checks the fuzz targets run (no panic; a decoded value re-encodes to the
//! same length and decodes again to the same value). The checks are compiled
//! in from `fuzz/src/lib.rs`, so the fuzzers and this test cannot drift apart.

#[path = "../../../../fuzz/src/lib.rs"]
mod checks;

use std::path::{Path, PathBuf};

/// Every fuzz target of the fuzz crate: the `[[bin]]` names of
/// `fuzz/Cargo.toml`. Those of other files than `fuzz/src/lib.rs` are
/// replayed by the tests of their readers' crates (`fuzz_corpus` in each).
fn fuzz_targets() -> Vec<String> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/Cargo.toml");
    let text = std::fs::read_to_string(&manifest).expect("fuzz/Cargo.toml");
    let mut names = Vec::new();
    let mut in_bin = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if let Some(name) = line.strip_prefix("name = ").filter(|_| in_bin) {
            names.push(name.trim_matches('"').to_owned());
        }
    }
    names
}

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus")
}

fn files_of(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("folder entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_target_has_a_corpus_and_every_corpus_a_target() {
    let root = corpus_root();
    let targets = fuzz_targets();
    for (name, _) in checks::TARGETS {
        assert!(targets.iter().any(|t| t == name), "{name} is no [[bin]]");
    }
    for name in &targets {
        assert!(
            root.join(name).is_dir(),
            "no corpus folder for fuzz target {name}"
        );
    }
    for entry in std::fs::read_dir(&root).expect("fuzz/corpus exists") {
        let path = entry.expect("folder entry").path();
        if path.is_dir() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            assert!(
                targets.contains(&name),
                "corpus folder {name} has no fuzz target"
            );
        }
    }
}

#[test]
fn corpus_replays_without_panic_and_round_trips() {
    let root = corpus_root();
    let mut total = 0;
    for (name, check) in checks::TARGETS {
        let files = files_of(&root.join(name));
        assert!(!files.is_empty(), "corpus of {name} is empty");
        let mut accepted = 0;
        for file in &files {
            let bytes = std::fs::read(file).expect("read corpus file");
            let result = std::panic::catch_unwind(|| check(&bytes));
            match result {
                Ok(true) => accepted += 1,
                Ok(false) => {}
                Err(_) => panic!(
                    "{name}: {} ({} bytes, hex {}) fails the check",
                    file.display(),
                    bytes.len(),
                    hex::encode(&bytes)
                ),
            }
        }
        eprintln!("{name}: {} files, {accepted} decode", files.len());
        // The corpus must also exercise the success path of each decoder.
        assert!(accepted > 0, "no file of the {name} corpus decodes");
        total += files.len();
    }
    assert!(total > 0);
}
