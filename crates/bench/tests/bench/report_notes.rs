//! The reports' explanatory notes through the binary, each chosen by the
//! run's own figures: a small run that shows a cause prints its note, one
//! that does not prints no such note.

use crate::common::tranche;

/// An example network file of the simulation crate.
fn example(name: &str) -> String {
    format!(
        "{}/../simulation/examples/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The stdout of a successful `tranche` run, its lines joined by single
/// blanks (the notes are wrapped).
fn flat_stdout(args: &[&str]) -> String {
    let out = tranche(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

const COALESCING: &str = "MAX_APPROVAL_COALESCE_WAIT_TICKS";

#[test]
fn a_late_network_run_names_the_cause_its_figures_show() {
    // A fifth no-shows at 60 x 12: approved at about 13.5 s, the cause
    // no-shows, not coalescing.
    let no_shows = example("no-shows.yaml");
    let args = ["--seed", "7", "--validators", "60", "--cores", "12"];
    let text = flat_stdout(&[&["network", &no_shows, "--blocks", "1"], &args[..]].concat());
    assert!(
        text.contains("later than `tranche run`'s default: no-shows. 12 validators never approve"),
        "{text}"
    );
    assert!(!text.contains(COALESCING), "{text}");
    assert!(!text.contains("went offline"), "{text}");
    // Two fifths offline at 60 x 12 over 5 blocks: approved at up to 37 s.
    let stall = example("finality-stall.yaml");
    let text = flat_stdout(&[
        "network",
        &stall,
        "--validators",
        "60",
        "--cores",
        "12",
        "--blocks",
        "5",
    ]);
    assert!(text.contains("24 validators went offline"), "{text}");
    assert!(!text.contains(COALESCING), "{text}");
    // A modelled voting thread saturated (classic on one core, its costs
    // 400 times the table's): approved at up to 11.4 s.
    let saturated = crate::common::tmp("notes-saturated", "saturated.yaml");
    std::fs::write(
        &saturated,
        "!ApprovalNetwork\nn_validators: 40\nn_cores: 8\nnum_blocks: 2\n\
         node: {layout: classic, cores: 1, cpu_scale: 400}\n",
    )
    .unwrap();
    let text = flat_stdout(&["network", saturated.to_str().unwrap()]);
    assert!(
        text.contains("approval-voting on every validator (40 of 40)"),
        "{text}"
    );
    assert!(
        !text.contains(COALESCING) && !text.contains("went offline"),
        "{text}"
    );
    // Issue 60: its no-shows are no cause where nobody withholds.
    assert!(!text.contains("default: no-shows."), "{text}");
    // Half the validators slow at 100 x 20: approved at 14.6 s, the
    // coalescing wait cannot hold that long; the note names them.
    let slow = crate::common::tmp("notes-slow-network", "slow.yaml");
    std::fs::write(
        &slow,
        "!ApprovalNetwork\nslow_fraction: 0.5\nnum_blocks: 1\n",
    )
    .unwrap();
    let text = flat_stdout(&["network", slow.to_str().unwrap()]);
    assert!(
        text.contains("default: 50 validators slow (`slow_fraction`), each check 4 times longer"),
        "{text}"
    );
    // The same at 40 x 8 approves every block by 7.6 s: no note at all.
    let text = flat_stdout(&[
        "network",
        &stall,
        "--validators",
        "40",
        "--cores",
        "8",
        "--blocks",
        "5",
    ]);
    assert!(!text.contains("later than"), "{text}");
}

/// `tranche run` at a small size, virtual clock, its own cache.
fn small_run(test: &str, extra: &[&str]) -> String {
    let cache = crate::common::tmp(test, "cache");
    let mut args = vec!["run", "--clock", "virtual", "--quiet", "--cache-dir"];
    args.push(cache.to_str().unwrap());
    args.extend(extra);
    let out = tranche(&args);
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_small_run_says_why_it_was_approved_at_import_or_never() {
    // 40 x 8: every block approved 0 ms after its slot, 298 no-shows
    // observed with none withheld.
    let text = small_run("notes-40", &["--validators", "40", "--cores", "8"]);
    assert!(text.contains("block 1 approved 0"), "{text}");
    assert!(
        text.contains("every candidate was approved by the one-third rule as its block came in"),
        "{text}"
    );
    assert!(
        text.contains("no-shows observed held no approval back"),
        "{text}"
    );
    assert!(!text.contains("Never approved"), "{text}");
    // The no-shows example at 100 x 20 x 2: never approved, no stall named.
    let no_shows = format!(
        "{}/../../examples/approvals_no_shows.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let args = [
        &no_shows[..],
        "--validators",
        "100",
        "--cores",
        "20",
        "--blocks",
        "2",
    ];
    let text = small_run("notes-no-shows", &args);
    // The error line points at the why line.
    let cache = crate::common::tmp("notes-no-shows", "cache");
    let out = tranche(
        &[
            &[
                "run",
                "--clock",
                "virtual",
                "--quiet",
                "--cache-dir",
                cache.to_str().unwrap(),
            ],
            &args[..],
        ]
        .concat(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("2 blocks were never approved: 102 approvals withheld as no-shows"),
        "{err}"
    );
    assert!(text.contains("block 1 approved never"), "{text}");
    assert!(
        text.contains("Never approved: the peers withheld 102 approvals as no-shows"),
        "{text}"
    );
    assert!(!text.contains("as its block came in"), "{text}");
}

#[test]
fn slow_validators_show_in_the_network_sweep() {
    let file = crate::common::tmp("notes-slow", "small.yaml");
    std::fs::write(
        &file,
        "!ApprovalNetwork\nn_validators: 20\nn_cores: 4\nnum_blocks: 1\nneeded_approvals: 6\n",
    )
    .unwrap();
    let out = tranche(&[
        "sweep",
        "network",
        file.to_str().unwrap(),
        "--slow",
        "0,0.5",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let head: Vec<&str> = text
        .lines()
        .next()
        .unwrap()
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    let at = |name: &str| {
        head.iter()
            .position(|c| *c == name)
            .unwrap_or_else(|| panic!("{name} in {head:?}"))
    };
    let (sent, slow_sent) = (at("sent ms"), at("slow sent ms"));
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .take(2)
        .map(|l| l.split_whitespace().collect())
        .collect();
    // No slow validator: `-`; half of them slow: later than the honest.
    assert_eq!(rows[0][slow_sent], "-", "{text}");
    let honest: u64 = rows[1][sent].parse().unwrap();
    let slow: u64 = rows[1][slow_sent].parse().unwrap();
    assert!(slow > honest, "{text}");
}

/// Issue 60: the README's sweep, small (100 x 20 of 20,40 cores): slow
/// 0.5 moved the approvals, and no-show 0.2 approved nothing within the
/// run; the legend says so, and suggests no row it already shows.
#[test]
fn the_readme_sweeps_legend_says_what_its_rows_show() {
    let html = crate::common::tmp("notes-readme-sweep", "sweep.html");
    let text = flat_stdout(&[
        "sweep",
        "network",
        "--validators",
        "100",
        "--cores",
        "20,40",
        "--no-show",
        "0,0.2",
        "--slow",
        "0,0.5",
        "--blocks",
        "1",
        "--quiet",
        "--html",
        html.to_str().unwrap(),
    ]);
    assert!(
        !text.contains("did not move") && !text.contains("--slow 0.5"),
        "{text}"
    );
    assert!(
        text.contains("at 100 x 20, no-show 0, slow 0.5 the median approval came at 14557 ms against 12558 ms at slow 0"),
        "{text}"
    );
    assert!(
        text.contains(
            "not plotted: 100 x 20, no-show 0.2, slow 0; 100 x 20, no-show 0.2, slow 0.5"
        ),
        "{text}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<p>not plotted:") && !page.contains("did not move"));
}

/// Issue 60: an honest 40 x 8 network says why it has no-shows and
/// tranches up to 34.
#[test]
fn a_small_honest_network_says_why_its_tranches_and_no_shows() {
    let text = flat_stdout(&[
        "network",
        "--validators",
        "40",
        "--cores",
        "8",
        "--blocks",
        "1",
    ]);
    assert!(
        text.contains("max tr: At 40 validators x 8 cores, tranche 0 held 205 candidate claims"),
        "{text}"
    );
    assert!(text.contains("up to tranche 34"), "{text}");
    assert!(
        text.contains("nobody withholds an approval (no no-show or offline validator, no saturated thread), yet a validator saw up to 13 no-shows"),
        "{text}"
    );
}

#[test]
fn a_dry_run_prints_the_estimate_and_generates_nothing() {
    let cache = crate::common::tmp("dry-run", "cache");
    let _ = std::fs::remove_dir_all(&cache);
    let text = flat_stdout(&["run", "--dry-run", "--cache-dir", cache.to_str().unwrap()]);
    assert!(
        text.contains(
            "100 validators x 20 cores x 3 blocks: about 3 600 unique messages from peers (of \
             at most 7 920 generated)"
        ),
        "{text}"
    );
    assert!(
        text.contains("MiB and") && text.contains("nothing generated or run"),
        "{text}"
    );
    assert!(!text.contains("Headline"), "{text}");
    assert!(!cache.exists(), "a dry run generates no messages");
    let text = flat_stdout(&[
        "network",
        "--dry-run",
        "--validators",
        "200",
        "--cores",
        "40",
    ]);
    assert!(
        text.contains("200 validators x 40 cores x 5 blocks: about"),
        "{text}"
    );
    assert!(
        text.contains("deliveries") && text.contains("MiB per process"),
        "{text}"
    );
    assert!(
        text.contains("nothing simulated") && !text.contains("legend:"),
        "{text}"
    );
}

#[test]
fn a_model_run_and_a_run_without_floor_show_what_they_lack_as_dashes() {
    let json = crate::common::tmp("notes-model", "model.json");
    let _ = std::fs::remove_file(&json);
    let size = ["--validators", "40", "--cores", "8", "--blocks", "2"];
    let mut args = vec!["--node", "model", "--architecture", "both", "--json"];
    args.push(json.to_str().unwrap());
    args.extend(size);
    let text = small_run("notes-model", &args);
    for row in [
        "candidates approved - - -",
        "of those, by the one-third rule - - -",
        "database commits ~ - - - - -",
        "database ÷ crypto floor - - -",
        "its floor: signatures checked one-by-one batched",
    ] {
        assert!(text.contains(row), "{row:?} in {text}");
    }
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    for run in v["runs"].as_array().unwrap() {
        for key in ["protocol", "database", "checks"] {
            assert!(run.get(key).is_none(), "{key} in a model's run");
        }
    }
    let json = crate::common::tmp("notes-floor-off", "off.json");
    let _ = std::fs::remove_file(&json);
    let mut args = vec!["--floor", "off", "--json", json.to_str().unwrap()];
    args.extend(size);
    let text = small_run("notes-floor-off", &args);
    assert!(
        text.contains("node CPU ÷ its own crypto floor (*) -"),
        "{text}"
    );
    assert!(!text.contains("0.00*"), "{text}");
    // Issue 41: in the JSON too, a floor not measured is absent, not 0.
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let floor = &v["runs"][0]["crypto_floor"];
    assert_eq!(floor["mode"], "off");
    for key in ["cpu_s", "node_ratio", "node_ratio_batched", "interval_s"] {
        assert!(floor.get(key).is_none(), "{key}: {floor}");
    }
}

/// Issue 41: a database in memory commits and fsyncs nothing: the table
/// shows `-` and says why, the JSON leaves the figures out (0 before).
#[test]
fn a_database_in_memory_has_no_commits_in_the_table_or_the_json() {
    let json = crate::common::tmp("notes-memory", "memory.json");
    let _ = std::fs::remove_file(&json);
    let args = [
        "--db",
        "memory",
        "--validators",
        "40",
        "--cores",
        "8",
        "--blocks",
        "1",
        "--json",
        json.to_str().unwrap(),
    ];
    let text = small_run("notes-memory", &args);
    assert!(text.contains("database commits ~ - -"), "{text}");
    assert!(
        text.contains("database commits -: the database was in memory"),
        "{text}"
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let db = &v["runs"][0]["database"];
    for key in ["commits", "fsyncs", "commits_per_block"] {
        assert!(db.get(key).is_none(), "{key}: {db}");
    }
    assert!(db["cpu_s"].as_f64().is_some(), "{db}");
}
