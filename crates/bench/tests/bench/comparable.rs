//! One rule of what is comparable, through the binary: `compare` and
//! `history` on results that differ in layout, workers, node under test
//! or processes exit 3 and name what differs, in one line, never counting
//! a regression across them; the same configuration at two commits
//! compares as before.

use crate::common::{tmp, tranche, BIN};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `tranche run ci/guard.yaml --clock virtual` with `extra`, its JSON.
fn guard(cache: &Path, json: &Path, extra: &[&str]) -> Value {
    let out = Command::new(BIN)
        .arg("run")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ci/guard.yaml"))
        .args(["--clock", "virtual", "--quiet", "--cache-dir"])
        .arg(cache)
        .arg("--json")
        .arg(json)
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
}

/// `v` written to `path`.
fn put(path: &Path, v: &Value) -> String {
    std::fs::write(path, v.to_string()).unwrap();
    path.to_str().unwrap().to_owned()
}

/// `compare A B --ignore-cpu` exits 3 with one line containing `why`.
fn not_comparable(a: &str, b: &str, why: &str) {
    let out = tranche(&["compare", a, b, "--ignore-cpu"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{a} {b}: {out:?}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(&format!("not comparable: {why}")), "{err}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("FAIL"));
}

#[test]
fn layout_workers_node_and_processes_are_named_and_exit_3_one_configuration_compares() {
    let dir = tmp("comparable", "dir");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cache = dir.join("cache");
    let w4 = guard(
        &cache,
        &dir.join("w4.json"),
        &["--architecture", "parallel", "--workers", "4"],
    );
    let w2 = guard(
        &cache,
        &dir.join("w2.json"),
        &["--architecture", "parallel", "--workers", "2"],
    );
    let both = guard(
        &cache,
        &dir.join("both.json"),
        &["--architecture", "both", "--workers", "4"],
    );
    let mut model = w4.clone();
    for r in model["runs"].as_array_mut().unwrap() {
        r["node_under_test"] = "model".into();
    }
    // Dates of their own: the series' order is the dates'.
    let (mut w4, mut w2, mut both) = (w4, w2, both);
    for (v, day) in [(&mut w4, 1), (&mut w2, 2), (&mut both, 3)] {
        v["meta"]["date"] = format!("2025-01-0{day}T00:00:00Z").into();
    }
    let mut later = w4.clone();
    later["meta"]["commit"] = "2222222bbbbb".into();
    later["meta"]["date"] = "2025-06-01T00:00:00Z".into();
    let [w4, w2, both, model, later] = [
        ("w4.json", &w4),
        ("w2.json", &w2),
        ("both.json", &both),
        ("model.json", &model),
        ("later.json", &later),
    ]
    .map(|(name, v)| put(&dir.join(name), v));
    not_comparable(&w4, &w2, "the workers differ: baseline 4, current 2");
    not_comparable(
        &both,
        &w4,
        "the layout differs: baseline classic+parallel, current parallel",
    );
    not_comparable(
        &w4,
        &model,
        "the node under test differs: baseline real, current model",
    );
    // The same configuration at another commit compares as before.
    let same = tranche(&["compare", &w4, &later, "--ignore-cpu"]);
    assert_eq!(same.status.code(), Some(0), "{same:?}");
    assert!(String::from_utf8_lossy(&same.stdout).contains("PASS: "));

    // history: a series per comparable configuration, what differs named,
    // no regression counted across them, exit 3.
    let out = tranche(&["history", &w4, &w2, &both, &later, "--ignore-cpu"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(text.contains("0 steps compare call a regression"), "{text}");
    assert!(
        text.contains("the workers differ: baseline 4, current 2"),
        "{text}"
    );
    assert!(text.contains("the layout differs"), "{text}");
    assert!(
        text.contains("2 results in meta.date order, 0 regressions"),
        "{text}"
    );
    let alone = tranche(&["history", &w4, &later, "--ignore-cpu"]);
    assert_eq!(alone.status.code(), Some(0), "{alone:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn network_runs_of_one_and_two_processes_are_not_comparable() {
    let dir = tmp("comparable", "net");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let one: PathBuf = dir.join("one.json");
    let mut v = crate::common::small_network(&one);
    assert_eq!(v["cost"]["processes"], 1, "{}", v["cost"]);
    v["cost"]["processes"] = 2.into();
    v["cost"]["cpu_s"] = (v["cost"]["cpu_s"].as_f64().unwrap() * 1.57).into();
    let two = put(&dir.join("two.json"), &v);
    let one = one.to_str().unwrap();
    not_comparable(one, &two, "the processes differ: baseline 1, current 2");
    let out = tranche(&["history", one, &two]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("the processes differ: baseline 1, current 2"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
