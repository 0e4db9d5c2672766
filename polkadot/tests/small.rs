//! The small case end to end, in both layouts: Polkadot's approval-voting
//! and approval-distribution (classic) or approval-voting-parallel approve
//! every block of a 20-validator, 5-core, 2-block run on tranche's
//! messages, at the real clock and at the virtual clock (where two runs
//! give the same approvals).

use std::path::Path;
use tranche_polkadot::run::{prepare, run, ClockKind, Layout};

fn small_step() -> tranche_config::BenchStep {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/small.yaml");
    let config = tranche_polkadot::load_config(&path, (None, None, None), 0)
        .expect("tests/small.yaml reads");
    config.steps[0].clone()
}

#[test]
fn classic_layout_approves_every_block() {
    let step = small_step();
    let prepared = prepare(&step, 0).expect("prepared");
    let outcome = run(&prepared, Layout::Classic, ClockKind::Real, false).expect("ran");
    print!("{}", tranche_polkadot::report::table(&step, &outcome));
    assert_eq!(outcome.blocks.len(), 2);
    assert!(outcome.all_approved(), "{:?}", outcome.blocks);
    assert!(outcome.messages_to_node > 0);
}

#[test]
fn parallel_layout_approves_every_block() {
    let step = small_step();
    let prepared = prepare(&step, 0).expect("prepared");
    let outcome = run(&prepared, Layout::Parallel, ClockKind::Real, false).expect("ran");
    print!("{}", tranche_polkadot::report::table(&step, &outcome));
    assert!(outcome.all_approved(), "{:?}", outcome.blocks);
    // approval-voting-parallel's workers and database task, named as
    // upstream names them.
    assert!(outcome
        .cpu
        .iter()
        .any(|(name, _, _)| name == "approval-voting-parallel-db"));
}

#[test]
fn virtual_clock_approves_every_block_the_same_in_two_runs() {
    let step = small_step();
    let prepared = prepare(&step, 0).expect("prepared");
    for layout in [Layout::Classic, Layout::Parallel] {
        let ticks = |outcome: &tranche_polkadot::run::RunOutcome| {
            outcome
                .blocks
                .iter()
                .map(|b| b.approved_after_s)
                .collect::<Vec<_>>()
        };
        let first = run(&prepared, layout, ClockKind::Virtual, false).expect("ran");
        assert!(first.all_approved(), "{layout:?}: {:?}", first.blocks);
        let second = run(&prepared, layout, ClockKind::Virtual, false).expect("ran");
        assert_eq!(ticks(&first), ticks(&second), "{layout:?}");
        assert_eq!(first.messages_to_node, second.messages_to_node);
    }
}
