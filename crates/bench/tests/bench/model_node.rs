//! `tranche run --node model`: the modelled node under test among the
//! benchmark's peers. Deterministic (the same file and seed give the same
//! report, the model's CPU being virtual); on a loaded file a classic
//! node on one core falls behind where a parallel one on four keeps up;
//! flags that mean nothing to a model are refused on one line.

use std::path::Path;
use tranche_bench::run::{prepare, run_step, ClockKind, DbKind, ModelOptions, NodeUnderTest};
use tranche_bench::run::{Progress, RunOptions};
use tranche_config as config;
use tranche_model::{CostKind, CostTable};
use tranche_node::Architecture;
use tranche_report::RunReport;

/// Every tranche sent, 8 blocks: with dear checks, enough load that one
/// core cannot keep up and four can.
const LOADED: &str = r#"
TestConfiguration:
- objective: !ApprovalVoting
    coalesce_mean: 3.0
    coalesce_std_dev: 1.0
    enable_assignments_v2: true
    last_considered_tranche: 89
    stop_when_approved: false
    coalesce_tranche_diff: 12
    workdir_prefix: "/tmp"
  n_validators: 60
  n_cores: 12
  needed_approvals: 10
  num_blocks: 8
  connectivity: 100
"#;

fn run(arch: Architecture, cores: u32, costs: CostTable, cache: &Path) -> RunReport {
    let cfg = config::parse(LOADED, "loaded.yaml").unwrap();
    let step = &cfg.steps[0];
    let options = RunOptions {
        architecture: arch,
        clock: ClockKind::Virtual,
        seed: 5,
        cache_dir: cache.to_path_buf(),
        db: DbKind::Memory,
        progress: Progress::Quiet,
        floor: tranche_bench::floor::FloorMode::Off,
        db_path: None,
        restart_at_block: None,
        checks: Default::default(),
        node: NodeUnderTest::Model(ModelOptions { cores, costs }),
    };
    let prepared = prepare(
        &tranche_config::resolve::Plan::of(step, options.seed),
        &options,
    )
    .unwrap();
    run_step(step, &prepared, &options).unwrap()
}

/// Every figure of a report that does not depend on the machine.
fn figures(r: &RunReport) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap();
    let o = v.as_object_mut().unwrap();
    for machine_dependent in ["wall_time_s", "peak_memory_bytes", "generation"] {
        o.remove(machine_dependent);
    }
    v
}

fn approval_ms(r: &RunReport) -> Vec<u64> {
    r.blocks
        .iter()
        .map(|b| b.approved_after_ms.unwrap_or(u64::MAX))
        .collect()
}

#[test]
fn the_modelled_node_gives_the_same_report_every_time() {
    let cache = tempfile::tempdir().unwrap();
    let costs = CostTable::default();
    let a = run(Architecture::parallel(2), 2, costs.clone(), cache.path());
    let b = run(Architecture::parallel(2), 2, costs, cache.path());
    assert_eq!(figures(&a), figures(&b));
    assert_eq!(a.node_under_test, "model");
    assert!(a.node_cpu_s > 0.0, "the modelled CPU is reported");
    let names: Vec<&str> = a.cpu.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "approval-voting-parallel",
            "approval-voting-parallel-0",
            "approval-voting-parallel-1",
            "approval-voting-parallel-db",
            "test-environment"
        ],
        "the node's own thread names, then the test environment's (on the modelled cores)"
    );
    // The environment's modelled CPU is reported but is not the node's.
    let env = a.cpu.iter().find(|c| c.name == "test-environment").unwrap();
    assert!(env.total_s > 0.0 && !env.node, "{env:?}");
    let node: f64 = a.cpu.iter().filter(|c| c.node).map(|c| c.total_s).sum();
    assert!(
        (node - a.node_cpu_s).abs() < 1e-9,
        "{node} {}",
        a.node_cpu_s
    );
}

