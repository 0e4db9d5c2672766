//! The on-disk message cache. One file per set of generation parameters,
//! named by a hash of them and the format version. The file carries a
//! header (magic, version, key, payload length, BLAKE2b-256 checksum of the
//! payload) so that a truncated, corrupt or foreign file is detected and
//! reported, never trusted.

use super::bundles::Bundle;
use parity_scale_codec::{DecodeAll, Encode};
use std::io::Write;
use std::path::{Path, PathBuf};
use tranche_primitives::Hash;

/// Bump whenever generation or the payload layout changes: old files then
/// stop matching and are regenerated.
pub const FORMAT_VERSION: u32 = 2;
const MAGIC: &[u8; 16] = b"TRANCHE-MSGCACHE";
const HEADER_LEN: usize = 16 + 4 + 32 + 8 + 32;

/// What a cache file holds: every peer bundle in send order.
#[derive(Debug, Clone, PartialEq, Eq, Encode, parity_scale_codec::Decode)]
pub struct GeneratedMessages {
    pub initial_slot: u64,
    pub bundles: Vec<Bundle>,
}

#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a tranche message cache (bad magic bytes)")]
    BadMagic { path: PathBuf },
    #[error("{path} has cache format {found}, this build writes {expected}")]
    Version {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    #[error("{path} was generated for other parameters (key mismatch)")]
    KeyMismatch { path: PathBuf },
    #[error("{path} is truncated: header says {expected} payload bytes, file has {found}")]
    Truncated {
        path: PathBuf,
        expected: u64,
        found: u64,
    },
    #[error("{path} is corrupt: payload checksum mismatch")]
    Checksum { path: PathBuf },
    #[error("{path} is corrupt: payload does not decode ({reason})")]
    Decode { path: PathBuf, reason: String },
    #[error("{path} is {kind}: only a regular file is read")]
    NotRegular { path: PathBuf, kind: String },
    #[error("{path} is corrupt: its header claims {len} payload bytes, more than {max}")]
    TooLarge { path: PathBuf, len: u64, max: u64 },
    #[error("{path} is corrupt: {extra} bytes after the payload")]
    Trailing { path: PathBuf, extra: u64 },
    #[error("{path} is corrupt: {reason}")]
    Invalid { path: PathBuf, reason: String },
}

/// The cache key of a parameter fingerprint.
pub fn cache_key(fingerprint: &[u8]) -> Hash {
    let mut data = b"tranche-message-cache".to_vec();
    data.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    data.extend_from_slice(fingerprint);
    Hash::blake2_256(&data)
}

/// Largest cache payload read (8 GiB): a header claiming more is corrupt.
pub const MAX_PAYLOAD_BYTES: u64 = 8 << 30;

/// Where the cache file of `key` lives in the (per-user) cache folder `dir`.
pub fn cache_path(dir: &Path, key: &Hash) -> PathBuf {
    let hex: String = key.0[..12].iter().map(|b| format!("{b:02x}")).collect();
    dir.join(format!("tranche-messages-{hex}.bin"))
}

/// Why the cache folder cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CacheDirError {
    #[error("cannot create the cache folder {path}: {source}")]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the cache folder {path} is not a folder of ours: {why}")]
    NotOurs { path: PathBuf, why: String },
}

/// This user's cache folder under `root`: `root/tranche-<uid>/`, created
/// with mode 0700 and refused when it is a link, not a folder, owned by
/// someone else, or open to others. Files in a shared `root` such as `/tmp`
/// are thereby out of other local users' reach.
pub fn user_cache_dir(root: &Path) -> Result<PathBuf, CacheDirError> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    let dir = root.join(format!("tranche-{uid}"));
    let create = |e| CacheDirError::Create {
        path: dir.clone(),
        source: e,
    };
    std::fs::create_dir_all(root).map_err(create)?;
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(create(e)),
    }
    let not_ours = |why: String| CacheDirError::NotOurs {
        path: dir.clone(),
        why,
    };
    let meta = std::fs::symlink_metadata(&dir).map_err(create)?;
    if meta.file_type().is_symlink() {
        return Err(not_ours("it is a symbolic link".into()));
    }
    if !meta.is_dir() {
        return Err(not_ours("it is not a folder".into()));
    }
    if meta.uid() != uid {
        return Err(not_ours(format!("it belongs to user {}", meta.uid())));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(not_ours(format!(
            "others may use it (mode {:o})",
            meta.permissions().mode() & 0o777
        )));
    }
    Ok(dir)
}

/// Write atomically: a temporary file created exclusively, with a random
/// name, in the cache folder (never following a planted link), then renamed
/// over `path`. On any error the temporary file is removed.
pub fn store(path: &Path, key: &Hash, messages: &GeneratedMessages) -> std::io::Result<u64> {
    let payload = messages.encode();
    let checksum = Hash::blake2_256(&payload);
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".tranche-messages-")
        .tempfile_in(dir)?;
    {
        let mut f = std::io::BufWriter::new(tmp.as_file_mut());
        f.write_all(MAGIC)?;
        f.write_all(&FORMAT_VERSION.to_le_bytes())?;
        f.write_all(&key.0)?;
        f.write_all(&(payload.len() as u64).to_le_bytes())?;
        f.write_all(&checksum.0)?;
        f.write_all(&payload)?;
        f.flush()?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok((HEADER_LEN + payload.len()) as u64)
}

