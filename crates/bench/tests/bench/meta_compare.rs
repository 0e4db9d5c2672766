//! The `meta` object of `tranche run --json` and the report's header, and
//! `tranche compare` refusing results it cannot judge (exit 3 with the
//! reason, the field named): another seed, configuration, clock or
//! database.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_tranche");

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("tranche-meta-{}-{name}", std::process::id()))
}

/// `tranche run` with the embedded default configuration, `extra` added.
fn run(json: &Path, extra: &[&str]) -> Output {
    let out = Command::new(BIN)
        .args(["run", "--clock", "virtual", "--quiet", "--cache-dir"])
        .arg(tmp("cache"))
        .arg("--json")
        .arg(json)
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    out
}

/// `tranche compare A B`, CPU not judged: this test is about which runs
/// are comparable, and two runs' CPU on a shared machine may differ by more
/// than any tolerance (the CPU verdicts have tests of their own).
fn compare(a: &Path, b: &Path) -> Output {
    Command::new(BIN)
        .arg("compare")
        .args([a, b])
        .arg("--ignore-cpu")
        .output()
        .unwrap()
}

#[test]
fn metadata_in_the_json_and_the_header_and_not_comparable_runs() {
    let (a, b, c) = (tmp("a.json"), tmp("b.json"), tmp("c.json"));
    let out = run(&a, &[]);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
    let meta = &v["meta"];
    for key in [
        "tool",
        "kind",
        "version",
        "commit",
        "command",
        "date",
        "machine",
        "database",
        "profile",
        "seed",
        "config_hash",
    ] {
        assert!(!meta[key].is_null(), "meta.{key} missing: {meta}");
    }
    for key in ["nproc", "cpu_model", "memory_bytes"] {
        assert!(
            !meta["machine"][key].is_null(),
            "meta.machine.{key}: {meta}"
        );
    }
    assert_eq!(meta["tool"], "tranche");
    assert_eq!(meta["kind"], "run");
    assert_eq!(meta["version"], tranche_report::FORMAT_VERSION);
    assert_eq!(meta["database"], "redb");
    assert_eq!(meta["seed"], 0);
    let date = meta["date"].as_str().unwrap();
    assert!(
        date.len() == 20 && date.ends_with('Z') && &date[10..11] == "T",
        "{date}"
    );
    assert!(meta["command"]
        .as_str()
        .unwrap()
        .contains("--clock virtual"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let commit = meta["commit"].as_str().unwrap();
    assert!(stdout.starts_with("tranche (result format "), "{stdout}");
    assert!(stdout.lines().next().unwrap().contains(commit), "{stdout}");
    assert!(
        stdout.contains(meta["config_hash"].as_str().unwrap()),
        "{stdout}"
    );

    // The same run again is comparable; another seed is not.
    run(&c, &[]);
    let same = compare(&a, &c);
    assert_eq!(same.status.code(), Some(0), "{same:?}");
    run(&b, &["--seed", "1"]);
    let other = compare(&a, &b);
    assert_eq!(other.status.code(), Some(3), "{other:?}");
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(err.contains("not comparable: the seed differs"), "{err}");
    // Another configuration: the field that differs is named.
    let guard = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ci/guard.yaml");
    run(&b, &[guard.to_str().unwrap()]);
    let other = compare(&a, &b);
    assert_eq!(other.status.code(), Some(3), "{other:?}");
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(
        err.contains("step 1 n_validators: baseline 100, current 60"),
        "{err}"
    );
    // Another database is not comparable either.
    run(&b, &["--db", "memory"]);
    let err = String::from_utf8_lossy(&compare(&a, &b).stderr).into_owned();
    assert!(
        err.contains("not comparable: the database differs"),
        "{err}"
    );
    // --help says which exit status is which.
    let help = Command::new(BIN)
        .args(["compare", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for code in [
        "1: regression",
        "2: a file could not be read",
        "3: the files are not comparable",
    ] {
        assert!(help.contains(code), "{code} in {help}");
    }
    for p in [a, b, c, tmp("cache")] {
        let _ = std::fs::remove_file(&p);
        let _ = std::fs::remove_dir_all(&p);
    }
}

/// `compare` reads its files through the checked input path: a device or
/// a FIFO is refused at once, a file that is no result (or a result of
/// another kind) is one line in the project's words.
#[test]
fn compare_refuses_devices_fifos_and_other_kinds_in_one_line() {
    let cache = tmp("cmp-cache");
    let run = tmp("cmp-run.json");
    crate::common::guard_run(&cache, &crate::common::args([&"--json", &run]));
    let run = run.to_str().unwrap();
    crate::common::refused(&["compare", run, "/dev/zero"], "not a regular file");
    let fifo = tmp("cmp-fifo");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    crate::common::refused(
        &["compare", run, fifo.to_str().unwrap()],
        "not a regular file",
    );
    let page = tmp("cmp-page.html");
    std::fs::write(&page, "<html></html>\n").unwrap();
    crate::common::refused(
        &["compare", page.to_str().unwrap(), run],
        "is not a tranche result: it is not JSON",
    );
    let sweep = tmp("cmp-sweep.json");
    std::fs::write(
        &sweep,
        r#"{"meta": {"tool": "tranche", "kind": "sweep-network"}, "rows": []}"#,
    )
    .unwrap();
    let out = crate::common::tranche(&["compare", run, sweep.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("is a run report (tranche run --json)")
            && err.contains("is a sweep of networks (tranche sweep network --json)"),
        "{err}"
    );
    for p in [fifo, page, sweep, cache, PathBuf::from(run)] {
        let _ = std::fs::remove_file(&p);
        let _ = std::fs::remove_dir_all(&p);
    }
}
