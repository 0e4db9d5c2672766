//! `tranche network --beside`: an earlier run of the same objective and
//! seed on another node drawn beside this one (one plot of approval time
//! against block number for both, a table per block and node), and the
//! earlier results that are refused before the run, each with its reason.

use clap::Parser;
use std::path::{Path, PathBuf};
use tranche_bench::network_cli::{execute, NetworkArgs};

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: NetworkArgs,
}

fn args(argv: &[&str]) -> NetworkArgs {
    let mut all = vec!["network"];
    all.extend_from_slice(argv);
    Cli::try_parse_from(all).unwrap().args
}

/// A folder of its own for one test.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tranche-beside-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A small objective on the node `layout` (2 workers where it has
/// workers), written to `dir`.
fn objective(dir: &Path, layout: &str, validators: u32) -> PathBuf {
    let path = dir.join(format!("{layout}-{validators}.yaml"));
    let workers = if layout == "classic" {
        ""
    } else {
        "workers: 2, "
    };
    std::fs::write(
        &path,
        format!(
            "!ApprovalNetwork\nn_validators: {validators}\nn_cores: 4\nnum_blocks: 2\n\
             trigger_all_tranches: true\nnode: {{layout: {layout}, {workers}cores: 2}}\n"
        ),
    )
    .unwrap();
    path
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The classic node's result of the small objective, in `dir`.
fn classic_result(dir: &Path) -> PathBuf {
    let json = dir.join("classic.json");
    execute(&args(&[
        s(&objective(dir, "classic", 40)),
        "--quiet",
        "--json",
        s(&json),
    ]))
    .unwrap();
    json
}

#[test]
fn an_earlier_run_on_another_node_is_drawn_beside_this_one() {
    let d = dir("drawn");
    let classic = classic_result(&d);
    let html = d.join("both.html");
    execute(&args(&[
        s(&objective(&d, "parallel", 40)),
        "--quiet",
        "--beside",
        s(&classic),
        "--html",
        s(&html),
    ]))
    .unwrap();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("Approval time against block number, per node"),
        "the plot of both"
    );
    assert!(page.contains("beside: classic, 2 cores ("), "its summary");
    // Both nodes in the legend: p50, p99 and max of each.
    for line in [
        "parallel/2, 2 cores: p50",
        "parallel/2, 2 cores: max",
        "classic, 2 cores: p99",
        "classic, 2 cores: enough assignments, p50",
    ] {
        assert!(page.contains(line), "{line}");
    }
    // The table per block and node: both blocks, both nodes.
    let rows = page
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            (t.starts_with("1 ") || t.starts_with("2 ")) && t.contains(" cores ")
        })
        .count();
    assert_eq!(rows, 4, "{page}");
    // Without --beside, no such plot.
    let alone = d.join("alone.html");
    execute(&args(&[
        s(&objective(&d, "parallel", 40)),
        "--quiet",
        "--html",
        s(&alone),
    ]))
    .unwrap();
    assert!(!std::fs::read_to_string(&alone)
        .unwrap()
        .contains("per node"));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn what_cannot_be_drawn_beside_is_refused_before_the_run() {
    let d = dir("refused");
    let classic = classic_result(&d);
    let parallel = objective(&d, "parallel", 40);
    let refused = |extra: &[&str]| {
        let mut argv = vec![s(&parallel), "--quiet"];
        argv.extend_from_slice(extra);
        execute(&args(&argv)).unwrap_err().to_string()
    };
    let e = refused(&["--seed", "3", "--beside", s(&classic)]);
    assert!(
        e.starts_with("--beside ") && e.contains("seed 0") && e.contains("seed 3"),
        "{e}"
    );
    let e = refused(&["--validators", "41", "--beside", s(&classic)]);
    assert!(e.contains("n_validators (40 there, 41 here)"), "{e}");
    let e = refused(&["--beside", s(&parallel)]);
    assert!(
        e.starts_with(&format!("--beside {}: ", parallel.display())),
        "{e}"
    );
    let missing = d.join("missing.json");
    let e = refused(&["--beside", s(&missing)]);
    assert!(e.contains("missing.json"), "{e}");
    // The output may not overwrite what is drawn beside.
    let e = refused(&["--beside", s(&classic), "--json", s(&classic)]);
    assert!(e.contains("classic.json"), "{e}");
    assert!(std::fs::metadata(&classic).unwrap().len() > 0);
    let five: Vec<&str> = std::iter::repeat_n(["--beside", s(&classic)], 5)
        .flatten()
        .collect();
    let e = refused(&five);
    assert!(e.contains("at most 4"), "{e}");
    std::fs::remove_dir_all(&d).unwrap();
}