/// Open `path` for reading only if it is a regular file: a link is not
/// followed, a FIFO or device is not waited on. `Ok(None)` when absent.
fn open_regular(path: &Path) -> Result<Option<(std::fs::File, u64)>, CacheError> {
    use std::os::unix::fs::OpenOptionsExt;
    let io = |source| CacheError::Io {
        path: path.into(),
        source,
    };
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(CacheError::NotRegular {
                path: path.into(),
                kind: "a symbolic link".into(),
            })
        }
        Err(e) => return Err(io(e)),
    };
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        let ft = meta.file_type();
        let kind = if ft.is_dir() {
            "a folder"
        } else {
            "not a regular file"
        };
        return Err(CacheError::NotRegular {
            path: path.into(),
            kind: kind.into(),
        });
    }
    Ok(Some((file, meta.len())))
}

/// Read and validate a cache file's framing. `Ok(None)` when there is no
/// file. The header is read first; then exactly the payload length it
/// states, which must match the file's size (nothing trailing, nothing
/// missing) and stay under [`MAX_PAYLOAD_BYTES`]. The content itself is
/// validated against the configuration by [`super::validate`].
pub fn load(path: &Path, key: &Hash) -> Result<Option<GeneratedMessages>, CacheError> {
    use std::io::Read;
    let Some((mut file, size)) = open_regular(path)? else {
        return Ok(None);
    };
    let io = |source| CacheError::Io {
        path: path.into(),
        source,
    };
    let mut header = [0u8; HEADER_LEN];
    let got = read_up_to(&mut file, &mut header).map_err(io)?;
    let len = check_header(&header[..got], size, key, path)?;
    let mut payload = Vec::with_capacity(len as usize);
    (&mut file)
        .take(len)
        .read_to_end(&mut payload)
        .map_err(io)?;
    decode_payload(&header, &payload, len, path).map(Some)
}

/// The messages of a whole cache file held in memory: the checks of
/// [`load`] without the file (the fuzz target `fuzz/fuzz_targets/message_cache.rs`
/// drives this). `path` names the file in errors.
pub fn decode(bytes: &[u8], key: &Hash, path: &Path) -> Result<GeneratedMessages, CacheError> {
    let header = &bytes[..bytes.len().min(HEADER_LEN)];
    let len = check_header(header, bytes.len() as u64, key, path)?;
    decode_payload(header, &bytes[HEADER_LEN..], len, path)
}

