//! `ParityDbStore`: the store in a ParityDB database (paritytech/parity-db),
//! the database Polkadot's node keeps its parachains data in
//! (`polkadot/node/service/src/parachains_db/mod.rs`,
//! `open_creating_paritydb`): one btree-indexed column holding every
//! table, each key prefixed by its table's byte, as approval voting keeps
//! its records under prefixes in one column there.
//!
//! Batches are kept in memory and committed as one ParityDB commit on
//! `commit`, `flush`, once `WRITE_BEHIND_OPS` operations wait, and on drop.
//! ParityDB's own background threads would return from a commit before it
//! reaches the file (it is queued, then written to a log that is fsynced
//! and applied only once 64 MiB have gathered: `MIN_LOG_SIZE_BYTES` in
//! paritytech/parity-db `src/db.rs`), which no announcement could wait
//! for; so this store runs ParityDB's pipeline itself, on the caller's
//! thread, at every commit: queue the commit, write it to the log, fsync
//! the log (`sync_wal`), apply it to the tables and, every
//! `RECYCLE_EVERY` commits, flush the tables and recycle the applied logs
//! (`sync_data`). A commit
//! that has returned therefore survives a process crash and a power loss
//! alike (docs/durability.md). Each batch is committed whole; of the
//! writes to one key between two commits only the last is applied.

use super::codec::{
    chunk_assignments, coalesce, decode_row, to_kv, KvOp, Table, SCHEMA_KEY, SCHEMA_VERSION, TABLES,
};
use super::{DurabilityCounts, Snapshot, Store, StoreError, WriteBatch};
use parity_db::{Db, Operation, Options};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Committed once this many table operations are waiting.
pub const WRITE_BEHIND_OPS: usize = 16_384;

/// Applied logs are recycled (the tables flushed first) once this many
/// commits have gathered, rather than at every commit: each recycling
/// costs fsyncs of every table file and of the log. Each commit leaves one
/// applied log, and ParityDB waits for its cleanup thread (which this
/// store does not run) once more than four are waiting (`MAX_LOG_FILES`
/// in paritytech/parity-db `src/db.rs`): so at most four.
pub const RECYCLE_EVERY: u64 = 4;

/// The column approval voting's records live in.
const COLUMN: u8 = 0;

/// What the store calls itself in messages.
pub const PARITY_DB: &str = "parity-db";

/// A table's key prefix.
fn prefix(t: Table) -> u8 {
    TABLES.iter().position(|x| *x == t).unwrap_or(0) as u8
}

fn table_of(byte: u8) -> Option<Table> {
    TABLES.get(byte as usize).copied()
}

fn full_key(t: Table, key: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(key.len() + 1);
    k.push(prefix(t));
    k.extend_from_slice(key);
    k
}

/// Approval voting's state in a ParityDB database (a folder).
pub struct ParityDbStore {
    db: Db,
    path: PathBuf,
    pending: Vec<KvOp>,
    /// Commit after this many waiting table operations.
    pub write_behind_ops: usize,
    counts: DurabilityCounts,
    /// Notice the folder, or its metadata file, deleted or replaced under
    /// the node.
    guards: [super::file_guard::FileGuard; 2],
    /// Abandoned (a simulated crash) or failed: nothing more is committed,
    /// not even on drop.
    abandoned: bool,
}

/// The database's options: one btree column, ParityDB's defaults
/// otherwise (`sync_wal` and `sync_data` on), background threads off (the
/// store runs the pipeline itself, see the module's documentation).
fn options(path: &Path) -> Options {
    let mut options = Options::with_columns(path, 1);
    options.columns[COLUMN as usize].btree_index = true;
    options.with_background_thread = false;
    options
}

impl ParityDbStore {
    /// Open the database in the folder `path`, creating it if absent. A
    /// path that is not a ParityDB folder of this layout (a file, another
    /// store's folder, another column layout, another schema version) is
    /// an `Open` error.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref().to_path_buf();
        let open_err = |reason: String| StoreError::Open {
            store: PARITY_DB,
            path: path.display().to_string(),
            reason,
        };
        if path.exists() && !path.is_dir() {
            return Err(open_err(
                "it is a file, not a ParityDB folder (a database of another store?)".into(),
            ));
        }
        let db = std::panic::catch_unwind(|| Db::open_or_create(&options(&path)))
            .map_err(|_| open_err("the database is damaged".into()))?
            .map_err(|e| open_err(e.to_string()))?;
        let store = ParityDbStore {
            db,
            guards: [
                super::file_guard::FileGuard::new(&path, false),
                super::file_guard::FileGuard::new(&path.join("metadata"), false),
            ],
            path: path.clone(),
            pending: Vec::new(),
            write_behind_ops: WRITE_BEHIND_OPS,
            counts: DurabilityCounts::default(),
            abandoned: false,
        };
        let key = full_key(Table::Meta, SCHEMA_KEY);
        match store.db.get(COLUMN, &key) {
            Ok(Some(v)) => super::codec::check_schema(&v).map_err(open_err)?,
            Ok(None) => {
                store
                    .db
                    .commit_changes([(
                        COLUMN,
                        Operation::Set(key, SCHEMA_VERSION.to_le_bytes().to_vec()),
                    )])
                    .and_then(|()| store.drive())
                    .map_err(|e| open_err(e.to_string()))?;
            }
            Err(e) => return Err(open_err(e.to_string())),
        }
        Ok(store)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn backend(&self, what: &'static str, e: impl std::fmt::Display) -> StoreError {
        StoreError::Backend {
            store: PARITY_DB,
            path: self.path.display().to_string(),
            what,
            reason: e.to_string(),
        }
    }

