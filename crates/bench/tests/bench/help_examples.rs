//! Issue 41: every subcommand's `--help` ends with an Examples section
//! (`crates/bench/src/help.rs`), and every example runs as written: in
//! the order given, in one scratch folder holding the repository's
//! `examples/`, `ci/` and `testdata/` (so a path means what it means in a
//! checkout), without `TRANCHE_SMALL`, each within a generous deadline.
//! The top-level list gives each command a one-line summary.

use crate::common::BIN;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use tranche_bench::help;

#[test]
fn every_help_shows_its_examples_and_every_example_runs() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for name in ["examples", "ci", "testdata"] {
        std::os::unix::fs::symlink(root.join(name), dir.path().join(name)).unwrap();
    }
    let mut ran = 0;
    for (words, examples) in help::ALL {
        assert!(!examples.is_empty(), "{words:?} has no example");
        let out = Command::new(BIN)
            .args(*words)
            .arg("--help")
            .output()
            .unwrap();
        assert!(out.status.success(), "{words:?} --help");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("\nExamples:\n"), "{words:?}: {text}");
        for e in *examples {
            assert!(text.contains(e.line), "{words:?} --help lacks `{}`", e.line);
            let args: Vec<&str> = e.line.split_whitespace().collect();
            assert_eq!(args[0], "tranche", "{}", e.line);
            let start = Instant::now();
            let out = Command::new(BIN)
                .args(&args[1..])
                .current_dir(dir.path())
                .env_remove("TRANCHE_SMALL")
                .output()
                .unwrap();
            let took = start.elapsed();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "`{}` failed: {err}", e.line);
            // Seconds in a release build; the debug build of the tests
            // is several times slower.
            assert!(took < Duration::from_secs(60), "`{}` took {took:?}", e.line);
            ran += 1;
        }
    }
    assert!(ran >= 20, "{ran} examples");
    // One line per command in the top-level list.
    let out = Command::new(BIN).arg("--help").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let list = text.split("Commands:\n").nth(1).unwrap();
    for line in list.lines().take_while(|l| !l.is_empty()) {
        assert!(line.len() <= 100, "a long summary: {line}");
    }
}
