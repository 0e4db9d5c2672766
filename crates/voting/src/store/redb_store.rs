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

use super::codec::{
    check_schema, chunk_assignments, coalesce, decode_row, to_kv, KvOp, Table, SCHEMA_KEY,
    SCHEMA_VERSION, TABLES,
};
use super::{Snapshot, Store, StoreError, WriteBatch};
use redb::{Database, Durability, ReadableTable, TableDefinition};
use std::path::{Path, PathBuf};

/// Committed once this many table operations are waiting.
pub const WRITE_BEHIND_OPS: usize = 16_384;

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
    db: Database,
    path: PathBuf,
    pending: Vec<KvOp>,
    /// Commit after this many waiting table operations.
    pub write_behind_ops: usize,
    last_fsync: std::time::Instant,
    counts: super::DurabilityCounts,
    /// Notices the file deleted, replaced or truncated under the node.
    guard: super::file_guard::FileGuard,
    /// Abandoned (a simulated crash): nothing more is committed, not even
    /// on drop.
    abandoned: bool,
}

impl RedbStore {
    /// Open the database at `path`, creating it if absent. A file that is
    /// not a redb database, or a damaged one, is an `Open` error.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref().to_path_buf();
        let open_err = |reason: String| StoreError::Open {
            store: REDB,
            path: path.display().to_string(),
            reason,
        };
        if path.is_dir() {
            return Err(open_err(
                "it is a folder, not a redb file (a database of another store?)".into(),
            ));
        }
        // redb reports most damage as errors; guard against a panic on a
        // pathological file all the same so callers always get a value.
        let db = std::panic::catch_unwind(|| Database::create(&path))
            .map_err(|_| open_err("the database file is damaged".into()))?
            .map_err(|e| open_err(e.to_string()))?;
        Self::check_or_write_schema(&db).map_err(open_err)?;
        let store = RedbStore {
            db,
            guard: super::file_guard::FileGuard::new(&path, true),
            path,
            pending: Vec::new(),
            write_behind_ops: WRITE_BEHIND_OPS,
            last_fsync: std::time::Instant::now(),
            counts: super::DurabilityCounts::default(),
            abandoned: false,
        };
        Ok(store)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Check the layout version a database holds; record it in a new one.
    fn check_or_write_schema(db: &Database) -> Result<(), String> {
        let stored = {
            let txn = db.begin_read().map_err(|e| e.to_string())?;
            match txn.open_table(META) {
                Ok(t) => t
                    .get(SCHEMA_KEY)
                    .map_err(|e| e.to_string())?
                    .map(|v| v.value().to_vec()),
                Err(redb::TableError::TableDoesNotExist(_)) => None,
                Err(e) => return Err(e.to_string()),
            }
        };
        if let Some(v) = stored {
            return check_schema(&v);
        }
        let txn = db.begin_write().map_err(|e| e.to_string())?;
        {
            let mut t = txn.open_table(META).map_err(|e| e.to_string())?;
            t.insert(SCHEMA_KEY, SCHEMA_VERSION.to_le_bytes().as_slice())
                .map_err(|e| e.to_string())?;
        }
        txn.commit().map_err(|e| e.to_string())
    }

    fn backend(&self, what: &'static str) -> impl Fn(String) -> StoreError {
        let path = self.path.display().to_string();
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
            .db
            .begin_write()
            .map_err(|e| self.backend("begin write")(e.to_string()))?;
        txn.set_durability(durability);
        // Tables are independent: apply each table's operations in order,
        // opening each table once per commit.
        let ops = chunk_assignments(coalesce(std::mem::take(&mut self.pending)));
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
        for op in batch.ops {
            to_kv(op, &mut self.pending);
        }
        if self.pending.len() >= self.write_behind_ops {
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

    fn durability_counts(&self) -> super::DurabilityCounts {
        self.counts
    }

    fn abandon(&mut self) {
        self.abandoned = true;
        self.pending.clear();
    }

    fn describe(&self) -> String {
        format!("{REDB} database at {}", self.path.display())
    }

    fn load(&mut self) -> Result<Snapshot, StoreError> {
        self.flush()?;
        let txn = self
            .db
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
    }
}
