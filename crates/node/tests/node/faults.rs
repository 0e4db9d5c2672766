//! Store faults are errors, not losses (docs/durability.md): a store that
//! fails at a chosen point — a write, a commit, a flush, the first write of
//! each kind of record — stops the node with one line naming the store,
//! its path and the cause; the database is left openable, and a node
//! started again on it (the fault gone) approves every block and holds
//! every announcement made before the fault. For redb and ParityDB, in both
//! layouts; and once with a real full file system (a small tmpfs, when
//! this test runs as root).

use crate::common;

use common::*;
use std::collections::BTreeSet;
use std::path::Path;
use tranche_node::{Architecture, Clock, Node, NodeEvent, StoreConfig};
use tranche_primitives::time::DEFAULT_TICKS_PER_SLOT;
use tranche_primitives::Tick;
use tranche_voting::{Fault, FaultPoint};

/// What a node did before it stopped.
#[derive(Default)]
struct Seen {
    /// Announcement lines (see `common::recorded`).
    announced: BTreeSet<String>,
    /// Block numbers reported approved.
    approved: BTreeSet<u32>,
}

impl Seen {
    fn take(&mut self, node: &Node) {
        while let Ok(e) = node.events().try_recv() {
            match e {
                NodeEvent::Send { bytes, .. } => self
                    .announced
                    .extend(item_keys(&bytes).into_iter().filter_map(ours)),
                NodeEvent::BlockApproved { hash, number, .. } => {
                    self.announced.insert(format!("B {} []", hex(&hash)));
                    self.approved.insert(number);
                }
                _ => {}
            }
        }
    }
}

fn span(net: &Net) -> (Tick, Tick) {
    let first = net.blocks[0].block.slot * DEFAULT_TICKS_PER_SLOT;
    let end = net.blocks.last().unwrap().block.slot * DEFAULT_TICKS_PER_SLOT + 40;
    (first, end)
}

/// Run the whole schedule on a node with `store` (virtual time), stopping
/// at its first error; what it announced, and the error.
fn run(net: &Net, arch: Architecture, store: StoreConfig) -> (Seen, Option<String>) {
    run_with(net, arch, store, |_| {})
}

/// After a fault: the database holds every announcement made before it,
/// and a node started again on it approves every block.
fn survives(net: &Net, arch: Architecture, kind: &str, db: &Path, before: &Seen, what: &str) {
    let snap = stored(kind, db);
    for l in &before.announced {
        assert!(
            recorded(&snap, l),
            "{what}: `{l}` was announced but is lost"
        );
    }
    let (after, err) = run(net, arch, store_config(kind, db));
    assert_eq!(err, None, "{what}: the restart failed");
    let all: BTreeSet<u32> = before.approved.union(&after.approved).copied().collect();
    assert_eq!(
        all.len(),
        net.blocks.len(),
        "{what}: approved before {:?}, after {:?}",
        before.approved,
        after.approved
    );
}

/// The message names the store, its path and the cause, on one line.
fn one_line(err: &str, kind: &str, db: &Path, cause: &str, what: &str) {
    assert!(!err.contains('\n'), "{what}: `{err}`");
    assert!(
        err.contains(&format!("{kind} database at {}", db.display())),
        "{what}: `{err}`"
    );
    assert!(err.contains(cause), "{what}: `{err}`");
}