/// Checks the header (`header`: up to [`HEADER_LEN`] bytes, as many as the
/// file has) of a file of `size` bytes; returns the payload length.
fn check_header(header: &[u8], size: u64, key: &Hash, path: &Path) -> Result<u64, CacheError> {
    let p = || path.to_path_buf();
    if header.len() < 16 || &header[..16] != MAGIC {
        return Err(CacheError::BadMagic { path: p() });
    }
    if header.len() < HEADER_LEN {
        return Err(CacheError::Truncated {
            path: p(),
            expected: HEADER_LEN as u64,
            found: header.len() as u64,
        });
    }
    let version = u32::from_le_bytes(header[16..20].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(CacheError::Version {
            path: p(),
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    if header[20..52] != key.0 {
        return Err(CacheError::KeyMismatch { path: p() });
    }
    let len = u64::from_le_bytes(header[52..60].try_into().expect("8 bytes"));
    if len > MAX_PAYLOAD_BYTES {
        return Err(CacheError::TooLarge {
            path: p(),
            len,
            max: MAX_PAYLOAD_BYTES,
        });
    }
    let found = size.saturating_sub(HEADER_LEN as u64);
    if found < len {
        return Err(CacheError::Truncated {
            path: p(),
            expected: len,
            found,
        });
    }
    if found > len {
        return Err(CacheError::Trailing {
            path: p(),
            extra: found - len,
        });
    }
    Ok(len)
}

/// Checks the payload read after a valid `header` against the length and
/// checksum it states, then decodes it.
fn decode_payload(
    header: &[u8],
    payload: &[u8],
    len: u64,
    path: &Path,
) -> Result<GeneratedMessages, CacheError> {
    let p = || path.to_path_buf();
    if payload.len() as u64 != len {
        return Err(CacheError::Truncated {
            path: p(),
            expected: len,
            found: payload.len() as u64,
        });
    }
    if Hash::blake2_256(payload).0 != header[60..92] {
        return Err(CacheError::Checksum { path: p() });
    }
    // parity-scale-codec's errors span lines (one per nested field): joined,
    // so that the error stays one line.
    GeneratedMessages::decode_all(&mut &payload[..]).map_err(|e| CacheError::Decode {
        path: p(),
        reason: e
            .to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    })
}

/// The bytes of a cache file holding `payload` under `key`: the header
/// [`store`] writes, then the payload (for tests and the fuzz target).
pub fn frame(key: &Hash, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&key.0);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&Hash::blake2_256(payload).0);
    out.extend_from_slice(payload);
    out
}

/// Fill `buf` as far as the file allows.
fn read_up_to(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    use std::io::Read;
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> GeneratedMessages {
        GeneratedMessages {
            initial_slot: 7,
            bundles: vec![Bundle {
                block: 0,
                validator: 3,
                assignments: vec![],
                approvals: vec![],
            }],
        }
    }

    /// A fresh cache root and this user's folder in it.
    fn dirs(name: &str) -> (PathBuf, PathBuf) {
        let root = std::env::temp_dir().join(format!("tranche-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let dir = user_cache_dir(&root).unwrap();
        (root, dir)
    }

    #[test]
    fn round_trip_and_every_corruption_is_reported() {
        let (root, dir) = dirs("cache-test");
        let key = cache_key(b"params");
        let path = cache_path(&dir, &key);
        assert!(load(&path, &key).unwrap().is_none());
        store(&path, &key, &sample()).unwrap();
        assert_eq!(load(&path, &key).unwrap(), Some(sample()));
        assert!(matches!(
            load(&path, &cache_key(b"other")),
            Err(CacheError::KeyMismatch { .. })
        ));

        let good = std::fs::read(&path).unwrap();
        // The in-memory decoder agrees with the file reader, and `frame`
        // writes what `store` writes; every prefix is an error, not a panic.
        assert_eq!(frame(&key, &sample().encode()), good);
        let here = Path::new("mem");
        assert_eq!(decode(&good, &key, here).unwrap(), sample());
        for n in 0..good.len() {
            assert!(decode(&good[..n], &key, here).is_err(), "{n}");
        }
        // Found by the message_cache fuzz target: a SCALE error of a nested
        // field is several lines; the cache error must stay one.
        let bad = frame(&key, &[0xe8, 3, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
        let e = decode(&bad, &key, here).unwrap_err().to_string();
        assert!(e.contains("does not decode") && !e.contains('\n'), "{e}");
        std::fs::write(&path, &good[..good.len() - 1]).unwrap();
        assert!(matches!(
            load(&path, &key),
            Err(CacheError::Truncated { .. })
        ));
        let mut trailing = good.clone();
        trailing.extend_from_slice(b"garbage");
        std::fs::write(&path, &trailing).unwrap();
        assert!(matches!(
            load(&path, &key),
            Err(CacheError::Trailing { extra: 7, .. })
        ));
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &flipped).unwrap();
        assert!(matches!(
            load(&path, &key),
            Err(CacheError::Checksum { .. })
        ));
        std::fs::write(&path, b"garbage").unwrap();
        assert!(matches!(
            load(&path, &key),
            Err(CacheError::BadMagic { .. })
        ));
        std::fs::write(&path, &good[..30]).unwrap();
        assert!(matches!(
            load(&path, &key),
            Err(CacheError::Truncated { .. })
        ));
        let mut huge = good.clone();
        huge[52..60].copy_from_slice(&u64::MAX.to_le_bytes());
        std::fs::write(&path, &huge).unwrap();
        assert!(matches!(
            load(&path, &key),
            Err(CacheError::TooLarge { .. })
        ));
        let mut old = good.clone();
        old[16] = 99;
        std::fs::write(&path, &old).unwrap();
        let err = load(&path, &key).unwrap_err().to_string();
        assert!(err.contains("format 99"), "{err}");
        std::fs::remove_dir_all(&root).ok();
    }

    #[test]
    fn links_fifos_and_devices_are_not_read_and_links_not_followed_on_write() {
        let (root, dir) = dirs("cache-links");
        let key = cache_key(b"params");
        let path = cache_path(&dir, &key);
        // A link to a device: refused at once, nothing read.
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        let err = load(&path, &key).unwrap_err();
        assert!(matches!(err, CacheError::NotRegular { .. }), "{err}");
        assert!(err.to_string().contains("symbolic link"), "{err}");
        // Storing replaces the link itself; its target is never written.
        let victim = root.join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        store(&path, &key, &sample()).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert_eq!(load(&path, &key).unwrap(), Some(sample()));
        // A FIFO in place of the file: refused without waiting for a writer.
        std::fs::remove_file(&path).unwrap();
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = load(&path, &key).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        // A folder in place of the file.
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        assert!(load(&path, &key)
            .unwrap_err()
            .to_string()
            .contains("a folder"));
        std::fs::remove_dir_all(&root).ok();
    }

    #[test]
    fn a_shared_or_foreign_cache_folder_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let (root, dir) = dirs("cache-perms");
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = user_cache_dir(&root).unwrap_err().to_string();
        assert!(err.contains("others may use it"), "{err}");
        // A link planted where the folder goes.
        std::fs::remove_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink("/tmp", &dir).unwrap();
        let err = user_cache_dir(&root).unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");
        std::fs::remove_dir_all(&root).ok();
    }
}