#[test]
fn the_test_environment_shares_the_modelled_cores() {
    let cache = tempfile::tempdir().unwrap();
    // A dear environment on one core takes it from a classic node: the
    // blocks come later than with a free one.
    let free = CostTable::default().with(CostKind::EnvironmentMessage, 1);
    let dear = CostTable::default().with(CostKind::EnvironmentMessage, 400_000);
    let a = approval_ms(&run(Architecture::CLASSIC, 1, free, cache.path()));
    let b = approval_ms(&run(Architecture::CLASSIC, 1, dear, cache.path()));
    assert!(
        a.iter().zip(&b).all(|(a, b)| b >= a)
            && a.iter().zip(&b).filter(|(a, b)| b > a).count() >= 6,
        "{a:?} then {b:?}"
    );
}

#[test]
fn a_classic_model_on_one_core_falls_behind_where_a_parallel_one_on_four_keeps_up() {
    let cache = tempfile::tempdir().unwrap();
    // Checks made dear enough that one core cannot keep up with the
    // file's load, four can.
    let dear = |t: CostTable| {
        let mut t = t;
        for k in [
            CostKind::AssignmentModulo,
            CostKind::AssignmentCompact,
            CostKind::AssignmentDelay,
            CostKind::Approval,
        ] {
            let ns = t.get(k) * 200;
            t = t.with(k, ns);
        }
        t
    };
    let costs = dear(CostTable::default());
    let classic = approval_ms(&run(Architecture::CLASSIC, 1, costs.clone(), cache.path()));
    let parallel = approval_ms(&run(Architecture::parallel(4), 4, costs, cache.path()));
    assert!(
        parallel.iter().all(|&ms| ms < 3_000),
        "parallel on four keeps up: {parallel:?}"
    );
    assert!(
        classic[7] > 3 * classic[0] && classic[7] > 12_000,
        "classic on one falls behind, block after block: {classic:?}"
    );
}

/// A thread's modelled CPU in a report, s.
fn thread_cpu_s(r: &RunReport, name: &str) -> f64 {
    r.cpu
        .iter()
        .find(|c| c.name == name)
        .map_or(0.0, |c| c.total_s)
}

#[test]
fn a_classic_round_trips_wake_up_delay_slows_distribution_without_using_cpu() {
    let cache = tempfile::tempdir().unwrap();
    let plain = CostTable::default();
    // Woken 2 ms after each verdict: distribution cannot take the next
    // notification for that long, on an otherwise idle CPU.
    let late = plain.clone().with(CostKind::RoundTripWake, 2_000_000);
    let a = run(Architecture::CLASSIC, 2, plain, cache.path());
    let b = run(Architecture::CLASSIC, 2, late, cache.path());
    let (ms_a, ms_b) = (approval_ms(&a), approval_ms(&b));
    assert!(
        ms_a.iter().zip(&ms_b).all(|(a, b)| b >= a)
            && ms_a
                .iter()
                .zip(&ms_b)
                .filter(|(a, b)| **b >= **a + 300)
                .count()
                >= 6,
        "the delay makes every block later, most by 300 ms or more: {ms_a:?} then {ms_b:?}"
    );
    for thread in ["approval-distribution", "approval-voting"] {
        let (x, y) = (thread_cpu_s(&a, thread), thread_cpu_s(&b, thread));
        assert!(x > 0.0, "{thread} used CPU");
        assert!(
            (y - x).abs() <= 0.1 * x,
            "{thread}: a delay is no CPU ({x:.3} s, then {y:.3} s)"
        );
    }
}

#[test]
fn flags_that_mean_nothing_to_a_model_are_refused_on_one_line() {
    let bin = env!("CARGO_BIN_EXE_tranche");
    for flag in [
        &["--clock", "real"][..],
        &["--db", "memory"],
        &["--restart-at-block", "2"],
        &["--schedule", "useful-first"],
        &["--signatures", "one-by-one"],
        &["--check-ahead", "0"],
        &["--prometheus", "127.0.0.1:0"],
    ] {
        let out = std::process::Command::new(bin)
            .args(["run", "--node", "model", "--quiet"])
            .args(flag)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{flag:?} accepted");
        assert_eq!(err.trim().lines().count(), 1, "{flag:?}: {err}");
        assert!(
            err.contains("--node model does not take") && err.contains(flag[0]),
            "{flag:?}: {err}"
        );
    }
    let out = std::process::Command::new(bin)
        .args(["run", "--costs", "x.yaml", "--quiet"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("needs --node model"),
        "{err}"
    );
}
