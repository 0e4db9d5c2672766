//! Tests of the network report's terminal table: its rows, summary
//! line and notes, each chosen by the run's own figures.

use super::*;
use crate::network::{Behaviour, BlockRecord, NodeRecord, RunCost};
use tranche_config::approval_network::NetworkSpec;
use tranche_config::node_shape::{Layout, NodeShape};

/// `n` honest validators over `blocks` blocks, each approving block `b`
/// at `at(v, b)` and finalizing it at `fin(v, b)`.
pub(crate) fn report(
    n: u32,
    blocks: u32,
    spec: NetworkSpec,
    at: impl Fn(u32, u32) -> Option<u64>,
    fin: impl Fn(u32, u32) -> Option<u64>,
) -> SimulationReport {
    let records = (0..n)
        .map(|v| NodeRecord {
            validator: v,
            behaviour: Behaviour::Honest,
            blocks: (1..=blocks)
                .map(|b| BlockRecord {
                    approved_after_ms: at(v, b),
                    finalized_after_ms: fin(v, b),
                    ..BlockRecord::default()
                })
                .collect(),
            ..NodeRecord::default()
        })
        .collect();
    let spec = NetworkSpec {
        n_validators: n,
        num_blocks: blocks,
        ..spec
    };
    SimulationReport::new("t.yaml", &spec, 0, records, RunCost::default())
}

fn on_time(n: u32, blocks: u32, spec: NetworkSpec) -> SimulationReport {
    report(n, blocks, spec, |_, _| Some(7_000), |_, _| Some(9_000))
}

#[test]
fn every_column_has_its_legend() {
    for column in [
        "approved =",
        "min/p50/p99/max ms",
        "last =",
        "assign =",
        "approv =",
        "max tr =",
        "tranches =",
        "no-shows =",
        "final ms =",
        "verified =",
        "reused =",
    ] {
        assert!(COLUMNS.contains(column), "{column}");
    }
    for text in [COLUMNS, COALESCING, CPU] {
        assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
    }
}

#[test]
fn the_coalescing_note_appears_only_where_approvals_came_late_with_coalescing() {
    let spec = NetworkSpec::default;
    let quick = on_time(4, 2, spec());
    assert!(!quick.table().contains("MAX_APPROVAL_COALESCE_WAIT_TICKS"));
    let late = report(4, 2, spec(), |_, _| Some(12_500), |_, _| None);
    assert!(late.table().contains("MAX_APPROVAL_COALESCE_WAIT_TICKS"));
    let single = NetworkSpec {
        max_approval_coalesce_count: 1,
        ..spec()
    };
    let late_alone = report(4, 2, single, |_, _| Some(12_500), |_, _| None);
    assert!(!late_alone
        .table()
        .contains("MAX_APPROVAL_COALESCE_WAIT_TICKS"));
    assert!(!quick.table().contains("CPU model"), "no node: no CPU note");
}

