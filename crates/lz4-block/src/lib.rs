//! The part of crates.io's `lz4` 1.28 that parity-db calls —
//! `lz4::block::compress` and `lz4::block::decompress` (paritytech/parity-db
//! `src/compress.rs`) — over lz4_flex, a pure-Rust implementation of the
//! same LZ4 block format, so that the workspace builds no C (the real
//! crate compiles liblz4 through lz4-sys). Blocks are byte-compatible: a
//! size prefix of four bytes, little-endian, then one LZ4 block, which
//! either implementation reads.

pub mod block {
    use std::io::{Error, ErrorKind, Result};

    /// How hard to compress. Only the default is implemented: lz4_flex has
    /// one (fast) mode, and every mode writes the same format, so the
    /// others compress as the default does.
    #[derive(Clone, Copy, Debug, Default)]
    pub enum CompressionMode {
        HIGHCOMPRESSION(i32),
        FAST(i32),
        #[default]
        DEFAULT,
    }

    /// Compress `src` into one LZ4 block, preceded by its length (four
    /// bytes, little-endian) when `prepend_size`.
    pub fn compress(
        src: &[u8],
        _mode: Option<CompressionMode>,
        prepend_size: bool,
    ) -> Result<Vec<u8>> {
        if src.len() > i32::MAX as usize {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "Compression input too long.",
            ));
        }
        Ok(if prepend_size {
            lz4_flex::block::compress_prepend_size(src)
        } else {
            lz4_flex::block::compress(src)
        })
    }

    /// The most bytes one byte of an LZ4 block can stand for: a match's
    /// length grows by at most 255 per extension byte, a token and its
    /// offset (three bytes) stand for at most 19 of a match, a literal for
    /// itself.
    pub const MAX_RATIO: usize = 255;

    /// Decompress one LZ4 block of `uncompressed_size` bytes, or (`None`)
    /// of the length in its first four bytes. A size the block cannot
    /// hold (more than [`MAX_RATIO`] times its bytes: a damaged prefix) is
    /// an error before anything is allocated for it.
    pub fn decompress(src: &[u8], uncompressed_size: Option<i32>) -> Result<Vec<u8>> {
        let (size, body) = match uncompressed_size {
            Some(s) => (s, src),
            None => {
                let Some((prefix, body)) = src.split_first_chunk::<4>() else {
                    return Err(Error::new(
                        ErrorKind::InvalidInput,
                        "Source buffer must at least contain size prefix.",
                    ));
                };
                (i32::from_le_bytes(*prefix), body)
            }
        };
        let size = usize::try_from(size)
            .map_err(|_| Error::new(ErrorKind::InvalidInput, "Size must not be negative."))?;
        if size > body.len().saturating_mul(MAX_RATIO) {
            return Err(Error::new(
                ErrorKind::InvalidData,
                format!(
                    "Size {size} is more than a block of {} bytes can hold.",
                    body.len()
                ),
            ));
        }
        let out = lz4_flex::block::decompress(body, size)
            .map_err(|e| Error::new(ErrorKind::InvalidData, e.to_string()))?;
        if out.len() != size {
            return Err(Error::new(
                ErrorKind::InvalidData,
                "Decompressed size differs from the size given.",
            ));
        }
        Ok(out)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn round_trips_with_and_without_the_size_prefix() {
            let data: Vec<u8> = (0..10_000u32)
                .flat_map(|i| (i % 97).to_le_bytes())
                .collect();
            let packed = compress(&data, Some(CompressionMode::DEFAULT), true).unwrap();
            assert!(packed.len() < data.len() / 2, "{} bytes", packed.len());
            assert_eq!(&packed[..4], &(data.len() as u32).to_le_bytes());
            assert_eq!(decompress(&packed, None).unwrap(), data);
            let bare = compress(&data, None, false).unwrap();
            assert_eq!(bare, packed[4..]);
            assert_eq!(decompress(&bare, Some(data.len() as i32)).unwrap(), data);
            assert_eq!(
                decompress(&[], None).unwrap_err().kind(),
                ErrorKind::InvalidInput
            );
        }

        /// A block assembled by hand after the LZ4 block format
        /// (lz4/lz4 `doc/lz4_Block_format.md`), as any implementation
        /// writes it: token 0x32 (3 literals, a match of 2 + 4), "abc",
        /// offset 3 (little-endian), then token 0x50 (the last 5 literals).
        #[test]
        fn reads_a_block_of_the_format() {
            let block = [
                0x32, b'a', b'b', b'c', 0x03, 0x00, 0x50, b'a', b'b', b'c', b'a', b'b',
            ];
            let mut prefixed = 14u32.to_le_bytes().to_vec();
            prefixed.extend_from_slice(&block);
            assert_eq!(decompress(&prefixed, None).unwrap(), b"abcabcabcabcab");
        }

        #[test]
        fn damaged_input_is_an_error_not_a_panic() {
            let mut packed = compress(b"hello hello hello hello", None, true).unwrap();
            packed[0] = 0xff;
            assert!(decompress(&packed, None).is_err());
            assert!(decompress(&[1, 0, 0, 0, 0xf0], None).is_err());
            assert!(decompress(&[0, 0, 0, 0x80], None).is_err());
        }

        /// A damaged size prefix (2 GiB before a one-byte block) was
        /// allocated in full before the block was read (found writing the
        /// `lz4_decompress` fuzz target): refused from the lengths alone.
        #[test]
        fn a_size_the_block_cannot_hold_is_refused_before_allocating() {
            let e = decompress(&[0xff, 0xff, 0xff, 0x7f, 0x10], None).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidData);
            assert_eq!(
                e.to_string(),
                "Size 2147483647 is more than a block of 1 bytes can hold."
            );
            assert!(decompress(&[0x10], Some(i32::MAX)).is_err());
            // A block near the most it can hold still reads: one long match.
            let data = vec![7u8; 100_000];
            let packed = compress(&data, None, true).unwrap();
            assert!(packed.len() - 4 < data.len() / 200, "{}", packed.len());
            assert_eq!(decompress(&packed, None).unwrap(), data);
        }
    }
}
