//! `tranche run` on hostile files and sizes: a device, a FIFO, a huge
//! file, deep nesting, tick keys at `u32::MAX`, a vacuous step, a step too
//! large for any machine. Each must exit non-zero within a generous
//! deadline with a one-line error naming the problem, no panic or
//! backtrace, and no file written: not the named outputs, not the cache,
//! nothing in the working folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

/// A small step the cases break (approval options in flow style).
const BASE: &str = "\
TestConfiguration:
- objective: !ApprovalVoting {coalesce_tranche_diff: 12, num_no_shows_per_candidate: 0}
  n_validators: 20
  n_cores: 4
  needed_approvals: 5
  n_delay_tranches: 20
  num_blocks: 1
  connectivity: 100
  latency: null
";

/// Every file under `dir` with its length and modification time.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u64, SystemTime)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let meta = e.path().symlink_metadata().unwrap();
            if meta.is_dir() {
                stack.push(e.path());
            }
            out.insert(e.path(), (meta.len(), meta.modified().unwrap()));
        }
    }
    out
}

/// The most a refusal may take, start of the process included.
const DEADLINE: Duration = Duration::from_secs(10);

/// Runs `tranche run FILE` (plus `extra`) in a fresh folder holding the
/// input files; expects a refusal whose one line contains `needles`.
fn refused(input: &Path, extra: &[&str], needles: &[&str]) {
    let dir = input.parent().unwrap();
    let before = snapshot(dir);
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_tranche"))
        .current_dir(dir)
        .args(["run", "--clock", "virtual", "--quiet"])
        .arg(input)
        .args([
            "--cache-dir",
            "cache",
            "--json",
            "out.json",
            "--html",
            "out.html",
        ])
        .args(extra)
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let took = start.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(took < DEADLINE, "{input:?} took {took:?}: {stderr}");
    assert!(!out.status.success(), "{input:?} accepted: {stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("backtrace"),
        "{stderr}"
    );
    let lines: Vec<_> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "not one line: {stderr}");
    assert!(lines[0].starts_with("error: "), "{stderr}");
    for n in needles {
        assert!(lines[0].contains(n), "`{n}` missing from: {stderr}");
    }
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(before, snapshot(dir), "{input:?} changed files");
}

fn case(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join(name);
    std::fs::write(&f, text).unwrap();
    (d, f)
}

#[test]
fn a_device_a_fifo_and_a_huge_file_end_at_once() {
    let d = tempfile::tempdir().unwrap();
    let zero = d.path().join("zero.yaml");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    refused(&zero, &[], &["zero.yaml", "not a regular file"]);
    let fifo = d.path().join("pipe.yaml");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    refused(&fifo, &[], &["pipe.yaml", "not a regular file"]);
    let big = d.path().join("big.yaml");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(tranche_cli::input::MAX_INPUT_FILE_BYTES + 1)
        .unwrap();
    refused(&big, &[], &["big.yaml", "larger than"]);
}

#[test]
fn deep_nesting_ends_at_once() {
    let (_d, f) = case("deep.yaml", &"[".repeat(200_000));
    refused(
        &f,
        &[],
        &["deep.yaml", "nesting deeper than 64 levels at line 1"],
    );
}

#[test]
fn tick_keys_at_u32_max_are_refused_with_key_value_and_bound() {
    for (key, bound) in [("n_delay_tranches", "10000"), ("no_show_slots", "1000")] {
        let text = BASE.replace(
            "  num_blocks: 1\n",
            &format!("  num_blocks: 1\n  {key}: 4294967295\n"),
        );
        let text = if key == "n_delay_tranches" {
            text.replacen("  n_delay_tranches: 20\n", "", 1)
        } else {
            text
        };
        let (_d, f) = case("ticks.yaml", &text);
        refused(&f, &[], &[&format!("`{key}: 4294967295`"), bound]);
    }
}

#[test]
fn a_vacuous_step_is_refused_unless_allowed() {
    let text = BASE.replace("needed_approvals: 5", "needed_approvals: 0");
    let (d, f) = case("vacuous.yaml", &text);
    refused(
        &f,
        &[],
        &[
            "every candidate is approved at import: nothing would be measured",
            "needed_approvals is 0",
        ],
    );
    let out = Command::new(env!("CARGO_BIN_EXE_tranche"))
        .current_dir(d.path())
        .args(["run", "--clock", "virtual", "--quiet", "--allow-vacuous"])
        .arg(&f)
        .args(["--cache-dir", "cache", "--architecture", "classic"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
}

#[test]
fn a_step_too_large_for_the_machine_is_refused_with_the_estimate() {
    let text = BASE
        .replace("n_validators: 20", "n_validators: 20000")
        .replace("n_cores: 4", "n_cores: 2000")
        .replace("num_blocks: 1", "num_blocks: 10000");
    let (_d, f) = case("huge.yaml", &text);
    refused(
        &f,
        &[],
        &[
            "too large for this machine",
            "n_validators 20000",
            "messages",
            "MiB",
        ],
    );
}

#[test]
fn a_backlog_without_useful_first_is_refused() {
    let (_d, f) = case("base.yaml", BASE);
    refused(&f, &["--backlog", "1000"], &["--backlog", "useful-first"]);
}
