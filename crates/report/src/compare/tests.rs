//! Tests of `compare`: what is comparable, the verdicts, the layout of
//! the table, the files it refuses.

use super::*;
use crate::*;

use crate::fixture::run;

fn with_meta(r: RunReport) -> ReportFile {
    let cfg = tranche_config::embedded_default().unwrap();
    ReportFile::with_meta(vec![r], crate::meta::collect("redb", 0, &cfg.steps))
}

#[test]
fn another_seed_config_clock_database_or_format_is_not_comparable() {
    let base = with_meta(run());
    assert_eq!(not_comparable(&base, &with_meta(run())), None);
    let mut commit = with_meta(run());
    commit.meta.as_mut().unwrap().commit = "0123456789ab".into();
    assert_eq!(not_comparable(&base, &commit), None, "commits may differ");
    type Change = fn(&mut ReportFile);
    let cases: [(&str, Change); 6] = [
        ("seed", |f| f.meta.as_mut().unwrap().seed = 1),
        ("configuration (config_hash)", |f| {
            f.meta.as_mut().unwrap().config_hash = "ffff".into()
        }),
        ("database", |f| {
            f.meta.as_mut().unwrap().database = "memory".into()
        }),
        ("result format version", |f| f.version = "0.1.0".into()),
        ("seed of ci [parallel/4]", |f| {
            f.meta = None;
            f.runs[0].seed = 1
        }),
        ("clock of ci [parallel/4]", |f| {
            f.runs[0].clock = "real".into()
        }),
    ];
    for (what, change) in cases {
        let mut cur = with_meta(run());
        change(&mut cur);
        let why = not_comparable(&base, &cur).unwrap_or_else(|| panic!("{what}"));
        assert!(why.starts_with(&format!("the {what} differs")), "{why}");
    }
}

fn file(r: RunReport) -> ReportFile {
    ReportFile::new(vec![r])
}

#[test]
fn identical_results_pass() {
    let c = compare(&file(run()), &file(run()), &CpuPolicy::default());
    assert!(c.passed(), "{}", c.render(true));
    assert!(c.render(false).contains("PASS"));
}

#[test]
fn a_changed_byte_count_fails() {
    let mut cur = run();
    cur.network.sent_bytes += 1;
    let c = compare(&file(run()), &file(cur), &CpuPolicy::default());
    assert_eq!(c.regressions(), 1);
    let row = c
        .rows
        .iter()
        .find(|r| r.verdict == Verdict::Regression)
        .unwrap();
    assert_eq!(row.figure, "bytes sent");
    assert_eq!(row.difference, "+1");
    assert!(c.render(false).contains("REGRESSION"));
}

#[test]
fn figures_are_in_the_reports_units() {
    let c = compare(&file(run()), &file(run()), &CpuPolicy::default());
    let figures: Vec<&str> = c.rows.iter().map(|r| r.figure.as_str()).collect();
    assert!(figures.contains(&"block 1 approved, ms after slot start"));
    assert!(figures.contains(&"node total, CPU s per block"));
    let node = c
        .rows
        .iter()
        .find(|r| r.figure.starts_with("node total"))
        .unwrap();
    assert_eq!(node.baseline, "1.0000", "2 s over 2 blocks");
    assert!(!figures.iter().any(|f| f.contains("tick")), "{figures:?}");
}

#[test]
fn cpu_inside_the_tolerance_passes_outside_fails_and_faster_passes() {
    let policy = CpuPolicy {
        tolerance: 0.25,
        ..Default::default()
    };
    let mut slower = run();
    slower.node_cpu_s = 2.4; // x1.20
    assert!(compare(&file(run()), &file(slower), &policy).passed());
    let mut much_slower = run();
    much_slower.node_cpu_s = 2.6; // x1.30
    let c = compare(&file(run()), &file(much_slower.clone()), &policy);
    assert_eq!(c.regressions(), 1, "{}", c.render(true));
    let mut faster = run();
    faster.node_cpu_s = 0.5;
    faster.cpu[0].total_s = 0.2;
    let c = compare(&file(run()), &file(faster), &policy);
    assert!(c.passed());
    assert!(c.rows.iter().any(|r| r.verdict == Verdict::Improved));
    // Rows under the noise floor are shown, not judged; --ignore-cpu
    // judges none.
    let mut noisy = run();
    noisy.cpu[1].total_s = 0.01;
    assert!(compare(&file(run()), &file(noisy), &policy).passed());
    let ignore = CpuPolicy {
        ignore: true,
        ..policy
    };
    assert!(compare(&file(run()), &file(much_slower), &ignore).passed());
}