/// Every injected fault point against one store, both layouts.
fn injected_faults(kind: &str) {
    let net = net(20, 4, 3, 3);
    let dir = tempfile::tempdir_in(scratch()).unwrap();
    let points = [
        (FaultPoint::Write, 0),
        (FaultPoint::Write, 30),
        (FaultPoint::Commit, 0),
        (FaultPoint::Commit, 6),
        (FaultPoint::Flush, 0),
        (FaultPoint::Flush, 4),
        (FaultPoint::WriteOf("PutSession"), 0),
        (FaultPoint::WriteOf("PutBlock"), 1),
        (FaultPoint::WriteOf("PutBlockState"), 3),
        (FaultPoint::WriteOf("PutApprovalEntry"), 4),
        (FaultPoint::WriteOf("PutAssignment"), 10),
        (FaultPoint::WriteOf("PutApproval"), 10),
        (FaultPoint::WriteOf("PutWakeup"), 5),
        (FaultPoint::WriteOf("DeleteWakeup"), 2),
        (FaultPoint::WriteOf("PutFinalized"), 0),
        (FaultPoint::WriteOf("DeleteBlock"), 0),
        (FaultPoint::WriteOf("DeleteCandidate"), 0),
    ];
    let mut struck = 0;
    for (i, (point, after)) in points.into_iter().enumerate() {
        for arch in [Architecture::CLASSIC, Architecture::parallel(2)] {
            let what = format!("{kind}, {}, {point:?} after {after}", arch.name());
            let db = dir.path().join(format!("{i}-{}.{kind}", arch.name()));
            let fault = Fault { point, after };
            let faulty = StoreConfig::Faulty(Box::new(store_config(kind, &db)), fault);
            let (before, err) = run(&net, arch, faulty);
            let Some(err) = err else {
                panic!("{what}: the fault never struck");
            };
            one_line(&err, kind, &db, "injected fault", &what);
            struck += 1;
            survives(&net, arch, kind, &db, &before, &what);
        }
    }
    assert_eq!(struck, 34);
}

#[test]
fn injected_store_faults_stop_the_node_and_lose_nothing_redb() {
    injected_faults("redb");
}

#[test]
fn injected_store_faults_stop_the_node_and_lose_nothing_parity_db() {
    injected_faults("parity-db");
}

/// [`run`], with `at_tick(tick)` called after each tick (it may change the
/// file system under the node).
fn run_with(
    net: &Net,
    arch: Architecture,
    store: StoreConfig,
    at_tick: impl FnMut(Tick),
) -> (Seen, Option<String>) {
    run_until(net, arch, store, span(net).1, at_tick)
}

/// [`run_with`] up to tick `end`, then a clean stop.
fn run_until(
    net: &Net,
    arch: Architecture,
    store: StoreConfig,
    end: Tick,
    mut at_tick: impl FnMut(Tick),
) -> (Seen, Option<String>) {
    let first = span(net).0;
    let mut cfg = config(net, arch, Clock::virtual_at(first));
    cfg.store = store;
    let mut node = match Node::start(cfg) {
        Ok(n) => n,
        Err(e) => return (Seen::default(), Some(e.to_string())),
    };
    let mut seen = Seen::default();
    connect(net, &mut node, first, false);
    let mut r = try_drive_ticks(net, &mut node, first, end, |_, tick| at_tick(tick));
    // A whole run ends with block 1 finalized: the finality writes (the
    // finalized number, the pruned block and its candidates' approvals).
    if r.is_ok() && end == span(net).1 {
        let b = &net.blocks[0].block;
        r = node
            .finalize(b.hash, b.number)
            .and_then(|()| node.wait_idle(std::time::Duration::from_secs(60)));
    }
    seen.take(&node);
    let err = r.err().or_else(|| node.check().err());
    // A failure of the last flush, at the stop, counts too.
    let err = match (err, node.shutdown()) {
        (Some(e), _) | (None, Err(e)) => Some(e.to_string()),
        (None, Ok(_)) => None,
    };
    (seen, err)
}

/// A small tmpfs mounted at a temporary folder, unmounted on drop.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// Mount one of `size` (as `mount -o size=` takes it), or say why not.
    fn mount(size: &str) -> Result<Tmpfs, String> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err("not running as root".into());
        }
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount -t tmpfs failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Tmpfs { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Remount read-only (`true`) or read-write.
    fn remount(&self, read_only: bool) {
        let opt = if read_only {
            "remount,ro"
        } else {
            "remount,rw"
        };
        let ok = std::process::Command::new("mount")
            .args(["-o", opt])
            .arg(self.path())
            .status()
            .unwrap()
            .success();
        assert!(ok, "mount -o {opt} failed");
    }

    /// Fill the file system up: a file grown until a write fails (ENOSPC).
    fn fill(&self) -> std::path::PathBuf {
        use std::io::Write;
        let filler = self.path().join("filler");
        let mut f = std::fs::File::create(&filler).unwrap();
        let chunk = vec![0x5au8; 4096];
        while f.write_all(&chunk).is_ok() {}
        let _ = f.flush();
        filler
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.path())
            .status();
    }
}

