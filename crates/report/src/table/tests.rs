//! Tests of `tranche run`'s terminal table: its columns, notes and
//! legends, each chosen by the run's own figures.

use super::*;
use crate::fixture;

fn both() -> Vec<RunReport> {
    let mut classic = fixture::run();
    classic.architecture = "classic".into();
    classic.workers = 1;
    let parallel = fixture::run();
    vec![classic, parallel]
}

fn line<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no row {label:?} in\n{text}"))
}

/// The cells of a row: what follows its label, split at blanks.
fn cells<'a>(text: &'a str, label: &str) -> Vec<&'a str> {
    line(text, label)[label.len()..]
        .split_whitespace()
        .collect()
}

#[test]
fn totals_and_per_block_side_by_side_with_units_in_labels() {
    let text = render(&both());
    let heads = text
        .lines()
        .find(|l| l.contains("per block") && l.contains("total"))
        .unwrap();
    assert_eq!(heads.matches("total").count(), 2, "{text}");
    assert_eq!(heads.matches("per block").count(), 2, "{text}");
    // 1000 + 2000 bytes over 2 blocks.
    let net = line(&text, "received + sent, KiB");
    let cells: Vec<&str> = net.split_whitespace().rev().take(5).collect();
    assert_eq!(cells, ["1.00", "1.5", "2.9", "1.5", "2.9"], "{net}");
    // Counts are run totals with their per-block share.
    assert_eq!(
        super::tests::cells(&text, "unique messages from peers"),
        ["10", "5.0", "10", "5.0", "1.00"]
    );
    assert!(line(&text, "approval-voting-parallel-db, CPU s").contains("0.5000"));
    assert!(text.contains("block 1 approved"));
    assert!(text.contains("peak resident memory during the run, MiB"));
}

#[test]
fn reputation_changes_that_happened_get_a_row_per_kind() {
    let mut runs = both();
    let rep = |n| {
        [
            ("Peer sent identical messages".to_owned(), n),
            ("The vote was bad".to_owned(), 0),
        ]
        .into_iter()
        .collect()
    };
    runs[0].protocol.reputation_changes = rep(4);
    runs[1].protocol.reputation_changes = rep(2);
    let text = render(&runs);
    let row = line(&text, "reputation: Peer sent identical messages");
    assert!(row.contains('4') && row.ends_with("0.50"), "{row}");
    assert!(
        !text.contains("The vote was bad"),
        "kinds that never happened: no row\n{text}"
    );
}

#[test]
fn two_runs_have_a_labelled_ratio_on_every_comparable_row() {
    let mut runs = both();
    runs[1].blocks[0].approved_after_ms = Some(2500);
    runs[1].node_cpu_s = 1.0;
    let text = render(&runs);
    assert!(
        line(&text, "Approval").ends_with("parallel ÷ classic"),
        "{text}"
    );
    assert!(line(&text, "block 1 approved").ends_with("0.50"), "{text}");
    assert!(line(&text, "node total").ends_with("0.50"), "{text}");
    assert!(
        line(&text, "lost by the network").ends_with("1.00"),
        "{text}"
    );
    assert!(line(&text, "wall time, s").ends_with("1.00"), "{text}");
    // One run: no ratio column.
    let one = render(&runs[..1]);
    assert!(!line(&one, "Approval").contains('÷'), "{one}");
}