#[test]
fn the_summary_names_who_never_approved_which_blocks_and_how_far_finality_came() {
    let finality = NetworkSpec {
        finality: true,
        ..NetworkSpec::default()
    };
    // Validators 0-2 never approve blocks 2 and 3, validator 0 not block 4
    // either; nothing is finalized after block 1.
    let r = report(
        5,
        4,
        finality.clone(),
        |v, b| (b == 1 || (v > 2 && b < 4) || (v > 0 && b == 4)).then_some(7_000),
        |_, b| (b == 1).then_some(9_000),
    );
    let table = r.summary().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        table.contains(
            "expected validators that never approved: blocks 2-3: 3 of 5; block 4: 1 of 5; \
             finality stopped at block 1 of 4 (finalized by 5 of 5 validators); blocks 2-4 \
             never finalized"
        ),
        "{table}"
    );
    assert!(
        !table.contains("GRANDPA"),
        "unapproved blocks explain themselves: {table}"
    );
    // Every block approved, the last one not finalized when the run
    // ended 10 s after its slot: the voting rule is why.
    let short = NetworkSpec {
        run_after_last_block_secs: 10,
        ..finality.clone()
    };
    let r = report(
        5,
        3,
        short,
        |_, _| Some(7_000),
        |_, b| (b < 3).then_some(12_030),
    );
    let table = r.summary().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        table.contains(
            "finality stopped at block 2 of 3 (finalized by 5 of 5 validators); block 3 never \
             finalized (approved: GRANDPA votes two blocks behind the best"
        ),
        "{table}"
    );
    // The same figures with a minute left after the last slot: the rule
    // is not why, and the note says nothing of it.
    let r = report(
        5,
        3,
        finality.clone(),
        |_, _| Some(7_000),
        |_, b| (b < 3).then_some(12_030),
    );
    let table = r.summary().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(table.contains("block 3 never finalized"), "{table}");
    assert!(!table.contains("GRANDPA"), "{table}");
    let good = on_time(5, 3, finality);
    let flat = |r: &SimulationReport| r.summary().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat(&good).contains(
        "every expected validator approved every block; finality advanced through every block \
         (block 3 finalized by 5 of 5 validators)"
    ));
    let off = on_time(5, 3, NetworkSpec::default());
    assert!(off
        .table()
        .contains("finality not simulated (`finality: false`)"));
}

