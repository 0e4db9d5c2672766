//! The full-workload cross-check at a small size: on the three example
//! sequences the issue names (best case, no-shows, throughput), resized to
//! 60 validators, 12 cores and 2 blocks, Polkadot's node and tranche's,
//! given the same messages at the same virtual ticks, approve every block
//! at the same tick, in both layouts.

use std::path::Path;
use tranche_polkadot::crosscheck::{compare, table};
use tranche_polkadot::run::{prepare, ClockKind, Layout};

fn step(example: &str) -> tranche_config::BenchStep {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(example);
    let config = tranche_polkadot::load_config(&path, (Some(60), Some(12), Some(2)), 0)
        .expect("the example reads");
    config.steps[0].clone()
}

/// Both layouts agree on `example`; returns each block's approval time.
fn agrees(example: &str) -> Vec<Option<u64>> {
    let prepared = prepare(&step(example), 0).expect("prepared");
    let mut after = Vec::new();
    for layout in [Layout::Classic, Layout::Parallel] {
        let comparison =
            compare(&prepared, layout, ClockKind::Virtual, false).expect("both nodes ran");
        print!("{example}: {}", table(&comparison));
        assert!(comparison.agrees(), "{example}, {layout:?}: {comparison:?}");
        assert_eq!(
            comparison.polkadot_messages, comparison.tranche_messages,
            "{example}, {layout:?}: both nodes are sent the same messages"
        );
        assert!(
            comparison.blocks.iter().all(|b| b.polkadot_ms.is_some()),
            "{example}, {layout:?}: every block approved"
        );
        after = comparison.blocks.iter().map(|b| b.polkadot_ms).collect();
    }
    after
}

#[test]
fn best_case_agrees() {
    agrees("approvals_throughput_best_case.yaml");
}

#[test]
fn no_shows_agree_on_a_block_that_waits_for_later_tranches() {
    let after = agrees("approvals_no_shows.yaml");
    // The no-shows make the first block wait for tranches past the first
    // (2.5 s at this size and seed): the two nodes agree on more than the
    // tick a block is imported at.
    assert!(after.iter().any(|ms| ms.unwrap_or(0) > 0), "{after:?}");
}

#[test]
fn throughput_agrees() {
    agrees("approvals_throughput.yaml");
}

#[test]
fn the_links_latency_bandwidth_and_connectivity_are_the_same_for_both() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/links.yaml");
    let config =
        tranche_polkadot::load_config(&path, (None, None, None), 0).expect("links.yaml reads");
    let prepared = prepare(&config.steps[0], 0).expect("prepared");
    for layout in [Layout::Classic, Layout::Parallel] {
        let comparison =
            compare(&prepared, layout, ClockKind::Virtual, false).expect("both nodes ran");
        print!("links.yaml: {}", table(&comparison));
        assert!(comparison.agrees(), "{layout:?}: {comparison:?}");
        assert_eq!(comparison.polkadot_messages, comparison.tranche_messages);
        // The links mattered: some block waited past its import tick.
        assert!(
            comparison
                .blocks
                .iter()
                .any(|b| b.polkadot_ms.unwrap_or(0) > 0),
            "{comparison:?}"
        );
    }
}
