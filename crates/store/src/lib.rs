//! The databases behind approval voting's `Store` trait
//! (`tranche_voting::Store`): `RedbStore` (an embedded database file) and
//! `ParityDbStore` (Polkadot's parachains database, a folder). The
//! protocol crates link neither; the node does.
//!
//! What this crate owns besides the two stores is what a database path
//! given by a user demands (docs/durability.md, "What the node owns"):
//! - `owner`: the marker a store writes when it creates a database (store
//!   kind, layout version, the run's configuration) and the one rule that
//!   says whether what lies at a path is a database this tool made;
//! - `lock`: one node per database, an exclusive lock taken before
//!   anything at the path is touched, naming the holder's pid;
//! - `clear`: removing a database a previous run left, and nothing else;
//! - `space`: a full disk as an error, never a signal, for ParityDB's
//!   memory-mapped tables;
//! - `quiet`: a panic inside a database library as a value, unprinted.

mod clear;
mod file_guard;
mod lock;
pub mod owner;
mod paritydb_store;
mod pending;
mod quiet;
mod redb_store;
mod space;

pub use clear::clear;
pub use lock::StoreLock;
pub use owner::{Kind, Marker};
pub use paritydb_store::{ParityDbStore, PARITY_DB};
pub use redb_store::{RedbStore, REDB};

use std::path::{Path, PathBuf};

/// Where a database lives and what it is for: the configuration of the
/// run it belongs to, recorded in its marker at creation and required to
/// match when it is opened again (a restart of the same run). A place
/// made from a bare path has none: it opens a database of any
/// configuration (to read one back) and records an empty one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub path: PathBuf,
    pub config: Option<String>,
}

impl Place {
    /// A place for a run of `config` (control characters become spaces:
    /// the marker keeps it on one line).
    pub fn new(path: impl Into<PathBuf>, config: &str) -> Self {
        Place {
            path: path.into(),
            config: Some(owner::one_line(config)),
        }
    }

    fn any(path: impl Into<PathBuf>) -> Self {
        Place {
            path: path.into(),
            config: None,
        }
    }
}

impl From<PathBuf> for Place {
    fn from(path: PathBuf) -> Self {
        Place::any(path)
    }
}

impl From<&PathBuf> for Place {
    fn from(path: &PathBuf) -> Self {
        Place::any(path.clone())
    }
}

impl From<&Path> for Place {
    fn from(path: &Path) -> Self {
        Place::any(path)
    }
}
