//! The same seed gives the same per-validator results on one thread, two
//! threads, and two timely processes talking over TCP on 127.0.0.1.

use crate::common;

use common::two_processes;
use tranche_config::approval_network::{parse, NetworkSpec};
use tranche_report::network::SimulationReport;
use tranche_simulation::member::NodeRecord;
use tranche_simulation::{simulate, EngineConfig, Verify};

fn small() -> NetworkSpec {
    parse(
        "!ApprovalNetwork\nn_validators: 24\nn_cores: 4\nnum_blocks: 2\nneeded_approvals: 8\n\
         no_show_fraction: 0.1\nslow_fraction: 0.1\nloss_probability: 0.01\n\
         run_after_last_block_secs: 40\nfinality: true\n",
        "small",
    )
    .unwrap()
}

/// `small()` with `seed` and `verify` on one process of `engine`.
fn run(seed: u64, verify: Verify, engine: &EngineConfig) -> SimulationReport {
    let run = simulate(&small(), seed, verify, engine, None)
        .unwrap()
        .expect("process 0 reports");
    SimulationReport::of_run("small", &small(), seed, run)
}

fn records(engine: &EngineConfig) -> Vec<NodeRecord> {
    run(5, Verify::Once, engine).validators
}

#[test]
fn one_thread_two_threads_and_two_processes_agree() {
    let one = records(&EngineConfig::default());
    assert_eq!(one.len(), 24);
    assert!(one.iter().any(|r| r.blocks[0].approved_after_ms.is_some()));

    let two = records(&EngineConfig {
        threads: 2,
        ..EngineConfig::default()
    });
    assert_eq!(one, two, "1 thread vs 2 threads");

    let first = two_processes(&small(), 5, Verify::Once);
    assert_eq!(one, first.validators, "1 process vs 2 processes");
    // Crypto once network-wide: a message is checked where it is made and
    // its verdict travels with it, so process 0 checks about its half of
    // the messages, not everything it receives.
    let single = run(5, Verify::Once, &EngineConfig::default());
    let (mine, all) = (first.cost.verified, single.cost.verified);
    assert!(
        mine * 4 < all * 3 && mine * 4 > all,
        "process 0 checked {mine} of {all}"
    );
}

/// Under `Verify::Model` the validators' own certificates carry no proof
/// (nobody checks one); they cross processes as their encoding like any
/// other, and the records on two processes are those of proven
/// certificates checked once on one.
#[test]
fn unproven_certificates_of_the_model_run_give_the_same_records_on_two_processes() {
    let checked = records(&EngineConfig::default());
    let model = two_processes(&small(), 5, Verify::Model);
    assert_eq!(checked, model.validators);
    assert_eq!(model.cost.verified, 0, "no crypto checked");
}

#[test]
fn every_node_verifying_changes_the_cost_not_the_results() {
    let once = run(5, Verify::Once, &EngineConfig::default());
    let every = run(5, Verify::Every, &EngineConfig::default());
    assert_eq!(once.validators, every.validators);
    assert_eq!(every.cost.reused, 0);
    assert!(once.cost.verified < every.cost.verified / 5);
    assert!(once.cost.reused > 0);
}

#[test]
fn another_seed_gives_other_results() {
    let a = records(&EngineConfig::default());
    let b = run(6, Verify::Once, &EngineConfig::default()).validators;
    assert_ne!(a, b);
}
