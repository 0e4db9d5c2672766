//! Per-peer knowledge of one block's messages, kept compactly (upstream
//! keeps a `PeerKnowledge { sent, received }` per peer in
//! `polkadot/node/network/approval-distribution/src/lib.rs`; we keep the
//! same facts per message). For each message three sets of peer ids: the
//! peers we sent it to (beyond those the grid answers for, see
//! `block::GridSent`), those we received it from and those it was sent
//! to at random. A message reaches a handful of a validator's peers (its
//! grid route and a few random ones, at 1 000 validators about a dozen for
//! an assignment and fifty for an approval), so a bitset over every peer —
//! 2 × 125 bytes at 1 000 peers, per message and per validator — is mostly
//! zeros.
//!
//! Here each set is a sorted list of peer ids stored as gaps,
//! `id₀, id₁ − id₀ − 1, …`, a gap under 240 in one byte (see `encode`). A message's
//! three lists lie back to back in one chunk of its block's [`Arena`];
//! the message holds a [`Known`] of 8 bytes (where the chunk is and how
//! long each list is). Chunks come in size classes and are recycled
//! through a free list per class as lists grow; a message whose lists
//! outgrow the largest class (aggression sends our own messages to every
//! peer) moves to three bitsets. The arena lives and dies with its block,
//! so a finalized block frees all of it at once.
//!
//! Every operation answers exactly as a bitset would (a property test
//! holds them side by side); members iterate in ascending id.

use tranche_primitives::bitset::BitSet;

/// Which of a message's three peer sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum List {
    /// Peers we sent the message to.
    Sent = 0,
    /// Peers we received it from.
    Received = 1,
    /// Peers it was sent to at random (a subset of `Sent` when sent).
    Random = 2,
}

/// Chunk sizes in bytes; a chunk holds the three lists of one message.
const CLASSES: [u16; 20] = [
    4, 8, 12, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 252,
];
/// `Known::class` of a message with no chunk yet (every list empty).
const EMPTY: u8 = u8::MAX;
/// `Known::class` of a message kept as bitsets (`at` indexes `Arena::dense`).
const DENSE: u8 = u8::MAX - 1;
/// Bytes of the first page; pages double up to `MAX_PAGE`.
const FIRST_PAGE: usize = 256;
/// Bytes of the largest page: offsets within a page fit 16 bits.
const MAX_PAGE: usize = 1 << 16;

/// Where one message's knowledge lies in its block's arena: 8 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Known {
    /// Page (high 16 bits) and byte offset of the chunk; or the index of
    /// the dense entry.
    at: u32,
    /// Index into `CLASSES`, or `EMPTY`, or `DENSE`.
    class: u8,
    /// Bytes of each list in the chunk.
    len: [u8; 3],
}

impl Default for Known {
    fn default() -> Self {
        Known {
            at: 0,
            class: EMPTY,
            len: [0; 3],
        }
    }
}

/// The storage of one block's knowledge lists.
#[derive(Default)]
pub(crate) struct Arena {
    pages: Vec<Box<[u8]>>,
    /// Bytes used of the last page.
    top: usize,
    /// Recycled chunks per class.
    free: [Vec<u32>; CLASSES.len()],
    dense: Vec<[BitSet; 3]>,
    dense_free: Vec<u32>,
}

/// Gaps below this take one byte.
const ONE: u32 = 240;
/// First bytes `ONE..LONG` start a two-byte gap (`15 × 256` values).
const LONG: u8 = 255;
/// Gaps below this take at most two bytes.
const TWO: u32 = ONE + (LONG as u32 - ONE) * 256;

/// Encode a gap: one byte below 240 (a list's members are a few of a
/// thousand peers, so most gaps are), two up to 4 079, three beyond (a
/// 255 and the gap past 4 079, big-endian).
fn encode(gap: u32, out: &mut [u8; 3]) -> usize {
    if gap < ONE {
        out[0] = gap as u8;
        1
    } else if gap < TWO {
        let g = gap - ONE;
        out[0] = ONE as u8 + (g >> 8) as u8;
        out[1] = g as u8;
        2
    } else {
        let g = gap - TWO;
        out[0] = LONG;
        out[1] = (g >> 8) as u8;
        out[2] = g as u8;
        3
    }
}

