//! `tranche calibrate`: `--quick --out F` writes a cost table that
//! `tranche network --costs` reads back (`tranche_model::CostTable::load`),
//! every cost measured above zero and a certificate check dearer than a
//! duplicate; the file records commit, date, machine and `--quick`; a bad
//! `--out` is refused on one line before any work, and an existing file
//! that is not a table `calibrate` wrote (an `!ApprovalNetwork` file) is
//! not replaced.

use crate::common;
use common::{refused, tmp, BIN};
use std::process::Command;
use tranche_model::{CostKind, CostTable};

#[test]
fn quick_calibration_writes_a_table_the_simulation_reads() {
    let dir = tmp("calibrate", "quick");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("costs.yaml");
    let out = Command::new(BIN)
        .args(["calibrate", "--quick", "--out"])
        .arg(&path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(out.stdout.is_empty(), "the table went to the file");
    // One progress line per cost (and a first and a last line).
    for cost in CostKind::ALL {
        let line = format!("calibrate: {} = ", cost.key());
        assert_eq!(err.matches(&line).count(), 1, "{line:?} in {err}");
    }
    let table = CostTable::load(&path).unwrap();
    for &cost in CostKind::ALL {
        assert!(table.get(cost) > 0, "{} measured as 0", cost.key());
    }
    for check in [
        table.assignment_modulo(),
        table.assignment_compact(),
        table.assignment_delay(),
    ] {
        assert!(
            check > table.duplicate(),
            "a check ({check} ns) costs more than a duplicate ({} ns)",
            table.duplicate()
        );
    }
    assert!(table.approval() > table.duplicate());
    // Measured, not the defaults.
    assert_ne!(table, CostTable::default());

    // The file says where, when and how it was measured.
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("# tranche calibrate (meta.kind calibrate)\n"),
        "{text}"
    );
    for key in ["# commit: ", "# date: ", "# machine: ", "# quick: true"] {
        assert!(text.contains(key), "{key} in {text}");
    }
    // An existing table of its own is replaced; calibrate again over it.
    let again = Command::new(BIN)
        .args(["calibrate", "--quick", "--quiet", "--out"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(again.status.success(), "{again:?}");

    // Without --out, the same file on stdout; --quiet leaves stderr to the
    // warnings (a cost more than 3 × from its default, each with its line).
    // The chain's size is the user's, and the header says it.
    let out = Command::new(BIN)
        .args(["calibrate", "--quick", "--quiet", "--validators", "60"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.lines().all(|l| l.starts_with("warning: ")), "{err}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("# tranche calibrate"));
    assert!(text.contains("# chain: 60 validators, 12 cores"), "{text}");
    assert!(CostTable::from_yaml_str(&text).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_chain_size_out_of_range_is_refused_naming_the_flag() {
    for args in [
        &["calibrate", "--validators", "5"][..],
        &["calibrate", "--cores", "100000"],
        &[
            "calibrate",
            "--check",
            "approvals_throughput.yaml",
            "--validators",
            "5",
        ],
    ] {
        let out = Command::new(BIN).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        let flag = if args.contains(&"--cores") {
            "--cores"
        } else {
            "--validators"
        };
        assert!(err.contains(flag), "{args:?}: {err}");
    }
}

#[test]
fn a_bad_out_is_refused_before_any_work() {
    let dir = tmp("calibrate", "refuse");
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.to_str().unwrap();
    // Not --quick: refused before a minute of measuring.
    refused(
        &["calibrate", "--out", d],
        &format!("--out {d}: is a folder, not a file"),
    );
    let foreign = dir.join("notes.txt");
    std::fs::write(&foreign, "keep").unwrap();
    refused(
        &["calibrate", "--out", foreign.to_str().unwrap()],
        "exists and is not a cost table tranche calibrate wrote; not replaced",
    );
    assert_eq!(std::fs::read_to_string(&foreign).unwrap(), "keep");
    // A YAML file of another kind is not replaced either: its extension
    // says nothing (issue 32).
    let network = dir.join("net.yaml");
    std::fs::write(&network, "!ApprovalNetwork\nn_validators: 100\n").unwrap();
    refused(
        &["calibrate", "--out", network.to_str().unwrap()],
        "exists and is not a cost table tranche calibrate wrote; not replaced",
    );
    assert!(std::fs::read_to_string(&network)
        .unwrap()
        .starts_with("!ApprovalNetwork"));
    refused(
        &["calibrate", "--out", "/dev/null"],
        "exists and is not a regular file",
    );
    let missing = dir.join("absent").join("costs.yaml");
    refused(
        &["calibrate", "--out", missing.to_str().unwrap()],
        "absent does not exist",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `calibrate --check`: the model held against the node on the same work.
/// A cost table with every check ten times dearer puts the model's busiest
/// thread far outside the real node's range: the line says NO, the JSON
/// says so, the exit status is 1.
#[test]
fn the_comparison_fails_on_a_cost_table_ten_times_too_dear() {
    let dir = tmp("calibrate", "check");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("small.yaml");
    std::fs::write(
        &file,
        "TestConfiguration:\n- objective: !ApprovalVoting\n    coalesce_mean: 3.0\n    \
         coalesce_std_dev: 1.0\n    enable_assignments_v2: true\n    last_considered_tranche: 89\n    \
         stop_when_approved: false\n    coalesce_tranche_diff: 12\n    workdir_prefix: \"/tmp\"\n  \
         n_validators: 40\n  n_cores: 8\n  needed_approvals: 10\n  num_blocks: 2\n  connectivity: 100\n",
    )
    .unwrap();
    let d = CostTable::default();
    let costs = dir.join("dear.yaml");
    std::fs::write(
        &costs,
        [
            CostKind::AssignmentModulo,
            CostKind::AssignmentCompact,
            CostKind::AssignmentDelay,
            CostKind::Approval,
        ]
        .iter()
        .map(|&k| format!("{}: {}\n", k.key(), d.get(k) as f64 * 10.0 / 1e3))
        .collect::<String>(),
    )
    .unwrap();
    let json = dir.join("check.json");
    let out = Command::new(BIN)
        .args([
            "calibrate",
            "--quiet",
            "--runs",
            "1",
            "--real-clock",
            "virtual",
        ])
        .args(["--architecture", "classic", "--node-cores", "2", "--check"])
        .arg(&file)
        .arg("--costs")
        .arg(&costs)
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let busiest = text
        .lines()
        .find(|l| l.starts_with("judged thread (approval-voting)"))
        .unwrap_or_else(|| panic!("no judged-thread line: {text}"));
    assert!(busiest.trim_end().ends_with("NO"), "{busiest}");
    // Issue 41: CPU seconds to four decimals, as every table (a small run's
    // 0.0059 against 0.0032 read "0.01 0.00 NO").
    let model = busiest.split_whitespace().rev().nth(1).unwrap();
    assert_eq!(
        model.split_once('.').map(|(_, d)| d.len()),
        Some(4),
        "{busiest}"
    );
    assert!(text.contains("FAIL:"), "{text}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["pass"], false);
    assert_eq!(report["checks"][0]["layout"], "classic");
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 60: `--check` refused `--validators`/`--cores`, so it could not be
/// tried small; it said "crypto floor (off): started (0 messages)" at
/// every run, and gave no estimate before its work.
#[test]
fn the_check_runs_small_with_its_estimate_first_and_no_floor_lines() {
    let dir = tmp("calibrate", "check-small");
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(BIN)
        .args(["calibrate", "--check", "approvals_throughput.yaml"])
        .args(["--validators", "40", "--cores", "8", "--runs", "2"])
        .args(["--real-clock", "virtual", "--architecture", "classic"])
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let err = String::from_utf8_lossy(&out.stderr);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{err}");
    assert!(text.contains("the real node 2 times"), "{text}");
    // Generation makes the messages of the 39 peers of a 40-validator chain.
    assert!(err.contains("of 39 validators' messages"), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    let estimate = lines
        .iter()
        .position(|l| l.starts_with("calibrate --check: 1 step x 1 layout x (2 runs of the real node + 1 of the model): about "));
    let work = lines.iter().position(|l| l.starts_with("generation: "));
    assert!(estimate.is_some() && estimate < work, "{err}");
    assert!(!err.contains("crypto floor"), "{err}");
}
