//! Every command README.md and docs/*.md show runs (issue 31): the
//! `tranche` lines of their fenced ```` ```sh ```` blocks (`cargo run
//! --release --` and `./target/release/tranche` read as `tranche`),
//! run in the order a file gives them, in a scratch folder that has the
//! repository's `examples/`, `ci/` and `crates/` (so that a path of the
//! docs means what it means in a checkout), with `TRANCHE_SMALL=1`, which
//! cuts every size (`crates/bench/src/small.rs`), so that all of them
//! together take about a minute. A stale example — a renamed flag, a moved
//! file, a grid cell the rules refuse — fails here.
//!
//! Each must succeed; `compare` may also say "regression" (1) or "not
//! comparable" (3), which are its verdicts, not a failure to run. What the
//! test changes in a command: `/tmp/` paths are put in the scratch folder,
//! and a fixed Prometheus port becomes port 0 (another test may hold it).
//! The examples' YAML comments are read too: a command in backticks there
//! must run as well. A block right after a `<!-- not run: REASON -->` line
//! is skipped (the
//! multi-machine example); lines that are not `tranche` commands (`cargo
//! build`, `cp`, `# comments`) are never run.

use crate::common::BIN;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// One documented command: where it is, and its arguments after `tranche`.
#[derive(Debug, PartialEq)]
struct Documented {
    line: usize,
    args: Vec<String>,
}

/// The prefixes that name the binary, as the docs write it.
const PREFIXES: [&str; 4] = [
    "cargo run --release -- ",
    "./target/release/tranche ",
    "./target/debug/tranche ",
    "tranche ",
];

/// The `tranche` commands of the ```` ```sh ```` blocks of `text`.
fn commands(text: &str) -> Vec<Documented> {
    let mut out = Vec::new();
    let (mut in_block, mut run, mut previous) = (false, false, "");
    let mut pending: Option<(usize, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_start();
        if let Some(info) = line.strip_prefix("```") {
            if in_block {
                in_block = false;
            } else {
                in_block = true;
                run = info.trim() == "sh" && !previous.trim_start().starts_with("<!-- not run");
            }
            previous = line;
            continue;
        }
        if !line.is_empty() {
            previous = line;
        }
        if !in_block || !run {
            continue;
        }
        let (start, mut joined) = pending.take().unwrap_or((i + 1, String::new()));
        joined.push_str(line);
        if let Some(head) = joined.strip_suffix('\\') {
            pending = Some((start, format!("{head} ")));
            continue;
        }
        // A trailing comment (` # on main`) is not an argument.
        let command = match joined.find(" #") {
            Some(at) => joined[..at].trim_end().to_owned(),
            None => joined.trim_end().to_owned(),
        };
        if let Some(rest) = PREFIXES.iter().find_map(|p| command.strip_prefix(p)) {
            out.push(Documented {
                line: start,
                args: rest.split_whitespace().map(str::to_owned).collect(),
            });
        }
    }
    out
}

/// A scratch folder where the docs' relative paths mean what they mean in
/// a checkout.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(ROOT);
    for name in ["examples", "ci", "crates"] {
        std::os::unix::fs::symlink(root.join(name), dir.path().join(name)).unwrap();
    }
    std::fs::create_dir_all(dir.path().join("tmp")).unwrap();
    std::fs::create_dir_all(dir.path().join("target/ci-guard")).unwrap();
    dir
}

/// The test's changes to a command (see the module documentation).
fn adapted(args: &[String], dir: &Path) -> Vec<String> {
    let tmp = dir.join("tmp");
    args.iter()
        .map(|a| match a.strip_prefix("/tmp/") {
            Some(rest) => tmp.join(rest).display().to_string(),
            None => a.replace("127.0.0.1:9999", "127.0.0.1:0"),
        })
        .collect()
}

