//! `RedbStore`: the store in a `redb` database file. Batches are kept in
//! memory and committed as one write transaction on `commit` (the group
//! commit, once per tick; redb `Durability::Eventual`, which
//! survives a crash of the process), on `flush` (`Durability::Immediate`:
//! fsynced, survives a power loss), once `WRITE_BEHIND_OPS` operations are
//! waiting, and when the store is dropped. A `commit` is fsynced too when
//! the last fsync is older than `FSYNC_INTERVAL`. Each batch is committed
//! whole, so a crash loses a suffix of batches, never part of one; of the
//! writes to one key between two commits only the last is applied. The
//! promise this keeps is written in docs/durability.md.
//!
//! The store opens only a database it made: a file that starts with
//! redb's header, whose `meta` table holds the owner's marker of this
//! store kind, layout version and configuration (`owner`); and only one
//! that passes redb's own integrity check (`Database::check_integrity`,
//! every page's checksum). Anything else is refused with one line and
//! left as it is.

use crate::owner::{self, Kind, Marker};
use crate::pending::Pending;
use crate::quiet;
use crate::{Place, StoreLock};
use redb::{Database, Durability, ReadableTable, TableDefinition};
use std::path::{Path, PathBuf};
use tranche_voting::codec::{check_schema, decode_row, KvOp, Table, OWNER_KEY, SCHEMA_KEY, TABLES};
use tranche_voting::{Snapshot, Store, StoreError, WriteBatch, SCHEMA_VERSION};

/// A commit is fsynced when the last fsync is older than this: the bound
/// on what a power loss can take of the imports.
pub const FSYNC_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);

const META: TableDefinition<&[u8], &[u8]> = TableDefinition::new("meta");
const SESSIONS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("sessions");
const BLOCKS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("blocks");
const BLOCK_STATES: TableDefinition<&[u8], &[u8]> = TableDefinition::new("block_states");
const APPROVAL_ENTRIES: TableDefinition<&[u8], &[u8]> = TableDefinition::new("approval_entries");
const ASSIGNMENTS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("assignments");
const APPROVALS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("approvals");
const WAKEUPS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("wakeups");

fn def(t: Table) -> TableDefinition<'static, &'static [u8], &'static [u8]> {
    match t {
        Table::Meta => META,
        Table::Sessions => SESSIONS,
        Table::Blocks => BLOCKS,
        Table::BlockStates => BLOCK_STATES,
        Table::ApprovalEntries => APPROVAL_ENTRIES,
        Table::Assignments => ASSIGNMENTS,
        Table::Approvals => APPROVALS,
        Table::Wakeups => WAKEUPS,
    }
}

fn kv_table(op: &KvOp) -> Table {
    match op {
        KvOp::Put(t, _, _) | KvOp::Delete(t, _) | KvOp::DeletePrefix(t, _) => *t,
    }
}

/// What the store calls itself in messages.
pub const REDB: &str = "redb";

/// Approval voting's state in a redb file.
pub struct RedbStore {
    /// `None` only while it is dropped: redb checks its allocator state as
    /// it closes, which can panic on a file damaged under it, so it is
    /// closed inside [`quiet::catch`].
    db: Option<Database>,
    path: PathBuf,
    pending: Pending,
    last_fsync: std::time::Instant,
    counts: tranche_voting::DurabilityCounts,
    /// Notices the file deleted, replaced or truncated under the node.
    guard: crate::file_guard::FileGuard,
    /// Abandoned (a simulated crash): nothing more is committed, not even
    /// on drop.
    abandoned: bool,
    /// One node per database, held while the store is open.
    _lock: StoreLock,
}

/// Open an existing redb file, a panic inside redb taken as damage.
fn open_db(path: &Path) -> Result<Database, String> {
    quiet::catch(|| Database::open(path))
        .map_err(|p| format!("it is damaged (redb: {})", owner::short(&p)))?
        .map_err(|e| match e {
            redb::DatabaseError::DatabaseAlreadyOpen => {
                "it is in use by another process (redb's file lock)".to_owned()
            }
            e => format!(
                "it is damaged or not readable (redb: {})",
                owner::short(&e.to_string())
            ),
        })
}

/// The owner's marker in an open database's `meta` table, and its layout
/// version record.
fn identity(db: &Database) -> Result<(Option<Marker>, Option<Vec<u8>>), String> {
    let txn = db.begin_read().map_err(|e| e.to_string())?;
    let t = match txn.open_table(META) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok((None, None)),
        Err(e) => return Err(e.to_string()),
    };
    let get = |k: &[u8]| -> Result<Option<Vec<u8>>, String> {
        Ok(t.get(k)
            .map_err(|e| e.to_string())?
            .map(|v| v.value().to_vec()))
    };
    Ok((
        get(OWNER_KEY)?.and_then(|m| Marker::decode(&m)),
        get(SCHEMA_KEY)?,
    ))
}

