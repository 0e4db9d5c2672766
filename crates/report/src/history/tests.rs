//! Tests of `history`: date order whatever the file order, one series per
//! kind and configuration, a planted regression marked and explained.

use super::*;
use crate::results::SweepFile;
use crate::ReportFile;

/// A run result of commit `commit` made at `date`.
fn run(commit: &str, date: &str) -> Entry {
    let cfg = tranche_config::embedded_default().unwrap();
    let mut meta = crate::meta::collect("redb", 0, &cfg.steps);
    meta.commit = commit.into();
    meta.date = date.into();
    Entry {
        file: format!("{commit}.json"),
        result: ResultFile::Run(ReportFile::with_meta(vec![crate::fixture::run()], meta)),
    }
}

fn dates(s: &Series) -> Vec<&str> {
    s.points.iter().map(|p| p.date.as_str()).collect()
}

#[test]
fn results_are_ordered_by_date_and_a_planted_regression_is_marked() {
    let mut entries = vec![
        run("c3", "2026-01-03T00:00:00Z"),
        run("c1", "2026-01-01T00:00:00Z"),
        run("c5", "2026-01-05T00:00:00Z"),
        run("c2", "2026-01-02T00:00:00Z"),
        run("c4", "2026-01-04T00:00:00Z"),
    ];
    // c4 sends more bytes: an exact figure moved.
    let ResultFile::Run(f) = &mut entries[4].result else {
        unreachable!()
    };
    f.runs[0].network.sent_bytes += 64;
    let (series, skipped) = build(entries, &CpuPolicy::default());
    assert!(skipped.is_empty());
    assert_eq!(series.len(), 1);
    let s = &series[0];
    assert_eq!(
        dates(s),
        [1, 2, 3, 4, 5].map(|d| format!("2026-01-0{d}T00:00:00Z"))
    );
    let steps: Vec<&str> = s.points.iter().map(|p| p.step.label()).collect();
    // c5 is judged against c4: its bytes went back, which moves them too.
    assert_eq!(steps, ["first", "pass", "pass", "REGRESSION", "REGRESSION"]);
    let Step::Regression(failed) = &s.points[3].step else {
        unreachable!()
    };
    assert!(
        failed
            .iter()
            .any(|f| f.starts_with("bytes sent: 2000 -> 2064 (+64)")),
        "{failed:?}"
    );
    let text = render(&series, &skipped);
    assert!(
        text.contains("regression at #4 (commit c4, c4.json):"),
        "{text}"
    );
    assert!(
        text.contains("1 series, 5 results, 2 steps compare call a regression"),
        "{text}"
    );
    let page = page::render(&series, &skipped, "tranche history h/").unwrap();
    // A plot per figure the results have: the fixture measured no floor,
    // so its node ÷ floor is "-" and has no plot.
    assert_eq!(
        page.matches("<svg").count(),
        s.figures().len() - 1,
        "a plot per figure"
    );
    assert!(text.contains("parallel/4"), "{text}");
    assert!(page.contains("regression at #4 (c4)"), "the plot marks it");
    assert!(!page.contains("<script") && !page.contains("href="));
}

#[test]
fn kinds_and_configurations_are_series_of_their_own_undated_files_left_out() {
    let mut other_seed = run("c1", "2026-01-01T00:00:00Z");
    if let ResultFile::Run(f) = &mut other_seed.result {
        f.meta.as_mut().unwrap().seed = 9;
    }
    let sweep = Entry {
        file: "sweep.json".into(),
        result: ResultFile::SweepNetwork(SweepFile {
            meta: Meta {
                kind: "sweep-network".into(),
                date: "2026-01-01T00:00:00Z".into(),
                ..Meta::default()
            },
            rows: vec![],
        }),
    };
    let mut undated = run("c0", "");
    undated.file = "old.json".into();
    let entries = vec![
        run("c1", "2026-01-01T00:00:00Z"),
        other_seed,
        sweep,
        undated,
    ];
    let (series, skipped) = build(entries, &CpuPolicy::default());
    assert_eq!(series.len(), 2, "{series:#?}");
    assert_eq!(skipped.len(), 2);
    // A result with nothing to follow gets no row and no number.
    assert!(
        skipped[0].starts_with("sweep.json: it holds no run or grid point"),
        "{skipped:?}"
    );
    assert!(
        skipped[1].starts_with("old.json: no meta.date"),
        "{skipped:?}"
    );
    assert!(series.iter().all(|s| s.points.len() == 1));
}

