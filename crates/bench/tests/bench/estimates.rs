//! Estimates for the clock that runs (issue 60, point 10): `--dry-run`
//! under the real clock gives the wall time its slots take, not the
//! virtual clock's; its counts are named as the report's rows; both
//! sweeps and the network give theirs, wall time included, and nothing
//! runs.

use crate::common::{tmp, tranche};

/// `tranche ARGS` succeeded; its stdout.
fn stdout(args: &[&str]) -> String {
    let out = tranche(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {err}");
    String::from_utf8(out.stdout).unwrap()
}

/// The `A–B s of wall time` of a line: `(A, B)`.
fn wall(line: &str) -> (f64, f64) {
    let end = line
        .find(" s of wall time")
        .unwrap_or_else(|| panic!("{line}"));
    let start = line[..end].rfind(' ').unwrap() + 1;
    let (a, b) = line[start..end].split_once('–').unwrap();
    (a.parse().unwrap(), b.parse().unwrap())
}

#[test]
fn a_real_clock_dry_run_gives_the_slots_it_waits_for() {
    // 60 x 12 x 2 ran 31 s under the real clock where the estimate said
    // 0 s; the default 22.5 s where it said 1 s.
    let small = ["--validators", "60", "--cores", "12", "--blocks", "2"];
    for (args, took) in [(&small[..], 31.0), (&[][..], 22.5)] {
        let text = stdout(&[&["run", "--dry-run"][..], args].concat());
        let (least, most) = wall(&text);
        assert!(least <= took && took <= most, "{text}");
        assert!(least >= 6.0, "{text}");
        let text = stdout(&[&["run", "--dry-run", "--clock", "virtual"][..], args].concat());
        assert!(!text.contains("wall time"), "{text}");
    }
}

#[test]
fn the_estimates_counts_are_the_reports_rows() {
    let small = ["--validators", "40", "--cores", "8", "--blocks", "1"];
    let args = [&["run", "--clock", "virtual", "--quiet"][..], &small[..]].concat();
    let report = stdout(&args);
    let estimate = stdout(&[&["run", "--dry-run"][..], &small[..]].concat());
    let row = "unique messages from peers";
    assert!(report.lines().any(|l| l.starts_with(row)), "{report}");
    assert!(
        estimate.contains(&format!(" {row} (of at most ")),
        "{estimate}"
    );
    assert!(!estimate.contains(" sent)"), "{estimate}");
}

#[test]
fn both_sweeps_take_dry_run_and_run_nothing() {
    let cache = tmp("estimate-sweep", "cache");
    let _ = std::fs::remove_dir_all(&cache);
    let text = stdout(&[
        "sweep",
        "run",
        "--dry-run",
        "--validators",
        "40,60",
        "--cores",
        "8",
        "--clock",
        "real",
        "--cache-dir",
        cache.to_str().unwrap(),
    ]);
    assert!(!cache.exists(), "a dry run generates no messages");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4 + 2, "{text}");
    assert!(
        lines[0].starts_with("dry run: 40 validators x 8 cores"),
        "{text}"
    );
    assert!(lines[4].starts_with("dry run: 4 runs: at least"), "{text}");
    assert!(
        lines.iter().take(4).all(|l| l.contains("s of wall time")),
        "{text}"
    );
    let text = stdout(&[
        "sweep",
        "network",
        "--dry-run",
        "--validators",
        "40,60",
        "--cores",
        "8",
        "--blocks",
        "1",
    ]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2 + 2, "{text}");
    assert!(lines[0].contains("[validators 40, cores 8"), "{text}");
    assert!(lines[2].starts_with("dry run: 2 runs: about"), "{text}");
    assert!(text.contains("of wall time in all"), "{text}");
    assert!(text.contains("nothing simulated"), "{text}");
}

#[test]
fn the_full_size_network_dry_run_gives_wall_time() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../simulation/examples/ten-blocks-parallel.yaml"
    );
    let text = stdout(&["network", file, "--dry-run", "--threads", "2"]);
    assert!(
        text.contains("CPU-s and ") && text.contains(" of wall time on 2 threads"),
        "{text}"
    );
    // 8 092 CPU-s took 69.5 min on 2 threads.
    assert!(
        text.contains(" min of wall time") || text.contains(" h of wall time"),
        "{text}"
    );
}

/// `tranche calibrate` takes `--dry-run` too, with and without `--check`:
/// what it would measure or run and how long, at once, and nothing
/// written.
#[test]
fn calibrate_takes_dry_run_and_measures_nothing() {
    let dir = tmp("estimates", "calibrate");
    std::fs::create_dir_all(&dir).unwrap();
    let table = dir.join("costs.yaml");
    let start = std::time::Instant::now();
    let out = stdout(&["calibrate", "--dry-run", "--out", table.to_str().unwrap()]);
    assert!(
        out.contains("would measure") && out.contains("nothing measured"),
        "{out}"
    );
    assert!(!table.exists(), "the dry run wrote its table");
    let out = stdout(&[
        "calibrate",
        "--check",
        "approvals_throughput.yaml",
        "--dry-run",
    ]);
    assert!(
        out.contains("of the real node") && out.contains("nothing run"),
        "{out}"
    );
    assert!(out.contains(" min"), "the check's time: {out}");
    assert!(
        start.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}
