//! The small case end to end, in both layouts: Polkadot's approval-voting and
//! approval-distribution (classic) or approval-voting-parallel approve
//! every block of a 20-validator, 5-core,
//! 2-block run on tranche's messages at the real clock.

use std::path::Path;
use tranche_polkadot::run::{prepare, run, Layout};

fn small_step() -> tranche_config::BenchStep {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/small.yaml");
    let config = tranche_polkadot::load_config(&path, &[]).expect("tests/small.yaml reads");
    config.steps[0].clone()
}

#[test]
fn classic_layout_approves_every_block() {
    let step = small_step();
    let prepared = prepare(&step, 0).expect("prepared");
    let outcome = run(&prepared, Layout::Classic, false).expect("ran");
    print!("{}", tranche_polkadot::report::table(&step, &outcome));
    assert_eq!(outcome.blocks.len(), 2);
    assert!(outcome.all_approved(), "{:?}", outcome.blocks);
    assert!(outcome.messages_to_node > 0);
}

#[test]
fn parallel_layout_approves_every_block() {
    let step = small_step();
    let prepared = prepare(&step, 0).expect("prepared");
    let outcome = run(&prepared, Layout::Parallel, false).expect("ran");
    print!("{}", tranche_polkadot::report::table(&step, &outcome));
    assert!(outcome.all_approved(), "{:?}", outcome.blocks);
    // approval-voting-parallel's workers and database task, named as
    // upstream names them.
    assert!(outcome
        .cpu
        .iter()
        .any(|(name, _, _)| name == "approval-voting-parallel-db"));
}
