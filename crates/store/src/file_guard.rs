//! `FileGuard`: notices a database's file deleted, replaced or truncated
//! under the running node. A store on a deleted file keeps writing, without
//! an error, into a file nobody will open again — announcements made then
//! would be lost at the next start — so each store checks, before each
//! commit, that its path still names the file it opened (device and inode)
//! and that the file is no shorter than its last commit left it.

use std::path::{Path, PathBuf};

/// The identity and length of one file (or folder) of a database.
#[derive(Debug)]
pub(crate) struct FileGuard {
    path: PathBuf,
    /// (device, inode) when opened.
    id: Option<(u64, u64)>,
    /// Its length after our last commit (files only; `None`: unchecked).
    len: Option<u64>,
}

fn identity(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        None
    }
}

impl FileGuard {
    /// Guard `path` as it is now; `track_len`: also notice it shrinking.
    pub fn new(path: &Path, track_len: bool) -> Self {
        let m = std::fs::metadata(path).ok();
        FileGuard {
            path: path.to_path_buf(),
            id: m.as_ref().and_then(identity),
            len: m.filter(|_| track_len).map(|m| m.len()),
        }
    }

    /// The reason the file is no longer the one opened, if it is not.
    pub fn check(&self) -> Result<(), String> {
        let m = match std::fs::metadata(&self.path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(format!(
                    "{} was deleted under the running node",
                    crate::owner::shown(&self.path)
                ))
            }
            Err(e) => {
                return Err(format!(
                    "cannot stat {}: {e}",
                    crate::owner::shown(&self.path)
                ))
            }
        };
        if self.id.is_some() && identity(&m) != self.id {
            return Err(format!(
                "{} was replaced under the running node",
                crate::owner::shown(&self.path)
            ));
        }
        if let Some(len) = self.len {
            if m.len() < len {
                return Err(format!(
                    "{} was truncated under the running node ({} bytes, {len} after the last commit)",
                    crate::owner::shown(&self.path),
                    m.len()
                ));
            }
        }
        Ok(())
    }

    /// Note the file's length after a commit.
    pub fn committed(&mut self) {
        if self.len.is_some() {
            self.len = std::fs::metadata(&self.path).ok().map(|m| m.len());
        }
    }
}
