//! End-to-end benchmark runs on a small configuration in virtual time: the
//! same seed gives the same messages, bytes and approval ticks, whatever
//! the architecture; every block is approved.

use std::path::Path;
use tranche_bench::run::{prepare, run_step, ClockKind, DbKind, RunOptions};
use tranche_config as config;
use tranche_node::Architecture;
use tranche_report::RunReport;

const SMALL: &str = r#"
TestConfiguration:
- objective: !ApprovalVoting
    coalesce_mean: 2.0
    coalesce_std_dev: 1.0
    enable_assignments_v2: true
    last_considered_tranche: 89
    stop_when_approved: true
    coalesce_tranche_diff: 12
    workdir_prefix: "/tmp"
    num_no_shows_per_candidate: 1
  n_validators: 30
  n_cores: 5
  needed_approvals: 5
  n_delay_tranches: 20
  num_blocks: 2
  connectivity: 100
  latency: null
"#;

fn run(arch: Architecture, db: DbKind, cache: &Path) -> RunReport {
    let cfg = config::parse(SMALL, "small.yaml").unwrap();
    let step = &cfg.steps[0];
    let options = RunOptions {
        architecture: arch,
        clock: ClockKind::Virtual,
        seed: 3,
        cache_dir: cache.to_path_buf(),
        db,
        progress: tranche_bench::run::Progress::Quiet,
        floor: tranche_bench::floor::FloorMode::Sample,
        db_path: None,
        restart_at_block: None,
        checks: Default::default(),
        node: Default::default(),
    };
    let prepared = prepare(
        &tranche_config::resolve::Plan::of(step, options.seed),
        &options,
    )
    .unwrap();
    run_step(step, &prepared, &options).unwrap()
}

fn deterministic(r: &RunReport) -> (Vec<Option<u64>>, u64, u64, u64, u64, u64) {
    (
        r.blocks.iter().map(|b| b.approved_tick).collect(),
        r.network.received_bytes,
        r.network.sent_bytes,
        r.counts.unique_messages,
        r.counts.deliveries,
        r.counts.withheld_approvals,
    )
}

#[test]
fn virtual_runs_are_reproducible_and_approve_every_block() {
    let cache = std::env::temp_dir().join(format!("tranche-run-test-{}", std::process::id()));
    let a = run(Architecture::parallel(2), DbKind::Redb, &cache);
    let b = run(Architecture::parallel(2), DbKind::Memory, &cache);
    assert!(b.generation.cache_hit, "the second run reuses the cache");
    assert!(
        a.blocks.iter().all(|x| x.approved_tick.is_some()),
        "{:?}",
        a.blocks
    );
    assert_eq!(deterministic(&a), deterministic(&b));
    assert_eq!(a.counts.messages_from_node, b.counts.messages_from_node);
    assert!(
        a.counts.withheld_approvals > 0,
        "the no-show option withholds approvals"
    );
    let c = run(Architecture::CLASSIC, DbKind::Memory, &cache);
    assert_eq!(deterministic(&a), deterministic(&c));
    assert!(a.network.sent_bytes > 0 && a.network.received_bytes > 0);
    assert!(a
        .cpu
        .iter()
        .any(|r| r.name == "approval-voting-parallel-db"));
    assert!(c.cpu.iter().any(|r| r.name == "approval-voting"));
    assert!(a.crypto_floor.cpu_s > 0.0 && a.crypto_floor.assignments > 0);
    std::fs::remove_dir_all(&cache).ok();
}
