//! Tests of `history`: date order whatever the file order, one series per
//! kind and configuration, a planted regression marked and explained.

use super::*;
use crate::results::SweepFile;
use crate::ReportFile;

/// A run result of commit `commit` made at `date`.
fn run(commit: &str, date: &str) -> Entry {
    let cfg = tranche_config::embedded_default().unwrap();
    let mut meta = Meta::collect("redb", 0, &cfg.steps);
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
    assert!(text.contains("1 series, 5 results, 2 step(s)"), "{text}");
    let page = page::render(&series, &skipped, "tranche history h/").unwrap();
    assert_eq!(
        page.matches("<svg").count(),
        s.figures().len(),
        "a plot per figure"
    );
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
    assert_eq!(series.len(), 3, "{series:#?}");
    assert_eq!(skipped.len(), 1);
    assert!(
        skipped[0].starts_with("old.json: no meta.date"),
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
fn a_sweep_point_whose_approval_moved_is_a_regression_a_missing_point_too() {
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
    let entries = vec![
        sweep("2026-01-01", vec![row(12_000)]),
        sweep("2026-01-02", vec![row(12_000)]),
        sweep("2026-01-03", vec![row(12_500)]),
        sweep("2026-01-04", vec![]),
    ];
    let (series, _) = build(entries, &CpuPolicy::default());
    let s = &series[0];
    let steps: Vec<&str> = s.points.iter().map(|p| p.step.label()).collect();
    assert_eq!(steps, ["first", "pass", "REGRESSION", "REGRESSION"]);
    let Step::Regression(failed) = &s.points[2].step else {
        unreachable!()
    };
    assert_eq!(
        failed,
        &["approval p50, ms: 12000 -> 12500 (+500) [100 vals 20 cores no-show 0.2 slow 0]"]
    );
    let Step::Regression(failed) = &s.points[3].step else {
        unreachable!()
    };
    assert!(
        failed[0].starts_with("point: present -> missing"),
        "{failed:?}"
    );
}
