//! Persistence: a run interrupted half-way (machine and database dropped,
//! database reopened, state restored) ends in the same state, at the same
//! approval ticks, as an uninterrupted one; a damaged database gives a clear
//! error, never a panic.

use crate::common;

use common::*;
use tranche_primitives::{Tick, ValidatorIndex};

use tranche_store::{ParityDbStore, RedbStore};
use tranche_voting::{
    Action, ApprovalVoting, Config, LocalKeys, MemoryStore, Snapshot, Store, StoreError, Table,
};

enum Msg {
    Assign(u32, Vec<u32>, u32),
    Approve(u32, Vec<u32>),
}

fn schedule() -> Vec<(Tick, Msg)> {
    use Msg::*;
    vec![
        (120, Assign(2, vec![0, 1], 0)),
        (120, Assign(3, vec![0], 0)),
        (121, Assign(4, vec![1], 0)),
        (121, Assign(5, vec![0, 1], 0)),
        (122, Approve(2, vec![0, 1])),
        (123, Approve(3, vec![0])),
        // -- interrupted here --
        (126, Assign(6, vec![0], 2)),
        (127, Approve(6, vec![0])),
        (130, Approve(4, vec![1])),
        // validator 5 never approves: a no-show at 145, covered by 6 (tranche 2).
        (150, Assign(7, vec![1], 3)),
        (151, Approve(7, vec![1])),
    ]
}

const SPLIT: Tick = 124;
const END: Tick = 220;

pub(crate) fn config() -> Config {
    Config {
        check_delay_ticks: 4,
        ..Config::default()
    }
}

pub(crate) fn keys() -> Option<LocalKeys> {
    Some(local_keys(9))
}

fn session_spec() -> SessionSpec {
    SessionSpec {
        n_validators: 12,
        n_cores: 2,
        needed: 3,
        coalesce: 3,
        n_delay_tranches: 1,
        real_keys: true,
        ..Default::default()
    }
}

pub(crate) fn play<S: Store>(d: &mut Driver<S>, from: Tick, to: Tick) {
    let s = session(session_spec());
    for t in from..=to {
        d.at(t);
        if t == 120 {
            d.block(block("A", 1, "genesis", 10, &s, 2));
            d.poll();
        }
        for (_, m) in schedule().into_iter().filter(|(mt, _)| *mt == t) {
            match m {
                Msg::Assign(v, c, tr) => {
                    d.assign(assignment("A", v, &c, tr));
                }
                Msg::Approve(v, c) => {
                    d.approve(approval("A", v, &c));
                }
            }
        }
    }
}

/// Approval ticks and our vote ticks of a run.
fn decisions<S: Store>(d: &Driver<S>) -> (Option<Tick>, Option<Tick>, Option<Tick>, Vec<Tick>) {
    let votes = d
        .log
        .iter()
        .filter(|(_, a)| matches!(a, Action::DistributeApproval(_)))
        .map(|(t, _)| *t)
        .collect();
    (
        d.candidate_approved_at("A", 0),
        d.candidate_approved_at("A", 1),
        d.block_approved_at("A"),
        votes,
    )
}

/// Signatures and VRF proofs are randomised; everything else must be equal.
fn normalise(mut s: Snapshot) -> Snapshot {
    for (_, _, e) in &mut s.approval_entries {
        if let Some(a) = &mut e.our_approval {
            a.signature = [0; 64];
        }
        if let Some(a) = &mut e.our_assignment {
            a.cert.vrf.proof = [0; 64];
        }
    }
    s
}

#[test]
fn reopened_database_reaches_the_same_state_and_approval_ticks() {
    let mut whole = Driver::new(ApprovalVoting::new(config(), keys()), MemoryStore::new());
    whole.now = 119;
    play(&mut whole, 120, END);
    let expected = decisions(&whole);
    assert!(
        expected.0.is_some() && expected.1.is_some(),
        "the schedule approves both: {expected:?}"
    );
    assert!(!expected.3.is_empty(), "we voted");

    // At 122 our check is still running; at 124 our vote waits to coalesce.
    for split in [122, SPLIT] {
        interrupted_run_matches(split, &whole, &expected, |p| RedbStore::open(p).unwrap());
        interrupted_run_matches(split, &whole, &expected, |p| {
            ParityDbStore::open(p).unwrap()
        });
    }
}

