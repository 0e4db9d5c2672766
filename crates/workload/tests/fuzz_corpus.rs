//! Replays the committed corpora of the tranche-workload fuzz targets
//! (`fuzz/corpus/config_parser/`, `fuzz/corpus/message_cache/`) as a regular
//! test, with the very checks the targets run: they are compiled in from
//! `fuzz/src/workload.rs`, so the fuzzers and this test cannot drift apart.

#[path = "../../../fuzz/src/workload.rs"]
mod checks;

use std::path::Path;

#[test]
fn workload_corpora_replay_without_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    for (name, check) in checks::TARGETS {
        let dir = root.join(name);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "corpus of {name} is empty");
        let mut accepted = 0;
        for file in &files {
            let bytes = std::fs::read(file).unwrap();
            if std::panic::catch_unwind(|| check(&bytes))
                .unwrap_or_else(|_| panic!("{name}: {} fails the check", file.display()))
            {
                accepted += 1;
            }
        }
        eprintln!("{name}: {} files, {accepted} accepted", files.len());
        assert!(accepted > 0, "no file of the {name} corpus is accepted");
        assert!(
            accepted < files.len(),
            "no file of the {name} corpus is refused"
        );
    }
}