#[test]
fn the_headline_comes_first_and_its_ratio_column_compares_the_own_floor_ratios() {
    let mut runs = both();
    // Classic is judged by the one-by-one floor, parallel by the batched.
    runs[0].crypto_floor.node_ratio = 2.0;
    runs[0].crypto_floor.node_ratio_batched = 2.5;
    runs[1].crypto_floor.node_ratio = 1.5;
    runs[1].crypto_floor.node_ratio_batched = 3.0;
    runs[1].blocks[1].approved_after_ms = None;
    let text = render(&runs);
    let first_section = text.lines().nth(2).unwrap();
    assert!(first_section.starts_with("Headline"), "{text}");
    assert!(
        text.find("Headline").unwrap() < text.find("\nApproval").unwrap(),
        "{text}"
    );
    // classic 4000 and 5000 ms: p50 4000, max 5000; parallel: block 2
    // never approved, so its max is never.
    assert_eq!(
        cells(&text, "approval p50 over blocks, ms after slot start"),
        ["4000", "5000", "1.25"]
    );
    assert_eq!(
        cells(&text, "approval max over blocks, ms after slot start"),
        ["5000", "never", "-"]
    );
    assert_eq!(
        cells(&text, "node CPU per block, s"),
        ["1.0000", "1.0000", "1.00"]
    );
    // 3.0 (parallel, batched) ÷ 2.0 (classic, one by one), not a row's
    // two figures.
    assert_eq!(
        cells(&text, "node CPU ÷ its own crypto floor (*)"),
        ["2.00*", "3.00*", "1.50"]
    );
    assert_eq!(
        cells(&text, "  its floor: signatures checked"),
        ["one-by-one", "batched", "-"]
    );
    // The floor section marks the own ratio and has no ratio column.
    assert!(!line(&text, "Node CPU ÷ crypto floor").contains("parallel ÷ classic"));
    assert_eq!(
        cells(&text, "node total ÷ one-by-one floor"),
        ["2.00*", "1.50"]
    );
}

#[test]
fn integers_are_integers_and_each_unit_has_one_precision() {
    let mut runs = both();
    runs[0].database.commits = Some(52);
    runs[0].counts.messages_from_node = 40;
    runs[0].counts.deliveries = 31;
    for r in &mut runs {
        r.crypto_floor.cpu_s = 1.0;
    }
    let text = render(&runs);
    // Counts: integer totals, per block always to one decimal.
    assert_eq!(
        cells(&text, "database commits ~"),
        ["52", "26.0", "20", "10.0", "0.38"]
    );
    assert_eq!(
        cells(&text, "notifications sent by the node"),
        ["40", "20.0", "40", "20.0", "1.00"]
    );
    assert_eq!(
        cells(&text, "deliveries to the node"),
        ["31", "15.5", "30", "15.0", "0.97"]
    );
    // Ratios to two decimals, whatever the row.
    assert_eq!(
        cells(&text, "database ÷ crypto floor"),
        ["0.00", "0.00", "1.00"]
    );
    assert_eq!(cells(&text, "wall time, s"), ["1.0000", "1.0000", "1.00"]);
}

#[test]
fn approval_rows_stand_under_their_own_header() {
    let text = render(&both());
    let at = text.find("\nApproval").unwrap();
    let header: Vec<&str> = text[at + 1..].lines().take(3).collect();
    let bases: Vec<&str> = header[1].split_whitespace().collect();
    assert_eq!(
        bases,
        ["ms", "after", "slot", "ms", "after", "slot"],
        "{header:?}"
    );
    assert!(header[2].starts_with("block 1 approved"), "{header:?}");
    assert!(!header[1].contains("total"), "{header:?}");
}

#[test]
fn a_block_approved_early_says_why() {
    let mut runs = both();
    runs[0].blocks[0].approved_after_ms = Some(0);
    runs[0].protocol.candidates_approved = 30;
    runs[0].protocol.approved_by_one_third = 30;
    runs[0].protocol.observed_no_shows = 59;
    let text = render(&runs);
    let why = &text[text
        .find("why (classic):")
        .unwrap_or_else(|| panic!("{text}"))..];
    let why = why[..why.find(".\n").unwrap()]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        why.contains("block 1 approved 0 ms after its slot start (early"),
        "{why}"
    );
    assert!(why.contains("30 by the one-third rule"), "{why}");
    assert!(why.contains("59 observed at any evaluation"), "{why}");
    assert!(
        !text.contains("why (parallel/4)"),
        "on time: no line\n{text}"
    );
    assert_eq!(
        cells(&text, "  of those, by the one-third rule"),
        ["30", "0", "0.00"]
    );
    assert_eq!(
        cells(&text, "no-shows observed (at any evaluation)"),
        ["59", "0", "0.00"]
    );
    assert!(text
        .lines()
        .all(|l| !l.starts_with("why") || l.len() <= 100));
    // The same explanation for both layouts: one line naming both.
    runs[1].blocks[0].approved_after_ms = Some(0);
    runs[1].protocol = runs[0].protocol.clone();
    let text = render(&runs);
    assert!(
        text.contains("why (classic, parallel/4): block 1"),
        "{text}"
    );
}