    /// ParityDB's pipeline, run here: the queued commits to the log, the
    /// log to the file (fsynced), the logs to the tables; every
    /// `RECYCLE_EVERY` commits, applied logs recycled (the tables flushed
    /// first). Until a log is recycled, it is what a reopening replays.
    fn drive(&self) -> parity_db::Result<()> {
        self.db.process_commits()?;
        self.db.flush_logs()?;
        self.db.enact_logs()?;
        if self.counts.commits.is_multiple_of(RECYCLE_EVERY) {
            self.db.clean_logs()?;
        }
        Ok(())
    }

    /// The final value of each key this commit touches (`None`: deleted),
    /// prefix deletes resolved against the database and the earlier
    /// operations of the commit.
    fn resolve(&self, ops: Vec<KvOp>) -> Result<BTreeMap<Vec<u8>, Option<Vec<u8>>>, StoreError> {
        let mut out: BTreeMap<Vec<u8>, Option<Vec<u8>>> = BTreeMap::new();
        for op in ops {
            match op {
                KvOp::Put(t, k, v) => {
                    out.insert(full_key(t, &k), Some(v));
                }
                KvOp::Delete(t, k) => {
                    out.insert(full_key(t, &k), None);
                }
                KvOp::DeletePrefix(t, p) => {
                    let p = full_key(t, &p);
                    for (_, v) in out
                        .range_mut(p.clone()..)
                        .take_while(|(k, _)| k.starts_with(&p))
                    {
                        *v = None;
                    }
                    let mut it = self
                        .db
                        .iter(COLUMN)
                        .map_err(|e| self.backend("iterate", e))?;
                    it.seek(&p).map_err(|e| self.backend("seek", e))?;
                    while let Some((k, _)) = it.next().map_err(|e| self.backend("iterate", e))? {
                        if !k.starts_with(&p) {
                            break;
                        }
                        out.insert(k, None);
                    }
                }
            }
        }
        Ok(out)
    }

    fn commit_now(&mut self) -> Result<(), StoreError> {
        if self.pending.is_empty() || self.abandoned {
            return Ok(());
        }
        if let Some(why) = self.guards.iter().find_map(|g| g.check().err()) {
            self.abandoned = true;
            return Err(self.backend("commit", why));
        }
        self.counts.commits += 1;
        self.counts.fsyncs += 1;
        let ops = chunk_assignments(coalesce(std::mem::take(&mut self.pending)));
        let changes = self.resolve(ops)?;
        let r = self
            .db
            .commit_changes(changes.into_iter().map(|(k, v)| {
                (
                    COLUMN,
                    match v {
                        Some(v) => Operation::Set(k, v),
                        None => Operation::Dereference(k),
                    },
                )
            }))
            .and_then(|()| self.drive());
        if let Err(e) = r {
            // What failed may be half in the log: commit nothing more, so
            // that the files hold the commits before this one (the log's
            // checksums drop a half-written record on the next open).
            self.abandoned = true;
            return Err(self.backend("commit", e));
        }
        Ok(())
    }
}

impl Store for ParityDbStore {
    fn write(&mut self, batch: WriteBatch) -> Result<(), StoreError> {
        for op in batch.ops {
            to_kv(op, &mut self.pending);
        }
        if self.pending.len() >= self.write_behind_ops {
            self.commit_now()?;
        }
        Ok(())
    }

    fn commit(&mut self) -> Result<(), StoreError> {
        self.commit_now()
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        self.commit_now()
    }

    fn durability_counts(&self) -> DurabilityCounts {
        self.counts
    }

    fn abandon(&mut self) {
        self.abandoned = true;
        self.pending.clear();
    }

    fn describe(&self) -> String {
        format!("{PARITY_DB} database at {}", self.path.display())
    }

    fn load(&mut self) -> Result<Snapshot, StoreError> {
        self.flush()?;
        let mut snap = Snapshot::default();
        let mut it = self
            .db
            .iter(COLUMN)
            .map_err(|e| self.backend("iterate", e))?;
        it.seek_to_first().map_err(|e| self.backend("seek", e))?;
        while let Some((k, v)) = it
            .next()
            .map_err(|e| StoreError::Corrupt(format!("{PARITY_DB}: {e}")))?
        {
            let Some((&t, key)) = k.split_first() else {
                return Err(StoreError::Corrupt("an empty key".into()));
            };
            let table = table_of(t)
                .ok_or_else(|| StoreError::Corrupt(format!("a key of unknown table {t}")))?;
            decode_row(&mut snap, table, key, &v)?;
        }
        Ok(snap)
    }
}

impl Drop for ParityDbStore {
    fn drop(&mut self) {
        let _ = self.commit_now();
    }
}
