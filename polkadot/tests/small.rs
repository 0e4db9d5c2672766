//! The small classic case end to end: Polkadot's approval-voting and
//! approval-distribution approve every block of a 20-validator, 5-core,
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
