//! Tests of the network report's HTML page: its plots, their axes and
//! legends, and the words beside them.

use super::*;
use crate::network::table::tests::report;
use tranche_config::approval_network::{parse, Latency};
use tranche_config::node_shape::NodeShape;

fn finality() -> NetworkSpec {
    NetworkSpec {
        finality: true,
        ..NetworkSpec::default()
    }
}

#[test]
fn the_configuration_is_yaml_that_reads_back() {
    let spec = NetworkSpec {
        node: Some(NodeShape::default()),
        latency: Some(Latency {
            mean_latency_ms: 30.0,
            std_dev: 2.0,
        }),
        ..finality()
    };
    let text = config_yaml(&spec);
    assert!(text.starts_with("!ApprovalNetwork\n"), "{text}");
    assert!(!text.contains("null") && !text.contains('{'), "{text}");
    assert!(
        text.contains("\nlatency:\n  mean_latency_ms: 30.0\n"),
        "{text}"
    );
    assert_eq!(parse(&text, "page").unwrap(), spec);
    // A key without a value is left out, not written `null`.
    let plain = config_yaml(&NetworkSpec::default());
    assert!(!plain.contains("node:"), "{plain}");
    assert_eq!(parse(&plain, "page").unwrap(), NetworkSpec::default());
}

#[test]
fn the_plots_come_first_in_the_run_pages_style_then_the_table_and_the_yaml() {
    let r = report(
        4,
        3,
        finality(),
        |v, b| (v > 0 || b == 1).then_some(12_500 + u64::from(v)),
        |_, b| (b < 3).then_some(9_000),
    );
    let html = render(&r, &[]).unwrap();
    assert!(html.contains(crate::html::STYLE), "the run page's style");
    let first_plot = html.find("<svg").unwrap();
    assert!(first_plot < html.find("<pre>").unwrap(), "plots first");
    assert!(html.find("<h2>Table</h2>").unwrap() < html.find("!ApprovalNetwork").unwrap());
    for title in [
        "Approval time after the slot start",
        "Validators that never approved, per block",
        "Finality over time",
        "Sent network-wide per block",
    ] {
        assert!(html.contains(title), "{title}");
    }
    assert!(!html.contains("busy share per thread"), "no CPU model");
    assert!(html.contains("never finalized (of all)"));
    // No tick label with a needless decimal (14000.0).
    assert!(!html.contains(".0\n</text>"), "a tick ending in .0");
    for external in ["http://", "https://", "src=", "href=", "<script", "<link"] {
        assert!(!html.contains(external), "the page names {external}");
    }
    let without = report(
        4,
        3,
        NetworkSpec::default(),
        |_, _| Some(7_000),
        |_, _| None,
    );
    assert!(!render(&without, &[])
        .unwrap()
        .contains("Finality over time"));
}

#[test]
fn finality_over_time_follows_the_head_and_the_validators() {
    // Validators 0-2 finalize block b at 9 s after its slot, validator 3
    // never does.
    let r = report(
        4,
        2,
        finality(),
        |_, _| Some(7_000),
        |v, _| (v < 3).then_some(9_000),
    );
    let lines = finality_lines(&r);
    let at = |line: usize, t: f64| {
        lines[line]
            .points
            .iter()
            .find(|p| p.0 == t)
            .unwrap_or_else(|| panic!("no point at {t}"))
            .1
    };
    // Block 2's slot begins at 6 s; block 1 is final at 9 s, block 2 at 15.
    assert_eq!((at(0, 5.0), at(0, 6.0)), (1.0, 2.0));
    assert_eq!((at(1, 8.0), at(1, 9.0), at(1, 15.0)), (0.0, 1.0, 2.0));
    assert_eq!(at(2, 15.0), 0.0, "the last validator never finalizes");
}

#[test]
fn thread_names_are_short_on_the_axis() {
    assert_eq!(short("approval-voting-parallel"), "router");
    assert_eq!(short("approval-voting-parallel-3"), "3");
    assert_eq!(short("approval-voting-parallel-db"), "db");
    assert_eq!(short("approval-distribution"), "distribution");
}
