//! `tranche run --repeat 3 --warmup 1` on the CI guard's configuration
//! under the virtual clock: each layout is reported once, its CPU the
//! median of three measured runs with the spread recorded in the JSON and
//! printed beside each figure (node CPU, both floors, both ratios, wall
//! time: one line each, median and range), the deterministic figures those
//! of a single run, and `compare` of the file with itself passes.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tranche_report::ReportFile;

fn tmp(name: &str) -> PathBuf {
    common::tmp("repeat", name)
}

fn guard_run(json: &Path, extra: &[&str]) -> Output {
    let mut a = common::args([&"--seed", &"0", &"--json", &json]);
    a.extend(extra.iter().map(Into::into));
    common::guard_run(&tmp("cache"), &a)
}

fn load(path: &Path) -> ReportFile {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn three_repeats_report_the_median_and_spread_with_the_figures_of_one_run() {
    let (once, thrice) = (tmp("once.json"), tmp("thrice.json"));
    guard_run(&once, &[]);
    let out = guard_run(&thrice, &["--repeat", "3", "--warmup", "1"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("classic over 3 runs (after 1 warm-up), median and range"),
        "{stdout}"
    );
    for figure in [
        "node CPU per block, s",
        "crypto floor per block, s",
        "crypto floor, batched signatures, per block, s",
        "node ÷ one-by-one floor (read this)",
        "node ÷ batched floor (read this)",
        "wall time, s",
    ] {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("  {figure}")))
            .unwrap_or_else(|| panic!("no spread line {figure:?} in\n{stdout}"));
        // The label, then apart from it the median, min and max.
        let rest = &line[2 + figure.len()..];
        let values: Vec<f64> = rest
            .split_whitespace()
            .map(|v| v.parse().unwrap_or_else(|_| panic!("{line}")))
            .collect();
        assert!(rest.starts_with("  ") && values.len() == 3, "{line}");
        assert!(values[1] <= values[0] && values[0] <= values[2], "{line}");
    }
    assert!(
        !stdout.contains("run-to-run noise is not included"),
        "{stdout}"
    );
    let flat = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("are the medians of 3 measured runs (after 1 warm-up)"),
        "{stdout}"
    );
    let (single, repeated) = (load(&once), load(&thrice));
    assert_eq!(repeated.runs.len(), 2, "one report per layout");
    for (s, r) in single.runs.iter().zip(&repeated.runs) {
        assert!(s.repeats.is_none());
        let rep = r.repeats.as_ref().expect("repeats recorded");
        assert_eq!((rep.runs, rep.warmup), (3, 1));
        let n = rep.node_cpu_s;
        assert!(n.min <= n.median && n.median <= n.max && n.min > 0.0);
        assert_eq!(r.node_cpu_s, n.median);
        assert_eq!(r.crypto_floor.cpu_s, rep.floor_cpu_s.median);
        // The floor's interval is the median run's: it holds the median.
        let (lo, hi) = r.crypto_floor.interval_s;
        assert!(
            lo <= r.crypto_floor.cpu_s && r.crypto_floor.cpu_s <= hi,
            "{lo}..{hi}"
        );
        assert_eq!(
            r.crypto_floor.node_ratio_batched,
            rep.node_ratio_batched.median
        );
        assert!(rep.floor_cpu_s.min > 0.0 && rep.floor_cpu_s.min <= rep.floor_cpu_s.max);
        for row in &r.cpu {
            assert_eq!(row.total_s, rep.cpu_s[&row.name].median, "{}", row.name);
        }
        // The deterministic figures are those of a single run.
        assert_eq!(s.blocks, r.blocks);
        assert_eq!(s.network, r.network);
        assert_eq!(s.counts, r.counts);
        assert_eq!(s.protocol, r.protocol);
    }
    let compared = Command::new(common::BIN)
        .args(["compare"])
        .arg(&thrice)
        .arg(&thrice)
        .output()
        .unwrap();
    assert!(compared.status.success());
    assert!(String::from_utf8_lossy(&compared.stdout).contains("PASS"));
    // Compared with the single run, only CPU may differ, within tolerance
    // or not: with --ignore-cpu it passes.
    let against_single = Command::new(common::BIN)
        .args(["compare", "--ignore-cpu"])
        .arg(&once)
        .arg(&thrice)
        .output()
        .unwrap();
    assert!(against_single.status.success());
    for p in [once, thrice] {
        let _ = std::fs::remove_file(p);
    }
    let _ = std::fs::remove_dir_all(tmp("cache"));
}
