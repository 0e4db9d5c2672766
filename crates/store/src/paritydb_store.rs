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
//!
//! The store opens only a folder it made: one holding the owner's marker
//! file (`owner::MARKER_FILE`) of this store kind, layout version and
//! configuration, whose `metadata` and every table file the marker lists
//! are there, and whose column still holds the marker (lost with the
//! tables). Before ParityDB writes a commit into its memory-mapped tables,
//! the space they grew into is allocated (`space`), so a full disk is an
//! error, not SIGBUS; the marker's list of table files is kept current.

use crate::owner::{self, Kind, Marker, MARKER_FILE};
use crate::pending::Pending;
use crate::space::Reserved;
use crate::{quiet, Place, StoreLock};
use parity_db::{Db, Operation, Options};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tranche_voting::codec::{decode_row, KvOp, Table, OWNER_KEY, SCHEMA_KEY, TABLES};
use tranche_voting::{DurabilityCounts, Snapshot, Store, StoreError, WriteBatch, SCHEMA_VERSION};

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
    pending: Pending,
    counts: DurabilityCounts,
    /// Notice the folder, or its metadata file, deleted, replaced or
    /// truncated under the node.
    guards: [crate::file_guard::FileGuard; 2],
    /// The table files, allocated for real (`space`).
    reserved: Reserved,
    /// The owner's marker as written in the folder.
    marker: Marker,
    /// Abandoned (a simulated crash) or failed: nothing more is committed,
    /// not even on drop.
    abandoned: bool,
    /// One node per database, held while the store is open.
    _lock: StoreLock,
}

/// The database's options: one btree column, ParityDB's defaults
/// otherwise (`sync_wal` and `sync_data` on), background threads off (the
/// store runs the pipeline itself, see the module's documentation), no
/// statistics file.
fn options(path: &Path) -> Options {
    let mut options = Options::with_columns(path, 1);
    options.columns[COLUMN as usize].btree_index = true;
    options.with_background_thread = false;
    options.stats = false;
    options
}

/// Write the marker into the folder: a new file, synced, renamed over the
/// old one, so that a crash leaves the old marker or the new one.
fn write_marker(dir: &Path, marker: &Marker) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = dir.join(format!("{MARKER_FILE}.new"));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(&marker.encode())?;
    f.sync_all()?;
    std::fs::rename(&tmp, dir.join(MARKER_FILE))?;
    std::fs::File::open(dir)?.sync_all()
}

/// What lies in an existing folder: the marker of a database this tool
/// made for `config`, whose files are all there; why not otherwise.
fn own_folder(dir: &Path, config: Option<&str>) -> Result<Option<Marker>, String> {
    let names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot list it: {e}"))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != &format!("{MARKER_FILE}.new"))
        .collect();
    if names.is_empty() {
        return Ok(None);
    }
    let Some(marker) = std::fs::read(dir.join(MARKER_FILE))
        .ok()
        .and_then(|b| Marker::decode(&b))
    else {
        let mut names = names;
        names.sort();
        return Err(format!(
            "it holds files this tool did not make ({}): not a database of this node",
            owner::short(&names.join(", "))
        ));
    };
    marker.check(Kind::ParityDb, config)?;
    if marker.files.is_empty() && !dir.join("metadata").exists() {
        // Marked, then stopped before ParityDB made anything.
        return Ok(None);
    }
    match std::fs::metadata(dir.join("metadata")) {
        Ok(m) if m.len() > 0 => {}
        Ok(_) => return Err("it is damaged: its metadata file is empty".into()),
        Err(_) => return Err("it is damaged: its metadata file is missing".into()),
    }
    let missing: Vec<&str> = marker
        .files
        .iter()
        .filter(|f| !dir.join(f).exists())
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "it is damaged: table file {} is missing",
            owner::short(&missing.join(", "))
        ));
    }
    Ok(Some(marker))
}

impl ParityDbStore {
    /// Open the database in the folder at `place`, creating it if absent.
    /// Anything else at the path — a file, a folder without this tool's
    /// marker, of another store, layout version or configuration, one
    /// missing a file it had, one in use — is an `Open` error, and it is
    /// left as it is.
    pub fn open(place: impl Into<Place>) -> Result<Self, StoreError> {
        let Place { path, config } = place.into();
        let open_err = |reason: String| StoreError::Open {
            store: PARITY_DB,
            path: crate::owner::shown(&path),
            reason,
        };
        let lock = StoreLock::acquire(&path, PARITY_DB)?;
        let existing =
            match std::fs::symlink_metadata(&path) {
                Ok(m) if !m.is_dir() => return Err(open_err(
                    "it is not a folder, so not a ParityDB database (a database of another store?)"
                        .into(),
                )),
                Ok(_) => own_folder(&path, config.as_deref()).map_err(open_err)?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(open_err(format!("cannot read it: {e}"))),
            };
        let mut reserved = Reserved::default();
        let marker = match existing {
            Some(marker) => {
                // Replaying the logs writes into the tables: their space first.
                reserved.reserve(&path).map_err(open_err)?;
                marker
            }
            None => {
                std::fs::create_dir_all(&path)
                    .map_err(|e| open_err(format!("cannot create it: {e}")))?;
                let marker = Marker::new(Kind::ParityDb, config.as_deref().unwrap_or(""));
                write_marker(&path, &marker)
                    .map_err(|e| open_err(format!("cannot write its {MARKER_FILE}: {e}")))?;
                marker
            }
        };
        let created = marker.files.is_empty() && !path.join("metadata").exists();
        let db = quiet::catch(|| Db::open_or_create(&options(&path)))
            .map_err(|p| open_err(format!("it is damaged (parity-db: {})", owner::short(&p))))?
            .map_err(|e| open_err(format!("parity-db: {}", owner::short(&e.to_string()))))?;
        let mut store = ParityDbStore {
            db,
            guards: [
                crate::file_guard::FileGuard::new(&path, false),
                crate::file_guard::FileGuard::new(&path.join("metadata"), true),
            ],
            path: path.clone(),
            pending: Pending::default(),
            counts: DurabilityCounts::default(),
            reserved,
            marker,
            abandoned: false,
            _lock: lock,
        };
        if created {
            store.write_identity().map_err(open_err)?;
        } else {
            store.check_identity().map_err(open_err)?;
        }
        Ok(store)
    }

