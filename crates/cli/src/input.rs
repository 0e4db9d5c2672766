//! The one way user files are read: a regular file only (a FIFO is not
//! waited on, a device not drained), stopping at a size limit instead of
//! reading until memory runs out.

use crate::text::path as shown;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest input file read (test sequence, scenario, conformance file).
pub const MAX_INPUT_FILE_BYTES: u64 = 64 << 20;

/// Why a user file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("cannot read {}: {source}", shown(path))]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is {kind}, not a regular file", shown(path))]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error("{} is larger than {max} bytes", shown(path))]
    TooLarge { path: PathBuf, max: u64 },
    #[error("{} is not UTF-8 text", shown(path))]
    NotText { path: PathBuf },
}

/// Read a user file as text: regular files only (links are followed, but
/// what they lead to must be a regular file), at most `max` bytes.
pub fn read_text(path: &Path, max: u64) -> Result<String, InputError> {
    let io = |source| InputError::Io {
        path: path.into(),
        source,
    };
    let file = open_regular(path, max)?;
    let mut bytes = Vec::with_capacity(file.metadata().map_or(0, |m| m.len()) as usize);
    file.take(max + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(InputError::TooLarge {
            path: path.into(),
            max,
        });
    }
    String::from_utf8(bytes).map_err(|_| InputError::NotText { path: path.into() })
}

/// Open a user file to be read as a stream: a regular file (links are
/// followed, but what they lead to must be one) of at most `max` bytes
/// now; the reader bounds what it reads itself (`take(max + 1)`).
pub fn open_regular(path: &Path, max: u64) -> Result<std::fs::File, InputError> {
    let io = |source| InputError::Io {
        path: path.into(),
        source,
    };
    let file = open_nonblocking(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        let kind = if meta.is_dir() {
            "a folder"
        } else {
            "a device, FIFO or socket"
        };
        return Err(InputError::NotRegular {
            path: path.into(),
            kind,
        });
    }
    if meta.len() > max {
        return Err(InputError::TooLarge {
            path: path.into(),
            max,
        });
    }
    Ok(file)
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: opening a FIFO without a writer returns at once.
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bounded_regular_text_files_are_read() {
        let d = std::env::temp_dir().join(format!("tranche-input-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let f = d.join("a.yaml");
        std::fs::write(&f, "abc").unwrap();
        assert_eq!(read_text(&f, 10).unwrap(), "abc");
        let e = read_text(&f, 2).unwrap_err().to_string();
        assert!(e.contains("larger than 2 bytes"), "{e}");
        assert!(read_text(&d, 10)
            .unwrap_err()
            .to_string()
            .contains("a folder"));
        let e = read_text(Path::new("/dev/zero"), 10)
            .unwrap_err()
            .to_string();
        assert!(e.contains("a device, FIFO or socket"), "{e}");
        let link = d.join("zero.yaml");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(read_text(&link, 10).is_err());
        std::fs::write(&f, [0xff, 0xfe]).unwrap();
        assert!(read_text(&f, 10)
            .unwrap_err()
            .to_string()
            .contains("not UTF-8"));
        let e = read_text(&d.join("absent"), 10).unwrap_err().to_string();
        assert!(e.contains("cannot read") && e.contains("absent"), "{e}");
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn a_path_is_named_escaped_and_cut() {
        let long = format!("/nonexistent/\u{1b}]0;pwn\u{7}{}", "A".repeat(5_000));
        let e = read_text(Path::new(&long), 10).unwrap_err().to_string();
        assert!(!e.contains('\u{1b}') && !e.contains('\u{7}'), "{e}");
        assert!(e.contains("\\u{1b}]0;pwn\\u{7}AAA"), "{e}");
        assert!(e.len() < 200 && e.contains("… (5 021 bytes)"), "{e}");
    }
}