#[test]
fn approval_ticks_fail_runs_of_one_file_only_are_listed_not_failed() {
    let mut cur = run();
    cur.blocks[1].approved_after_ms = Some(4500);
    assert!(!compare(&file(run()), &file(cur), &CpuPolicy::default()).passed());
    // Other workers: not comparable, named; no run is failed for it.
    let mut other = run();
    other.workers = 2;
    let why = not_comparable(&file(run()), &file(other.clone())).unwrap();
    assert_eq!(why, "the workers differ: baseline 4, current 2");
    let c = compare(&file(run()), &file(other), &CpuPolicy::default());
    assert!(c.rows.is_empty() && c.passed());
    assert_eq!(c.new_runs, vec!["ci [parallel/2]".to_owned()]);
    assert_eq!(c.missing_runs, vec!["ci [parallel/4]".to_owned()]);
    assert!(c
        .render(false)
        .contains("note: ci [parallel/4] has no current run; not compared"));
    // The same step run through another path still matches.
    let mut a = run();
    a.name = "ci/guard.yaml #1 ApprovalVoting".into();
    let mut b = a.clone();
    b.name = "/work/x/ci/guard.yaml #1 ApprovalVoting".into();
    assert!(compare(&file(a.clone()), &file(b), &CpuPolicy::default()).passed());
    let mut other_step = a.clone();
    other_step.name = "ci/guard.yaml #2 ApprovalVoting".into();
    let c = compare(&file(a), &file(other_step), &CpuPolicy::default());
    assert!(
        c.rows.is_empty(),
        "no figure in common: not a pass (files: exit 3)"
    );
    assert_eq!(c.missing_runs.len(), 1);
}

#[test]
fn real_clock_figures_are_shown_not_judged() {
    let mut a = run();
    a.clock = "real".into();
    let mut b = a.clone();
    b.blocks[0].approved_after_ms = Some(5500);
    b.network.received_bytes += 10;
    assert!(compare(&file(a.clone()), &file(b.clone()), &CpuPolicy::default()).passed());
    b.seed = 1;
    assert!(!compare(&file(a), &file(b), &CpuPolicy::default()).passed());
}

