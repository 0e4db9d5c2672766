//! The behaviour knobs: no-shows make more tranches trigger and every
//! block is still approved by every honest validator; slow validators
//! approve later; offline validators stop at their block.

use tranche_config::approval_network::{parse, NetworkSpec};
use tranche_report::network::NetworkTable;
use tranche_report::network::{Behaviour, SimulationReport};
use tranche_simulation::{simulate, EngineConfig, Verify};

/// Few samples, so that tranche 0 alone rarely covers `needed_approvals`
/// and later tranches matter.
const BASE: &str = "!ApprovalNetwork\nn_validators: 40\nn_cores: 8\nnum_blocks: 2\n\
                    needed_approvals: 10\nrelay_vrf_modulo_samples: 2\n\
                    run_after_last_block_secs: 60\n";

fn spec(extra: &str) -> NetworkSpec {
    parse(&format!("{BASE}{extra}"), "test").unwrap()
}

fn run(spec: &NetworkSpec) -> SimulationReport {
    let engine = EngineConfig {
        threads: 2,
        ..EngineConfig::default()
    };
    let run = simulate(spec, 3, Verify::Once, &engine, None)
        .unwrap()
        .unwrap();
    SimulationReport::of_run("test", spec, 3, run)
}

fn assignments(r: &SimulationReport) -> u64 {
    r.blocks.iter().map(|b| b.assignments).sum()
}

#[test]
fn a_fifth_of_no_shows_triggers_more_tranches_and_still_approves() {
    let none = run(&spec(""));
    let some = run(&spec("no_show_fraction: 0.2\n"));
    assert!(none.all_approved, "{}", none.table());
    assert!(some.all_approved, "{}", some.table());
    assert_eq!(
        some.validators
            .iter()
            .filter(|r| r.behaviour == Behaviour::NoShow)
            .count(),
        8
    );
    assert!(
        assignments(&some) > assignments(&none),
        "assignments with no-shows {} vs without {}",
        assignments(&some),
        assignments(&none)
    );
    let tranche = |r: &SimulationReport| r.blocks.iter().map(|b| b.max_tranche).max().unwrap();
    assert!(tranche(&some) > tranche(&none));
    let triggered =
        |r: &SimulationReport| -> u32 { r.blocks.iter().map(|b| b.tranches_triggered).sum() };
    assert!(triggered(&some) > triggered(&none));
    // The histogram adds up to what validators imported.
    for b in &some.blocks {
        assert_eq!(
            b.by_tranche.iter().filter(|&&c| c > 0).count() as u32,
            b.tranches_triggered
        );
        assert_eq!(b.by_tranche.len() as u32, b.max_tranche + 1);
    }
    assert!(some.blocks.iter().all(|b| b.no_shows_max > 0));
    assert!(none.blocks.iter().all(|b| b.no_shows_max == 0));
    // No-shows send no approvals.
    for r in some
        .validators
        .iter()
        .filter(|r| r.behaviour == Behaviour::NoShow)
    {
        assert!(r.blocks.iter().all(|b| b.own_approvals == 0));
    }
}

#[test]
fn slow_validators_approve_later() {
    let r = run(&spec(
        "slow_fraction: 0.25\nslow_factor: 8.0\ncheck_delay_ms: {mean: 1000, std_dev: 0}\n",
    ));
    assert!(r.all_approved, "{}", r.table());
    // The mean moment of a validator's own approvals, slow against honest.
    let mean = |b: Behaviour| {
        let t: Vec<u64> = r
            .validators
            .iter()
            .filter(|v| v.behaviour == b)
            .flat_map(|v| v.blocks.iter().filter_map(|x| x.last_approval_after_ms))
            .collect();
        t.iter().sum::<u64>() as f64 / t.len() as f64
    };
    let (slow, honest) = (mean(Behaviour::Slow), mean(Behaviour::Honest));
    assert!(slow > honest + 3000.0, "slow {slow} ms, honest {honest} ms");
}