    /// A new database's layout version and marker, in its column.
    fn write_identity(&mut self) -> Result<(), String> {
        self.room([64, 256])?;
        let ops = [
            (
                full_key(Table::Meta, SCHEMA_KEY),
                SCHEMA_VERSION.to_le_bytes().to_vec(),
            ),
            (full_key(Table::Meta, OWNER_KEY), self.marker_row()),
        ];
        self.db
            .commit_changes(ops.into_iter().map(|(k, v)| (COLUMN, Operation::Set(k, v))))
            .map_err(|e| e.to_string())?;
        self.drive().map_err(|e| e.to_string())
    }

    /// The column's marker (without the file list, which only the folder's
    /// marker keeps current).
    fn marker_row(&self) -> Vec<u8> {
        Marker {
            files: Default::default(),
            ..self.marker.clone()
        }
        .encode()
    }

    /// An existing database's column must still hold its marker: lost, the
    /// tables were deleted or replaced.
    fn check_identity(&self) -> Result<(), String> {
        let get = |k: &[u8]| {
            self.db.get(COLUMN, &full_key(Table::Meta, k)).map_err(|e| {
                format!(
                    "it is damaged (parity-db: {})",
                    owner::short(&e.to_string())
                )
            })
        };
        if let Some(v) = get(SCHEMA_KEY)? {
            tranche_voting::codec::check_schema(&v)?;
        }
        match get(OWNER_KEY)?.and_then(|m| Marker::decode(&m)) {
            Some(m) if m == Marker { files: Default::default(), ..self.marker.clone() } => Ok(()),
            Some(_) => Err("it is damaged: its column's owner marker differs from its folder's".into()),
            None => Err(
                "it is damaged: its tables lost the owner marker written at creation (table files deleted or replaced?)".into(),
            ),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn backend(&self, what: &'static str, e: impl std::fmt::Display) -> StoreError {
        let mut reason = e.to_string();
        if reason.contains("os error 12") {
            // ENOMEM from mmap: address space, not memory.
            reason.push_str(
                "; ParityDB keeps a table file per value size tier in use and maps \
                 each with 1 GiB of address space (RESERVE_ADDRESS_SPACE in \
                 paritytech/parity-db src/mmap.rs): raise or lift `ulimit -v`",
            );
        }
        StoreError::Backend {
            store: PARITY_DB,
            path: crate::owner::shown(&self.path),
            what,
            reason,
        }
    }

    /// ParityDB's pipeline, run here: the queued commits to the log, the
    /// log to the file (fsynced), the logs to the tables; every
    /// `RECYCLE_EVERY` commits, applied logs recycled (the tables flushed
    /// first). Until a log is recycled, it is what a reopening replays.
    fn drive(&mut self) -> Result<(), String> {
        let e = |e: parity_db::Error| e.to_string();
        self.db.process_commits().map_err(e)?;
        self.db.flush_logs().map_err(e)?;
        self.db.enact_logs().map_err(e)?;
        // What the tables grew into, allocated, and a growth step past
        // each end, for the next commit's writes through the maps; the
        // marker lists new table files.
        if self.reserved.reserve(&self.path)?.new_files {
            self.marker.files = self.reserved.files.keys().cloned().collect();
            write_marker(&self.path, &self.marker)
                .map_err(|e| format!("cannot write its {MARKER_FILE}: {e}"))?;
        }
        if self.counts.commits.is_multiple_of(RECYCLE_EVERY) {
            self.db.clean_logs().map_err(e)?;
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

    /// Whether the file system has room for a commit setting values of
    /// these lengths (`space::room_for`); "No space left on device" if not.
    fn room(&self, values: impl IntoIterator<Item = usize>) -> Result<(), String> {
        let need = crate::space::room_for(values);
        match crate::space::free_bytes(&self.path) {
            Some(free) if free < need => Err(format!(
                "No space left on device ({} KiB free; a commit may grow the tables by {} KiB)",
                free / 1024,
                need / 1024
            )),
            _ => Ok(()),
        }
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
        let ops = self.pending.take();
        let changes = self.resolve(ops)?;
        // Refused before anything is queued: the database stays as the
        // last commit left it, and drops cleanly.
        if let Err(why) = self.room(changes.values().flatten().map(Vec::len)) {
            self.abandoned = true;
            return Err(self.backend("commit", why));
        }
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
            .map_err(|e| e.to_string())
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
        if self.pending.add(batch) {
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
        format!(
            "{PARITY_DB} database at {}",
            crate::owner::shown(&self.path)
        )
    }

    fn load(&mut self) -> Result<Snapshot, StoreError> {
        self.flush()?;
        quiet::read(|| self.describe(), || self.read_all())
    }
}

impl ParityDbStore {
    fn read_all(&self) -> Result<Snapshot, StoreError> {
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