/// The gap at `bytes[i..]` and the bytes it takes.
#[inline]
fn decode(bytes: &[u8], i: usize) -> (u32, usize) {
    let b0 = bytes[i];
    if (b0 as u32) < ONE {
        (b0 as u32, 1)
    } else if b0 < LONG {
        (ONE + ((b0 as u32 - ONE) << 8 | bytes[i + 1] as u32), 2)
    } else {
        (TWO + ((bytes[i + 1] as u32) << 8 | bytes[i + 2] as u32), 3)
    }
}

/// Where `p` is, or would go, in one encoded list.
struct Place {
    /// Byte offset of the element at or after `p` (the list's end if none).
    at: usize,
    /// The member before it, if any.
    prev: Option<u32>,
    /// The member at `at` and the bytes its gap takes, if any.
    next: Option<(u32, usize)>,
}

fn find(list: &[u8], p: u32) -> Place {
    let (mut i, mut prev) = (0, None);
    while i < list.len() {
        let (gap, n) = decode(list, i);
        let v = prev.map_or(gap, |q: u32| q + 1 + gap);
        if v >= p {
            return Place {
                at: i,
                prev,
                next: Some((v, n)),
            };
        }
        prev = Some(v);
        i += n;
    }
    Place {
        at: i,
        prev,
        next: None,
    }
}

fn gap_after(prev: Option<u32>, v: u32) -> u32 {
    prev.map_or(v, |q| v - q - 1)
}

/// Members of one list, ascending.
pub(crate) struct Peers<'a> {
    inner: PeersInner<'a>,
}

enum PeersInner<'a> {
    Sparse {
        bytes: &'a [u8],
        i: usize,
        prev: Option<u32>,
    },
    Dense {
        set: &'a BitSet,
        word: usize,
        rest: u64,
    },
}

impl Iterator for Peers<'_> {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        match &mut self.inner {
            PeersInner::Sparse { bytes, i, prev } => {
                if *i >= bytes.len() {
                    return None;
                }
                let (gap, n) = decode(bytes, *i);
                *i += n;
                let v = prev.map_or(gap, |q| q + 1 + gap);
                *prev = Some(v);
                Some(v as usize)
            }
            PeersInner::Dense { set, word, rest } => loop {
                if *rest != 0 {
                    let b = rest.trailing_zeros() as usize;
                    *rest &= *rest - 1;
                    return Some((*word - 1) * 64 + b);
                }
                if *word >= set.word_count() {
                    return None;
                }
                *rest = set.word(*word);
                *word += 1;
            },
        }
    }
}

impl Arena {
    fn chunk(&self, at: u32, class: u8) -> &[u8] {
        let (page, off) = ((at >> 16) as usize, (at & 0xffff) as usize);
        &self.pages[page][off..off + CLASSES[class as usize] as usize]
    }

    fn chunk_mut(&mut self, at: u32, class: u8) -> &mut [u8] {
        let (page, off) = ((at >> 16) as usize, (at & 0xffff) as usize);
        &mut self.pages[page][off..off + CLASSES[class as usize] as usize]
    }

    /// A chunk of class `c`: a recycled one, else carved from the last page.
    fn alloc(&mut self, c: u8) -> u32 {
        if let Some(at) = self.free[c as usize].pop() {
            return at;
        }
        let size = CLASSES[c as usize] as usize;
        let room = self.pages.last().map_or(0, |p| p.len() - self.top);
        if room < size {
            // Recycle the rest of the page as small chunks, then open the
            // next page (double the last, up to MAX_PAGE).
            let mut k = CLASSES.len();
            while k > 0 {
                k -= 1;
                let s = CLASSES[k] as usize;
                while self.pages.last().is_some_and(|p| p.len() - self.top >= s) {
                    let at = ((self.pages.len() - 1) << 16 | self.top) as u32;
                    self.free[k].push(at);
                    self.top += s;
                }
            }
            let next = self
                .pages
                .last()
                .map_or(FIRST_PAGE, |p| (p.len() * 2).min(MAX_PAGE));
            self.pages.push(vec![0; next].into_boxed_slice());
            self.top = 0;
        }
        let at = ((self.pages.len() - 1) << 16 | self.top) as u32;
        self.top += size;
        at
    }

