//! Candidate and core bitfields: `BitVec<u8, Lsb0>` with a type marker, SCALE
//! encoded as `Compact(bits) ‖ ceil(bits/8) bytes` (upstream `Bitfield` in `polkadot/node/primitives/src/approval/mod.rs`, module `v2`). Equality
//! compares the length as well as the bits, as upstream.

use crate::codec::{DecodeError, Reader};
use bitvec::prelude::{BitVec, Lsb0};
use parity_scale_codec::{Encode, Input};
use std::fmt;
use std::marker::PhantomData;
use thiserror::Error;

/// Marker for bitfields indexed by candidate index.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CandidateMarker {}
/// Marker for bitfields indexed by core index.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CoreMarker {}

/// A bitfield over candidate indices of one relay block.
pub type CandidateBitfield = Bitfield<CandidateMarker>;
/// A bitfield over availability cores.
pub type CoreBitfield = Bitfield<CoreMarker>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum BitfieldError {
    #[error("a bitfield needs at least one index")]
    NullAssignment,
}

/// A bit vector whose bit `i` claims index `i`.
pub struct Bitfield<T> {
    bits: BitVec<u8, Lsb0>,
    _marker: PhantomData<fn() -> T>,
}

impl<T> Bitfield<T> {
    /// The bitfield of exactly `len` bits with the given indices set; indices
    /// at or beyond `len` are ignored.
    pub fn with_len(len: usize, ones: impl IntoIterator<Item = u32>) -> Self {
        let mut bits = BitVec::repeat(false, len);
        for i in ones {
            if (i as usize) < len {
                bits.set(i as usize, true);
            }
        }
        Self::from_bitvec(bits)
    }

    /// Minimal-length bitfield of a non-empty set of indices, as Polkadot
    /// builds them: length `max + 1`.
    pub fn from_indices(indices: &[u32]) -> Result<Self, BitfieldError> {
        let max = *indices.iter().max().ok_or(BitfieldError::NullAssignment)?;
        Ok(Self::with_len(max as usize + 1, indices.iter().copied()))
    }

    /// The one-bit bitfield of a single index (length `index + 1`).
    pub fn from_index(index: u32) -> Self {
        Self::with_len(index as usize + 1, [index])
    }

    pub fn from_bitvec(bits: BitVec<u8, Lsb0>) -> Self {
        Bitfield {
            bits,
            _marker: PhantomData,
        }
    }

    pub fn as_bitvec(&self) -> &BitVec<u8, Lsb0> {
        &self.bits
    }

    /// Number of bits (not of ones).
    pub fn len(&self) -> usize {
        self.bits.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }

    /// Whether bit `i` is set; `false` beyond the length.
    pub fn bit_at(&self, i: u32) -> bool {
        self.bits.get(i as usize).map(|b| *b).unwrap_or(false)
    }

    pub fn count_ones(&self) -> usize {
        self.bits.count_ones()
    }

    pub fn first_one(&self) -> Option<u32> {
        self.bits.first_one().map(|i| i as u32)
    }

    /// Set indices in ascending order.
    pub fn iter_ones(&self) -> impl Iterator<Item = u32> + '_ {
        self.bits.iter_ones().map(|i| i as u32)
    }

    /// Whether the highest bit is set, as in every honestly built bitfield.
    pub fn is_minimal(&self) -> bool {
        self.bits.last().map(|b| *b).unwrap_or(false)
    }

    /// Decode with the reader's bitfield limit.
    pub fn decode_from<I: Input>(r: &mut Reader<I>) -> Result<Self, DecodeError> {
        let (bits, n_bytes) = read_bitfield_len(r)?;
        let mut bytes = vec![0u8; n_bytes];
        r.bytes(&mut bytes, "bitfield bytes")?;
        let mut bv = BitVec::<u8, Lsb0>::from_vec(bytes);
        // Padding bits of the last byte are ignored, as parity-scale-codec does.
        bv.truncate(bits as usize);
        Ok(Self::from_bitvec(bv))
    }
}

