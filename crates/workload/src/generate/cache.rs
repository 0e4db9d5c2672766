//! The on-disk message cache. One file per set of generation parameters,
//! named by a hash of them and the format version. The file carries a
//! header (magic, version, key, payload length, BLAKE2b-256 checksum of the
//! payload) so that a truncated, corrupt or foreign file is detected and
//! reported, never trusted.

use super::bundles::Bundle;
use parity_scale_codec::{Decode, Encode};
use std::io::Write;
use std::path::{Path, PathBuf};
use tranche_primitives::Hash;

/// Bump whenever generation or the payload layout changes: old files then
/// stop matching and are regenerated.
pub const FORMAT_VERSION: u32 = 1;
const MAGIC: &[u8; 16] = b"TRANCHE-MSGCACHE";
const HEADER_LEN: usize = 16 + 4 + 32 + 8 + 32;

/// What a cache file holds: every peer bundle in send order.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
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
}

/// The cache key of a parameter fingerprint.
pub fn cache_key(fingerprint: &[u8]) -> Hash {
    let mut data = b"tranche-message-cache".to_vec();
    data.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    data.extend_from_slice(fingerprint);
    Hash::blake2_256(&data)
}

/// Where the cache file of `key` lives in `dir`.
pub fn cache_path(dir: &Path, key: &Hash) -> PathBuf {
    let hex: String = key.0[..12].iter().map(|b| format!("{b:02x}")).collect();
    dir.join(format!("tranche-messages-{hex}.bin"))
}

/// Write atomically (temporary file, then rename).
pub fn store(path: &Path, key: &Hash, messages: &GeneratedMessages) -> std::io::Result<u64> {
    let payload = messages.encode();
    let checksum = Hash::blake2_256(&payload);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        f.write_all(MAGIC)?;
        f.write_all(&FORMAT_VERSION.to_le_bytes())?;
        f.write_all(&key.0)?;
        f.write_all(&(payload.len() as u64).to_le_bytes())?;
        f.write_all(&checksum.0)?;
        f.write_all(&payload)?;
        f.flush()?;
    }
    std::fs::rename(&tmp, path)?;
    Ok((HEADER_LEN + payload.len()) as u64)
}

/// Read and validate a cache file. `Ok(None)` when there is no file.
pub fn load(path: &Path, key: &Hash) -> Result<Option<GeneratedMessages>, CacheError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(CacheError::Io {
                path: path.into(),
                source,
            })
        }
    };
    let p = || path.to_path_buf();
    if bytes.len() < HEADER_LEN || &bytes[..16] != MAGIC {
        if bytes.len() >= 16 && &bytes[..16] == MAGIC {
            return Err(CacheError::Truncated {
                path: p(),
                expected: HEADER_LEN as u64,
                found: bytes.len() as u64,
            });
        }
        return Err(CacheError::BadMagic { path: p() });
    }
    let version = u32::from_le_bytes(bytes[16..20].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(CacheError::Version {
            path: p(),
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    if bytes[20..52] != key.0 {
        return Err(CacheError::KeyMismatch { path: p() });
    }
    let len = u64::from_le_bytes(bytes[52..60].try_into().expect("8 bytes"));
    let payload = &bytes[HEADER_LEN..];
    if payload.len() as u64 != len {
        return Err(CacheError::Truncated {
            path: p(),
            expected: len,
            found: payload.len() as u64,
        });
    }
    if Hash::blake2_256(payload).0 != bytes[60..92] {
        return Err(CacheError::Checksum { path: p() });
    }
    GeneratedMessages::decode(&mut &payload[..])
        .map(Some)
        .map_err(|e| CacheError::Decode {
            path: p(),
            reason: e.to_string(),
        })
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

    #[test]
    fn round_trip_and_every_corruption_is_reported() {
        let dir = std::env::temp_dir().join(format!("tranche-cache-test-{}", std::process::id()));
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
        std::fs::write(&path, &good[..good.len() - 1]).unwrap();
        assert!(matches!(
            load(&path, &key),
            Err(CacheError::Truncated { .. })
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
        let mut old = good.clone();
        old[16] = 99;
        std::fs::write(&path, &old).unwrap();
        let err = load(&path, &key).unwrap_err().to_string();
        assert!(err.contains("format 99"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