fn interrupted_run_matches<S: Store>(
    split: Tick,
    whole: &Driver<MemoryStore>,
    expected: &(Option<Tick>, Option<Tick>, Option<Tick>, Vec<Tick>),
    open: impl Fn(&std::path::Path) -> S,
) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("approvals.db");
    let mut first = Driver::new(ApprovalVoting::new(config(), keys()), open(&path));
    first.now = 119;
    play(&mut first, 120, split);
    assert!(first.m.next_wakeup().is_some());
    let log_before = std::mem::take(&mut first.log);
    drop(first);

    let mut store = open(&path);
    let snap = store.load().unwrap();
    let restored = ApprovalVoting::restore(config(), keys(), snap).unwrap();
    let mut second = Driver::new(restored, store);
    second.now = split;
    second.log = log_before;
    play(&mut second, split + 1, END);
    assert_eq!(
        &decisions(&second),
        expected,
        "interrupted after tick {split}"
    );

    let a = normalise(whole.store.clone().load().unwrap());
    let b = normalise(second.store.load().unwrap());
    assert_eq!(a, b);
}

#[test]
fn memory_store_round_trips_through_restore() {
    let mut d = Driver::new(ApprovalVoting::new(config(), keys()), MemoryStore::new());
    d.now = 119;
    play(&mut d, 120, SPLIT);
    let snap = d.store.load().unwrap();
    let m = ApprovalVoting::restore(config(), keys(), snap.clone()).unwrap();
    assert_eq!(m.sizes(), d.m.sizes());
    assert_eq!(m.next_wakeup(), d.m.next_wakeup());
    for i in 0..2 {
        assert_eq!(
            m.candidate_status(SPLIT, &hash("A"), i),
            d.m.candidate_status(SPLIT, &hash("A"), i)
        );
    }
}

#[test]
fn finality_prunes_the_database() {
    let mut d = Driver::new(ApprovalVoting::new(config(), keys()), MemoryStore::new());
    d.now = 119;
    play(&mut d, 120, 130);
    assert!(d.store.rows(Table::Assignments) > 0);
    d.finalize("A", 1);
    for t in [
        Table::Blocks,
        Table::BlockStates,
        Table::ApprovalEntries,
        Table::Assignments,
        Table::Approvals,
        Table::Wakeups,
    ] {
        assert_eq!(d.store.rows(t), 0, "{t:?} emptied");
    }
    let m = ApprovalVoting::restore(config(), keys(), d.store.load().unwrap()).unwrap();
    assert_eq!(m.sizes(), (0, 0));
    assert_eq!(m.finalized_number(), Some(1));
}

/// Finality prunes a ParityDB database as it does the others: prefix
/// deletes reach what the same commit wrote.
#[test]
fn finality_prunes_a_parity_db_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("approvals.paritydb");
    let mut d = Driver::new(
        ApprovalVoting::new(config(), keys()),
        ParityDbStore::open(&path).unwrap(),
    );
    d.now = 119;
    play(&mut d, 120, 130);
    // Half committed, half waiting when the block is pruned.
    d.store.commit().unwrap();
    play(&mut d, 131, 133);
    assert!(!d.store.load().unwrap().assignments.is_empty());
    d.finalize("A", 1);
    drop(d);
    let snap = ParityDbStore::open(&path).unwrap().load().unwrap();
    assert!(snap.blocks.is_empty() && snap.assignments.is_empty() && snap.wakeups.is_empty());
    assert!(snap.approval_entries.is_empty() && snap.approvals.is_empty());
    assert_eq!(snap.finalized.0, Some(1));
}

/// A database of the other store, or of another layout version, opened
/// as one: an `Open` error naming the store, the path and the cause, and
/// the database is left as it was (it opens again with its own store).
#[test]
fn another_store_or_version_is_a_clear_open_error() {
    let dir = tempfile::tempdir().unwrap();
    let redb = dir.path().join("approvals.redb");
    let pdb = dir.path().join("approvals.paritydb");
    for path in [&redb, &pdb] {
        let mut d = if path == &redb {
            Driver::new(
                ApprovalVoting::new(config(), keys()),
                Box::new(RedbStore::open(path).unwrap()) as Box<dyn Store>,
            )
        } else {
            Driver::new(
                ApprovalVoting::new(config(), keys()),
                Box::new(ParityDbStore::open(path).unwrap()) as Box<dyn Store>,
            )
        };
        d.now = 119;
        play(&mut d, 120, 124);
    }
    let expect_open = |r: Result<(), StoreError>, store: &str, path: &std::path::Path| {
        let e = r.expect_err("opened a database of another kind");
        let line = e.to_string();
        assert!(matches!(e, StoreError::Open { .. }), "{line}");
        assert!(line.contains(store), "{line}");
        assert!(line.contains(&path.display().to_string()), "{line}");
        assert!(!line.contains('\n'), "{line}");
    };
    expect_open(ParityDbStore::open(&redb).map(drop), "parity-db", &redb);
    expect_open(RedbStore::open(&pdb).map(drop), "redb", &pdb);
    // Both still open with their own store and hold their blocks.
    assert_eq!(
        RedbStore::open(&redb).unwrap().load().unwrap().blocks.len(),
        1
    );
    assert_eq!(
        ParityDbStore::open(&pdb)
            .unwrap()
            .load()
            .unwrap()
            .blocks
            .len(),
        1
    );
    // Another layout version.
    {
        let db = redb::Database::create(&redb).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let def: redb::TableDefinition<&[u8], &[u8]> = redb::TableDefinition::new("meta");
            let mut t = txn.open_table(def).unwrap();
            t.insert(b"schema".as_slice(), 99u32.to_le_bytes().as_slice())
                .unwrap();
        }
        txn.commit().unwrap();
    }
    let e = RedbStore::open(&redb).map(drop).unwrap_err().to_string();
    assert!(e.contains("version 99") && e.contains("redb"), "{e}");
}

