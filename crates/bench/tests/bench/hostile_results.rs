//! Result files made by hand or by a mutation, through `history` and
//! `compare`: strings of any length and escape codes never panic nor reach
//! the terminal raw; impossible values, a key given twice and a date that
//! is none are left out with their reason (printed also when no file is
//! left); a baseline of no run is not comparable, never a pass; a path that
//! does not exist is named; a ratio a run did not produce is "-"; a large
//! network report is read in bounded memory.

use crate::common::{guard_run, tmp, tranche};
use serde_json::Value;
use std::path::Path;

/// A guard run's JSON (`extra` flags added), and a folder for its copies.
fn template(name: &str, extra: &[&str]) -> (std::path::PathBuf, Value) {
    let dir = tmp("hostile-results", name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("template.json");
    let mut args: Vec<std::ffi::OsString> = vec!["--json".into(), json.clone().into()];
    args.extend(extra.iter().map(Into::into));
    guard_run(&dir.join("cache"), &args);
    let v = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).unwrap();
    (dir, v)
}

fn put(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_owned()
}

#[test]
fn hostile_results_are_escaped_refused_by_reason_or_not_comparable() {
    let (dir, run) = template("cases", &[]);
    let good = put(&dir, "good.json", &run.to_string());
    // A 70 000-byte layout and escape codes in a run's name and the date.
    let mut long = run.clone();
    long["runs"][0]["architecture"] = ("\u{1b}[31m".to_owned() + &"a".repeat(70_000)).into();
    long["runs"][0]["name"] = "x\u{1b}]0;owned\u{7}".into();
    let long = put(&dir, "long.json", &long.to_string());
    for args in [
        vec!["history", long.as_str()],
        vec!["compare", long.as_str(), long.as_str(), "--ignore-cpu"],
        vec!["compare", good.as_str(), long.as_str(), "--ignore-cpu"],
    ] {
        let out = tranche(&args);
        assert_ne!(out.status.code(), Some(101), "{args:?} panicked: {out:?}");
        for stream in [&out.stdout, &out.stderr] {
            let text = String::from_utf8_lossy(stream);
            assert!(
                !text.contains('\u{1b}') && !text.contains('\u{7}'),
                "{args:?}: {text}"
            );
            assert!(
                text.lines().all(|l| l.len() < 2000),
                "{args:?}: a long line"
            );
        }
    }
    let out = tranche(&["history", &long]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("(70 005 bytes)"));

    // Impossible values, a key twice, a date that is none: left out, each
    // with its reason, which is printed though no file is left.
    let mut negative = run.clone();
    negative["runs"][0]["node_cpu_s"] = (-5).into();
    let mut huge = run.clone();
    huge["runs"][0]["wall_time_s"] = 1e308.into();
    let mut yesterday = run.clone();
    yesterday["meta"]["date"] = "yesterday".into();
    let twice = run.to_string().replacen('{', "{\"tool\": \"tranche\", ", 1);
    let files = [
        put(&dir, "negative.json", &negative.to_string()),
        put(&dir, "huge.json", &huge.to_string()),
        put(&dir, "yesterday.json", &yesterday.to_string()),
        put(&dir, "twice.json", &twice),
    ];
    let mut args = vec!["history"];
    args.extend(files.iter().map(String::as_str));
    let out = tranche(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    for why in [
        "node_cpu_s is -5, not within 0..1e7",
        "wall_time_s is 1e308",
        "meta.date \"yesterday\" is not a date",
        "it has the key `tool` twice",
        "none a result: see the notes above",
    ] {
        assert!(err.contains(why), "{why} in {err}");
    }
    let out = tranche(&["compare", &good, &files[0], "--ignore-cpu"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");

    // A baseline of no run: not comparable, never a pass; history leaves
    // it out.
    let mut empty = run.clone();
    empty["runs"] = Value::Array(vec![]);
    let empty = put(&dir, "empty.json", &empty.to_string());
    let out = tranche(&["compare", &empty, &good]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no figure to compare"));
    let out = tranche(&["history", &empty, &good]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("empty.json: it holds no run or grid point"),
        "{text}"
    );
    assert!(text.contains("1 result in meta.date order"), "{text}");

    // A calibrate --check comparison is said not to be judged.
    let check = put(
        &dir,
        "check.json",
        r#"{"meta": {"tool": "tranche", "kind": "calibrate-check"}, "checks": []}"#,
    );
    let out = tranche(&["compare", &check, &good]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("which compare and history do not judge"));

    let out = tranche(&["history", "/nonexistent"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim(),
        "error: /nonexistent: no such file or folder",
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn history_shows_a_dash_for_a_ratio_the_run_did_not_produce() {
    let (dir, run) = template("floor-off", &["--floor", "off"]);
    let file = put(&dir, "off.json", &run.to_string());
    let out = tranche(&["history", &file, "--ignore-cpu"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    let header = text.lines().find(|l| l.contains("node ÷ floor")).unwrap();
    let at = header.find("node ÷ floor").unwrap() + "node ÷ floor".len();
    for row in text
        .lines()
        .filter(|l| l.contains("parallel/") || l.contains("classic"))
    {
        if row.starts_with("run:") {
            continue;
        }
        let cell = row
            .chars()
            .take(header[..at].chars().count())
            .collect::<String>();
        assert!(cell.trim_end().ends_with('-'), "{row}\n{header}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A network report of 100 000 validators' records (about 85 MB, made by
/// copying a small run's records) is read by `history` and `compare`
/// under a 150 MB address-space limit: the records are digested as they
/// are read, not held (the reader before took twice the file).
#[test]
fn a_large_network_report_is_read_in_bounded_memory() {
    let dir = tmp("hostile-results", "large");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut v = crate::common::small_network(&dir.join("small.json"));
    let records = v["validators"].as_array().unwrap().clone();
    let n = 100_000;
    let many: Vec<Value> = (0..n)
        .map(|i| {
            let mut r = records[i % records.len()].clone();
            r["validator"] = i.into();
            r
        })
        .collect();
    v["validators"] = Value::Array(many);
    v["n_validators"] = n.into();
    let big = put(&dir, "big.json", &v.to_string());
    drop(v);
    let size = std::fs::metadata(&big).unwrap().len();
    assert!(size > 40 << 20, "{size} bytes");
    let bin = crate::common::BIN;
    for cmd in [
        format!("{bin} history {big}"),
        format!("{bin} compare {big} {big} --ignore-cpu"),
    ] {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -v 150000 && exec {cmd}"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{cmd}: {out:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 60, 17: records that contradict themselves are refused where
/// results are read, so every reader refuses them — one line naming the
/// file and the field, an exit status other than a verdict's: a block 99
/// of a one-block network run (`--beside`, `compare`), a block whose min
/// is above its max (`compare` exits 2, not 1), a date in 9999 (`compare`
/// exits 2; `history` leaves it out with the reason).
#[test]
fn inconsistent_records_are_refused_by_every_reader_naming_the_field() {
    let dir = tmp("hostile-results", "inconsistent");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let small = ["--validators", "40", "--cores", "8", "--blocks", "1"];
    let good = dir.join("good.json");
    let mut args = vec!["network"];
    args.extend(small);
    args.extend(["--quiet", "--json", good.to_str().unwrap()]);
    let out = tranche(&args);
    assert!(out.status.success(), "{out:?}");
    let good = good.to_str().unwrap().to_owned();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&good).unwrap()).unwrap();
    let changed = |name: &str, change: &dyn Fn(&mut Value)| {
        let mut v = report.clone();
        change(&mut v);
        put(&dir, name, &v.to_string())
    };
    let block99 = changed("block99.json", &|v| v["blocks"][0]["number"] = 99.into());
    let upside_down = changed("upside-down.json", &|v| {
        v["blocks"][0]["min_ms"] = 9000.into();
        v["blocks"][0]["max_ms"] = 10.into();
    });
    let far = changed("far.json", &|v| {
        v["meta"]["date"] = "9999-01-01T00:00:00Z".into()
    });
    let one_line = |out: &std::process::Output, file: &str, why: &str| {
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(file) && err.contains(why),
            "{file}, {why} in {err}"
        );
    };
    let mut beside = vec!["network"];
    beside.extend(small);
    beside.extend(["--quiet", "--beside", &block99]);
    let out = tranche(&beside);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(out.stdout.is_empty(), "refused before the run");
    one_line(&out, &block99, "blocks[0].number is 99, not 1");
    for (bad, why) in [
        (&block99, "blocks[0].number is 99, not 1"),
        (&upside_down, "block 1 min_ms is 9000, more than its p50_ms"),
        (&far, "meta.date \"9999-01-01T00:00:00Z\" is in the future"),
    ] {
        let out = tranche(&["compare", &good, bad, "--ignore-cpu"]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {out:?}");
        one_line(&out, bad, why);
    }
    let out = tranche(&["history", &good, &far]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("is in the future"), "{text}");
    assert!(text.contains("1 result in meta.date order"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
