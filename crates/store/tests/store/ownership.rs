//! A store opens only what it made (docs/durability.md, "What the node
//! owns"): a user's file or folder at the path, another program's
//! database, another store kind, layout version or configuration, a
//! database in use, a damaged one — each is refused with one line naming
//! the path and what was found, and left byte for byte as it was.
//! `clear` removes only a database a store made, and of it only the files
//! the store makes.

use crate::common::Driver;
use crate::persistence::{config, keys, play};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tranche_store::{clear, Kind, ParityDbStore, Place, RedbStore};
use tranche_voting::{ApprovalVoting, Snapshot, Store, StoreError};

/// Every file under `p` and its bytes.
fn contents(p: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    if p.is_file() {
        out.insert(p.to_path_buf(), std::fs::read(p).unwrap());
    } else if p.is_dir() {
        for e in std::fs::read_dir(p).unwrap() {
            out.extend(contents(&e.unwrap().path()));
        }
    }
    out
}

fn open(kind: Kind, place: impl Into<Place>) -> Result<Box<dyn Store>, StoreError> {
    Ok(match kind {
        Kind::Redb => Box::new(RedbStore::open(place)?),
        Kind::ParityDb => Box::new(ParityDbStore::open(place)?),
    })
}

/// A database of `kind` at `path` made for `cfg`, holding a played run;
/// what it holds.
fn made(kind: Kind, path: &Path, cfg: &str) -> Snapshot {
    let store = open(kind, Place::new(path, cfg)).unwrap();
    let mut d = Driver::new(ApprovalVoting::new(config(), keys()), store);
    d.now = 119;
    play(&mut d, 120, 140);
    d.store.flush().unwrap();
    d.store.load().unwrap()
}

/// `r` is a one-line `Open` refusal naming `path` and containing `why`,
/// and the path holds what it held before.
fn refused<T>(
    r: Result<T, StoreError>,
    path: &Path,
    why: &str,
    before: &BTreeMap<PathBuf, Vec<u8>>,
) {
    let Err(e) = r else {
        panic!("{} opened", path.display())
    };
    let line = e.to_string();
    assert!(matches!(e, StoreError::Open { .. }), "{line}");
    assert!(!line.contains('\n'), "{line}");
    assert!(line.contains(&path.display().to_string()), "{line}");
    assert!(line.contains(why), "wanted `{why}` in: {line}");
    assert_eq!(&contents(path), before, "{} was touched", path.display());
}

#[test]
fn a_users_file_or_folder_is_refused_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    // A text file where the redb file belongs.
    let text = dir.path().join("approvals.redb");
    let lines: String = (1..=2000).map(|i| format!("{i}\n")).collect();
    std::fs::write(&text, &lines).unwrap();
    let before = contents(&text);
    refused(
        RedbStore::open(&text),
        &text,
        "not a redb database",
        &before,
    );
    refused(
        clear(Kind::Redb, &text).map(drop),
        &text,
        "left as it is",
        &before,
    );
    // An empty file.
    let empty = dir.path().join("empty.redb");
    std::fs::write(&empty, b"").unwrap();
    refused(
        RedbStore::open(&empty),
        &empty,
        "not a redb database",
        &contents(&empty),
    );
    // Another program's redb database.
    let theirs = dir.path().join("theirs.redb");
    {
        let db = redb::Database::create(&theirs).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let t: redb::TableDefinition<&str, u64> = redb::TableDefinition::new("accounts");
            txn.open_table(t).unwrap().insert("alice", 7).unwrap();
        }
        txn.commit().unwrap();
    }
    let before = contents(&theirs);
    refused(RedbStore::open(&theirs), &theirs, "did not make", &before);
    refused(
        clear(Kind::Redb, &theirs).map(drop),
        &theirs,
        "did not make",
        &before,
    );
    // A folder holding a file named `metadata`, and the user's thesis.
    let folder = dir.path().join("approvals.paritydb");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("metadata"), b"notes\n").unwrap();
    std::fs::write(folder.join("thesis.tex"), b"x\n").unwrap();
    let before = contents(&folder);
    refused(
        ParityDbStore::open(&folder),
        &folder,
        "did not make",
        &before,
    );
    refused(
        clear(Kind::ParityDb, &folder).map(drop),
        &folder,
        "no tranche-owner",
        &before,
    );
    // Each store on the other's database.
    let r = dir.path().join("ours.redb");
    let p = dir.path().join("ours.paritydb");
    made(Kind::Redb, &r, "a");
    made(Kind::ParityDb, &p, "a");
    refused(ParityDbStore::open(&r), &r, "not a folder", &contents(&r));
    refused(RedbStore::open(&p), &p, "not a file", &contents(&p));
    refused(
        clear(Kind::ParityDb, &r).map(drop),
        &r,
        "not a folder",
        &contents(&r),
    );
    refused(
        clear(Kind::Redb, &p).map(drop),
        &p,
        "not a file",
        &contents(&p),
    );
}

