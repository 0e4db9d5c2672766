//! Typed SCALE decoding. One reader serves both our typed-error decoders and
//! `parity_scale_codec::Decode` (which only carries a static message), so the
//! rules for what is accepted exist once, and match parity-scale-codec's own:
//! canonical compact integers, raw fixed arrays, length-prefixed vectors.

use parity_scale_codec::Input;
use thiserror::Error;

/// Why a byte string did not decode.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    #[error("input ended early while reading {what} at byte {offset}")]
    Truncated { what: &'static str, offset: usize },
    #[error("{remaining} trailing bytes after the message (it ended at byte {offset})")]
    TrailingBytes { offset: usize, remaining: usize },
    #[error("unknown {what} variant index {index} at byte {offset}")]
    UnknownVariant {
        what: &'static str,
        index: u8,
        offset: usize,
    },
    #[error("{what} variant index {index} is valid upstream but not carried by this protocol")]
    UnsupportedVariant { what: &'static str, index: u8 },
    #[error("non-canonical compact integer at byte {offset}")]
    NonCanonicalCompact { offset: usize },
    #[error("bitfield of {bits} bits at byte {offset} is over the limit of {max} bits")]
    BitfieldTooLarge { bits: u32, max: u32, offset: usize },
    #[error("message of {len} bytes is over the notification limit of {max} bytes")]
    MessageTooLarge { len: usize, max: usize },
    #[error("VRF proof at byte {offset} holds a non-canonical scalar")]
    InvalidVrfProof { offset: usize },
    #[error("list of {len} items at byte {offset} cannot fit in the remaining {remaining} bytes")]
    ListTooLong {
        len: u32,
        remaining: usize,
        offset: usize,
    },
}

impl From<DecodeError> for parity_scale_codec::Error {
    fn from(e: DecodeError) -> Self {
        let msg: &'static str = match e {
            DecodeError::Truncated { .. } => "input ended early",
            DecodeError::TrailingBytes { .. } => "trailing bytes",
            DecodeError::UnknownVariant { .. } => "unknown variant",
            DecodeError::UnsupportedVariant { .. } => "unsupported variant",
            DecodeError::NonCanonicalCompact { .. } => "non-canonical compact",
            DecodeError::BitfieldTooLarge { .. } => "bitfield too large",
            DecodeError::MessageTooLarge { .. } => "message too large",
            DecodeError::InvalidVrfProof { .. } => "invalid VRF proof",
            DecodeError::ListTooLong { .. } => "list too long",
        };
        msg.into()
    }
}

/// Limits applied while decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Longest bitfield accepted, in bits.
    pub max_bitfield_bits: u32,
}

impl Limits {
    /// What the wire accepts: approval-distribution's `MAX_BITFIELD_SIZE`.
    pub const WIRE: Limits = Limits {
        max_bitfield_bits: crate::constants::MAX_BITFIELD_SIZE,
    };
    /// What SCALE itself accepts (`parity-scale-codec`'s bit-vector limit);
    /// used for stored data.
    pub const SCALE: Limits = Limits {
        max_bitfield_bits: 0x1fff_ffff,
    };
}

/// A reader over any `parity_scale_codec::Input` that tracks its offset and
/// reports typed errors.
pub struct Reader<'a, I: Input> {
    input: &'a mut I,
    offset: usize,
    pub limits: Limits,
}

impl<'a, I: Input> Reader<'a, I> {
    pub fn new(input: &'a mut I, limits: Limits) -> Self {
        Reader {
            input,
            offset: 0,
            limits,
        }
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Bytes left, when the input knows.
    pub fn remaining(&mut self) -> Option<usize> {
        self.input.remaining_len().ok().flatten()
    }

    pub fn bytes(&mut self, buf: &mut [u8], what: &'static str) -> Result<(), DecodeError> {
        let offset = self.offset;
        self.input
            .read(buf)
            .map_err(|_| DecodeError::Truncated { what, offset })?;
        self.offset += buf.len();
        Ok(())
    }

    pub fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], DecodeError> {
        let mut out = [0u8; N];
        self.bytes(&mut out, what)?;
        Ok(out)
    }

    pub fn u8(&mut self, what: &'static str) -> Result<u8, DecodeError> {
        Ok(self.array::<1>(what)?[0])
    }

