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
use tranche_model::{Cost, CostTable};

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
    for cost in Cost::ALL {
        let line = format!("calibrate: {} = ", cost.key());
        assert_eq!(err.matches(&line).count(), 1, "{line:?} in {err}");
    }
    let table = CostTable::load(&path).unwrap();
    for &cost in Cost::ALL {
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
    let out = Command::new(BIN)
        .args(["calibrate", "--quick", "--quiet"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.lines().all(|l| l.starts_with("warning: ")), "{err}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("# tranche calibrate"));
    assert!(CostTable::from_yaml_str(&text).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
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
        "cannot write in",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