#[test]
fn another_configuration_is_refused_and_a_restart_of_the_same_opens() {
    let dir = tempfile::tempdir().unwrap();
    for (kind, name) in [(Kind::Redb, "a.redb"), (Kind::ParityDb, "a.paritydb")] {
        let path = dir.path().join(name);
        let held = made(kind, &path, "seed 0; 40 validators");
        let before = contents(&path);
        refused(
            open(kind, Place::new(&path, "seed 1; 40 validators")),
            &path,
            "another configuration",
            &before,
        );
        let again = open(kind, Place::new(&path, "seed 0; 40 validators"))
            .unwrap()
            .load()
            .unwrap();
        assert_eq!(again, held, "{kind}");
        // Read back without a configuration: any.
        assert_eq!(open(kind, path.as_path()).unwrap().load().unwrap(), held);
    }
}

#[test]
fn a_database_in_use_is_refused_naming_its_holder() {
    let dir = tempfile::tempdir().unwrap();
    for (kind, name) in [(Kind::Redb, "a.redb"), (Kind::ParityDb, "a.paritydb")] {
        let path = dir.path().join(name);
        let held = open(kind, path.as_path()).unwrap();
        let pid = format!("pid {}", std::process::id());
        let before = contents(&path);
        refused(open(kind, path.as_path()), &path, &pid, &before);
        refused(clear(kind, &path), &path, &pid, &before);
        drop(held);
        clear(kind, &path).unwrap();
        assert!(!path.exists(), "{kind}: cleared");
    }
}

#[test]
fn clear_removes_only_the_files_a_store_makes() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("approvals.paritydb");
    made(Kind::ParityDb, &p, "a");
    std::fs::write(p.join("thesis.tex"), b"x\n").unwrap();
    let before = contents(&p);
    refused(
        clear(Kind::ParityDb, &p).map(drop),
        &p,
        "thesis.tex",
        &before,
    );
    std::fs::remove_file(p.join("thesis.tex")).unwrap();
    clear(Kind::ParityDb, &p).unwrap();
    assert!(!p.exists());
    let r = dir.path().join("approvals.redb");
    made(Kind::Redb, &r, "a");
    clear(Kind::Redb, &r).unwrap();
    assert!(!r.exists());
}

/// Damage found on opening, named, never trusted: ParityDB's metadata
/// truncated, one table file or all of them deleted; redb's pages
/// overwritten with random bytes.
#[test]
fn damage_is_named_on_opening() {
    let dir = tempfile::tempdir().unwrap();
    let fresh = |name: &str| {
        let p = dir.path().join(name);
        made(Kind::ParityDb, &p, "a");
        p
    };
    let tables = |p: &Path| -> Vec<PathBuf> {
        let mut t: Vec<PathBuf> = std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|f| {
                f.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("table_")
            })
            .collect();
        t.sort();
        t
    };
    let p = fresh("meta.paritydb");
    std::fs::File::options()
        .write(true)
        .open(p.join("metadata"))
        .unwrap()
        .set_len(0)
        .unwrap();
    refused(
        ParityDbStore::open(&p),
        &p,
        "metadata file is empty",
        &contents(&p),
    );
    let p = fresh("one.paritydb");
    let victim = tables(&p).pop().unwrap();
    std::fs::remove_file(&victim).unwrap();
    let name = victim.file_name().unwrap().to_string_lossy().into_owned();
    refused(
        ParityDbStore::open(&p),
        &p,
        &format!("table file {name} is missing"),
        &contents(&p),
    );
    let p = fresh("all.paritydb");
    for t in tables(&p) {
        std::fs::remove_file(t).unwrap();
    }
    refused(ParityDbStore::open(&p), &p, "is missing", &contents(&p));

    let r = dir.path().join("random.redb");
    made(Kind::Redb, &r, "a");
    let mut bytes = std::fs::read(&r).unwrap();
    let mut x = 0x9e37_79b9u32;
    for b in bytes.iter_mut().skip(4096) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x as u8;
    }
    std::fs::write(&r, &bytes).unwrap();
    refused(
        RedbStore::open(&r).and_then(|mut s| s.load()),
        &r,
        "damaged",
        &contents(&r),
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

    /// Random bytes written over a random place of either store's files
    /// give a clean open holding everything the store held (own
    /// announcements included), or a one-line refusal; never a panic,
    /// never a clean open that lost or changed something.
    #[test]
    fn corruption_gives_everything_or_a_refusal(
        parity in proptest::prelude::any::<bool>(),
        file_pick in proptest::prelude::any::<u32>(),
        at in 0.0f64..1.0,
        len in 1usize..64,
        seed in proptest::prelude::any::<u64>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let (kind, path) = if parity {
            (Kind::ParityDb, dir.path().join("a.paritydb"))
        } else {
            (Kind::Redb, dir.path().join("a.redb"))
        };
        let held = made(kind, &path, "a");
        let files: Vec<PathBuf> = contents(&path)
            .into_keys()
            .filter(|f| f.metadata().unwrap().len() > 0)
            .collect();
        let victim = &files[file_pick as usize % files.len()];
        let mut bytes = std::fs::read(victim).unwrap();
        let start = ((bytes.len() as f64) * at) as usize % bytes.len();
        let mut x = seed | 1;
        for b in bytes.iter_mut().skip(start).take(len) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b ^= (x as u8) | 1;
        }
        std::fs::write(victim, &bytes).unwrap();
        match open(kind, Place::new(&path, "a")).and_then(|mut s| s.load()) {
            Ok(snap) => proptest::prop_assert_eq!(snap, held, "{} changed at {}", victim.display(), start),
            Err(e) => proptest::prop_assert!(!e.to_string().contains('\n'), "{}", e),
        }
    }
}
