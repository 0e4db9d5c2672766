//! The property of the `lz4_decompress` fuzz target: the vendored LZ4
//! block decompression (`lz4::block::decompress`, `crates/lz4-block`, what
//! parity-db reads a compressed value of the store with) on any bytes. The
//! first byte picks the form: even, the rest is a block with its four-byte
//! size prefix (`decompress(_, None)`); odd, the next four bytes are the
//! size given apart (`decompress(_, Some(size))`) and the rest the block.
//! It may refuse (an `io::Error` with a one-line message), never panic,
//! never allocate for a size the block cannot hold; what it accepts is
//! exactly the size asked for, and compresses and decompresses back to
//! itself.
//!
//! Not a module of the fuzz crate's library: the fuzz target and
//! `crates/lz4-block/tests/fuzz_corpus.rs` include this file by `#[path]`.

#![allow(dead_code)]

use lz4::block::{compress, decompress, MAX_RATIO};

/// Target name and check, for the corpus replay.
pub type Target = (&'static str, fn(&[u8]) -> bool);

/// Every target of this file.
pub const TARGETS: &[Target] = &[("lz4_decompress", lz4_decompress)];

/// Decompresses `data` in the form its first byte picks. Returns whether
/// it was accepted.
pub fn lz4_decompress(data: &[u8]) -> bool {
    let Some((&form, rest)) = data.split_first() else {
        return false;
    };
    let (result, size, body) = if form % 2 == 0 {
        let size = rest
            .get(..4)
            .map(|p| i32::from_le_bytes(p.try_into().unwrap()));
        (decompress(rest, None), size, rest.get(4..).unwrap_or(&[]))
    } else {
        let Some((prefix, body)) = rest.split_first_chunk::<4>() else {
            return false;
        };
        let size = i32::from_le_bytes(*prefix);
        (decompress(body, Some(size)), Some(size), body)
    };
    match result {
        Ok(out) => {
            assert_eq!(Some(out.len() as i32), size, "another size than asked");
            assert!(
                out.len() <= body.len() * MAX_RATIO,
                "more than a block holds"
            );
            let packed = compress(&out, None, true).expect("compresses");
            assert_eq!(decompress(&packed, None).expect("its own block"), out);
            true
        }
        Err(e) => {
            let line = e.to_string();
            assert!(!line.is_empty() && !line.contains('\n'), "{line:?}");
            false
        }
    }
}