#[test]
fn a_cpu_slowdown_beyond_the_tolerance_is_a_regression_within_it_is_not() {
    let mut entries = vec![
        run("a", "2026-01-01T00:00:00Z"),
        run("b", "2026-01-02T00:00:00Z"),
        run("c", "2026-01-03T00:00:00Z"),
    ];
    for (i, factor) in [(1, 1.1), (2, 2.0)] {
        let ResultFile::Run(f) = &mut entries[i].result else {
            unreachable!()
        };
        f.runs[0].node_cpu_s *= factor;
    }
    let (series, _) = build(entries, &CpuPolicy::default());
    let steps: Vec<&str> = series[0].points.iter().map(|p| p.step.label()).collect();
    assert_eq!(steps, ["first", "pass", "REGRESSION"]);
    let ignore = CpuPolicy {
        ignore: true,
        ..CpuPolicy::default()
    };
    let mut again = vec![
        run("a", "2026-01-01T00:00:00Z"),
        run("c", "2026-01-03T00:00:00Z"),
    ];
    if let ResultFile::Run(f) = &mut again[1].result {
        f.runs[0].node_cpu_s *= 2.0;
    }
    let (series, _) = build(again, &ignore);
    assert_eq!(series[0].points[1].step, Step::Pass);
}

#[test]
fn a_sweep_point_whose_approval_moved_is_a_regression_a_missing_point_is_not() {
    let row = |p50| crate::network::sweep::SweepRow {
        n_validators: 100,
        n_cores: 20,
        no_show_fraction: 0.2,
        slow_fraction: 0.0,
        all_approved: true,
        p50_ms: Some(p50),
        p99_ms: Some(13_000),
        max_ms: Some(13_100),
        assignments_per_block: 1.0,
        max_tranche: 3,
        no_shows_max: 1,
        bytes_out_p50: 1024,
        wall_s: 1.0,
        cpu_s: 1.0,
        sent_p50_ms: None,
        slow_sent_p50_ms: None,
        run_after_last_block_secs: None,
    };
    let sweep = |date: &str, rows| Entry {
        file: format!("{date}.json"),
        result: ResultFile::SweepNetwork(SweepFile {
            meta: Meta {
                kind: "sweep-network".into(),
                date: date.into(),
                ..Meta::default()
            },
            rows,
        }),
    };
    let other = crate::network::sweep::SweepRow {
        n_cores: 10,
        ..row(11_000)
    };
    let entries = vec![
        sweep("2026-01-01T00:00:00Z", vec![row(12_000)]),
        sweep("2026-01-02T00:00:00Z", vec![row(12_000)]),
        sweep("2026-01-03T00:00:00Z", vec![row(12_500)]),
        sweep("2026-01-04T00:00:00Z", vec![row(12_500), other.clone()]),
        sweep("2026-01-05T00:00:00Z", vec![other]),
    ];
    let (series, _) = build(entries, &CpuPolicy::default());
    let s = &series[0];
    let steps: Vec<&str> = s.points.iter().map(|p| p.step.label()).collect();
    // A point of one sweep only is listed by compare, not failed.
    assert_eq!(steps, ["first", "pass", "REGRESSION", "pass", "pass"]);
    let Step::Regression(failed) = &s.points[2].step else {
        unreachable!()
    };
    assert_eq!(
        failed,
        &["approval p50, ms: 12000 -> 12500 (+500) [100 vals 20 cores no-show 0.2 slow 0]"]
    );
}

#[test]
fn a_ratio_the_run_did_not_produce_is_a_dash_not_zero() {
    let mut e = run("c1", "2026-01-01T00:00:00Z");
    if let ResultFile::Run(f) = &mut e.result {
        let r = &mut f.runs[0];
        r.crypto_floor.mode = "off".into();
        r.crypto_floor.node_ratio = 0.0;
        r.crypto_floor.node_ratio_batched = 0.0;
    }
    let (series, _) = build(vec![e], &CpuPolicy::default());
    assert_eq!(series[0].points[0].lines[0].values[3], None);
    let text = render(&series, &[]);
    let row = text.lines().find(|l| l.contains("parallel/4")).unwrap();
    assert!(!row.contains("0.00 "), "{row}");
    assert!(row.split_whitespace().any(|c| c == "-"), "{row}");
}