#[test]
fn offline_validators_stop_at_their_block() {
    let r = run(&spec("offline: [{fraction: 0.1, at_block: 2}]\n"));
    assert!(r.all_approved, "{}", r.table());
    let offline: Vec<_> = r
        .validators
        .iter()
        .filter(|v| matches!(v.behaviour, Behaviour::Offline(_)))
        .collect();
    assert_eq!(offline.len(), 4);
    for v in offline {
        assert_eq!(v.blocks[1].approved_after_ms, None);
        assert_eq!(v.blocks[1].own_assignments, 0);
    }
}

#[test]
fn finality_follows_approvals_and_stalls_without_a_supermajority() {
    let r = run(&spec("finality: true\n"));
    assert!(r.all_approved, "{}", r.table());
    assert_eq!(r.aggression_events, 0);
    for b in &r.blocks {
        assert_eq!(b.finalized, Some(40), "{}", r.table());
        assert!(b.finalized_p50_ms.unwrap() >= b.min_ms.unwrap());
    }

    // Two fifths offline from block 4 (block 1 is finalized as block 3
    // is imported, GRANDPA voting two blocks behind the best; block 2
    // would be as block 4 is): no two-thirds majority votes any more,
    // finality stops at block 1, and once 16 blocks are unfinalized
    // distribution turns aggressive.
    let small = "!ApprovalNetwork\nn_validators: 20\nn_cores: 4\nnum_blocks: 18\n\
                 needed_approvals: 6\nrun_after_last_block_secs: 10\nfinality: true\n\
                 offline: [{fraction: 0.4, at_block: 4}]\n";
    let stalled = run(&parse(small, "stalled").unwrap());
    assert!(stalled.all_approved, "{}", stalled.table());
    assert_eq!(stalled.blocks[0].finalized, Some(20), "{}", stalled.table());
    assert!(stalled.blocks[1..].iter().all(|b| b.finalized == Some(0)));
    // Block 18, the 16th after the last finalized one, at each of the 12
    // online validators.
    assert_eq!(stalled.aggression_events, 12, "{}", stalled.table());
}

#[test]
fn a_failed_notification_disconnects_and_the_reconnect_re_sends_what_was_missed() {
    let lossy = "loss_probability: 0.2\n";
    let recovered = run(&spec(lossy));
    assert!(recovered.all_approved, "{}", recovered.table());
    assert!(
        recovered.blocks.iter().all(|b| b.no_shows_max == 0),
        "{}",
        recovered.table()
    );
    assert!(recovered.validators.iter().all(|v| v.reconnects > 0));
    // The same failures with reconnects after the run has ended: what the
    // failed notifications carried never arrives.
    let never = run(&spec(&format!(
        "{lossy}reconnect_delay_ms: {{mean: 500000, std_dev: 0}}\n"
    )));
    assert!(never.validators.iter().all(|v| v.reconnects == 0));
    let late = |r: &SimulationReport| -> u64 {
        r.blocks
            .iter()
            .map(|b| u64::from(b.no_shows_max) + u64::from(b.expected - b.approved))
            .sum()
    };
    assert!(late(&never) > late(&recovered), "{}", never.table());
}

#[test]
fn an_offline_validator_that_returns_approves_later_blocks() {
    // Gone at block 1's slot, back at block 2's.
    let r = run(&spec(
        "offline: [{fraction: 0.1, at_block: 1, until_block: 2}]\n",
    ));
    let back: Vec<_> = r
        .validators
        .iter()
        .filter(|v| matches!(v.behaviour, Behaviour::Offline(_)))
        .collect();
    assert_eq!(back.len(), 4);
    for v in back {
        assert!(v.reconnects >= 39, "it connects everyone again");
        assert!(v.blocks[1].approved_after_ms.is_some(), "{v:?}");
    }
}
