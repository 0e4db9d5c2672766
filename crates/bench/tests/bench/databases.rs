//! `--db parity-db` beside `--db redb`: the same run on either store
//! approves every block with the same decisions, sends the same bytes and
//! leaves the same records in its database (docs/durability.md); only the
//! database's own counters differ.

use std::process::Command;
use tranche_store::{ParityDbStore, RedbStore};
use tranche_voting::{Snapshot, Store};

const BIN: &str = env!("CARGO_BIN_EXE_tranche");

/// Run examples/default.yaml in virtual time, both layouts, on `db`, the
/// databases kept under `dir/db-<db>`; the report's JSON.
fn run(dir: &std::path::Path, db: &str) -> serde_json::Value {
    let json = dir.join(format!("{db}.json"));
    let out =
        crate::common::default_on_db(db, &dir.join("cache"), &dir.join(format!("db-{db}")), &json)
            .output()
            .unwrap();
    assert!(
        out.status.success(),
        "--db {db}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(&format!("database {db};")), "{stdout}");
    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
}

/// What a run decided and sent: everything of a run but its timings, CPU,
/// memory and the database's own counters.
fn decided(run: &serde_json::Value) -> Vec<String> {
    ["architecture", "blocks", "network", "counts", "protocol"]
        .iter()
        .map(|k| format!("{k}: {}", run[*k]))
        .collect()
}

/// A snapshot without the bytes the node randomises (its own VRF proofs
/// and signatures), and its received assignments in a fixed order (the
/// parallel layout's workers hand them to voting in the order they finish
/// checking them, so their sequence numbers vary from run to run).
fn records(mut s: Snapshot) -> Snapshot {
    for a in &mut s.assignments {
        a.2 = 0;
    }
    s.assignments
        .sort_by_key(|(b, c, _, r)| (*b, *c, r.validator, r.tranche, r.tick));
    for (_, _, e) in &mut s.approval_entries {
        if let Some(a) = &mut e.our_assignment {
            a.cert.vrf.proof = [0; 64];
            a.cert.vrf.pre_output = [0; 32];
        }
        if let Some(v) = &mut e.our_approval {
            v.signature = [0; 64];
        }
    }
    s
}

fn stored(dir: &std::path::Path, db: &str, layout: &str) -> Snapshot {
    let step = std::fs::read_dir(dir.join(format!("db-{db}")))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let folder = step.join(layout);
    records(match db {
        "redb" => RedbStore::open(folder.join("approvals.redb"))
            .unwrap()
            .load()
            .unwrap(),
        _ => ParityDbStore::open(folder.join("approvals.paritydb"))
            .unwrap()
            .load()
            .unwrap(),
    })
}

#[test]
fn parity_db_decides_sends_and_records_as_redb() {
    let dir = std::env::temp_dir().join(format!("tranche-databases-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let redb = run(&dir, "redb");
    let pdb = run(&dir, "parity-db");
    assert_eq!(pdb["meta"]["database"], "parity-db");
    let (a, b) = (
        redb["runs"].as_array().unwrap(),
        pdb["runs"].as_array().unwrap(),
    );
    assert_eq!(a.len(), 2);
    for (x, y) in a.iter().zip(b) {
        for blk in y["blocks"].as_array().unwrap() {
            assert!(blk["approved_tick"].is_u64(), "{blk}");
        }
        assert_eq!(decided(x), decided(y));
        assert!(y["database"]["commits"].as_u64().unwrap() > 0);
    }
    for layout in ["classic", "parallel-4"] {
        let (x, y) = (
            stored(&dir, "redb", layout),
            stored(&dir, "parity-db", layout),
        );
        assert!(!y.blocks.is_empty(), "{layout}: nothing stored");
        let differs = |what: &str, same: bool| {
            assert!(same, "{layout}: the stores hold different {what}");
        };
        differs("sessions", x.sessions == y.sessions);
        differs("finality", x.finalized == y.finalized);
        differs("blocks", x.blocks == y.blocks);
        differs("block states", x.block_states == y.block_states);
        differs("approval entries", x.approval_entries == y.approval_entries);
        // In the parallel layout which late messages reach voting before
        // the run stops varies from run to run, on one store too (two redb
        // runs differ there): the classic layout's are compared.
        if layout == "classic" {
            differs("assignments", x.assignments == y.assignments);
            differs("approvals", x.approvals == y.approvals);
        }
        differs("wakeups", x.wakeups == y.wakeups);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `--db-path` where the step's database is of the other store (a redb
/// file where a ParityDB folder belongs, a folder where a redb file
/// belongs): refused with one line naming the path, nothing removed.
#[test]
fn a_database_of_the_other_store_under_db_path_is_refused_and_kept() {
    let dir = std::env::temp_dir().join(format!("tranche-db-kinds-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let layout = dir.join("db/examples_default_yaml__1_ApprovalVoting/classic");
    std::fs::create_dir_all(layout.join("approvals.redb")).unwrap();
    std::fs::write(layout.join("approvals.redb/keep"), b"x").unwrap();
    std::fs::write(layout.join("approvals.paritydb"), b"a redb file").unwrap();
    for (db, kind) in [
        ("redb", "not a redb database"),
        ("parity-db", "not a ParityDB database"),
    ] {
        // Run from the repository's root: the step's folder is named after
        // the file as given.
        let out = Command::new(BIN)
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .args(["run", "examples/default.yaml", "--clock", "virtual"])
            .args(["--architecture", "classic"])
            .args(["--quiet", "--db", db])
            .arg("--cache-dir")
            .arg(dir.join("cache"))
            .arg("--db-path")
            .arg(dir.join("db"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "--db {db} ran");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(kind) && err.contains("left as it is"), "{err}");
    }
    assert!(layout.join("approvals.redb/keep").is_file());
    assert_eq!(
        std::fs::read(layout.join("approvals.paritydb")).unwrap(),
        b"a redb file"
    );
    std::fs::remove_dir_all(&dir).ok();
}