#[test]
fn the_legend_gives_each_layouts_floor_interval() {
    let mut runs = both();
    runs[0].crypto_floor.interval_s = (0.1177, 0.1235);
    runs[1].crypto_floor.interval_s = (0.1101, 0.1199);
    let text = render(&runs);
    let legend = text[text.find("\ncrypto floor:").unwrap()..]
        .split("\nper block:")
        .next()
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        legend.contains("classic: estimated from a seeded sample of 4 of the 10 unique messages, 95 % interval 0.1177..0.1235 s"),
        "{legend}"
    );
    assert!(
        legend.contains("parallel/4: estimated from a seeded sample of 4 of the 10 unique messages, 95 % interval 0.1101..0.1199 s"),
        "{legend}"
    );
}

#[test]
fn timing_dependent_rows_are_marked_and_the_legend_names_them() {
    let mut runs = both();
    runs[1].checks.checked_ahead = 30;
    let text = render(&runs);
    assert!(line(&text, "database commits ~").len() > 20, "{text}");
    assert!(line(&text, "certificates checked back to back ~").len() > 40);
    assert!(!text.contains("deliveries to the node ~"), "{text}");
    let legend = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(legend.contains("~: varies with thread timing"), "{legend}");
    for path in crate::timing::TIMING_DEPENDENT {
        if !path.starts_with("samples.") {
            assert!(legend.contains(path), "{path} not in the legend");
        }
    }
    assert!(
        legend.contains("exact: under the virtual clock"),
        "{legend}"
    );
    runs[0].clock = "real".into();
    let real = render(&runs)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(real.contains("clock real:"), "{real}");
}

#[test]
fn a_legend_explains_other_test_environment_and_the_floor() {
    let mut runs = both();
    for r in &mut runs {
        r.cpu.push(crate::CpuRow {
            name: "test-environment".into(),
            total_s: 0.5,
            per_block_s: 0.25,
            node: false,
        });
    }
    let text = render(&runs);
    let missing: Vec<&str> = [
        "other",
        "test-environment",
        "crypto floor",
        "peak resident memory",
        "rounding",
        "why",
    ]
    .into_iter()
    .filter(|t| !text.contains(&format!("\n{t}:")))
    .collect();
    assert!(missing.is_empty(), "{missing:?} missing in\n{text}");
    assert!(text.contains("sample of"), "{text}");
    assert!(
        !text.contains("\nround trip:"),
        "no classic round trips: no note"
    );
}

#[test]
fn the_database_and_the_checks_have_their_rows() {
    let mut runs = both();
    runs[0].database.commits = Some(40);
    runs[0].database.cpu_s = 0.5;
    runs[0].crypto_floor.cpu_s = 10.0;
    runs[0].checks.round_trips = 100;
    runs[0].checks.round_trip_us = 12.5;
    runs[1].database.commits = Some(20);
    runs[1].checks.checked_ahead = 30;
    let text = render(&runs);
    for (label, want) in [
        ("database commits", "40"),
        ("database, CPU s", "0.5000"),
        ("database ÷ crypto floor", "0.05"),
        ("round trip to voting per check, µs", "12.5"),
        ("certificates checked back to back", "30"),
    ] {
        let row = line(&text, label);
        assert!(row.contains(want), "{label}: {row}");
    }
    assert!(text.contains("\nround trip:"), "{text}");
}