#[test]
fn the_cpu_model_shows_each_threads_busy_share_by_name_and_who_saturated() {
    let spec = NetworkSpec {
        node: Some(NodeShape {
            layout: Layout::Parallel,
            workers: 1,
            cores: 2,
            cpu_scale: 1.0,
            batch: Default::default(),
        }),
        ..NetworkSpec::default()
    };
    let mut r = on_time(3, 1, spec);
    for (i, v) in r.validators.iter_mut().enumerate() {
        // Router, worker, voting; validator 2's worker is busy 7 s of 6.
        v.cpu_busy_ms = vec![60, 600 + 3_200 * i as u64, 30];
    }
    let names = [
        "approval-voting-parallel",
        "approval-voting-parallel-0",
        "approval-voting-parallel-db",
    ];
    let r = r.with_cpu_threads(names.iter().map(|n| (*n).to_owned()).collect());
    let table = r.table();
    let row = |name: &str| {
        table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no row {name} in\n{table}"))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(
        row("approval-voting-parallel"),
        "approval-voting-parallel 1.00 % 1.00 % -"
    );
    assert_eq!(
        row("approval-voting-parallel-0"),
        "approval-voting-parallel-0 63.33 % 116.67 % 1 (v2)"
    );
    assert!(
        table.contains("CPU model: parallel layout with 1 worker, 2 cores"),
        "{table}"
    );
    assert!(
        table.contains("busy = a thread's modelled CPU per block"),
        "{table}"
    );
    // Issue 60: a job a moment is said on its own, not only beside.
    assert!(!table.contains("a job a moment"), "{table}");
    let mut moment = r.clone();
    if let Some(n) = moment.spec.node.as_mut() {
        n.batch = tranche_config::node_shape::Batch::Moment;
    }
    let text = moment.table();
    assert!(
        text.contains("cpu_scale 1, a job a moment (`batch: moment`);"),
        "{text}"
    );
    // The JSON names the threads in the records' order.
    let json = serde_json::to_value(&r).unwrap();
    let threads: Vec<&str> = json["cpu"]["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(threads, names);
    assert_eq!(
        json["cpu"]["threads"][1]["saturated"],
        serde_json::json!([2])
    );
}

#[test]
fn memory_is_the_peak_of_every_process_over_validator_blocks() {
    use crate::network::{CostTotal, ProcessCost};
    let mut r = on_time(4, 2, NetworkSpec::default());
    // No peak known (an older file): no line.
    assert_eq!(r.memory_line(), None);
    assert!(!r.table().contains("memory:"));
    r.cost.peak_rss_bytes = 8 << 20;
    assert_eq!(
        r.memory_line().as_deref(),
        Some("memory: peak 8 MiB; 1024.0 KiB per validator-block (4 validators x 2 blocks)\n")
    );
    assert!(r.table().contains("memory: peak 8 MiB;"));
    // Two processes: each one's peak, added up.
    let p = |process, mib: u64| ProcessCost {
        process,
        peak_rss_bytes: mib << 20,
        ..ProcessCost::default()
    };
    r.cost.per_process = vec![p(0, 8), p(1, 24)];
    r.cost.total = CostTotal::of(&r.cost.per_process);
    assert_eq!(
        r.memory_line().as_deref(),
        Some(
            "memory: peak 8 MiB in process 0, 32 MiB over all 2 processes; \
             4096.0 KiB per validator-block (4 validators x 2 blocks)\n"
        )
    );
}

/// A run of 6 validators over 2 blocks, each approved at 12.5 s (late),
/// the first `odd` of them behaving as `behaviour`.
fn late_with(odd: usize, behaviour: Behaviour) -> SimulationReport {
    let mut r = report(
        6,
        2,
        NetworkSpec::default(),
        |_, _| Some(12_500),
        |_, _| None,
    );
    for v in r.validators.iter_mut().take(odd) {
        v.behaviour = behaviour;
    }
    r
}

fn flat(r: &SimulationReport) -> String {
    r.legend().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `r` with every validator's voting thread busy `ms` a block on the
/// first `n` validators (13 s: saturated), 100 ms elsewhere.
fn busy(mut r: SimulationReport, n: usize) -> SimulationReport {
    for (i, v) in r.validators.iter_mut().enumerate() {
        let voting = if i < n { 13_000 } else { 100 };
        v.cpu_busy_ms = vec![voting, 100];
    }
    r.with_cpu_threads(vec!["voting".into(), "distribution".into()])
}

/// `r` with `n` validators slow, and when each kind sent its last
/// approval of every block.
fn slow(mut r: SimulationReport, n: usize, slow_ms: u64, honest_ms: u64) -> SimulationReport {
    for (i, v) in r.validators.iter_mut().enumerate() {
        if i < n {
            v.behaviour = Behaviour::Slow;
        }
        for b in &mut v.blocks {
            b.last_approval_after_ms = Some(if i < n { slow_ms } else { honest_ms });
        }
    }
    r
}

/// What a late run's note claims, checked against the figures of the
/// table printed beside it: the no-shows it names are the `no-shows`
/// column's largest; "on every validator" only where the CPU line lists
/// them all, a count of validators as the CPU line has it; the slow
/// validators' sending as their records say; no-shows a cause only where
/// some validator withholds its approval.
fn check_claims(r: &SimulationReport) {
    let text = flat(r);
    // "later than `tranche run`'s default" only beside a later block.
    if text.contains("later than `tranche run`'s default") {
        assert!(
            r.blocks
                .iter()
                .any(|b| b.p50_ms.is_some_and(|ms| ms > RUN_DEFAULT_MS) || b.approved < b.expected),
            "{text}"
        );
    }
    let seen = r.blocks.iter().map(|b| b.no_shows_max).max().unwrap_or(0);
    if let Some(at) = text.find("saw up to ") {
        let n: u32 = text[at + 10..].split(' ').next().unwrap().parse().unwrap();
        assert_eq!(n, seen, "{text}");
    }
    let withholds = r
        .validators
        .iter()
        .any(|v| matches!(v.behaviour, Behaviour::NoShow | Behaviour::Offline(_)));
    if text.contains("default: no-shows.") && !withholds {
        assert!(r
            .cpu
            .iter()
            .all(|c| c.threads.iter().all(|t| t.saturated.is_empty())));
    }
    assert!(!text.contains("on some validators"), "{text}");
    for t in r.cpu.iter().flat_map(|c| &c.threads) {
        let n = t.saturated.len();
        let every = format!("{} on every validator ({n} of {})", t.name, r.n_validators);
        let some = format!("{} on {n} of {} validators", t.name, r.n_validators);
        assert_eq!(
            text.contains(&every),
            n > 0 && n == r.n_validators as usize,
            "{text}"
        );
        assert_eq!(
            text.contains(&some),
            n > 0 && n < r.n_validators as usize,
            "{text}"
        );
    }
    if text.contains("slow (`slow_fraction`)") {
        let sent = |b| tranche_results::sweep::sent_p50(r, b).unwrap();
        let said = format!(
            "at {} ms, the others at {} ms",
            sent(Behaviour::Slow),
            sent(Behaviour::Honest)
        );
        assert!(text.contains(&said), "{text}");
    }
}

/// Each note of a late run, table-driven: a run whose figures show its
/// cause gets it, one whose figures do not does not, and no note claims
/// what the table beside it contradicts.
#[test]
fn a_late_runs_note_names_the_cause_its_figures_show_and_no_other() {
    const NO_SHOWS: &str = "later than `tranche run`'s default: no-shows.";
    const OFFLINE: &str = "validators went offline";
    const SATURATED: &str = "modelled threads saturated";
    const SYMPTOM: &str = "are no cause of their own";
    const SLOW: &str = "slow (`slow_fraction`)";
    const ENOUGH: &str = "had enough assignments only at";
    const COALESCE: &str = "MAX_APPROVAL_COALESCE_WAIT_TICKS";
    let all = [
        NO_SHOWS, OFFLINE, SATURATED, SYMPTOM, SLOW, ENOUGH, COALESCE,
    ];
    let span = tranche_records::record::OfflineSpan {
        at_block: 1,
        until_block: None,
    };
    let with_seen = |mut r: SimulationReport, seen| {
        r.blocks[0].no_shows_max = seen;
        r
    };
    let enough_at = |mut r: SimulationReport, ms| {
        for b in &mut r.blocks {
            b.enough_p50_ms = Some(ms);
        }
        r
    };
    let late_by = |ms| {
        report(
            6,
            2,
            NetworkSpec::default(),
            move |_, _| Some(ms),
            |_, _| None,
        )
    };
    let single = || {
        let mut r = late_with(0, Behaviour::Honest);
        r.spec.max_approval_coalesce_count = 1;
        r
    };
    // (the run, the notes it gets): in time, no note at all; no-shows
    // (as `no-shows.yaml` at 100 x 20, p50 84 s); offline validators (as
    // `finality-stall.yaml`); a saturated thread on every validator or on
    // some (issue 60: "on some" where it was all), its no-shows a symptom
    // where nobody withholds an approval; assignments enough only late;
    // else coalescing where it is on and fits (as the default network:
    // enough at 5.5 s, approved at 12.5 s), slow validators where it does
    // not (issue 60: slow 0.5 at 14.6 s had no note); nothing beyond.
    let cases: Vec<(SimulationReport, Vec<&str>)> = vec![
        (on_time(6, 2, NetworkSpec::default()), vec![]),
        (
            slow(on_time(6, 2, NetworkSpec::default()), 3, 5_500, 7_000),
            vec![],
        ),
        (late_with(2, Behaviour::NoShow), vec![NO_SHOWS]),
        (
            with_seen(late_with(0, Behaviour::Honest), 3),
            vec![NO_SHOWS],
        ),
        (late_with(2, Behaviour::Offline(span)), vec![OFFLINE]),
        (busy(late_with(0, Behaviour::Honest), 6), vec![SATURATED]),
        (busy(late_with(0, Behaviour::Honest), 2), vec![SATURATED]),
        (
            busy(with_seen(late_with(0, Behaviour::Honest), 13), 6),
            vec![SATURATED, SYMPTOM],
        ),
        (
            busy(with_seen(late_with(2, Behaviour::NoShow), 13), 6),
            vec![NO_SHOWS, SATURATED],
        ),
        (
            enough_at(late_with(0, Behaviour::Honest), 11_000),
            vec![ENOUGH],
        ),
        (late_with(0, Behaviour::Honest), vec![COALESCE]),
        (
            enough_at(late_with(0, Behaviour::Honest), 5_500),
            vec![COALESCE],
        ),
        (
            slow(
                enough_at(late_with(0, Behaviour::Honest), 5_500),
                3,
                5_500,
                7_000,
            ),
            vec![COALESCE],
        ),
        (
            slow(enough_at(late_by(14_557), 5_557), 3, 5_500, 7_000),
            vec![SLOW],
        ),
        (enough_at(late_by(30_000), 5_500), vec![]),
        (single(), vec![]),
        (slow(single(), 3, 9_000, 7_000), vec![SLOW]),
    ];
    for (i, (r, wanted)) in cases.iter().enumerate() {
        let text = flat(r);
        for note in all {
            assert_eq!(
                text.contains(note),
                wanted.contains(&note),
                "case {i}, {note}: {text}"
            );
        }
        check_claims(r);
    }
    let text = flat(&late_with(2, Behaviour::NoShow));
    assert!(text.contains("2 validators never approve (`no_show_fraction`)"));
    let one = late_with(1, Behaviour::NoShow);
    assert!(flat(&one).contains("1 validator never approves (`no_show_fraction`)"));
    let text = flat(&busy(late_with(0, Behaviour::Honest), 2));
    assert!(text.contains("voting on 2 of 6 validators"), "{text}");
}

/// Issue 41: "1 blocks" in the network table's header, its memory and
/// cost lines, and the page.
#[test]
fn a_count_of_one_is_singular_in_the_network_table_and_page() {
    let mut r = on_time(1, 1, NetworkSpec::default());
    r.n_cores = 1;
    r.cost.threads = 1;
    r.cost.processes = 1;
    r.cost.deliveries = 1;
    r.cost.peak_rss_bytes = 8 << 20;
    let text = r.table();
    assert!(
        text.contains("tranche network: 1 validator (1 honest), 1 core, 1 block, seed 0"),
        "{text}"
    );
    assert!(text.contains("(1 validator x 1 block)"), "{text}");
    assert!(text.contains("on 1 thread x 1 process:"), "{text}");
    crate::fixture::assert_singular(&text);
    let page = crate::network::page::render(&r, &[]).unwrap();
    crate::fixture::assert_singular(&page);
}

/// Issue 41: without `finality` nothing is finalized or not: the count
/// is absent from the JSON, not 0; with it, 0 is a figure.
#[test]
fn finality_not_simulated_leaves_its_figures_out_of_the_json() {
    let off = on_time(3, 2, NetworkSpec::default());
    let json = serde_json::to_value(&off).unwrap();
    for b in json["blocks"].as_array().unwrap() {
        assert!(b.get("finalized").is_none(), "{b}");
    }
    let on = report(
        3,
        2,
        NetworkSpec {
            finality: true,
            ..NetworkSpec::default()
        },
        |_, _| Some(7_000),
        |_, _| None,
    );
    let json = serde_json::to_value(&on).unwrap();
    assert_eq!(json["blocks"][0]["finalized"], 0);
    let back: SimulationReport = serde_json::from_value(json).unwrap();
    assert_eq!(back.blocks, on.blocks);
}

/// `--verify model` checks no crypto: its checks are not "reused"
/// verdicts but assumed ones, and the cost line says so.
#[test]
fn verify_model_says_its_checks_were_assumed_not_reused() {
    let mut r = on_time(4, 1, NetworkSpec::default());
    r.cost.reused = 4563;
    let line = |r: &SimulationReport| {
        r.table()
            .lines()
            .find(|l| l.starts_with("aggression events"))
            .unwrap()
            .to_owned()
    };
    assert!(
        line(&r).contains("crypto: 0 verified, 4563 reused"),
        "{}",
        line(&r)
    );
    let mut meta = crate::meta::of(
        crate::meta::kind::NETWORK,
        "",
        0,
        vec!["verify: model".into()],
    );
    meta.config.insert(0, "n_validators: 4".into());
    r.meta = Some(meta);
    assert!(
        line(&r).contains("crypto: none verified, 4563 checks assumed valid (`--verify model`)"),
        "{}",
        line(&r)
    );
}