/// A bitfield's length in bits and in bytes, checked against the reader's
/// limit and the bytes left (what decoding a bitfield reads before its
/// bytes; `wire_skim` reads the same).
pub(crate) fn read_bitfield_len<I: Input>(r: &mut Reader<I>) -> Result<(u32, usize), DecodeError> {
    let offset = r.offset();
    let bits = r.compact_u32("bitfield length")?;
    if bits > r.limits.max_bitfield_bits {
        return Err(DecodeError::BitfieldTooLarge {
            bits,
            max: r.limits.max_bitfield_bits,
            offset,
        });
    }
    let n_bytes = (bits as usize).div_ceil(8);
    if let Some(remaining) = r.remaining() {
        if n_bytes > remaining {
            return Err(DecodeError::Truncated {
                what: "bitfield bytes",
                offset: r.offset(),
            });
        }
    }
    Ok((bits, n_bytes))
}

impl<T> Encode for Bitfield<T> {
    fn size_hint(&self) -> usize {
        self.bits.size_hint()
    }

    /// SCALE's `BitVec<u8, Lsb0>`: the compact bit count, then the bytes.
    /// The bytes are copied as stored (the generic encoder loads them bit
    /// range by bit range), with the unused bits of the last byte cleared,
    /// as the generic encoder writes them; a bit vector that does not
    /// start at its first byte's bit 0 takes the generic path.
    fn encode_to<O: parity_scale_codec::Output + ?Sized>(&self, dest: &mut O) {
        let Some((whole, tail)) = self.stored() else {
            return self.bits.encode_to(dest);
        };
        parity_scale_codec::Compact(self.bits.len() as u32).encode_to(dest);
        dest.write(whole);
        if let Some(t) = tail {
            dest.push_byte(t);
        }
    }

    fn encoded_size(&self) -> usize {
        let len = self.bits.len();
        <parity_scale_codec::Compact<u32> as parity_scale_codec::CompactLen<u32>>::compact_len(
            &(len as u32),
        ) + len.div_ceil(8)
    }
}

impl<T> Bitfield<T> {
    /// The bits as stored: the whole bytes, and the last partial byte with
    /// its unused bits cleared (none if the length is a multiple of 8);
    /// `None` for a bit vector that does not start at its first byte's
    /// bit 0 (which then takes bitvec's generic paths).
    fn stored(&self) -> Option<(&[u8], Option<u8>)> {
        if self.bits.as_bitptr().bit().into_inner() != 0 {
            return None;
        }
        let len = self.bits.len();
        let raw = self.bits.as_raw_slice();
        let (whole, tail) = (len / 8, len % 8);
        let last = (tail != 0).then(|| raw[whole] & ((1u8 << tail) - 1));
        Some((&raw[..whole], last))
    }
}

impl<T> parity_scale_codec::Decode for Bitfield<T> {
    fn decode<I: Input>(input: &mut I) -> Result<Self, parity_scale_codec::Error> {
        let mut r = Reader::new(input, crate::codec::Limits::SCALE);
        Ok(Self::decode_from(&mut r)?)
    }
}

impl<T> Clone for Bitfield<T> {
    fn clone(&self) -> Self {
        Self::from_bitvec(self.bits.clone())
    }
}

/// Equal lengths and bits, compared a byte at a time (bitvec's own
/// comparison goes bit range by bit range).
impl<T> PartialEq for Bitfield<T> {
    fn eq(&self, other: &Self) -> bool {
        if self.bits.len() != other.bits.len() {
            return false;
        }
        match (self.stored(), other.stored()) {
            (Some(a), Some(b)) => a == b,
            _ => self.bits == other.bits,
        }
    }
}

impl<T> Eq for Bitfield<T> {}

/// The length and the stored bytes (equal bitfields hash alike: the
/// unused bits of the last byte are cleared first); bitvec's own hash
/// feeds the hasher one bit at a time.
impl<T> std::hash::Hash for Bitfield<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self.stored() {
            Some((whole, tail)) => {
                self.bits.len().hash(state);
                state.write(whole);
                if let Some(t) = tail {
                    state.write_u8(t);
                }
            }
            // Not starting at bit 0: hashed as its copy that does, so that
            // equal bitfields hash alike however they are stored.
            None => Self::from_bitvec(self.bits.iter().by_vals().collect()).hash(state),
        }
    }
}