#[test]
fn a_restart_is_told_in_seconds_not_ticks() {
    let mut run = fixture::run();
    run.restart = Some(crate::RestartReport {
        block: 3,
        tick: 12012,
        recover_ms: 40.0,
        resent_items: 2,
    });
    let text = render(&[run]);
    assert!(
        text.contains("crashed at the start of block 3's slot (12 s into the run)"),
        "{text}"
    );
    assert!(!text.contains("(tick "), "{text}");
}

#[test]
fn columns_are_as_wide_as_their_cells_and_apart() {
    let t = columns(
        &["a", "floor CPU-s/b", "÷ floor"],
        &[vec!["1".into(), "0.5".into(), "12.25".into()]],
    );
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines[0], "a  floor CPU-s/b  ÷ floor");
    assert_eq!(lines[1], "1            0.5    12.25");
}

#[test]
fn cells_of_any_length_never_panic_and_control_characters_are_escaped() {
    let long = "y".repeat(70_000);
    let text = crate::columns(&["a", "b"], &[vec![long, "\u{1b}[2Jx".into()]]);
    assert!(text.contains("(70 000 bytes)"), "{text}");
    assert!(
        !text.contains('\u{1b}') && text.contains("\\u{1b}[2Jx"),
        "{text}"
    );
}

/// Both layouts run by the model (`--node model`): no protocol counters,
/// no database.
fn modelled() -> Vec<RunReport> {
    both()
        .into_iter()
        .map(|mut r| {
            r.node_under_test = "model".into();
            r.protocol = crate::ProtocolReport::default();
            r.database = crate::DatabaseReport::default();
            r.checks = crate::ChecksReport::default();
            r.signatures = if r.architecture == "classic" {
                "one-by-one"
            } else {
                "batched"
            }
            .into();
            r
        })
        .collect()
}

/// Polkadot's node run by `tranche-polkadot` (issue 58): no protocol
/// counters, database or round trips, and no count of its checks: `-`,
/// never 0; the model counts its checks.
#[test]
fn polkadots_node_shows_what_it_does_not_count_as_dashes() {
    let runs: Vec<RunReport> = modelled()
        .into_iter()
        .map(|mut r| {
            r.node_under_test = "polkadot 36.0.0".into();
            r.counts.verifications = 0;
            r
        })
        .collect();
    let text = render(&runs);
    for label in [
        "candidates approved",
        "database commits ~",
        "signature and certificate checks",
    ] {
        let c = cells(&text, label);
        assert!(c.iter().all(|c| *c == "-"), "{label}: {c:?} in\n{text}");
    }
    assert_ne!(
        cells(&render(&modelled()), "signature and certificate checks")[0],
        "-"
    );
    assert_ne!(cells(&text, "deliveries to the node")[0], "-");
}

/// Issue 60: the model's CPU is modelled and exact, not thread CPU time
/// that varies; a row's legend only where the row is (the model has no
/// `other`).
#[test]
fn the_models_cpu_is_said_modelled_and_exact_and_only_its_rows_explained() {
    let mut runs = modelled();
    for r in &mut runs {
        r.cpu.retain(|c| c.name != "other");
    }
    let text = render(&runs);
    assert!(
        text.contains("\nCPU (modelled by the cost table, exact; the floors measured)\n"),
        "{text}"
    );
    assert!(!text.contains("thread CPU time"), "{text}");
    assert!(!text.contains("\nother:"), "{text}");
    let joined = flat(&text);
    assert!(
        joined.contains("the model's CPU is exact for a configuration and seed, the floors and wall time vary between runs"),
        "{joined}"
    );
    assert!(
        !joined.contains("(CPU and wall time vary between runs)"),
        "{joined}"
    );
    assert!(joined.contains("the model's CPU is modelled (the cost table's time), exact"));
    // A real node's table: measured, its `other` explained.
    let text = render(&both());
    assert!(text.contains("\nCPU (thread CPU time)"), "{text}");
    assert!(text.contains("\nother:") && flat(&text).contains("CPU and wall time vary"));
    // The columns stay under the layouts whatever the title's length.
    assert_columns_aligned(&text);
}