#[test]
fn bad_files_are_one_line_errors_naming_the_file() {
    let dir = std::env::temp_dir().join(format!("tranche-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{ not json").unwrap();
    let e = load(&bad).unwrap_err().to_string();
    assert!(e.contains("bad.json") && !e.contains('\n'), "{e}");
    let e = load(&dir.join("absent.json")).unwrap_err().to_string();
    assert!(e.contains("absent.json") && !e.contains('\n'), "{e}");
    let old = dir.join("old.json");
    let mut v = serde_json::to_value(file(run())).unwrap();
    v["runs"][0].as_object_mut().unwrap().remove("samples");
    v["runs"][0].as_object_mut().unwrap().remove("protocol");
    std::fs::write(&old, v.to_string()).unwrap();
    assert!(load(&old).is_ok(), "files without samples still load");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn another_tool_another_format_or_duplicate_runs_are_refused() {
    let dir = std::env::temp_dir().join(format!("tranche-compare-x-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, v: &serde_json::Value| {
        let p = dir.join(name);
        std::fs::write(&p, v.to_string()).unwrap();
        p
    };
    let good = serde_json::to_value(file(run())).unwrap();
    let mut other = good.clone();
    other["tool"] = "subsystem-bench".into();
    let e = load(&write("other.json", &other)).unwrap_err().to_string();
    assert!(e.contains("written by `subsystem-bench`"), "{e}");
    let mut newer = good.clone();
    newer["version"] = "9.9.9".into();
    let e = load(&write("newer.json", &newer)).unwrap_err().to_string();
    assert!(e.contains("result format is version 9.9.9"), "{e}");
    let mut older = good.clone();
    older["version"] = "0.1.0".into();
    assert!(load(&write("older.json", &older)).is_ok(), "0.1.0 is read");
    let mut twice = good.clone();
    let r = twice["runs"][0].clone();
    twice["runs"].as_array_mut().unwrap().push(r);
    let e = load(&write("twice.json", &twice)).unwrap_err().to_string();
    assert!(e.contains("two runs of step"), "{e}");
    assert!(!e.contains('\n'));
    assert!(load(&write("good.json", &good)).is_ok());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn columns_fit_long_row_names_and_the_verdicts_are_explained() {
    let mut r = run();
    r.cpu[1].name = "approval-voting-parallel-a-very-long-thread-group-name-indeed".into();
    let c = compare(&file(r.clone()), &file(r), &CpuPolicy::default());
    let text = c.render(true);
    let head = text.lines().find(|l| l.contains("baseline")).unwrap();
    let edge = |l: &str, word: &str| {
        let i = l.find(word).unwrap();
        l[..i].chars().count() + word.chars().count()
    };
    let base_edge = edge(head, "baseline");
    for r in c
        .rows
        .iter()
        .filter(|r| r.figure.contains("CPU s per block"))
    {
        let l = text.lines().find(|l| l.contains(&r.figure)).unwrap();
        let fig_end = l.find(&r.figure).unwrap() + r.figure.len();
        let after = &l[fig_end..];
        let end = fig_end + after.find(&r.baseline).unwrap() + r.baseline.len();
        assert_eq!(l[..end].chars().count(), base_edge, "{l}\n{text}");
    }
    assert!(text.contains("- = shown, not judged"), "{text}");
    assert!(text.contains("faster = "), "{text}");
}

#[test]
fn the_cpu_floor_applies_to_the_per_block_values_the_rows_show() {
    // 0.5 s and 0.7 s over 2 blocks: 0.25 and 0.35 s per block, both under
    // a floor of 0.4 s per block (their totals are not).
    let policy = CpuPolicy {
        floor_s: 0.4,
        ..Default::default()
    };
    let (mut a, mut b) = (run(), run());
    a.node_cpu_s = 0.5;
    b.node_cpu_s = 0.7;
    let c = compare(&file(a.clone()), &file(b.clone()), &policy);
    assert!(c.passed(), "{}", c.render(true));
    let floor_at = |floor_s| CpuPolicy {
        floor_s,
        ..Default::default()
    };
    assert!(!compare(&file(a), &file(b), &floor_at(0.3)).passed());
}

fn repeated(node: [f64; 3], floor: [f64; 3]) -> RunReport {
    let runs = node
        .iter()
        .zip(floor)
        .map(|(n, f)| {
            let mut r = run();
            r.node_cpu_s = *n;
            r.crypto_floor.cpu_s = f;
            r.crypto_floor.batched_cpu_s = f / 2.0;
            r.crypto_floor.node_ratio = n / f;
            r.crypto_floor.node_ratio_batched = 2.0 * n / f;
            r
        })
        .collect();
    crate::repeat::combine(runs, 0).unwrap()
}

#[test]
fn with_spreads_the_ratios_are_judged_only_outside_the_range_and_floors_shown() {
    let policy = CpuPolicy::default();
    let verdict = |c: &Comparison, figure: &str| {
        c.rows
            .iter()
            .find(|r| r.figure == figure)
            .unwrap_or_else(|| panic!("{figure}"))
            .verdict
    };
    let base = repeated([2.0, 2.2, 2.4], [1.0, 0.8, 1.2]);
    // Ratios 2.0, 2.75, 2.0: median 2.0, range 2.0..2.75; up to 2.75 x 1.25
    // = 3.44 is inside: 2.75, 2.91, 2.67 (median 2.75) passes.
    let inside = repeated([2.2, 2.3, 2.4], [0.8, 0.79, 0.9]);
    let c = compare(&file(base.clone()), &file(inside), &policy);
    assert_eq!(
        verdict(&c, "node total ÷ one-by-one floor"),
        Verdict::Within
    );
    assert_eq!(
        verdict(&c, "crypto floor, one-by-one, CPU s per block"),
        Verdict::Info
    );
    let text = c.render(false);
    assert!(text.contains("1.1000 [1.0000..1.2000]"), "{text}");
    // 4.8, 4.55, 4.33: median 4.55, beyond 3.44.
    let outside = repeated([2.4, 2.5, 2.6], [0.5, 0.55, 0.6]);
    let c = compare(&file(base.clone()), &file(outside), &policy);
    assert_eq!(
        verdict(&c, "node total ÷ one-by-one floor"),
        Verdict::Regression,
        "{}",
        c.render(true)
    );
    // One run against another: the ratio is shown, not judged.
    let mut single = run();
    single.crypto_floor.node_ratio = 9.0;
    let mut one = run();
    one.crypto_floor.node_ratio = 2.0;
    let c = compare(&file(one), &file(single), &policy);
    assert_eq!(verdict(&c, "node total ÷ one-by-one floor"), Verdict::Info);
}

mod older_files {
    use super::*;

    /// The committed CI baseline was written by an earlier build: a file
    /// without the fields added since still loads, those reading 0.
    #[test]
    fn the_committed_baseline_loads_with_the_fields_added_since() {
        let path = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../ci/baseline.json"
        ));
        let file = load(path).unwrap();
        assert!(!file.runs.is_empty());
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        // Take away what later versions added: it must still load.
        for run in v["runs"].as_array_mut().unwrap() {
            run["generation"].as_object_mut().unwrap().remove("cpu_s");
            run["crypto_floor"]
                .as_object_mut()
                .unwrap()
                .remove("batched_cpu_s");
            run["protocol"]
                .as_object_mut()
                .unwrap()
                .remove("reputation_changes");
            run.as_object_mut().unwrap().remove("schedule");
        }
        let older: ReportFile = serde_json::from_value(v).unwrap();
        assert_eq!(older.runs.len(), file.runs.len());
        assert_eq!(older.runs[0].generation.cpu_s, 0.0);
    }
}

#[test]
fn timing_dependent_figures_are_shown_apart_and_never_judged() {
    let mut cur = run();
    cur.database.commits = cur.database.commits.map(|c| c + 1);
    cur.checks.checked_ahead += 2;
    let c = compare(&file(run()), &file(cur), &CpuPolicy::default());
    assert!(c.passed(), "{}", c.render(true));
    for label in ["database commits", "certificates checked ahead"] {
        let row = c.rows.iter().find(|r| r.figure == label).expect(label);
        assert_eq!(row.verdict, Verdict::Varies, "{label}");
    }
    let commits = c.rows.iter().find(|r| r.figure == "database commits");
    assert_eq!(commits.unwrap().difference, "+1");
    let text = c.render(false);
    assert!(text.contains("varies"), "{text}");
    // None of them is also an exact figure.
    for (name, _) in exact_figures(&run()) {
        assert!(!crate::timing::is_timing_dependent(&name), "{name}");
    }
}

#[test]
fn a_floor_not_measured_and_its_ratios_are_a_dash_not_zero() {
    let mut off = run();
    off.crypto_floor.mode = "off".into();
    let c = compare(&file(off.clone()), &file(off), &CpuPolicy::default());
    assert!(c.passed());
    for name in [
        "crypto floor, one-by-one, CPU s per block",
        "node total ÷ one-by-one floor",
        "node total ÷ batched floor",
    ] {
        let row = c.rows.iter().find(|r| r.figure == name).unwrap();
        assert_eq!(
            (row.baseline.as_str(), row.current.as_str()),
            ("-", "-"),
            "{name}"
        );
        assert_eq!(row.verdict, Verdict::Info);
    }
}

/// Issue 60, 14: the rows are in words and numbers for people — no JSON
/// path, no float of 16 digits — and the verdict counts the figures
/// judged, apart from those only shown.
#[test]
fn rows_are_words_and_rounded_numbers_and_the_verdict_counts_the_judged() {
    let mut base = run();
    base.database.commits_per_block = Some(22.0 / 3.0);
    let mut cur = base.clone();
    cur.database.commits_per_block = Some(23.0 / 3.0);
    let c = compare(&file(base), &file(cur), &CpuPolicy::default());
    let row = c
        .rows
        .iter()
        .find(|r| r.figure == "database commits per block")
        .expect("the row in words");
    assert_eq!(
        (
            row.baseline.as_str(),
            row.current.as_str(),
            row.difference.as_str()
        ),
        ("7.3", "7.7", "+0.4")
    );
    let text = c.render(true);
    for raw in ["7.333", "database.", "checks.", "schedule."] {
        assert!(!text.contains(raw), "{raw} in {text}");
    }
    let judged = c
        .rows
        .iter()
        .filter(|r| !matches!(r.verdict, Verdict::Info | Verdict::Varies))
        .count();
    assert!(judged > 0 && judged < c.rows.len());
    assert_eq!(c.judged(), judged);
    let verdict = text.lines().last().unwrap();
    assert_eq!(
        verdict,
        format!(
            "PASS: {judged} figures judged, no regression; {} more shown, not judged",
            c.rows.len() - judged
        )
    );
}

/// Issue 60, 9: every difference is named in the one line, the workers
/// beside the layout, and the node under test apart from the database.
#[test]
fn every_difference_is_named_and_the_node_apart_from_the_database() {
    let mut base = with_meta(run());
    let mut both = run();
    both.architecture = "classic".into();
    both.workers = 1;
    base.runs.push(both.clone());
    let mut cur = with_meta(run());
    cur.runs[0].workers = 2;
    cur.runs[0].clock = "real".into();
    cur.meta.as_mut().unwrap().seed = 7;
    let why = not_comparable(&base, &cur).unwrap();
    for part in [
        "the seed differs: baseline 0, current 7",
        "the layout differs: baseline classic+parallel, current parallel",
        "the workers differ: baseline 4, current 2",
    ] {
        assert!(why.contains(part), "{part} in {why}");
    }
    assert_eq!(why.lines().count(), 1);
    let mut model = with_meta(run());
    model.runs[0].node_under_test = "model".into();
    model.meta.as_mut().unwrap().database = "model".into();
    let why = not_comparable(&with_meta(run()), &model).unwrap();
    assert_eq!(
        why,
        "the node under test differs: baseline real, current model; \
         the database differs: baseline redb, current none"
    );
}

/// Issue 60, 8: a run with a restart is a kind of run of its own: not
/// comparable with one without, nor with one restarted elsewhere, and the
/// restart is named.
#[test]
fn a_restart_is_part_of_what_is_comparable() {
    let restarted = |block| {
        let mut f = with_meta(run());
        f.runs[0].restart = Some(RestartReport {
            block,
            tick: 12_000,
            recover_ms: 3.0,
            resent_items: 5,
        });
        f.meta.as_mut().unwrap().restart_at_block = Some(block);
        f
    };
    let plain = with_meta(run());
    assert_eq!(
        not_comparable(&plain, &restarted(2)).as_deref(),
        Some("the restart differs: baseline none, current at block 2")
    );
    assert_eq!(
        not_comparable(&restarted(3), &restarted(2)).as_deref(),
        Some("the restart differs: baseline at block 3, current at block 2")
    );
    assert_eq!(not_comparable(&restarted(2), &restarted(2)), None);
    // A file without `meta` says its restart in its runs.
    let mut older = restarted(2);
    older.meta = None;
    let why = not_comparable(&older, &file(run())).unwrap();
    assert!(
        why.contains("the restart differs: baseline at block 2, current none"),
        "{why}"
    );
}