#[test]
fn garbage_file_is_a_clear_open_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("junk.redb");
    std::fs::write(&path, vec![0xa5u8; 10_000]).unwrap();
    match RedbStore::open(&path) {
        Err(StoreError::Open {
            path: p, reason, ..
        }) => {
            assert!(p.ends_with("junk.redb"));
            assert!(!reason.is_empty());
        }
        Err(e) => panic!("unexpected error kind {e}"),
        Ok(_) => panic!("garbage opened as a database"),
    }
}

#[test]
fn truncated_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("approvals.redb");
    {
        let mut d = Driver::new(
            ApprovalVoting::new(config(), keys()),
            RedbStore::open(&path).unwrap(),
        );
        d.now = 119;
        play(&mut d, 120, 140);
        d.store.flush().unwrap();
    }
    let len = std::fs::metadata(&path).unwrap().len();
    for keep in [len / 2, 100, 0] {
        let cut = dir.path().join(format!("cut-{keep}.redb"));
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&cut, &bytes[..keep as usize]).unwrap();
        let outcome = RedbStore::open(&cut)
            .and_then(|mut s| s.load())
            .and_then(|snap| ApprovalVoting::restore(config(), keys(), snap).map(|m| m.sizes()));
        match outcome {
            Err(e) => {
                eprintln!("truncated to {keep} of {len} bytes: {e}");
                assert!(!e.to_string().is_empty())
            }
            // An empty file is a new, empty database.
            Ok(sizes) => assert!(
                keep == 0 && sizes == (0, 0),
                "truncated to {keep} bytes restored {sizes:?}"
            ),
        }
    }
}

#[test]
fn corrupt_records_are_typed_errors() {
    let mut d = Driver::new(ApprovalVoting::new(config(), keys()), MemoryStore::new());
    d.now = 119;
    play(&mut d, 120, 130);
    let mut bad_block = d.store.clone();
    bad_block.put_raw(Table::Blocks, hash("A").0.to_vec(), vec![1, 2, 3]);
    assert!(matches!(bad_block.load(), Err(StoreError::Corrupt(m)) if m.contains("blocks")));

    let mut bad_key = d.store.clone();
    bad_key.put_raw(Table::Wakeups, vec![1, 2], 5u64.to_le_bytes().to_vec());
    assert!(matches!(bad_key.load(), Err(StoreError::Corrupt(m)) if m.contains("wakeups")));

    // Decodes, but refers to a validator the session does not have.
    let mut bad_ref = d.store.clone();
    let mut key = hash("A").0.to_vec();
    key.extend_from_slice(&0u32.to_be_bytes());
    key.extend_from_slice(&999u32.to_be_bytes());
    let rec = tranche_voting::AssignmentRecord {
        validator: ValidatorIndex(77),
        tranche: 0,
        tick: 120,
    };
    bad_ref.put_sealed(
        Table::Assignments,
        key,
        parity_scale_codec::Encode::encode(&rec),
    );
    let snap = bad_ref.load().unwrap();
    assert!(
        matches!(ApprovalVoting::restore(config(), keys(), snap), Err(StoreError::Corrupt(m)) if m.contains("out of range"))
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]

    /// Any row replaced by arbitrary bytes gives a value or a typed error
    /// when loading and restoring, never a panic.
    #[test]
    fn damaged_rows_never_panic(
        table in 0usize..8,
        row in 0usize..64,
        bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..80),
    ) {
        let mut d = Driver::new(ApprovalVoting::new(config(), keys()), MemoryStore::new());
        d.now = 119;
        play(&mut d, 120, 126);
        let table = tranche_voting::TABLES[table];
        let rows = d.store.keys(table);
        let mut store = d.store.clone();
        match rows.get(row % rows.len().max(1)) {
            Some(k) => store.put_raw(table, k.clone(), bytes),
            None => store.put_raw(table, bytes.clone(), bytes),
        }
        if let Ok(snap) = store.load() {
            if let Ok(mut m) = ApprovalVoting::restore(config(), keys(), snap) {
                // The restored machine keeps running.
                for t in 127..200 {
                    let _ = m.tick(t);
                }
            }
        }
    }
}