#[test]
fn long_and_escaping_strings_from_files_never_panic_nor_reach_the_terminal_raw() {
    let mut e = run("c1", "2026-01-01T00:00:00Z");
    if let ResultFile::Run(f) = &mut e.result {
        f.runs[0].architecture = "\u{1b}[31mred".to_owned() + &"x".repeat(70_000);
        f.runs[0].name = "n\u{1b}]0;title\u{7}".into();
    }
    let (series, _) = build(vec![e], &CpuPolicy::default());
    let text = render(&series, &[]);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text}"
    );
    assert!(text.contains("\\u{1b}[31mred"), "{text}");
    assert!(text.contains("(70 008 bytes)"), "{text}");
    assert!(text.lines().all(|l| l.len() < 1000), "{text}");
}

#[test]
fn results_of_one_step_in_other_layouts_or_workers_are_series_apart_named() {
    let a = run("c1", "2026-01-01T00:00:00Z");
    let mut b = run("c2", "2026-01-02T00:00:00Z");
    if let ResultFile::Run(f) = &mut b.result {
        f.runs[0].workers = 2;
    }
    let mut c = run("c3", "2026-01-03T00:00:00Z");
    if let ResultFile::Run(f) = &mut c.result {
        let mut classic = f.runs[0].clone();
        classic.architecture = "classic".into();
        f.runs.push(classic);
    }
    let (series, _) = build(vec![a, b, c], &CpuPolicy::default());
    assert_eq!(series.len(), 3, "never a regression across them");
    assert!(series.iter().all(|s| s.regressions() == 0));
    let apart = apart(&series);
    assert_eq!(apart.len(), 3, "{apart:?}");
    assert!(
        apart[0].contains("the workers differ: baseline 4, current 2"),
        "{apart:?}"
    );
    assert!(
        apart[1].contains("the layout differs: baseline parallel, current classic+parallel"),
        "{apart:?}"
    );
    let text = render(&series, &[]);
    assert!(
        text.contains("not comparable: series 1 and 2 (ci)"),
        "{text}"
    );
}

#[test]
fn the_page_names_each_result_by_commit_and_date_on_its_x_axis() {
    let entries = vec![
        run("1111111aaaaa", "2026-01-01T00:00:00Z"),
        run("2222222bbbbb", "2026-01-02T00:00:00Z"),
    ];
    let (series, _) = build(entries, &CpuPolicy::default());
    let page = page::render(&series, &[], "tranche history").unwrap();
    assert!(
        page.contains("1111111aaaaa 2026-01-01"),
        "commit and date name x"
    );
    assert!(page.contains("commit and date"), "the axis says so");
}

#[test]
fn a_note_already_cut_is_not_cut_again_and_its_controls_are_escaped() {
    let e = crate::results::parse(
        &serde_json::json!({
            "meta": {"tool": "tranche", "kind": "run", "date": "x".repeat(70_000)},
            "tool": "tranche", "version": "0.2.0", "runs": []
        })
        .to_string(),
        "d\u{1b}.json",
    )
    .unwrap_err()
    .to_string();
    let text = render(&[], &[e]);
    assert_eq!(text.matches("bytes)").count(), 1, "{text}");
    assert!(
        text.contains("(70 000 bytes) is not a date") && !text.contains('\u{1b}'),
        "{text}"
    );
}

/// Two series of one step on two databases: their headings say which
/// database each ran on, and the page, as the text, says why they are
/// apart (both headings read the same before, and the page said nothing).
#[test]
fn series_apart_by_database_are_named_in_their_headings_and_on_the_page() {
    let a = run("c1", "2026-01-01T00:00:00Z");
    let mut b = run("c2", "2026-01-02T00:00:00Z");
    if let ResultFile::Run(f) = &mut b.result {
        f.meta.as_mut().unwrap().database = "memory".into();
    }
    let (series, _) = build(vec![a, b], &CpuPolicy::default());
    assert_eq!(series.len(), 2);
    let headings: Vec<String> = series.iter().map(table::heading).collect();
    assert!(headings[0].contains(", database redb)"), "{headings:?}");
    assert!(headings[1].contains(", database memory)"), "{headings:?}");
    let page = page::render(&series, &[], "tranche history h/").unwrap();
    assert!(
        page.contains("<p>not comparable: series 1 and 2 (ci): the database differs"),
        "{page}"
    );
}
