//! The hashers of distribution's maps. Their keys are not chosen by peers
//! freely: block hashes are uniformly random already (SipHash over them
//! costs more than the look-up), and the integer keys — check tokens,
//! validator indices within the session, message slots — are ours or
//! bounded before they are used, so a multiply-and-rotate per word (as
//! rustc's FxHash) is enough.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Takes 8 bytes of a block hash.
#[derive(Default, Clone, Copy)]
pub(crate) struct BuildBlockHasher;

#[derive(Default)]
pub(crate) struct BlockHasher(u64);

impl std::hash::BuildHasher for BuildBlockHasher {
    type Hasher = BlockHasher;
    fn build_hasher(&self) -> BlockHasher {
        BlockHasher(0)
    }
}

impl Hasher for BlockHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8).take(1) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.0 ^= u64::from_le_bytes(b);
        }
    }
    fn write_usize(&mut self, _: usize) {
        // The length prefix of the 32-byte array carries no information.
    }
}

/// Integer keys: a multiply and a rotate per word.
#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

const K: u64 = 0xf135_7aea_2e62_a9c5;

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        // The table takes its buckets from the low bits and its tags from
        // the high ones: fold the well-mixed high half down.
        self.0 ^ (self.0 >> 32)
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(26) ^ i).wrapping_mul(K);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

/// A map keyed by integers of ours.
pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash_of<T: Hash>(t: T) -> u64 {
        BuildHasherDefault::<IdHasher>::default().hash_one(t)
    }

    #[test]
    fn neighbouring_keys_spread_over_low_bits_and_tags() {
        // Consecutive tokens and validator pairs land in distinct buckets
        // of a 1 024-bucket table and carry distinct 7-bit tags.
        let low: std::collections::HashSet<u64> = (0..1024u64).map(|i| hash_of(i) & 1023).collect();
        assert!(low.len() > 600, "{} buckets of 1024", low.len());
        let tags: std::collections::HashSet<u64> =
            (0..1024u32).map(|i| hash_of((i, 7u32)) >> 57).collect();
        assert!(tags.len() > 100, "{} tags of 128", tags.len());
    }
}
