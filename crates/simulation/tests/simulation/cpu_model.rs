//! The CPU model of every validator (`node:` in `!ApprovalNetwork`, the
//! model crate's `busy` module): the classic layout, whose distribution
//! waits on voting for every check, falls behind on one core where the
//! parallel layout on four keeps up; the records are the same on one
//! thread, two threads and two processes; `--verify model` changes the
//! cost, not the records.

use crate::common;

use common::two_processes;
use tranche_config::approval_network::{parse, NetworkSpec};
use tranche_report::network::SimulationReport;
use tranche_simulation::member::NodeRecord;
use tranche_simulation::{simulate, EngineConfig, Verify};

fn spec(text: &str) -> NetworkSpec {
    parse(&format!("!ApprovalNetwork\n{text}"), "test").unwrap()
}

fn run(spec: &NetworkSpec, verify: Verify, engine: &EngineConfig) -> SimulationReport {
    let run = simulate(spec, 3, verify, engine, None)
        .unwrap()
        .expect("process 0 reports");
    SimulationReport::of_run("test", spec, 3, run)
}

/// Median approval time of each block, ms after its slot (`None`: not
/// approved by half of the validators).
fn p50s(r: &SimulationReport) -> Vec<Option<u64>> {
    r.blocks.iter().map(|b| b.p50_ms).collect()
}

const LOADED: &str = "n_validators: 40\nn_cores: 8\nnum_blocks: 3\nneeded_approvals: 10\n\
                      trigger_all_tranches: true\nrun_after_last_block_secs: 30\n";

#[test]
fn classic_on_one_core_falls_behind_where_parallel_on_four_keeps_up() {
    let classic = run(
        &spec(&format!(
            "{LOADED}node: {{layout: classic, cores: 1, cpu_scale: 800}}\n"
        )),
        Verify::Once,
        &EngineConfig::default(),
    );
    let parallel = run(
        &spec(&format!(
            "{LOADED}node: {{layout: parallel, workers: 4, cores: 4, cpu_scale: 800}}\n"
        )),
        Verify::Once,
        &EngineConfig::default(),
    );
    let (c, p) = (p50s(&classic), p50s(&parallel));
    // Parallel: every block within a few seconds of the zero-cost run's
    // 7 s (coalescing holds approvals up to 6 s).
    assert!(
        p.iter().all(|t| t.is_some_and(|t| t < 9_000)),
        "parallel {p:?}"
    );
    // Classic: its approval lag grows block over block, far beyond.
    let c: Vec<u64> = c.iter().map(|t| t.unwrap_or(u64::MAX)).collect();
    assert!(c[0] > 15_000, "classic {c:?}");
    assert!(c[2] > c[0], "classic {c:?}");
    // The classic voting thread was the busy one (its distribution thread
    // pays only its side of each round trip); the parallel workers shared
    // the load.
    let busy = &classic.validators[0].cpu_busy_ms;
    assert_eq!(busy.len(), 2, "distribution, voting");
    assert!(busy[1] > 2 * busy[0], "{busy:?}");
    assert!(
        busy[0] > 0,
        "the distribution thread's side of the round trips"
    );
    assert_eq!(parallel.validators[0].cpu_busy_ms.len(), 6);
}

fn small() -> NetworkSpec {
    spec(
        "n_validators: 24\nn_cores: 4\nnum_blocks: 2\nneeded_approvals: 8\n\
         no_show_fraction: 0.1\ntrigger_all_tranches: true\nrun_after_last_block_secs: 30\n\
         finality: true\nnode: {layout: classic, cores: 1, cpu_scale: 300}\n",
    )
}

fn records(engine: &EngineConfig) -> Vec<NodeRecord> {
    run(&small(), Verify::Once, engine).validators
}

#[test]
fn with_the_cpu_model_one_thread_two_threads_and_two_processes_agree() {
    let one = records(&EngineConfig::default());
    assert!(one.iter().all(|r| r.cpu_busy_ms.len() == 2));
    assert!(one.iter().any(|r| r.cpu_busy_ms[1] > 0));
    let two = records(&EngineConfig {
        threads: 2,
        ..EngineConfig::default()
    });
    assert_eq!(one, two, "1 thread vs 2 threads");
    let first = two_processes(&small(), 3, Verify::Once);
    assert_eq!(one, first.validators, "1 process vs 2 processes");
}

/// `batch: moment` (a moment's notifications one job) agrees with itself
/// on one thread, two threads and two processes, in both layouts; it
/// moves what a run records (fewer, fuller notifications) but not which
/// blocks are approved.
#[test]
fn a_job_a_moment_agrees_across_threads_and_processes() {
    // Workers are the parallel layout's only (refused with classic).
    for (layout, workers) in [("classic", ""), ("parallel", "workers: 2, ")] {
        let text = |batch: &str| {
            format!(
                "n_validators: 24\nn_cores: 4\nnum_blocks: 2\nneeded_approvals: 8\n\
                 no_show_fraction: 0.1\ntrigger_all_tranches: true\n\
                 run_after_last_block_secs: 30\nfinality: true\n\
                 node: {{layout: {layout}, {workers}cores: 1, cpu_scale: 300, batch: {batch}}}\n"
            )
        };
        let moment = spec(&text("moment"));
        let one = run(&moment, Verify::Once, &EngineConfig::default());
        let two = run(
            &moment,
            Verify::Once,
            &EngineConfig {
                threads: 2,
                ..EngineConfig::default()
            },
        );
        assert_eq!(one.validators, two.validators, "{layout}: 1 vs 2 threads");
        let first = two_processes(&moment, 3, Verify::Once);
        assert_eq!(
            one.validators, first.validators,
            "{layout}: 1 vs 2 processes"
        );
        let each = run(
            &spec(&text("notification")),
            Verify::Once,
            &EngineConfig::default(),
        );
        assert_ne!(
            one.validators, each.validators,
            "{layout}: the batches differ"
        );
        let approved = |r: &SimulationReport| {
            r.blocks
                .iter()
                .map(|b| b.p50_ms.is_some())
                .collect::<Vec<_>>()
        };
        assert_eq!(approved(&one), approved(&each), "{layout}");
        assert!(approved(&one).iter().all(|a| *a), "{layout}");
    }
}

#[test]
fn verify_model_runs_no_check_and_changes_only_the_cost() {
    let engine = EngineConfig::default();
    for s in [
        small(),
        spec("n_validators: 24\nn_cores: 4\nnum_blocks: 2\nneeded_approvals: 8\n"),
    ] {
        let once = run(&s, Verify::Once, &engine);
        let model = run(&s, Verify::Model, &engine);
        assert_eq!(once.validators, model.validators);
        assert!(once.cost.verified > 0);
        assert_eq!(model.cost.verified, 0, "no crypto checked");
    }
}