/// A real full file system under a running node: it stops with one line
/// naming the store, the path and the cause; once there is room again, a
/// node started on the database approves every block and holds every
/// announcement made before. A read-only one (Linux refuses to remount a
/// file system read-only while the node has its database open for writing,
/// so the node is stopped half-way first): the node does not start, with
/// one such line; writable again, a node started on it approves every
/// block and holds every announcement made before.
#[test]
fn a_full_or_read_only_file_system_stops_the_node_and_loses_nothing() {
    // Room for the four databases of each store: ParityDB's tables are
    // allocated for real (10 to 20 MiB each at this size), so that a full disk is
    // an error and never SIGBUS (docs/durability.md).
    let fs = match Tmpfs::mount("256m") {
        Ok(fs) => fs,
        Err(why) => {
            eprintln!("skipped: no tmpfs to fill ({why})");
            return;
        }
    };
    let net = net(20, 4, 3, 3);
    let (first, _) = span(&net);
    let at = first + 8;
    for kind in ["redb", "parity-db"] {
        for (i, arch) in [Architecture::CLASSIC, Architecture::parallel(2)]
            .into_iter()
            .enumerate()
        {
            // Full.
            let db = fs.path().join(format!("full-{i}.{kind}"));
            let mut filler = None;
            let (before, err) = run_with(&net, arch, store_config(kind, &db), |t| {
                if t == at {
                    filler = Some(fs.fill());
                }
            });
            let what = format!("{kind}, {}, full", arch.name());
            let err = err.unwrap_or_else(|| panic!("{what}: the node did not notice"));
            one_line(&err, kind, &db, "No space left on device", &what);
            let filler = filler
                .unwrap_or_else(|| panic!("{what}: stopped before the disk was filled: {err}"));
            std::fs::remove_file(filler).unwrap();
            survives(&net, arch, kind, &db, &before, &what);
            // Read-only.
            let db = fs.path().join(format!("ro-{i}.{kind}"));
            let what = format!("{kind}, {}, read-only", arch.name());
            let (before, err) = run_until(&net, arch, store_config(kind, &db), at, |_| {});
            assert_eq!(err, None, "{what}: before the file system turned read-only");
            fs.remount(true);
            let (_, err) = run_until(&net, arch, store_config(kind, &db), at, |_| {});
            fs.remount(false);
            let err = err.unwrap_or_else(|| panic!("{what}: the node started"));
            assert!(!err.contains('\n'), "{what}: `{err}`");
            assert!(
                err.contains(kind) && err.contains(&db.display().to_string()),
                "{what}: `{err}`"
            );
            assert!(err.contains("Read-only file system"), "{what}: `{err}`");
            survives(&net, arch, kind, &db, &before, &what);
        }
    }
}

