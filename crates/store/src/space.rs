//! A full disk as an error, never a signal. ParityDB grows a value table
//! by extending its file (`set_len`, a hole) and writes into it through a
//! memory map, both while it applies a commit to the tables
//! (paritytech/parity-db `src/table.rs`, `ValueTable::enact_plan`;
//! `src/file.rs`, `TableFile::grow`): on a full file system the first
//! write into the hole kills the process with SIGBUS, and nothing between
//! the growth and the write can be hooked. So two guards stand before it:
//! - before a commit is queued, the store asks the file system for the
//!   room the commit could need (`room_for`: a growth step for each size
//!   tier its values may land in, new files included, and twice its
//!   bytes); without it the commit is refused with ENOSPC's words, and
//!   nothing is queued;
//! - after each commit, `Reserved::reserve` allocates every table file for
//!   real (`fallocate`) to its length and one growth step past its end
//!   (`KEEP_SIZE`), so that the next growth of an existing table extends
//!   into space that is already there.
//!
//! It also lists the table files, for the owner's marker and to notice
//! one deleted under the node.

use std::collections::BTreeMap;
use std::path::Path;

/// Whether a file of a ParityDB folder is one of its memory-mapped tables.
pub fn is_table_file(name: &str) -> bool {
    name.starts_with("table_") || name.starts_with("index_")
}

/// The table files of a ParityDB folder and the length each is allocated to.
#[derive(Debug, Default)]
pub struct Reserved {
    pub files: BTreeMap<String, u64>,
}

/// What `reserve` found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// Table files that appeared since the last call.
    pub new_files: bool,
}

impl Reserved {
    /// Allocate every table file of `dir` to its length. A file known
    /// before and gone now is an error, as is a failed allocation (the
    /// message of the OS error: "No space left on device").
    pub fn reserve(&mut self, dir: &Path) -> Result<Found, String> {
        let mut found = Found::default();
        let known_before = self.files.len();
        let mut seen = 0;
        let entries = std::fs::read_dir(dir)
            .map_err(|e| format!("cannot list {}: {e}", crate::owner::shown(dir)))?;
        for entry in entries {
            let entry =
                entry.map_err(|e| format!("cannot list {}: {e}", crate::owner::shown(dir)))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if !is_table_file(&name) {
                continue;
            }
            let len = entry
                .metadata()
                .map_err(|e| format!("cannot stat {name}: {e}"))?
                .len();
            let known = self.files.get(&name).copied();
            if known.is_some() {
                seen += 1;
            } else {
                found.new_files = true;
            }
            if !matches!(known, Some(k) if k >= len) {
                allocate(&entry.path(), len).map_err(|e| format!("cannot reserve {name}: {e}"))?;
                self.files.insert(name, len);
            }
        }
        if seen < known_before {
            let gone: Vec<&str> = self
                .files
                .keys()
                .filter(|f| !dir.join(f).exists())
                .map(String::as_str)
                .collect();
            return Err(format!(
                "table file {} was deleted under the running node",
                gone.join(", ")
            ));
        }
        Ok(found)
    }
}

/// Allocate the file at `path` to `len` bytes and one growth step past
/// its end (without changing its length).
fn allocate(path: &Path, len: u64) -> std::io::Result<()> {
    use rustix::fs::{fallocate, FallocateFlags};
    let file = std::fs::OpenOptions::new().write(true).open(path)?;
    if len > 0 {
        fallocate(&file, FallocateFlags::empty(), 0, len)?;
    }
    fallocate(&file, FallocateFlags::KEEP_SIZE, len, GROW_BYTES)?;
    Ok(())
}

/// The bytes an unprivileged process may still write on the file system
/// holding `dir` (`None`: unknown).
pub fn free_bytes(dir: &Path) -> Option<u64> {
    let s = rustix::fs::statvfs(dir).ok()?;
    Some(s.f_bavail.saturating_mul(s.f_frsize))
}

/// ParityDB grows a table file by this much at a time
/// (`GROW_SIZE_BYTES` in paritytech/parity-db `src/file.rs`).
pub const GROW_BYTES: u64 = 256 * 1024;

/// The size tiers a value table may hold (`SIZE_TIERS` in
/// paritytech/parity-db `src/column.rs`).
const SIZE_TIERS: u64 = 256;

/// The most a commit of `values` (the lengths of the values it sets) can
/// make ParityDB's tables grow: a growth step for every size tier it may
/// create or grow (each distinct length lands in at most one tier; the
/// btree's rewritten nodes in up to 16 more), and twice the bytes it sets
/// (a tier that grows by more than one step). Existing tables already
/// hold one step past their end (`Reserved::reserve`).
pub fn room_for(values: impl IntoIterator<Item = usize>) -> u64 {
    let mut lengths = std::collections::BTreeSet::new();
    let mut bytes = 0u64;
    for len in values {
        lengths.insert(len);
        bytes += len as u64;
    }
    let tiers = (lengths.len() as u64 + 16).min(SIZE_TIERS);
    tiers * GROW_BYTES + 2 * bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holes_are_allocated_and_a_deleted_table_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("table_00_01");
        std::fs::File::create(&t).unwrap().set_len(1 << 16).unwrap();
        std::fs::write(dir.path().join("metadata"), b"m").unwrap();
        let mut r = Reserved::default();
        assert_eq!(r.reserve(dir.path()).unwrap(), Found { new_files: true });
        assert_eq!(r.files.len(), 1);
        assert_eq!(r.reserve(dir.path()).unwrap(), Found { new_files: false });
        std::fs::remove_file(&t).unwrap();
        let e = r.reserve(dir.path()).unwrap_err();
        assert!(e.contains("table_00_01 was deleted"), "{e}");
    }
}
