//! `ValidatorSet`: a fixed-length bit set over validator indices (or
//! candidate indices) with a running count of ones, so that membership,
//! insertion and the popcounts approval checking needs cost a few word
//! operations. The words are the workspace's one bitset
//! (`tranche_primitives::bitset::BitSet`); this adds the length, beyond
//! which nothing is a member, and the count.

use tranche_primitives::bitset::BitSet;
use tranche_primitives::ValidatorIndex;

/// A set of indices below a fixed length.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct ValidatorSet {
    bits: BitSet,
    len: usize,
    ones: usize,
}

impl ValidatorSet {
    /// The empty set over `len` indices.
    pub fn new(len: usize) -> Self {
        ValidatorSet {
            bits: BitSet::zeroed(len),
            len,
            ones: 0,
        }
    }

    /// The full set over `len` indices.
    pub fn full(len: usize) -> Self {
        let mut s = Self::new(len);
        for i in 0..len {
            s.insert(i);
        }
        s
    }

    /// Number of indices the set ranges over.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of members.
    pub fn count(&self) -> usize {
        self.ones
    }

    /// Whether every index is a member.
    pub fn is_full(&self) -> bool {
        self.ones == self.len
    }

    /// Membership; `false` beyond the length.
    pub fn contains(&self, i: usize) -> bool {
        i < self.len && self.bits.contains(i)
    }

    pub fn contains_validator(&self, v: ValidatorIndex) -> bool {
        self.contains(v.0 as usize)
    }

    /// Add `i`; returns whether it was already a member. Indices beyond the
    /// length are ignored (and reported as not previously present).
    pub fn insert(&mut self, i: usize) -> bool {
        if i >= self.len {
            return false;
        }
        let fresh = self.bits.insert(i);
        self.ones += usize::from(fresh);
        !fresh
    }

    /// Remove `i`; returns whether it was a member.
    pub fn remove(&mut self, i: usize) -> bool {
        if i >= self.len {
            return false;
        }
        let was = self.bits.remove(i);
        self.ones -= usize::from(was);
        was
    }

    /// Members in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.bits.iter()
    }

    /// Number of indices in both sets.
    pub fn intersection_count(&self, other: &ValidatorSet) -> usize {
        self.bits.intersection_count(&other.bits)
    }

    /// Raw little-endian bytes of the words, for storage: bit `i` is bit
    /// `i % 8` of byte `i / 8`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.len.div_ceil(8)];
        for i in self.iter() {
            out[i / 8] |= 1 << (i % 8);
        }
        out
    }

    /// Inverse of `to_bytes`; `None` when the byte count does not fit `len`.
    pub fn from_bytes(len: usize, bytes: &[u8]) -> Option<Self> {
        if bytes.len() != len.div_ceil(8) {
            return None;
        }
        let mut s = Self::new(len);
        for (i, b) in bytes.iter().enumerate() {
            for bit in 0..8 {
                if b & (1 << bit) != 0 {
                    let idx = i * 8 + bit;
                    if idx >= len {
                        return None;
                    }
                    s.insert(idx);
                }
            }
        }
        Some(s)
    }
}

impl std::fmt::Debug for ValidatorSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{{")?;
        for (n, i) in self.iter().enumerate() {
            if n > 0 {
                write!(f, ",")?;
            }
            write!(f, "{i}")?;
        }
        write!(f, "}}/{}", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_count_and_bytes_round_trip() {
        let mut s = ValidatorSet::new(130);
        assert!(!s.insert(0));
        assert!(!s.insert(129));
        assert!(s.insert(129));
        assert!(!s.insert(500));
        assert_eq!(s.count(), 2);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 129]);
        let back = ValidatorSet::from_bytes(130, &s.to_bytes()).unwrap();
        assert_eq!(back, s);
        let mut t = ValidatorSet::new(130);
        t.insert(129);
        t.insert(5);
        assert_eq!(s.intersection_count(&t), 1);
        assert!(s.remove(0));
        assert_eq!(s.count(), 1);
        assert!(ValidatorSet::from_bytes(130, &[0xff; 3]).is_none());
        assert_eq!(s.to_bytes()[16], 0b10, "bit 129 is bit 1 of byte 16");
        assert!(!s.remove(0) && !s.remove(500));
        assert!(ValidatorSet::full(70).is_full());
    }
}