/// ParityDB's `metadata` truncated, or every table file deleted, under a
/// running node: it stops at its next commit with one line, and a node
/// started on what is left is refused with one line naming the damage —
/// never a run that ends well on a database that cannot be opened, nor a
/// restart that re-announces nothing.
fn parity_db_damage_under_the_node(net: &Net, dir: &Path, at: Tick) {
    let arch = Architecture::CLASSIC;
    type Harm = fn(&Path);
    let harms: [(&str, Harm, &str, &str); 2] = [
        (
            "metadata truncated",
            |db| {
                std::fs::File::options()
                    .write(true)
                    .open(db.join("metadata"))
                    .unwrap()
                    .set_len(0)
                    .unwrap()
            },
            "was truncated under the running node",
            "metadata file is empty",
        ),
        (
            "every table file deleted",
            |db| {
                for e in std::fs::read_dir(db).unwrap() {
                    let p = e.unwrap().path();
                    if p.file_name()
                        .unwrap()
                        .to_string_lossy()
                        .starts_with("table_")
                    {
                        std::fs::remove_file(p).unwrap();
                    }
                }
            },
            "was deleted under the running node",
            "is missing",
        ),
    ];
    for (i, (harm, apply, during, after)) in harms.into_iter().enumerate() {
        let what = format!("parity-db, {harm}");
        let db = dir.join(format!("damaged-{i}.parity-db"));
        let (_, err) = run_with(net, arch, store_config("parity-db", &db), |t| {
            if t == at {
                apply(&db)
            }
        });
        let err = err.unwrap_or_else(|| panic!("{what}: the node did not notice"));
        one_line(&err, "parity-db", &db, during, &what);
        let (_, err) = run(net, arch, store_config("parity-db", &db));
        let err = err.unwrap_or_else(|| panic!("{what}: a node started on it"));
        assert!(
            !err.contains('\n') && err.contains(after),
            "{what}: `{err}`"
        );
        assert!(err.contains(&db.display().to_string()), "{what}: `{err}`");
    }
}

/// The database deleted, or (redb) truncated, under a running node: the
/// node notices before its next commit and stops with one line naming the
/// store, the path and the cause — it announces nothing more on a file
/// nobody will open again. What was deleted is gone: a node started on
/// the path begins a new database and approves every block; on a
/// truncated file, which redb repairs at the start, too.
#[test]
fn a_database_deleted_or_truncated_under_the_node_stops_it() {
    let net = net(20, 4, 3, 3);
    let (first, _) = span(&net);
    let at = first + 8;
    let dir = tempfile::tempdir_in(scratch()).unwrap();
    for kind in ["redb", "parity-db"] {
        for arch in [Architecture::CLASSIC, Architecture::parallel(2)] {
            let what = format!("{kind}, {}, deleted", arch.name());
            let db = dir.path().join(format!("deleted-{}.{kind}", arch.name()));
            let (_, err) = run_with(&net, arch, store_config(kind, &db), |t| {
                if t == at {
                    match kind {
                        "redb" => std::fs::remove_file(&db).unwrap(),
                        _ => std::fs::remove_dir_all(&db).unwrap(),
                    }
                }
            });
            let err = err.unwrap_or_else(|| panic!("{what}: the node did not notice"));
            one_line(&err, kind, &db, "was deleted under the running node", &what);
            let (after, err) = run(&net, arch, store_config(kind, &db));
            assert_eq!(err, None, "{what}: the restart failed");
            assert_eq!(after.approved.len(), net.blocks.len(), "{what}");
        }
        let arch = Architecture::CLASSIC;
        let what = format!("{kind}, truncated");
        let (db, victim) = match kind {
            "redb" => {
                let db = dir.path().join("truncated.redb");
                (db.clone(), db)
            }
            _ => {
                parity_db_damage_under_the_node(&net, dir.path(), at);
                continue;
            }
        };
        let (before, err) = run_with(&net, arch, store_config(kind, &db), |t| {
            if t == at {
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&victim)
                    .unwrap();
                let len = f.metadata().unwrap().len();
                f.set_len(len / 2).unwrap();
            }
        });
        let err = err.unwrap_or_else(|| panic!("{what}: the node did not notice"));
        one_line(
            &err,
            kind,
            &db,
            "was truncated under the running node",
            &what,
        );
        // redb repairs the file at the start; every block is approved,
        // before the fault or after the restart.
        let (after, err) = run(&net, arch, store_config(kind, &db));
        assert_eq!(err, None, "{what}: the restart failed");
        let all: BTreeSet<u32> = before.approved.union(&after.approved).copied().collect();
        assert_eq!(all.len(), net.blocks.len(), "{what}");
    }
}