    pub fn u32(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    pub fn u64(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// A SCALE compact `u32`, rejecting the non-canonical forms that
    /// parity-scale-codec rejects.
    pub fn compact_u32(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        let start = self.offset;
        let prefix = self.u8(what)?;
        let bad = DecodeError::NonCanonicalCompact { offset: start };
        match prefix & 0b11 {
            0 => Ok(u32::from(prefix >> 2)),
            1 => {
                let hi = self.u8(what)?;
                let x = u16::from_le_bytes([prefix, hi]) >> 2;
                if x > 0b0011_1111 {
                    Ok(u32::from(x))
                } else {
                    Err(bad)
                }
            }
            2 => {
                let rest: [u8; 3] = self.array(what)?;
                let x = u32::from_le_bytes([prefix, rest[0], rest[1], rest[2]]) >> 2;
                if x > 0b0011_1111_1111_1111 {
                    Ok(x)
                } else {
                    Err(bad)
                }
            }
            _ => {
                if prefix >> 2 != 0 {
                    return Err(bad);
                }
                let x = self.u32(what)?;
                if x > u32::MAX >> 2 {
                    Ok(x)
                } else {
                    Err(bad)
                }
            }
        }
    }

    /// A list length, checked against the bytes left when each item needs
    /// at least `min_item_len` bytes, so a forged length cannot make us
    /// allocate.
    pub fn list_len(
        &mut self,
        min_item_len: usize,
        what: &'static str,
    ) -> Result<u32, DecodeError> {
        let offset = self.offset;
        let len = self.compact_u32(what)?;
        if let Some(remaining) = self.remaining() {
            if (len as usize).saturating_mul(min_item_len) > remaining {
                return Err(DecodeError::ListTooLong {
                    len,
                    remaining,
                    offset,
                });
            }
        }
        Ok(len)
    }
}

/// Decode a whole byte string with `f`, requiring every byte to be consumed.
pub fn decode_all<'x, T>(
    bytes: &'x [u8],
    limits: Limits,
    f: impl FnOnce(&mut Reader<&'x [u8]>) -> Result<T, DecodeError>,
) -> Result<T, DecodeError> {
    let mut input = bytes;
    let mut reader = Reader::new(&mut input, limits);
    let value = f(&mut reader)?;
    let offset = reader.offset();
    if !input.is_empty() {
        return Err(DecodeError::TrailingBytes {
            offset,
            remaining: input.len(),
        });
    }
    Ok(value)
}

/// Implement `parity_scale_codec::Decode` for a type through its typed
/// `decode_from(&mut Reader)` (with SCALE's own limits).
#[macro_export]
macro_rules! impl_scale_decode {
    ($t:ty) => {
        impl parity_scale_codec::Decode for $t {
            fn decode<I: parity_scale_codec::Input>(
                input: &mut I,
            ) -> Result<Self, parity_scale_codec::Error> {
                let mut reader = $crate::codec::Reader::new(input, $crate::codec::Limits::SCALE);
                Ok(<$t>::decode_from(&mut reader)?)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use parity_scale_codec::{Compact, Decode, Encode};

    fn compact(bytes: &[u8]) -> Result<u32, DecodeError> {
        decode_all(bytes, Limits::WIRE, |r| r.compact_u32("n"))
    }

    #[test]
    fn compact_matches_parity_scale_codec() {
        for n in [
            0u32,
            1,
            63,
            64,
            16383,
            16384,
            (1 << 30) - 1,
            1 << 30,
            u32::MAX,
        ] {
            let enc = Compact(n).encode();
            assert_eq!(compact(&enc), Ok(n));
        }
        // Non-canonical encodings: 1 in two bytes, 63 in four bytes, 64 in
        // big-integer mode.
        for bad in [
            &[0x05u8, 0x00][..],
            &[0xfe, 0x00, 0x00, 0x00],
            &[0x03, 0x40, 0, 0, 0],
        ] {
            assert!(matches!(
                compact(bad),
                Err(DecodeError::NonCanonicalCompact { .. })
            ));
            assert!(<Compact<u32>>::decode(&mut &bad[..]).is_err());
        }
    }

    #[test]
    fn truncation_and_trailing_bytes() {
        assert!(matches!(compact(&[]), Err(DecodeError::Truncated { .. })));
        assert!(matches!(
            compact(&[0x01]),
            Err(DecodeError::Truncated { .. })
        ));
        assert_eq!(
            compact(&[0x04, 0x00]),
            Err(DecodeError::TrailingBytes {
                offset: 1,
                remaining: 1
            })
        );
    }
}
