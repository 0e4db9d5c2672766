//! `clear`: remove the database a previous run left at a path — only one
//! this tool made (its owner's marker says so), and of it only the files
//! its store makes. Anything else there is refused with one line and left
//! as it is: a user's file of the same name, another program's database,
//! a folder holding files a store does not make.

use crate::lock::StoreLock;
use crate::owner::{self, Kind, Marker, MARKER_FILE};
use std::path::Path;
use tranche_voting::StoreError;

/// The files ParityDB makes in its folder (paritytech/parity-db:
/// `metadata`, `lock`, `stats.txt`, `log<N>`, `index_<C>_<B>`,
/// `table_<C>_<T>`), and the owner's marker.
fn made_by_parity_db(name: &str) -> bool {
    matches!(name, "metadata" | "lock" | "stats.txt" | MARKER_FILE)
        || crate::space::is_table_file(name)
        || name
            .strip_prefix("log")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Remove the database of `kind` at `path` if this tool made it (of any
/// configuration or layout version). Nothing there is fine; anything
/// else is an `Open` error naming what was found, and nothing is touched.
pub fn clear(kind: Kind, path: &Path) -> Result<(), StoreError> {
    let err = |reason: String| StoreError::Open {
        store: kind.name(),
        path: crate::owner::shown(path),
        reason: format!("{reason}; left as it is (move it, or choose another path)"),
    };
    let _lock = StoreLock::acquire(path, kind.name())?;
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(err(format!("cannot read it: {e}"))),
    };
    match kind {
        Kind::Redb => {
            if !meta.is_file() {
                return Err(err("it is not a file, so not a redb database".into()));
            }
            let marker = crate::redb_store::marker_of(path).map_err(err)?;
            if marker.kind != Kind::Redb {
                return Err(err(format!("it holds a {} marker", marker.kind)));
            }
            std::fs::remove_file(path).map_err(|e| err(format!("cannot remove it: {e}")))
        }
        Kind::ParityDb => {
            if !meta.is_dir() {
                return Err(err("it is not a folder, so not a ParityDB database".into()));
            }
            let marker = std::fs::read(path.join(MARKER_FILE))
                .ok()
                .and_then(|b| Marker::decode(&b));
            if !matches!(&marker, Some(m) if m.kind == Kind::ParityDb) {
                return Err(err(format!(
                    "it holds no {MARKER_FILE} file of this tool, so it is not a database this node made"
                )));
            }
            remove_parity_db(path).map_err(err)
        }
    }
}

/// Remove the files ParityDB and the marker made in `dir`, then `dir`
/// itself if nothing else is left.
fn remove_parity_db(dir: &Path) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot list it: {e}"))?;
    let mut foreign = Vec::new();
    let mut ours = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot list it: {e}"))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let file = entry.file_type().map(|t| t.is_file()).unwrap_or(false);
        if file && made_by_parity_db(&name) {
            ours.push(entry.path());
        } else {
            foreign.push(name);
        }
    }
    if !foreign.is_empty() {
        foreign.sort();
        return Err(format!(
            "it holds files no store makes ({}), so it was not emptied",
            owner::short(&foreign.join(", "))
        ));
    }
    // The marker last: a removal cut short leaves a folder still marked.
    ours.sort_by_key(|p| p.file_name().is_some_and(|n| n == MARKER_FILE));
    for p in ours {
        std::fs::remove_file(&p)
            .map_err(|e| format!("cannot remove {}: {e}", crate::owner::shown(&p)))?;
    }
    std::fs::remove_dir(dir).map_err(|e| format!("cannot remove it: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parity_db_names() {
        for n in [
            "metadata",
            "lock",
            "log0",
            "log12",
            "table_00_3f",
            "index_00_16",
            MARKER_FILE,
        ] {
            assert!(made_by_parity_db(n), "{n}");
        }
        for n in ["thesis.tex", "log", "logs", "metadata.bak", "log1a"] {
            assert!(!made_by_parity_db(n), "{n}");
        }
    }

    #[test]
    fn nothing_there_is_fine() {
        let dir = tempfile::tempdir().unwrap();
        clear(Kind::Redb, &dir.path().join("approvals.redb")).unwrap();
        clear(Kind::ParityDb, &dir.path().join("approvals.paritydb")).unwrap();
    }
}