    fn list<'a>(&'a self, k: &Known, list: List) -> &'a [u8] {
        let chunk = self.chunk(k.at, k.class);
        let start: usize = k.len[..list as usize].iter().map(|&l| l as usize).sum();
        &chunk[start..start + k.len[list as usize] as usize]
    }

    /// Whether `p` is in `list`.
    pub fn contains(&self, k: &Known, list: List, p: usize) -> bool {
        match k.class {
            EMPTY => false,
            DENSE => self.dense[k.at as usize][list as usize].contains(p),
            _ => {
                let Ok(p) = u32::try_from(p) else {
                    return false;
                };
                find(self.list(k, list), p)
                    .next
                    .is_some_and(|(v, _)| v == p)
            }
        }
    }

    /// Whether the peer knows the message: we sent it or it sent it to us.
    pub fn knows(&self, k: &Known, p: usize) -> bool {
        self.contains(k, List::Sent, p) || self.contains(k, List::Received, p)
    }

    /// The members of `list`, ascending.
    pub fn iter<'a>(&'a self, k: &Known, list: List) -> Peers<'a> {
        let inner = match k.class {
            EMPTY => PeersInner::Sparse {
                bytes: &[],
                i: 0,
                prev: None,
            },
            DENSE => PeersInner::Dense {
                set: &self.dense[k.at as usize][list as usize],
                word: 0,
                rest: 0,
            },
            _ => PeersInner::Sparse {
                bytes: self.list(k, list),
                i: 0,
                prev: None,
            },
        };
        Peers { inner }
    }

    /// Add `peers`, ascending, to `list`: encoded in one pass where the
    /// list is empty (a message's sends, listed as they are made), one
    /// insert each otherwise.
    pub fn extend(&mut self, k: &mut Known, list: List, peers: &[usize]) {
        if !self.extend_empty(k, list, peers) {
            for &p in peers {
                self.insert(k, list, p);
            }
        }
    }

    /// [`Arena::extend`]'s one pass: false, touching nothing, where it
    /// does not apply (the list not empty, the peers not ascending, or the
    /// encoding too long for a list or for the largest chunk).
    fn extend_empty(&mut self, k: &mut Known, list: List, peers: &[usize]) -> bool {
        let sorted = peers.windows(2).all(|w| w[0] < w[1]);
        let empty = k.class == EMPTY || (k.class != DENSE && k.len[list as usize] == 0);
        if !(sorted && empty) || peers.is_empty() {
            return false;
        }
        let mut buf = [0u8; 256];
        let (mut n, mut prev) = (0, None);
        for &p in peers {
            let mut one = [0u8; 3];
            let m = encode(gap_after(prev, p as u32), &mut one);
            if n + m > u8::MAX as usize {
                return false; // too long for a list: to the bitsets
            }
            buf[n..n + m].copy_from_slice(&one[..m]);
            n += m;
            prev = Some(p as u32);
        }
        let total: usize = k.len.iter().map(|&l| l as usize).sum();
        if total + n > *CLASSES.last().expect("classes") as usize {
            return false;
        }
        if k.class == EMPTY || total + n > CLASSES[k.class as usize] as usize {
            self.regrow(k, total + n);
        }
        let start: usize = k.len[..list as usize].iter().map(|&l| l as usize).sum();
        let chunk = self.chunk_mut(k.at, k.class);
        chunk.copy_within(start..total, start + n);
        chunk[start..start + n].copy_from_slice(&buf[..n]);
        k.len[list as usize] = n as u8;
        true
    }

    /// Add `p` to `list`; true if it was not there. Peer ids above
    /// `u16::MAX` never reach here (distribution refuses them).
    pub fn insert(&mut self, k: &mut Known, list: List, p: usize) -> bool {
        if k.class == DENSE {
            return self.dense[k.at as usize][list as usize].insert(p);
        }
        let p32 = p as u32;
        let (place, start) = if k.class == EMPTY {
            let place = Place {
                at: 0,
                prev: None,
                next: None,
            };
            (place, 0)
        } else {
            let start: usize = k.len[..list as usize].iter().map(|&l| l as usize).sum();
            let place = find(self.list(k, list), p32);
            if place.next.is_some_and(|(v, _)| v == p32) {
                return false;
            }
            (place, start)
        };
        // New bytes: p's gap, then the next member's gap re-encoded.
        let mut buf = [0u8; 6];
        let mut one = [0u8; 3];
        let n1 = encode(gap_after(place.prev, p32), &mut one);
        buf[..n1].copy_from_slice(&one[..n1]);
        let (mut n, old) = (n1, place.next.map_or(0, |(_, b)| b));
        if let Some((v, _)) = place.next {
            let n2 = encode(v - p32 - 1, &mut one);
            buf[n1..n1 + n2].copy_from_slice(&one[..n2]);
            n += n2;
        }
        let grow = n - old;
        let total: usize = k.len.iter().map(|&l| l as usize).sum();
        let fits_list = k.len[list as usize] as usize + grow <= u8::MAX as usize;
        let need = total + grow;
        if !fits_list || need > *CLASSES.last().expect("classes") as usize {
            self.make_dense(k);
            return self.dense[k.at as usize][list as usize].insert(p);
        }
        if k.class == EMPTY || need > CLASSES[k.class as usize] as usize {
            self.regrow(k, need);
        }
        let pos = start + place.at;
        let chunk = self.chunk_mut(k.at, k.class);
        chunk.copy_within(pos + old..total, pos + n);
        chunk[pos..pos + n].copy_from_slice(&buf[..n]);
        k.len[list as usize] += grow as u8;
        true
    }

    /// Remove `p` from `list`; true if it was there.
    pub fn remove(&mut self, k: &mut Known, list: List, p: usize) -> bool {
        match k.class {
            EMPTY => return false,
            DENSE => return self.dense[k.at as usize][list as usize].remove(p),
            _ => {}
        }
        let Ok(p) = u32::try_from(p) else {
            return false;
        };
        let start: usize = k.len[..list as usize].iter().map(|&l| l as usize).sum();
        let l = self.list(k, list);
        let place = find(l, p);
        let Some((v, n_p)) = place.next.filter(|(v, _)| *v == p) else {
            return false;
        };
        // The follower's gap absorbs p's.
        let mut one = [0u8; 3];
        let after = place.at + n_p;
        let (old, n) = if after < l.len() {
            let (gap, n_next) = decode(l, after);
            let next = v + 1 + gap;
            let n = encode(gap_after(place.prev, next), &mut one);
            (n_p + n_next, n)
        } else {
            (n_p, 0)
        };
        let total: usize = k.len.iter().map(|&l| l as usize).sum();
        let pos = start + place.at;
        let chunk = self.chunk_mut(k.at, k.class);
        chunk[pos..pos + n].copy_from_slice(&one[..n]);
        chunk.copy_within(pos + old..total, pos + n);
        k.len[list as usize] -= (old - n) as u8;
        true
    }

    /// Empty `list`.
    pub fn clear(&mut self, k: &mut Known, list: List) {
        match k.class {
            EMPTY => {}
            DENSE => self.dense[k.at as usize][list as usize].clear(),
            _ => {
                let start: usize = k.len[..list as usize].iter().map(|&l| l as usize).sum();
                let total: usize = k.len.iter().map(|&l| l as usize).sum();
                let l = k.len[list as usize] as usize;
                self.chunk_mut(k.at, k.class)
                    .copy_within(start + l..total, start);
                k.len[list as usize] = 0;
            }
        }
    }

    /// Move the lists to a chunk of the smallest class holding `need` bytes.
    fn regrow(&mut self, k: &mut Known, need: usize) {
        let c = CLASSES
            .iter()
            .position(|&s| s as usize >= need)
            .expect("checked") as u8;
        let at = self.alloc(c);
        if k.class != EMPTY {
            let total: usize = k.len.iter().map(|&l| l as usize).sum();
            let mut tmp = [0u8; 256];
            tmp[..total].copy_from_slice(&self.chunk(k.at, k.class)[..total]);
            self.chunk_mut(at, c)[..total].copy_from_slice(&tmp[..total]);
            self.free[k.class as usize].push(k.at);
        }
        k.at = at;
        k.class = c;
    }

    /// Move the lists to three bitsets.
    fn make_dense(&mut self, k: &mut Known) {
        let mut sets: [BitSet; 3] = Default::default();
        for (i, list) in [List::Sent, List::Received, List::Random]
            .into_iter()
            .enumerate()
        {
            sets[i] = self.iter(k, list).collect();
        }
        if k.class != EMPTY {
            self.free[k.class as usize].push(k.at);
        }
        let at = match self.dense_free.pop() {
            Some(i) => {
                self.dense[i as usize] = sets;
                i
            }
            None => {
                self.dense.push(sets);
                (self.dense.len() - 1) as u32
            }
        };
        *k = Known {
            at,
            class: DENSE,
            len: [0; 3],
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    #[test]
    fn gaps_round_trip_at_every_width() {
        for (gap, len) in [
            (0, 1),
            (1, 1),
            (239, 1),
            (240, 2),
            (300, 2),
            (4_079, 2),
            (4_080, 3),
            (65_535, 3),
        ] {
            let mut b = [0u8; 3];
            let n = encode(gap, &mut b);
            assert_eq!(n, len);
            assert_eq!(decode(&b, 0), (gap, n));
        }
    }

    #[test]
    fn a_short_list_takes_a_byte_per_peer() {
        let mut a = Arena::default();
        let mut k = Known::default();
        // Gaps up to 239 (200 -> 440) take a byte.
        for p in [3, 70, 140, 200, 440] {
            assert!(a.insert(&mut k, List::Sent, p));
        }
        assert!(!a.insert(&mut k, List::Sent, 140));
        assert_eq!(k.len, [5, 0, 0]);
        assert_eq!(CLASSES[k.class as usize], 8);
        assert_eq!(
            a.iter(&k, List::Sent).collect::<Vec<_>>(),
            vec![3, 70, 140, 200, 440]
        );
        assert!(a.knows(&k, 70) && !a.knows(&k, 71));
    }

    #[test]
    fn every_peer_of_a_thousand_moves_the_lists_to_bitsets() {
        let mut a = Arena::default();
        let mut k = Known::default();
        a.insert(&mut k, List::Received, 5);
        for p in 0..1000 {
            a.insert(&mut k, List::Sent, p);
        }
        assert_eq!(k.class, DENSE);
        assert_eq!(a.iter(&k, List::Sent).count(), 1000);
        assert_eq!(a.iter(&k, List::Received).collect::<Vec<_>>(), vec![5]);
        a.clear(&mut k, List::Sent);
        assert!(!a.knows(&k, 7) && a.knows(&k, 5));
    }

    #[test]
    fn chunks_outgrown_are_reused_by_later_messages() {
        // Messages arrive over time (ten a round) and each learns of a
        // peer a round for 30 rounds, as copies of a gossiped message do.
        let mut a = Arena::default();
        let mut ks = vec![Known::default(); 2000];
        for round in 0..230 {
            for (i, k) in ks.iter_mut().enumerate() {
                let age = round as isize - (i / 10) as isize;
                if (0..30).contains(&age) {
                    a.insert(k, List::Sent, (i * 7 + round * 301) % 1000);
                }
            }
        }
        let used: usize = ks.iter().map(|k| CLASSES[k.class as usize] as usize).sum();
        // Carved from the pages so far: every page but the last, and the
        // last up to its top.
        let pages: usize = a.pages.iter().map(|p| p.len()).sum();
        let carved = pages - (a.pages.last().map_or(0, |p| p.len()) - a.top);
        assert!(
            carved < used + used / 4,
            "{carved} bytes carved for {used} in use"
        );
    }

    #[test]
    fn extending_an_empty_list_equals_inserting_each() {
        let peers: Vec<usize> = (0..90).map(|i| i * 11 + (i % 3)).collect();
        for n in [0, 1, 5, 60, 90] {
            let start = || {
                let (mut arena, mut k) = (Arena::default(), Known::default());
                arena.insert(&mut k, List::Received, 7);
                arena.insert(&mut k, List::Random, 500);
                (arena, k)
            };
            let ((mut a, mut ka), (mut b, mut kb)) = (start(), start());
            a.extend(&mut ka, List::Sent, &peers[..n]);
            for &p in &peers[..n] {
                b.insert(&mut kb, List::Sent, p);
            }
            for list in LISTS {
                let (x, y): (Vec<usize>, Vec<usize>) =
                    (a.iter(&ka, list).collect(), b.iter(&kb, list).collect());
                assert_eq!(x, y, "{n} {list:?}");
            }
            // A list already holding peers takes them one at a time.
            a.extend(&mut ka, List::Sent, &[3, 4]);
            assert!(a.contains(&ka, List::Sent, 3) && a.contains(&ka, List::Sent, 4));
        }
    }

    #[derive(Debug, Clone)]
    enum Op {
        Insert(usize, usize, usize),
        Remove(usize, usize, usize),
        Clear(usize, usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        let peer = prop_oneof![0..40usize, 0..400usize, 0..65_536usize];
        prop_oneof![
            6 => (0..4usize, 0..3usize, peer.clone()).prop_map(|(m, l, p)| Op::Insert(m, l, p)),
            2 => (0..4usize, 0..3usize, peer).prop_map(|(m, l, p)| Op::Remove(m, l, p)),
            1 => (0..4usize, 0..3usize).prop_map(|(m, l)| Op::Clear(m, l)),
        ]
    }

    const LISTS: [List; 3] = [List::Sent, List::Received, List::Random];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(120))]
        /// Four messages in one arena answer every question as sets do
        /// (ordered sets stand in for the bitsets: the same answers, and
        /// walking one does not visit every word up to peer 65 535 after
        /// each operation, which made this test the crate's slowest).
        #[test]
        fn the_lists_answer_as_bitsets(ops in proptest::collection::vec(op(), 1..600)) {
            let mut a = Arena::default();
            let mut ks = [Known::default(); 4];
            let mut sets: Vec<[BTreeSet<usize>; 3]> = (0..4).map(|_| Default::default()).collect();
            for o in ops {
                match o {
                    Op::Insert(m, l, p) => prop_assert_eq!(
                        a.insert(&mut ks[m], LISTS[l], p), sets[m][l].insert(p)),
                    Op::Remove(m, l, p) => prop_assert_eq!(
                        a.remove(&mut ks[m], LISTS[l], p), sets[m][l].remove(&p)),
                    Op::Clear(m, l) => {
                        a.clear(&mut ks[m], LISTS[l]);
                        sets[m][l].clear();
                    }
                }
                for m in 0..4 {
                    for l in 0..3 {
                        let got: Vec<usize> = a.iter(&ks[m], LISTS[l]).collect();
                        let want: Vec<usize> = sets[m][l].iter().copied().collect();
                        prop_assert_eq!(&got, &want);
                        for p in [0, 1, 39, 127, 128, 399, 65_535] {
                            prop_assert_eq!(a.contains(&ks[m], LISTS[l], p), sets[m][l].contains(&p));
                        }
                    }
                }
            }
        }
    }
}
