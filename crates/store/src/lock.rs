//! One node per database: `StoreLock`, an exclusive advisory lock on the
//! file `<database>.lock` beside the database, taken before anything at
//! the database's path is read, created or removed, and held as long as a
//! store has it open. The holder writes its pid into the file, so that a
//! second run is refused naming it.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use tranche_voting::StoreError;

/// The held lock of one database path; released when dropped.
#[derive(Debug)]
pub struct StoreLock {
    _file: File,
    path: PathBuf,
}

/// The lock file of a database at `db`.
pub fn lock_path(db: &Path) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    db.with_file_name(name)
}

impl StoreLock {
    /// Take the lock of the database at `db` (for messages, `store`), or
    /// say who holds it.
    pub fn acquire(db: &Path, store: &'static str) -> Result<StoreLock, StoreError> {
        let path = lock_path(db);
        let err = |reason: String| StoreError::Open {
            store,
            path: crate::owner::shown(db),
            reason,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| {
                err(format!(
                    "cannot open its lock file {}: {e}",
                    crate::owner::shown(&path)
                ))
            })?;
        if rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_err() {
            let mut held = String::new();
            let _ = file.read_to_string(&mut held);
            let holder = match held.trim().parse::<u32>() {
                Ok(pid) => format!("pid {pid}"),
                Err(_) => "another process".to_owned(),
            };
            return Err(err(format!(
                "it is in use by another node ({holder}, holding {}); wait for that run to end or choose another path",
                crate::owner::shown(&path)
            )));
        }
        // Ours now: say who holds it, over what an earlier holder wrote
        // and then cut to length, so that a reader never finds it empty.
        let pid = std::process::id().to_string();
        let _ = file.rewind();
        let _ = file.write_all(pid.as_bytes());
        let _ = file.set_len(pid.len() as u64);
        let _ = file.flush();
        Ok(StoreLock { _file: file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_naming_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("approvals.redb");
        let held = StoreLock::acquire(&db, "redb").unwrap();
        assert_eq!(held.path(), dir.path().join("approvals.redb.lock"));
        let e = StoreLock::acquire(&db, "redb").unwrap_err().to_string();
        assert!(
            e.contains(&format!("pid {}", std::process::id())) && e.contains("in use"),
            "{e}"
        );
        drop(held);
        StoreLock::acquire(&db, "redb").unwrap();
    }
}
