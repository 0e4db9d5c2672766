//! `tranche sweep run` through the binary: two validator counts and both
//! layouts give four rows in the table and the JSON, every block approved,
//! and an HTML page with the two scaling plots, one line per layout.

use std::process::Command;

#[test]
fn a_sweep_over_two_sizes_and_both_layouts_writes_table_json_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    let guard = concat!(env!("CARGO_MANIFEST_DIR"), "/../../ci/guard.yaml");
    let (json, html) = (dir.path().join("rows.json"), dir.path().join("sweep.html"));
    let out = Command::new(env!("CARGO_BIN_EXE_tranche"))
        .args([
            "sweep",
            "run",
            guard,
            "--validators",
            "60,80",
            "--cores",
            "12",
        ])
        .args(["--architecture", "classic,parallel", "--workers", "2"])
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .arg("--json")
        .arg(&json)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let table = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = table
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("legend:"))
        .collect();
    assert_eq!(rows.len(), 4, "{table}");
    assert!(rows.iter().all(|r| r.contains(" all ")), "{table}");
    assert_eq!(rows.iter().filter(|r| r.contains("classic")).count(), 2);
    assert_eq!(rows.iter().filter(|r| r.contains("parallel/2")).count(), 2);

    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["meta"]["kind"], "sweep-run", "{v}");
    assert_eq!(v["meta"]["tool"], "tranche");
    let config = v["meta"]["config"].as_array().unwrap();
    assert!(
        config.iter().any(|l| l == "step 1 n_validators: [60, 80]"),
        "{config:?}"
    );
    let v = v["rows"].as_array().unwrap();
    assert_eq!(v.len(), 4);
    let sizes: Vec<u64> = v
        .iter()
        .map(|r| r["n_validators"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, vec![60, 60, 80, 80]);
    assert!(v
        .iter()
        .all(|r| r["node_cpu_per_block_s"].as_f64().unwrap() > 0.0));

    let page = std::fs::read_to_string(&html).unwrap();
    // Self-contained: the only URL is the SVG namespace.
    assert_eq!(
        page.matches("http").count(),
        page.matches("http://www.w3.org/2000/svg").count()
    );
    assert_eq!(page.matches("<svg").count(), 2, "two plots");
    // The data lines are the 2-pixel polylines (axes and ticks are 1 px),
    // in the layout's colour: parallel one per plot, classic dashed (many
    // segments) so it stays visible where it runs under parallel.
    let lines: Vec<&str> = page
        .split("<polyline")
        .skip(1)
        .filter_map(|p| p.split('>').next())
        .filter(|p| p.contains("stroke-width=\"2\""))
        .collect();
    let mut per_colour: std::collections::BTreeMap<&str, usize> = Default::default();
    for c in lines
        .iter()
        .filter_map(|p| p.split("stroke=\"").nth(1)?.split('"').next())
    {
        *per_colour.entry(c).or_default() += 1;
    }
    assert_eq!(per_colour.len(), 2, "one colour per layout: {per_colour:?}");
    let mut counts: Vec<usize> = per_colour.values().copied().collect();
    counts.sort_unstable();
    assert_eq!(
        counts[0], 4,
        "parallel: one solid line per plot and its legend's sample: {per_colour:?}"
    );
    assert!(counts[1] > 4, "classic: dashed segments: {per_colour:?}");
    // Only the layout varies: it names the series, and the legend says so.
    assert!(page.contains("\nclassic\n") && page.contains("\nparallel/2\n"));
    assert!(page.contains("\nseries: layout\n"));
}

#[test]
fn a_sweep_with_nothing_to_measure_is_refused_in_one_line() {
    let out = Command::new(env!("CARGO_BIN_EXE_tranche"))
        .args(["sweep", "run", "--validators", "20", "--cores", "4"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("validators 20"), "{err}");
}

/// The README's own sweep: the cells that cannot be (50 validators form
/// 10 backing groups: 20 cores cannot be) are skipped, one line each
/// with the bound, and the others run (issue 31).
#[test]
fn an_impossible_cell_is_skipped_with_its_bound() {
    let dir = tempfile::tempdir().unwrap();
    let guard = concat!(env!("CARGO_MANIFEST_DIR"), "/../../ci/guard.yaml");
    let out = Command::new(env!("CARGO_BIN_EXE_tranche"))
        .args([
            "sweep",
            "run",
            guard,
            "--validators",
            "40,60",
            "--cores",
            "12",
        ])
        .args(["--architecture", "classic", "--cache-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let skipped: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("sweep: skipped"))
        .collect();
    assert_eq!(skipped.len(), 1, "{err}");
    assert!(
        skipped[0].contains("[validators 40, cores 12]") && skipped[0].contains("at most 8 cores"),
        "{err}"
    );
    let table = String::from_utf8(out.stdout).unwrap();
    let rows = table
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("legend:"));
    assert_eq!(rows.count(), 1, "{table}");
}

/// Issue 41: both sweeps take `--blocks` and `--quiet`, and a value asked
/// for twice (`--architecture both,classic`, `--validators 40,40`) runs
/// once.
#[test]
fn both_sweeps_take_blocks_and_quiet_and_run_each_cell_once() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("rows.json");
    let small = [
        "--validators",
        "40,40",
        "--cores",
        "8",
        "--blocks",
        "1",
        "--quiet",
    ];
    let run = sweep_run(
        dir.path(),
        &json,
        &[&["--architecture", "both,classic"][..], &small[..]].concat(),
    );
    let network = Command::new(env!("CARGO_BIN_EXE_tranche"))
        .args(["sweep", "network"])
        .args(small)
        .output()
        .unwrap();
    for out in [&run, &network] {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(err.is_empty(), "--quiet: {err}");
    }
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let layouts: Vec<&str> = file["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["layout"].as_str().unwrap())
        .collect();
    assert_eq!(layouts, ["classic", "parallel/4"]);
    let config = file["meta"]["config"].as_array().unwrap();
    assert!(
        config.iter().any(|c| c == "step 1 num_blocks: 1"),
        "{config:?}"
    );
    let rows = String::from_utf8_lossy(&network.stdout);
    let table = rows
        .lines()
        .take_while(|l| !l.starts_with("legend:"))
        .count();
    assert_eq!(table, 2, "one header and one row: {rows}");
}

/// Issue 41: a sweep without a floor (`--floor off`) leaves the floor's
/// figures out of its rows (0 before), and its table shows `-`.
#[test]
fn a_sweep_without_a_floor_writes_no_floor_figures() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("rows.json");
    let small = ["--validators", "40", "--cores", "8", "--blocks", "1"];
    let out = sweep_run(
        dir.path(),
        &json,
        &[&small[..], &["--floor", "off", "--quiet"][..]].concat(),
    );
    assert!(out.status.success(), "{out:?}");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for row in file["rows"].as_array().unwrap() {
        for key in ["floor_per_block_s", "node_ratio", "floor"] {
            assert!(row.get(key).is_none(), "{key}: {row}");
        }
        assert!(row["node_cpu_per_block_s"].as_f64().unwrap() > 0.0, "{row}");
    }
    let table = String::from_utf8_lossy(&out.stdout);
    let row = table.lines().nth(1).unwrap();
    assert_eq!(row.split_whitespace().nth(7), Some("-"), "{table}");
}

/// `tranche sweep run ARGS --cache-dir DIR --json JSON`.
fn sweep_run(dir: &std::path::Path, json: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tranche"))
        .args(["sweep", "run"])
        .args(args)
        .arg("--cache-dir")
        .arg(dir)
        .arg("--json")
        .arg(json)
        .output()
        .unwrap()
}
