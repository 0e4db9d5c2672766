//! A growable bitset over small dense indices, the one word-bitset of the
//! workspace. Distribution uses it for per-peer knowledge (one bit per peer
//! per message) and for sets of validators; voting's `ValidatorSet`
//! (`crates/voting/src/bits.rs`) is a fixed length and a count of members
//! around it. Membership tests and set operations cost a word access each,
//! whatever the number of peers. (The wire's bitfields are
//! [`crate::bitfield`]: SCALE's `BitVec<u8, Lsb0>`.)

/// A set of small unsigned integers, one bit each.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    pub fn new() -> Self {
        BitSet { words: Vec::new() }
    }

    /// An empty set with room for indices below `bits` without growing.
    pub fn with_capacity(bits: usize) -> Self {
        BitSet {
            words: Vec::with_capacity(bits.div_ceil(64)),
        }
    }

    #[inline]
    pub fn contains(&self, i: usize) -> bool {
        self.words
            .get(i / 64)
            .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }

    /// Add `i`; true if it was not there.
    #[inline]
    pub fn insert(&mut self, i: usize) -> bool {
        let w = i / 64;
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        let mask = 1u64 << (i % 64);
        let fresh = self.words[w] & mask == 0;
        self.words[w] |= mask;
        fresh
    }

    /// Remove `i`; true if it was there.
    #[inline]
    pub fn remove(&mut self, i: usize) -> bool {
        let Some(w) = self.words.get_mut(i / 64) else {
            return false;
        };
        let mask = 1u64 << (i % 64);
        let was = *w & mask != 0;
        *w &= !mask;
        was
    }

    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }

    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Members in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        iter_words(self.words.len(), |i| self.words[i])
    }

    /// An empty set whose storage already covers indices below `bits`, so
    /// inserting them never reallocates.
    pub fn zeroed(bits: usize) -> Self {
        BitSet {
            words: vec![0; bits.div_ceil(64)],
        }
    }

    /// Number of 64-bit words of storage (members are below `64 × this`).
    pub fn word_count(&self) -> usize {
        self.words.len()
    }

    /// The `i`-th word of members (`64 i .. 64 i + 63`), zero past the end.
    #[inline]
    pub fn word(&self, i: usize) -> u64 {
        self.words.get(i).copied().unwrap_or(0)
    }

    /// Number of members of `self ∩ other`, a popcount per word.
    pub fn intersection_count(&self, other: &BitSet) -> usize {
        self.words
            .iter()
            .zip(&other.words)
            .map(|(a, b)| (a & b).count_ones() as usize)
            .sum()
    }

    /// Members of `self ∩ other`, ascending, in one pass over the words.
    pub fn iter_and<'a>(&'a self, other: &'a BitSet) -> impl Iterator<Item = usize> + 'a {
        iter_words(self.words.len().min(other.words.len()), move |i| {
            self.words[i] & other.words[i]
        })
    }

    /// Members of `(self ∪ extra) ∩ mask`, ascending.
    pub fn iter_or_and<'a>(
        &'a self,
        extra: &'a BitSet,
        mask: &'a BitSet,
    ) -> impl Iterator<Item = usize> + 'a {
        iter_words(mask.words.len(), move |i| {
            (self.words.get(i).copied().unwrap_or(0) | extra.words.get(i).copied().unwrap_or(0))
                & mask.words[i]
        })
    }

    /// Add every member of `other`.
    pub fn union_with(&mut self, other: &BitSet) {
        if other.words.len() > self.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
    }
}

/// Set bits of the words `word(0..n)`, ascending.
fn iter_words(n: usize, word: impl Fn(usize) -> u64) -> impl Iterator<Item = usize> {
    (0..n).flat_map(move |wi| {
        let mut rest = word(wi);
        std::iter::from_fn(move || {
            if rest == 0 {
                return None;
            }
            let b = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            Some(wi * 64 + b)
        })
    })
}

impl std::fmt::Debug for BitSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl FromIterator<usize> for BitSet {
    fn from_iter<I: IntoIterator<Item = usize>>(iter: I) -> Self {
        let mut s = BitSet::new();
        for i in iter {
            s.insert(i);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_remove_iterate() {
        let mut s = BitSet::new();
        assert!(s.insert(3));
        assert!(!s.insert(3));
        assert!(s.insert(130));
        assert!(s.contains(130) && !s.contains(129) && !s.contains(10_000));
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![3, 130]);
        s.remove(3);
        assert_eq!(s.len(), 1);
        let mut t: BitSet = [1, 200].into_iter().collect();
        t.union_with(&s);
        assert_eq!(t.iter().collect::<Vec<_>>(), vec![1, 130, 200]);
        t.clear();
        assert!(t.is_empty());
        let a: BitSet = [1, 64, 65, 300].into_iter().collect();
        let b: BitSet = [64, 300, 400].into_iter().collect();
        let c: BitSet = [1, 2].into_iter().collect();
        assert_eq!(a.iter_and(&b).collect::<Vec<_>>(), vec![64, 300]);
        assert_eq!(b.iter_or_and(&c, &a).collect::<Vec<_>>(), vec![1, 64, 300]);
        assert_eq!(a.intersection_count(&b), 2);
        assert_eq!(a.intersection_count(&BitSet::new()), 0);
        let mut z = BitSet::zeroed(130);
        assert!(z.is_empty() && z.words.len() == 3);
        assert!(z.insert(129) && z.remove(129) && !z.remove(129) && !z.remove(10_000));
    }
}