/// The marker of the redb database at `path` (an existing file), read
/// without changing it; why it is not one this tool made otherwise.
pub(crate) fn marker_of(path: &Path) -> Result<Marker, String> {
    owner::redb_header(path)?;
    let db = open_db(path)?;
    // Closed inside the catch too: redb checks its allocator state as it
    // closes, and a damaged file can panic there.
    let (marker, schema) = quiet::catch(move || {
        let read = identity(&db);
        drop(db);
        read
    })
    .unwrap_or_else(Err)
    .map_err(|e| format!("it is damaged (redb: {})", owner::short(&e)))?;
    if let Some(v) = schema {
        check_schema(&v)?;
    }
    marker.ok_or_else(|| "it is a redb database this tool did not make (no owner marker)".into())
}

impl RedbStore {
    /// The open database (absent only while the store is dropped).
    fn db(&self) -> Result<&Database, StoreError> {
        self.db
            .as_ref()
            .ok_or_else(|| self.backend("open")("the database is closed".into()))
    }

    /// Open the database at `place`, creating it if absent. Anything else
    /// at the path — not a file, not a redb database, one without this
    /// tool's marker, of another store, layout version or configuration,
    /// a damaged one, one in use — is an `Open` error, and it is left as
    /// it is.
    pub fn open(place: impl Into<Place>) -> Result<Self, StoreError> {
        let Place { path, config } = place.into();
        let open_err = |reason: String| StoreError::Open {
            store: REDB,
            path: crate::owner::shown(&path),
            reason,
        };
        let lock = StoreLock::acquire(&path, REDB)?;
        let db = match std::fs::symlink_metadata(&path) {
            Ok(m) if !m.is_file() => {
                return Err(open_err(
                    "it is not a file, so not a redb database (a database of another store?)"
                        .into(),
                ))
            }
            Ok(_) => Self::open_own(&path, config.as_deref()).map_err(open_err)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Self::create(&path, config.as_deref().unwrap_or("")).map_err(open_err)?
            }
            Err(e) => return Err(open_err(format!("cannot read it: {e}"))),
        };
        Ok(RedbStore {
            db: Some(db),
            guard: crate::file_guard::FileGuard::new(&path, true),
            path,
            pending: Pending::default(),
            last_fsync: std::time::Instant::now(),
            counts: tranche_voting::DurabilityCounts::default(),
            abandoned: false,
            _lock: lock,
        })
    }

    /// Open a database this tool made for `config`, checked whole.
    fn open_own(path: &Path, config: Option<&str>) -> Result<Database, String> {
        let marker = marker_of(path)?;
        marker.check(Kind::Redb, config)?;
        let mut db = open_db(path)?;
        let why = match quiet::catch(|| db.check_integrity()) {
            Ok(Ok(true)) => return Ok(db),
            Ok(Ok(false)) => "it is damaged: redb's integrity check failed and rewrote what it could, which may have dropped commits, so it is not trusted".to_owned(),
            Ok(Err(e)) => format!("it is damaged (redb: {})", owner::short(&e.to_string())),
            Err(p) => format!("it is damaged (redb: {})", owner::short(&p)),
        };
        // A damaged file can panic as redb closes it.
        let _ = quiet::catch(move || drop(db));
        Err(why)
    }

    /// Create a database at `path` with its layout version and marker.
    fn create(path: &Path, config: &str) -> Result<Database, String> {
        let db = Database::create(path).map_err(|e| e.to_string())?;
        let txn = db.begin_write().map_err(|e| e.to_string())?;
        {
            let mut t = txn.open_table(META).map_err(|e| e.to_string())?;
            t.insert(SCHEMA_KEY, SCHEMA_VERSION.to_le_bytes().as_slice())
                .map_err(|e| e.to_string())?;
            let marker = Marker::new(Kind::Redb, config).encode();
            t.insert(OWNER_KEY, marker.as_slice())
                .map_err(|e| e.to_string())?;
        }
        txn.commit().map_err(|e| e.to_string())?;
        Ok(db)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Commit after this many waiting table operations (`usize::MAX`:
    /// only when asked).
    pub fn set_write_behind_ops(&mut self, n: usize) {
        self.pending.limit = n;
    }

    fn backend(&self, what: &'static str) -> impl Fn(String) -> StoreError {
        let path = crate::owner::shown(&self.path);
        move |reason| StoreError::Backend {
            store: REDB,
            path: path.clone(),
            what,
            reason,
        }
    }

    /// Commit what waits; after a failure nothing more is committed, so
    /// that the file holds the commits before the failed one.
    fn commit_with(&mut self, durability: Durability) -> Result<(), StoreError> {
        let r = self.commit_txn(durability);
        if r.is_err() {
            self.abandon();
        }
        r
    }

    fn commit_txn(&mut self, durability: Durability) -> Result<(), StoreError> {
        if self.pending.is_empty() || self.abandoned {
            return Ok(());
        }
        self.guard.check().map_err(self.backend("commit"))?;
        self.counts.commits += 1;
        if matches!(durability, Durability::Immediate) {
            self.counts.fsyncs += 1;
            self.last_fsync = std::time::Instant::now();
        }
        let mut txn = self
            .db()?
            .begin_write()
            .map_err(|e| self.backend("begin write")(e.to_string()))?;
        txn.set_durability(durability);
        // Tables are independent: apply each table's operations in order,
        // opening each table once per commit.
        let ops = self.pending.take();
        for t in TABLES {
            let mut mine = ops.iter().filter(|op| kv_table(op) == t).peekable();
            if mine.peek().is_none() {
                continue;
            }
            let mut table = txn
                .open_table(def(t))
                .map_err(|e| self.backend("open table")(e.to_string()))?;
            for op in mine {
                match op {
                    KvOp::Put(_, k, v) => {
                        table
                            .insert(k.as_slice(), v.as_slice())
                            .map_err(|e| self.backend("insert")(e.to_string()))?;
                    }
                    KvOp::Delete(_, k) => {
                        table
                            .remove(k.as_slice())
                            .map_err(|e| self.backend("remove")(e.to_string()))?;
                    }
                    KvOp::DeletePrefix(_, p) => {
                        let mut doomed = Vec::new();
                        for row in table
                            .range::<&[u8]>(p.as_slice()..)
                            .map_err(|e| self.backend("range")(e.to_string()))?
                        {
                            let (k, _) = row.map_err(|e| self.backend("range")(e.to_string()))?;
                            if !k.value().starts_with(p) {
                                break;
                            }
                            doomed.push(k.value().to_vec());
                        }
                        for k in doomed {
                            table
                                .remove(k.as_slice())
                                .map_err(|e| self.backend("remove")(e.to_string()))?;
                        }
                    }
                }
            }
        }
        txn.commit()
            .map_err(|e| self.backend("commit")(e.to_string()))?;
        self.guard.committed();
        Ok(())
    }
}

impl Store for RedbStore {
    fn write(&mut self, batch: WriteBatch) -> Result<(), StoreError> {
        if self.pending.add(batch) {
            self.commit()?;
        }
        Ok(())
    }

    fn commit(&mut self) -> Result<(), StoreError> {
        if self.last_fsync.elapsed() >= FSYNC_INTERVAL {
            self.commit_with(Durability::Immediate)
        } else {
            self.commit_with(Durability::Eventual)
        }
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        self.commit_with(Durability::Immediate)
    }

    fn durability_counts(&self) -> tranche_voting::DurabilityCounts {
        self.counts
    }

    fn abandon(&mut self) {
        self.abandoned = true;
        self.pending.clear();
    }

    fn describe(&self) -> String {
        format!("{REDB} database at {}", crate::owner::shown(&self.path))
    }

    fn load(&mut self) -> Result<Snapshot, StoreError> {
        self.flush()?;
        // redb can panic on a damaged page the integrity check at opening
        // did not reach (written since): damage, named, not a backtrace.
        quiet::read(|| self.describe(), || self.read_all())
    }
}

impl RedbStore {
    fn read_all(&self) -> Result<Snapshot, StoreError> {
        let txn = self
            .db()?
            .begin_read()
            .map_err(|e| self.backend("begin read")(e.to_string()))?;
        let mut snap = Snapshot::default();
        for t in TABLES {
            let table = match txn.open_table(def(t)) {
                Ok(table) => table,
                Err(redb::TableError::TableDoesNotExist(_)) => continue,
                Err(e) => return Err(StoreError::Corrupt(format!("table {}: {e}", t.name()))),
            };
            let rows = table
                .iter()
                .map_err(|e| StoreError::Corrupt(format!("table {}: {e}", t.name())))?;
            for row in rows {
                let (k, v) =
                    row.map_err(|e| StoreError::Corrupt(format!("table {}: {e}", t.name())))?;
                decode_row(&mut snap, t, k.value(), v.value())?;
            }
        }
        Ok(snap)
    }
}

impl Drop for RedbStore {
    fn drop(&mut self) {
        let _ = self.commit_with(Durability::Immediate);
        if let Some(db) = self.db.take() {
            // Closing checks the allocator state: a damaged file can panic.
            let _ = quiet::catch(move || drop(db));
        }
    }
}