/// Run every command of `doc` (relative to the repository root); at least
/// `expected` of them, so that the extraction cannot pass by finding none.
fn run_all(doc: &str, expected: usize) {
    let path: PathBuf = Path::new(ROOT).join(doc);
    let text = std::fs::read_to_string(&path).unwrap();
    let found = commands(&text);
    assert!(
        found.len() >= expected,
        "{doc}: {} commands found, {expected} expected: {found:?}",
        found.len()
    );
    let dir = scratch();
    for c in &found {
        let args = adapted(&c.args, dir.path());
        let start = Instant::now();
        let out = Command::new(BIN)
            .args(&args)
            .current_dir(dir.path())
            .env("TRANCHE_SMALL", "1")
            .output()
            .unwrap();
        let code = out.status.code();
        let verdicts: &[i32] = if args.first().map(String::as_str) == Some("compare") {
            &[0, 1, 3]
        } else {
            &[0]
        };
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        assert!(
            code.is_some_and(|c| verdicts.contains(&c)),
            "{doc}:{}: `tranche {}` exited {code:?} after {:.1} s: {tail:?}",
            c.line,
            c.args.join(" "),
            start.elapsed().as_secs_f64()
        );
    }
}

#[test]
fn the_readmes_commands_run() {
    run_all("README.md", 7);
}

#[test]
fn the_network_docs_commands_run() {
    run_all("docs/network.md", 10);
}

#[test]
fn the_observability_docs_commands_run() {
    run_all("docs/observability.md", 12);
}

#[test]
fn every_other_doc_is_read_too() {
    let mut others = Vec::new();
    for e in std::fs::read_dir(Path::new(ROOT).join("docs")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") && !["network.md", "observability.md"].contains(&name.as_str()) {
            others.push(format!("docs/{name}"));
        }
    }
    assert!(!others.is_empty());
    for doc in others {
        run_all(&doc, 0);
    }
}

/// The commands the examples' comments show, in backticks:
/// `` `tranche sweep network no-shows.yaml --no-show 0,0.2` `` (one with
/// at least one argument: `` `tranche run` `` names the command).
fn comment_commands(text: &str) -> Vec<Documented> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(comment) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        for span in comment.split('`').skip(1).step_by(2) {
            let words: Vec<String> = span.split_whitespace().map(str::to_owned).collect();
            if words.len() > 2 && words[0] == "tranche" {
                out.push(Documented {
                    line: i + 1,
                    args: words[1..].to_vec(),
                });
            }
        }
    }
    out
}

#[test]
fn the_examples_comments_commands_run() {
    let dir = scratch();
    let mut found = 0;
    for folder in ["examples", "crates/simulation/examples"] {
        for e in std::fs::read_dir(Path::new(ROOT).join(folder)).unwrap() {
            let path = e.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            for c in comment_commands(&text) {
                found += 1;
                let out = Command::new(BIN)
                    .args(adapted(&c.args, dir.path()))
                    .current_dir(dir.path())
                    .env("TRANCHE_SMALL", "1")
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "{}:{}: `tranche {}`: {}",
                    path.display(),
                    c.line,
                    c.args.join(" "),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
    }
    assert!(found >= 2, "{found} commands in the examples' comments");
}

#[test]
fn commands_are_the_tranche_lines_of_sh_blocks() {
    let text = "\
```sh
cargo build --release
# a comment
./target/release/tranche run a.yaml \\
    --seed 7   # trailing
cp x y
```
```text
tranche run not-run.yaml
```
<!-- not run: elsewhere -->
```sh
tranche network skipped.yaml
```
   ```sh
   cargo run --release -- run --help
   ```
";
    let found = commands(text);
    let args: Vec<String> = found.iter().map(|c| c.args.join(" ")).collect();
    assert_eq!(args, ["run a.yaml --seed 7", "run --help"]);
    assert_eq!(found[0].line, 4);
    let yaml =
        "# run it: `tranche sweep network x.yaml --no-show 0,0.2`\n# of `tranche run`\nn: 1\n";
    let found = comment_commands(yaml);
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].args.join(" "),
        "sweep network x.yaml --no-show 0,0.2"
    );
}