/// Issue 60: repeats' figures are medians, and the headings say so; the
/// ratios are each run's, their median beside the medians of node and
/// floor (not their quotient).
#[test]
fn repeats_say_median_in_the_headings_and_whose_ratio_it_is() {
    let mut runs = both();
    for r in &mut runs {
        r.repeats = Some(crate::repeat::Repeats {
            runs: 5,
            warmup: 1,
            ..Default::default()
        });
    }
    let text = render(&runs);
    for heading in [
        "\nHeadline (CPU: medians of 5 runs)",
        "\nCPU (thread CPU time, median of 5 runs)",
        "\nNode CPU ÷ crypto floor (* its own; median of the 5 runs' ratios)\n",
        "\nRun (wall time: median of 5 runs)",
    ] {
        assert!(text.contains(heading), "{heading}: {text}");
    }
    assert_columns_aligned(&text);
}

/// Every section's header has its layouts in the same columns, however
/// long its title.
fn assert_columns_aligned(text: &str) {
    let heads: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("classic") && l.contains("parallel/4"))
        .collect();
    let column = |l: &str| l.find("parallel/4").map(|i| l[..i].chars().count());
    assert!(
        heads.iter().all(|l| column(l) == column(heads[0])),
        "{text}"
    );
}

#[test]
fn the_models_run_shows_what_it_does_not_produce_as_a_dash() {
    let text = render(&modelled());
    for label in [
        "candidates approved",
        "  of those, by the one-third rule",
        "no-shows observed (at any evaluation)",
        "no-shows tolerated (covered) at approval",
        "database commits ~",
        "database, CPU s (part of the voting thread's)",
        "database ÷ crypto floor",
    ] {
        let c = cells(&text, label);
        assert!(c.iter().all(|c| *c == "-"), "{label}: {c:?} in\n{text}");
    }
    // Parallel's floor is the batched one, as the model charges it.
    assert_eq!(
        cells(&text, "  its floor: signatures checked")[..2],
        ["one-by-one", "batched"]
    );
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("it keeps no protocol counters"), "{text}");
    assert!(!flat.contains("database: commits of the approval database"));
    // The JSON has no protocol, database or checks to misread as zeros.
    let json = serde_json::to_value(&modelled()[1]).unwrap();
    for key in ["protocol", "database", "checks"] {
        assert!(json.get(key).is_none(), "{key} in {json}");
    }
    // A real run keeps them and its rows.
    let real = render(&both());
    assert_ne!(cells(&real, "candidates approved")[0], "-");
    assert!(!real.contains("it keeps no protocol counters"));
    assert!(real.contains("database: commits of the approval database"));
    assert!(serde_json::to_value(&both()[1])
        .unwrap()
        .get("protocol")
        .is_some());
}

#[test]
fn without_a_floor_every_ratio_to_it_is_a_dash() {
    let runs: Vec<RunReport> = both()
        .into_iter()
        .map(|mut r| {
            r.crypto_floor = crate::FloorReport {
                mode: "off".into(),
                ..crate::FloorReport::default()
            };
            r
        })
        .collect();
    let text = render(&runs);
    assert_eq!(
        cells(&text, "node CPU ÷ its own crypto floor (*)")[..2],
        ["-", "-"],
        "{text}"
    );
    assert!(!text.contains("0.00*"), "{text}");
    for label in [
        "node total ÷ one-by-one floor",
        "node total ÷ batched floor",
        "crypto floor, one-by-one signatures, CPU s",
        "database ÷ crypto floor",
        "  its floor: signatures checked",
    ] {
        let c = cells(&text, label);
        assert!(c.iter().all(|c| *c == "-"), "{label}: {c:?}");
    }
    // Issue 41: no note about ratios or floors the run does not have.
    assert!(!text.contains("÷ floor (*): read"), "{text}");
    let mut repeated = runs.clone();
    repeated[0].repeats = Some(crate::repeat::Repeats {
        runs: 3,
        warmup: 1,
        ..Default::default()
    });
    let text = flat(&render(&repeated));
    assert!(
        text.contains("medians: CPU and wall time are the medians of 3 measured runs"),
        "{text}"
    );
    assert!(!text.contains("the crypto floors and the ratios"), "{text}");
    // With a floor, both notes.
    let text = flat(&render(&both()));
    assert!(text.contains("÷ floor (*): read"), "{text}");
}