impl<T> fmt::Debug for Bitfield<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{")?;
        for (n, i) in self.iter_ones().enumerate() {
            if n > 0 {
                write!(f, ",")?;
            }
            write!(f, "{i}")?;
        }
        write!(f, "}}/{}", self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_encoding_equals_the_generic_one() {
        for len in [0usize, 1, 7, 8, 9, 63, 100, 200, 500] {
            for stride in [1usize, 3, 7] {
                let mut bits: BitVec<u8, Lsb0> = BitVec::repeat(false, len);
                for i in (0..len).step_by(stride) {
                    bits.set(i, true);
                }
                let field = Bitfield::<()> {
                    bits: bits.clone(),
                    _marker: PhantomData,
                };
                assert_eq!(field.encode(), bits.encode(), "len {len} stride {stride}");
            }
        }
        // Dead bits set in the last byte are not written.
        let mut bits: BitVec<u8, Lsb0> = BitVec::repeat(true, 12);
        bits.truncate(9);
        let field = Bitfield::<()> {
            bits: bits.clone(),
            _marker: PhantomData,
        };
        assert_eq!(field.encode(), bits.encode());
        assert_eq!(field.encoded_size(), field.encode().len());
    }

    fn field(bits: BitVec<u8, Lsb0>) -> Bitfield<()> {
        Bitfield::from_bitvec(bits)
    }

    fn hash_of(f: &Bitfield<()>) -> u64 {
        use std::hash::{BuildHasher, BuildHasherDefault};
        BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(f)
    }

    #[test]
    fn equality_and_hash_see_length_and_bits_not_dead_bits() {
        for len in [0usize, 1, 7, 8, 9, 63, 64, 100, 500] {
            let mut a: BitVec<u8, Lsb0> = BitVec::repeat(false, len);
            for i in (0..len).step_by(3) {
                a.set(i, true);
            }
            // The same bits with the last byte's unused bits set.
            let mut b: BitVec<u8, Lsb0> = BitVec::repeat(true, len.div_ceil(8) * 8);
            for i in 0..len {
                b.set(i, a[i]);
            }
            b.truncate(len);
            assert_eq!(field(a.clone()), field(b.clone()), "len {len}");
            assert_eq!(hash_of(&field(a.clone())), hash_of(&field(b)), "len {len}");
            assert_eq!(
                field(a.clone()).encoded_size(),
                field(a.clone()).encode().len()
            );
            // One more (clear) bit: a different bitfield.
            let mut longer = a.clone();
            longer.push(false);
            assert_ne!(field(a.clone()), field(longer));
            if len > 0 {
                let mut flipped = a.clone();
                let last = len - 1;
                let bit = flipped[last];
                flipped.set(last, !bit);
                assert_ne!(field(a.clone()), field(flipped));
            }
        }
    }
    use crate::codec::{decode_all, Limits};

    fn enc(ones: &[u32]) -> String {
        let bf = CandidateBitfield::from_indices(ones).unwrap();
        bf.encode().iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn spec_encodings() {
        assert_eq!(enc(&[0]), "0401");
        assert_eq!(enc(&[5]), "1820");
        assert_eq!(enc(&[3, 17, 42]), "ac080002000004");
        assert_eq!(enc(&[63]), format!("0101{}80", "00".repeat(7)));
        assert_eq!(enc(&[64]), format!("0501{}01", "00".repeat(8)));
        assert_eq!(enc(&[99]), format!("9101{}08", "00".repeat(12)));
        assert_eq!(
            CandidateBitfield::with_len(10, [1, 9]).encode(),
            vec![0x28, 0x02, 0x02]
        );
    }

    #[test]
    fn empty_list_is_null_assignment() {
        assert_eq!(
            CoreBitfield::from_indices(&[]),
            Err(BitfieldError::NullAssignment)
        );
    }

    #[test]
    fn equality_includes_length() {
        assert_ne!(
            CoreBitfield::with_len(4, [3]),
            CoreBitfield::with_len(8, [3])
        );
    }

    #[test]
    fn decode_ignores_padding_and_checks_limit() {
        let bf = decode_all(&[0x18, 0xe0], Limits::WIRE, CandidateBitfield::decode_from).unwrap();
        assert_eq!(bf, CandidateBitfield::from_index(5));
        let big = CandidateBitfield::from_index(500).encode();
        assert!(matches!(
            decode_all(&big, Limits::WIRE, CandidateBitfield::decode_from),
            Err(DecodeError::BitfieldTooLarge { bits: 501, .. })
        ));
        let ok = CandidateBitfield::from_index(499).encode();
        assert!(decode_all(&ok, Limits::WIRE, CandidateBitfield::decode_from).is_ok());
    }
}
