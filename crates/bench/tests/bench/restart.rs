//! `tranche run --restart-at-block N` and `--db-path DIR`: the node crashes
//! at block N's slot and comes back on its database, every block is still
//! approved in both layouts, the report shows the restart; the database is
//! kept where asked; a restart without a database is refused up front.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_tranche");

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("tranche-restart-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn a_run_restarted_at_block_two_approves_every_block_in_both_layouts() {
    restarted_at_block_two("redb", "approvals.redb");
}

#[test]
fn a_parity_db_run_restarted_at_block_two_approves_every_block_in_both_layouts() {
    restarted_at_block_two("parity-db", "approvals.paritydb");
}

/// The run on the store `db`, its databases kept as `kept_as` (a file or
/// a folder) in each step's and layout's folder.
fn restarted_at_block_two(db: &str, kept_as: &str) {
    let dir = tmp(&format!("run-{db}"));
    let json = dir.join("r.json");
    let db_dir = dir.join("db");
    let out = crate::common::default_on_db(db, &dir.join("cache"), &db_dir, &json)
        .arg("--restart-at-block")
        .arg("2")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(
            "restart (classic): crashed at the start of block 2's slot (6 s into the run)"
        ),
        "{stdout}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for r in runs {
        assert_eq!(r["restart"]["block"], 2, "{}", r["architecture"]);
        assert!(r["restart"]["resent_items"].as_u64().unwrap() > 0);
        for b in r["blocks"].as_array().unwrap() {
            assert!(b["approved_tick"].is_u64(), "{}: {b}", r["architecture"]);
        }
    }
    // The databases are kept, one per step and layout.
    let mut kept: Vec<_> = walk(&db_dir)
        .into_iter()
        .filter_map(|p| {
            p.ancestors()
                .find(|a| a.ends_with(kept_as))
                .map(|a| a.to_owned())
        })
        .collect();
    kept.dedup();
    assert_eq!(kept.len(), 2, "{kept:?}");
    std::fs::remove_dir_all(&dir).ok();
}

fn walk(d: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(d).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_restart_without_a_database_is_refused_before_any_work() {
    let out = Command::new(BIN)
        .args([
            "run",
            "--db",
            "memory",
            "--restart-at-block",
            "2",
            "--clock",
            "virtual",
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--restart-at-block needs a database on disk"),
        "{err}"
    );
    assert!(
        out.stdout.is_empty(),
        "nothing ran: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// `blocks_per_session: 2` (a new session every two blocks, learnt by the
/// node from its first block) and a restart at block 2: every block is
/// approved, the two layouts agree tick for tick, and no honest peer is
/// charged anything.
#[test]
fn two_sessions_and_a_restart_approve_every_block_and_the_layouts_agree() {
    let dir = tmp("sessions");
    let example = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/default.yaml"
    ))
    .unwrap();
    let yaml = example.replace(
        "- objective: !ApprovalVoting\n",
        "- objective: !ApprovalVoting\n    blocks_per_session: 2\n",
    );
    assert_ne!(yaml, example, "the key went in");
    let file = dir.join("two-sessions.yaml");
    std::fs::write(&file, yaml).unwrap();
    let json = dir.join("r.json");
    let out = Command::new(BIN)
        .arg("-v")
        .arg("run")
        .arg(&file)
        .args(["--clock", "virtual", "--architecture", "both", "--quiet"])
        .args(["--restart-at-block", "2"])
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    for cost in [
        "out-of-view",
        "The vote was bad",
        "identical messages",
        "too far",
    ] {
        assert!(!err.contains(cost), "a peer was charged ({cost}):\n{err}");
    }
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let ticks: Vec<Vec<u64>> = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["blocks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b["approved_tick"].as_u64().expect("approved"))
                .collect()
        })
        .collect();
    assert_eq!(ticks.len(), 2);
    assert_eq!(ticks[0], ticks[1], "classic and parallel agree");
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 60, 8: a restart is a kind of run. Its counters cover the whole
/// run (the candidates imported and approved are those of a run without
/// it, each candidate once), the header and the JSON's `meta` name it, and
/// `compare` finds it not comparable with a run without it (exit 3, the
/// restart named), never a regression.
#[test]
fn a_restart_counts_the_whole_run_and_is_a_kind_of_run_of_its_own() {
    let dir = tmp("kind");
    let run = |json: &std::path::Path, extra: &[&str]| {
        let out = Command::new(BIN)
            .args(["run", "--clock", "virtual", "--quiet", "--cache-dir"])
            .arg(dir.join("cache"))
            .arg("--json")
            .arg(json)
            .args(extra)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{stdout}{out:?}");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
        (stdout, v)
    };
    let (plain_json, restarted_json) = (dir.join("plain.json"), dir.join("restarted.json"));
    let (plain_out, plain) = run(&plain_json, &[]);
    let (out, restarted) = run(&restarted_json, &["--restart-at-block", "2"]);
    let header = "restart: the node under test crashes at the start of block 2's slot";
    assert!(out.contains(header), "{out}");
    assert!(!plain_out.contains(header), "{plain_out}");
    assert_eq!(restarted["meta"]["restart_at_block"], 2);
    assert!(plain["meta"].get("restart_at_block").is_none());
    let (p, r) = (&plain["runs"][0], &restarted["runs"][0]);
    let candidates = p["n_cores"].as_u64().unwrap() * p["num_blocks"].as_u64().unwrap();
    for counter in ["imported_candidates", "candidates_approved"] {
        assert_eq!(p["protocol"][counter], candidates, "{counter}");
        assert_eq!(
            r["protocol"][counter], candidates,
            "{counter} with a restart"
        );
    }
    let compared = Command::new(BIN)
        .arg("compare")
        .args([&plain_json, &restarted_json])
        .output()
        .unwrap();
    assert_eq!(compared.status.code(), Some(3), "{compared:?}");
    let err = String::from_utf8_lossy(&compared.stderr);
    assert_eq!(
        err.trim_end(),
        "not comparable: the restart differs: baseline none, current at block 2"
    );
    std::fs::remove_dir_all(&dir).ok();
}