/// The table's text with its wrapped lines joined.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn small_sizes_say_why_their_figures_look_odd_only_where_the_figures_show_it() {
    const AT_IMPORT: &str =
        "every candidate was approved by the one-third rule as its block came in";
    const OBSERVED: &str = "no-shows observed held no approval back";
    const NEVER: &str = "Never approved: the peers withheld";
    let notes = |r: &RunReport| {
        let text = flat(&render(std::slice::from_ref(r)));
        [AT_IMPORT, OBSERVED, NEVER].map(|n| text.contains(n))
    };
    // The fixture: approved at 4-5 s, nothing observed or withheld.
    assert_eq!(notes(&fixture::run()), [false; 3]);
    // 40 x 8: approved at 0 ms, all by the one-third rule, 298 observed.
    let mut small = fixture::run();
    for b in &mut small.blocks {
        b.approved_after_ms = Some(0);
    }
    small.protocol.candidates_approved = 24;
    small.protocol.approved_by_one_third = 24;
    small.protocol.observed_no_shows = 298;
    assert_eq!(notes(&small), [true, true, false]);
    // Issue 41: one block early, one late (no-shows withheld): the note
    // names the early block, and never says every candidate came in so.
    let mut mixed = small.clone();
    mixed.blocks[1].approved_after_ms = Some(19_000);
    let text = flat(&render(std::slice::from_ref(&mixed)));
    assert!(!text.contains(AT_IMPORT), "{text}");
    assert!(
        text.contains(
            "the candidates of block 1 were approved by the one-third rule as it came in"
        ),
        "{text}"
    );
    // Early but not by the one-third rule alone: no "at import" note.
    let mut tranches = small.clone();
    tranches.protocol.approved_by_one_third = 20;
    assert!(!notes(&tranches)[0]);
    // No-shows withheld: those observed are no puzzle.
    small.counts.withheld_approvals = 3;
    assert!(!notes(&small)[1]);
    // Never approved with approvals withheld and no stall named.
    let mut never = fixture::run();
    never.blocks[1].approved_after_ms = None;
    never.counts.withheld_approvals = 102;
    assert_eq!(notes(&never), [false, false, true]);
    // A stall named explains itself; nothing withheld: no such note.
    let mut stalled = never.clone();
    stalled.stalls.push(crate::Stall {
        block: 2,
        candidate: 0,
        no_shows: 1,
        max_tranche: 3,
        window: 4,
        last_sent: 3,
        next_tranche: 9,
    });
    assert!(!notes(&stalled)[2]);
    never.counts.withheld_approvals = 0;
    assert!(!notes(&never)[2]);
}

/// Issue 41: "1 blocks" in the headers of the table and the page.
#[test]
fn a_count_of_one_is_singular_in_the_table_and_the_page() {
    let mut run = fixture::run();
    run.num_blocks = 1;
    run.n_cores = 1;
    run.blocks.truncate(1);
    let text = render(std::slice::from_ref(&run));
    assert!(
        text.contains("60 validators, 1 core, 1 block, clock"),
        "{text}"
    );
    crate::fixture::assert_singular(&text);
    let page = crate::html::render_html(std::slice::from_ref(&run), None).unwrap();
    assert!(page.contains("60 validators, 1 core, 1 block, clock"));
    crate::fixture::assert_singular(&page);
}

