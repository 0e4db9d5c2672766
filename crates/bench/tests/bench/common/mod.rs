//! Helpers shared by the integration tests that run the `tranche` binary
//! on the CI guard's configuration (`ci/guard.yaml`).

#![allow(dead_code)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_tranche");

/// `tranche run ci/guard.yaml --clock virtual --architecture both --quiet
/// --cache-dir CACHE` with `extra` after; fails the test unless it
/// succeeds.
pub fn guard_run(cache: &Path, extra: &[OsString]) -> Output {
    let out = Command::new(BIN)
        .arg("run")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ci/guard.yaml"))
        .args(["--clock", "virtual", "--architecture", "both", "--quiet"])
        .arg("--cache-dir")
        .arg(cache)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The arguments as `OsString`s (paths and flags mixed).
/// `tranche run examples/default.yaml` in virtual time, both layouts,
/// quiet, on the store `db` kept under `db_path`, its messages cached under
/// `cache` and its report written to `json`; callers add what else they ask.
pub fn default_on_db(db: &str, cache: &Path, db_path: &Path, json: &Path) -> Command {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/default.yaml");
    let mut cmd = Command::new(BIN);
    cmd.args([
        "run",
        example,
        "--clock",
        "virtual",
        "--architecture",
        "both",
    ])
    .args(["--quiet", "--db", db])
    .arg("--cache-dir")
    .arg(cache)
    .arg("--db-path")
    .arg(db_path)
    .arg("--json")
    .arg(json);
    cmd
}

pub fn args<const N: usize>(a: [&dyn AsRef<std::ffi::OsStr>; N]) -> Vec<OsString> {
    a.iter().map(|x| x.as_ref().to_owned()).collect()
}

/// A path in the temporary directory, unique to this process and `test`.
pub fn tmp(test: &str, name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("tranche-{test}-{}-{name}", std::process::id()))
}

/// `tranche ARGS`, its output whatever the exit.
pub fn tranche(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

/// `tranche ARGS` refuses before any work: fails within 2 s, prints
/// nothing on stdout, one line on stderr containing `why`.
pub fn refused(args: &[&str], why: &str) {
    let start = Instant::now();
    let out = Command::new(BIN).args(args).output().unwrap();
    let took = start.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} ran");
    assert!(took < Duration::from_secs(2), "{args:?} took {took:?}");
    assert!(out.stdout.is_empty(), "{args:?} printed on stdout");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(why), "{args:?}: {err}");
}

/// `tranche network --quiet --validators 40 --cores 8 --blocks 1 --json
/// JSON` (about a second); its report as JSON.
pub fn small_network(json: &Path) -> serde_json::Value {
    let made = Command::new(BIN)
        .args(["network", "--quiet", "--validators", "40", "--cores", "8"])
        .args(["--blocks", "1", "--json"])
        .arg(json)
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
}
