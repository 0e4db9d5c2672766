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

#[test]
fn the_json_is_a_tranche_result_that_compare_refuses_against_tranches_node() {
    use tranche_report::{meta, ReportFile};
    let step = small_step();
    let prepared = prepare(&step, 0).expect("prepared");
    let comparison = tranche_polkadot::crosscheck::compare(
        &prepared,
        Layout::Classic,
        ClockKind::Virtual,
        false,
    )
    .expect("both nodes ran");
    let polkadot = tranche_polkadot::report::run_report(&prepared, &comparison.polkadot, 0);
    assert_eq!(polkadot.node_under_test, "polkadot 36.0.0");
    assert_eq!(polkadot.blocks.len(), 2);
    assert!(polkadot
        .blocks
        .iter()
        .all(|b| b.approved_after_ms.is_some()));
    assert!(polkadot
        .cpu
        .iter()
        .any(|r| r.node && r.name == "approval-voting-subsystem"));
    // Written as `--json` writes it, read back as a result file and checked
    // as `tranche compare` checks a run report. (Typed reading: in this
    // workspace serde_json has `arbitrary_precision`, which a Polkadot
    // crate turns on, and tranche's strict reader, built for the main
    // workspace's serde_json, sees its numbers as maps; the `tranche`
    // binary reads these files with it.)
    let config_meta = meta::collect(
        tranche_polkadot::report::DATABASE,
        0,
        std::slice::from_ref(&step),
    );
    let file = ReportFile::with_meta(vec![polkadot], config_meta.clone());
    let text = serde_json::to_string_pretty(&file).unwrap();
    let read: ReportFile = serde_json::from_str(&text).expect("the JSON reads back");
    // (Floats may differ in their last digit through arbitrary_precision.)
    assert_eq!(read.runs[0].blocks, file.runs[0].blocks);
    assert_eq!(read.runs[0].node_under_test, "polkadot 36.0.0");
    tranche_report::compare::check_run(&read, std::path::Path::new("polkadot.json"))
        .expect("tranche compare would judge it");
    // Against tranche's node on the same step: not comparable, and the
    // reason names the node under test.
    let tranche = ReportFile::with_meta(vec![comparison.tranche.clone()], config_meta);
    let why = tranche_report::compare::not_comparable(&read, &tranche)
        .expect("Polkadot's node and tranche's are not compared figure by figure");
    assert!(why.contains("node"), "{why}");
}