/// Issue 41: with `--db memory` nothing is committed: the commits are
/// `-` with a note saying why, and absent from the JSON; a database on
/// disk has its figures and no such note.
#[test]
fn an_in_memory_database_shows_no_commits_and_says_why() {
    let on_disk = fixture::run();
    let text = render(std::slice::from_ref(&on_disk));
    assert_eq!(cells(&text, "database commits ~"), ["20", "10.0"]);
    assert!(!text.contains("--db memory"), "{text}");
    let json = serde_json::to_value(&on_disk).unwrap();
    assert_eq!(json["database"]["commits"], 20);
    let mut memory = fixture::run();
    memory.database = crate::DatabaseReport {
        cpu_s: 0.002,
        cpu_per_block_s: 0.001,
        ..crate::DatabaseReport::default()
    };
    let text = render(std::slice::from_ref(&memory));
    assert_eq!(cells(&text, "database commits ~"), ["-", "-"]);
    assert!(
        text.contains("database commits -: the database was in memory"),
        "{text}"
    );
    let json = serde_json::to_value(&memory).unwrap();
    for key in ["commits", "fsyncs", "commits_per_block"] {
        assert!(json["database"].get(key).is_none(), "{key}: {json}");
    }
    assert_eq!(json["database"]["cpu_s"], 0.002);
    let back: RunReport = serde_json::from_value(json).unwrap();
    assert_eq!(back.database, memory.database);
}

/// Issue 41: `--floor off` measures no floor: its figures and the ratios
/// to it are absent from the JSON (read back as 0, shown as `-`), not 0.
#[test]
fn without_a_floor_its_figures_are_absent_from_the_json() {
    let mut off = fixture::run();
    off.crypto_floor.mode = "off".into();
    let json = serde_json::to_value(&off).unwrap();
    // No second, ratio or interval left as 0 (the counts stay: they are
    // the run's messages, whether or not a floor was measured).
    let floor = json["crypto_floor"].as_object().unwrap();
    let zero = |v: &serde_json::Value| v.as_f64() == Some(0.0) && v.is_f64();
    for (key, v) in floor {
        let zeros = zero(v) || v.as_array().is_some_and(|a| a.iter().all(zero));
        assert!(!zeros, "{key}: {json}");
    }
    assert!(floor.get("cpu_s").is_none() && floor.get("interval_s").is_none());
    let back: RunReport = serde_json::from_value(json).unwrap();
    assert_eq!(back.crypto_floor, off.crypto_floor);
    let mut measured = fixture::run();
    measured.crypto_floor.cpu_s = 0.5;
    measured.crypto_floor.interval_s = (0.4, 0.6);
    let json = serde_json::to_value(&measured).unwrap();
    assert_eq!(json["crypto_floor"]["cpu_s"], 0.5);
    assert_eq!(json["crypto_floor"]["interval_s"][1], 0.6);
}

/// Issue 41: a `--schedule useful-first` group without messages has no
/// wait: no "p50 0.0 ms" in the table, nothing in the JSON.
#[test]
fn a_schedule_group_without_messages_shows_no_wait() {
    let mut r = fixture::run();
    r.schedule = Some(crate::ScheduleReport {
        ahead_messages: 0,
        rest_messages: 3437,
        rest_p50_ms: Some(13.8),
        rest_p99_ms: Some(41.7),
        backlog_peak: 1099,
        ..Default::default()
    });
    let text = render(std::slice::from_ref(&r));
    assert!(
        text.contains(
            "useful-first (parallel/4) ~: 0 messages taken ahead, 3437 in arrival order (p50 \
             13.8 ms, p99 41.7 ms); longest backlog 1099"
        ),
        "{text}"
    );
    let json = serde_json::to_value(&r).unwrap();
    assert!(json["schedule"].get("ahead_p50_ms").is_none(), "{json}");
    assert_eq!(json["schedule"]["rest_p50_ms"], 13.8);
}
