//! Random routing (upstream `RandomRouting` in
//! `polkadot/node/network/protocol/src/grid_topology.rs`): besides the grid,
//! each message goes to up to 4 random validator peers, each candidate peer
//! passing with probability 25/n. Upstream walks its peers in the order of
//! a hash map (an arbitrary order, different per node) and stops after 4,
//! which takes a uniform subset of the peers that pass; walking them in
//! ascending id would pick nearly always among the lowest ids.
//! [`RandomRouting::pick`] draws that law directly — how many pass, then
//! which — in a popcount per word of peers instead of a draw per peer.
//! A peer entering a message's view later gets its own Bernoulli draw
//! ([`RandomRouting::sample`]), as upstream.
//!
//! Upstream draws from a node-local entropy RNG; we draw from a generator
//! seeded by (node seed, block, validator, candidates) and a counter or the
//! peer, so the choice never depends on which worker or thread handled the
//! message.

use tranche_primitives::{CandidateBitfield, Hash, ValidatorIndex};

/// Peers a message is sent to at random (`DEFAULT_RANDOM_CIRCULATION`).
pub const RANDOM_CIRCULATION: usize = 4;
/// Expected sample size (`DEFAULT_RANDOM_SAMPLE_RATE = MIN_GOSSIP_PEERS`).
pub const RANDOM_SAMPLE_RATE: usize = 25;

/// The random-routing counter of one message: how many peers it went to
/// at random, of [`RANDOM_CIRCULATION`] at most, each candidate peer
/// passing with probability [`RANDOM_SAMPLE_RATE`]` / n` (one byte, as
/// every message a validator holds carries one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RandomRouting {
    sent: u8,
}

impl RandomRouting {
    /// Whether to send to one more peer, given `n_peers_total` connected
    /// peers and a uniformly random 64-bit `draw`.
    pub fn sample(&self, n_peers_total: usize, draw: u64) -> bool {
        if n_peers_total == 0 || self.is_complete() {
            false
        } else if RANDOM_SAMPLE_RATE > n_peers_total {
            true
        } else {
            // Bernoulli(sample_rate / n): the draw scaled into 0..n.
            (((draw as u128) * (n_peers_total as u128)) >> 64) < RANDOM_SAMPLE_RATE as u128
        }
    }

    pub fn inc_sent(&mut self) {
        self.sent = self.sent.saturating_add(1);
    }

    pub fn is_complete(&self) -> bool {
        self.sent as usize >= RANDOM_CIRCULATION
    }

    /// How many more peers this message may go to.
    pub fn remaining(&self) -> usize {
        RANDOM_CIRCULATION.saturating_sub(self.sent as usize)
    }
}

/// Salt of the draw of how many peers pass the sampling.
const COUNT_SALT: u64 = 0x636f_756e_7400_0001;
/// Salt of the draws of which eligible peers are taken.
const INDEX_SALT: u64 = 0x696e_6465_7800_0001;

impl RandomRouting {
    /// The peers a newly accepted message goes to at random, among the
    /// eligible ones: the members of the words `eligible(0..words)`.
    ///
    /// Upstream offers each eligible peer in turn a Bernoulli(rate / n)
    /// draw and stops at the target. Walking a hash map's arbitrary order,
    /// that takes a uniform `min(target, M)`-subset of the eligible peers,
    /// where M ~ Binomial(E, rate / n) is how many would pass and E how many
    /// are eligible: a uniform k-subset of a uniform M-subset is a uniform
    /// k-subset. This draws exactly that law directly — the count from M's
    /// distribution (one draw), then that many distinct eligible peers
    /// uniformly (a draw each) — so a message costs a popcount per word of
    /// peers, not a draw per peer. Returned in ascending id.
    pub fn pick(
        &self,
        seed: u64,
        n_peers_total: usize,
        words: usize,
        eligible: impl Fn(usize) -> u64,
    ) -> Picks {
        let k = self.remaining();
        if n_peers_total == 0 || k == 0 {
            return Picks::default();
        }
        let e: usize = (0..words).map(|w| eligible(w).count_ones() as usize).sum();
        let m = if RANDOM_SAMPLE_RATE > n_peers_total {
            k.min(e)
        } else {
            passing_count(seed, e, RANDOM_SAMPLE_RATE as f64 / n_peers_total as f64, k)
        };
        // `m` (at most `k`) distinct ranks among the eligible, uniformly.
        let mut ranks = Picks::default();
        let mut attempt = 0u32;
        while ranks.len < m {
            let r = ((peer_draw(seed ^ INDEX_SALT, attempt) as u128 * e as u128) >> 64) as usize;
            attempt += 1;
            if !ranks.contains(&r) {
                ranks.push(r);
            }
        }
        ranks.peers[..ranks.len].sort_unstable();
        // Rank -> peer, a popcount per word.
        let mut peers = Picks::default();
        let mut next = ranks.iter().copied().peekable();
        let mut base = 0usize;
        for w in 0..words {
            let Some(&r) = next.peek() else { break };
            let bits = eligible(w);
            let c = bits.count_ones() as usize;
            let mut r = r;
            while r < base + c {
                peers.push(w * 64 + nth_set_bit(bits, r - base));
                next.next();
                match next.peek() {
                    Some(&n) => r = n,
                    None => break,
                }
            }
            base += c;
        }
        peers
    }
}

/// The peers a message is sent to at random (at most
/// [`RANDOM_CIRCULATION`]), in ascending id: held in place, no list
/// allocated per message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Picks {
    peers: [usize; RANDOM_CIRCULATION],
    len: usize,
}

impl Picks {
    fn push(&mut self, peer: usize) {
        self.peers[self.len] = peer;
        self.len += 1;
    }
}

impl std::ops::Deref for Picks {
    type Target = [usize];

    fn deref(&self) -> &[usize] {
        &self.peers[..self.len]
    }
}

impl IntoIterator for Picks {
    type Item = usize;
    type IntoIter = std::iter::Take<std::array::IntoIter<usize, RANDOM_CIRCULATION>>;

    fn into_iter(self) -> Self::IntoIter {
        self.peers.into_iter().take(self.len)
    }
}

/// `min(k, M)` for M ~ Binomial(e, p), 0 < p < 1, from one uniform draw by
/// the inverse of M's distribution function over 0..k. Exact IEEE
/// arithmetic (`powi` is repeated multiplication), so every machine draws
/// the same count.
fn passing_count(seed: u64, e: usize, p: f64, k: usize) -> usize {
    let u = (peer_draw(seed ^ COUNT_SALT, 0) >> 11) as f64 / (1u64 << 53) as f64;
    let odds = p / (1.0 - p);
    let mut pmf = (1.0 - p).powi(e.min(i32::MAX as usize) as i32);
    let mut cdf = 0.0;
    for j in 0..k.min(e) {
        cdf += pmf;
        if u < cdf {
            return j;
        }
        pmf *= (e - j) as f64 / (j + 1) as f64 * odds;
    }
    k.min(e)
}

/// The index of the `n`-th (from 0) set bit of `w`, which has more than
/// `n` set bits.
fn nth_set_bit(mut w: u64, n: usize) -> usize {
    for _ in 0..n {
        w &= w - 1;
    }
    w.trailing_zeros() as usize
}

/// The per-message seed: BLAKE2b of (node seed, block, validator,
/// candidate bitfield), folded to 64 bits.
pub fn message_seed(
    node_seed: u64,
    block: &Hash,
    validator: ValidatorIndex,
    candidates: &CandidateBitfield,
) -> u64 {
    let mut st = blake2b_simd::Params::new().hash_length(8).to_state();
    st.update(&node_seed.to_le_bytes());
    st.update(&block.0);
    st.update(&validator.0.to_le_bytes());
    st.update(&(candidates.len() as u32).to_le_bytes());
    st.update(candidates.as_bitvec().as_raw_slice());
    let h = st.finalize();
    u64::from_le_bytes(h.as_bytes().try_into().expect("8 bytes"))
}

/// The draw for one peer of one message (SplitMix64 of the message seed
/// mixed with the peer id).
pub fn peer_draw(message_seed: u64, peer: u32) -> u64 {
    let mut z = message_seed ^ (peer as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_rules() {
        let mut r = RandomRouting::default();
        assert!(!r.sample(0, 0));
        // Fewer peers than the sample rate: everyone passes.
        assert!(r.sample(10, u64::MAX));
        // 100 peers: a draw in the lowest quarter passes.
        assert!(r.sample(100, u64::MAX / 5));
        assert!(!r.sample(100, u64::MAX / 3));
        for _ in 0..4 {
            r.inc_sent();
        }
        assert!(r.is_complete());
        assert!(!r.sample(10, 0));
    }

    fn seed_of(m: u32) -> u64 {
        message_seed(
            1,
            &Hash([(m % 251) as u8; 32]),
            ValidatorIndex(m),
            &CandidateBitfield::from_index(0),
        )
    }

    /// The members of `set` as `pick`'s word function.
    fn words_of(set: &[usize]) -> (usize, impl Fn(usize) -> u64 + '_) {
        let words = set.iter().max().map_or(0, |m| m / 64 + 1);
        (words, move |w: usize| {
            set.iter()
                .filter(|q| **q / 64 == w)
                .fold(0u64, |acc, q| acc | 1 << (q % 64))
        })
    }

    /// Over many messages every peer is picked about equally often (with
    /// an ascending walk that stops after 4 hits, the lowest ids would take
    /// nearly all picks), never more than 4, distinct, ascending.
    #[test]
    fn picks_are_spread_over_all_peers() {
        let n = 1_000usize;
        let all: Vec<usize> = (0..n).collect();
        let (words, eligible) = words_of(&all);
        let mut count = vec![0u32; n];
        for m in 0..20_000u32 {
            let chosen = RandomRouting::default().pick(seed_of(m), n, words, &eligible);
            assert!(chosen.len() <= RANDOM_CIRCULATION);
            assert!(chosen.windows(2).all(|w| w[0] < w[1]), "{chosen:?}");
            for q in chosen {
                count[q] += 1;
            }
        }
        let (min, max) = (*count.iter().min().unwrap(), *count.iter().max().unwrap());
        // 80 000 picks over 1 000 peers: about 80 each.
        assert!(min >= 40 && max <= 130, "min {min}, max {max}");
        let low: u32 = count[..100].iter().sum();
        let high: u32 = count[900..].iter().sum();
        assert!(
            low < 2 * high && high < 2 * low,
            "low ids {low}, high ids {high}"
        );
    }

    /// Only eligible peers are taken; with fewer peers than the sample rate
    /// every eligible one passes, so the first 4 (or all) are taken; a
    /// message already sent to 4 takes none.
    #[test]
    fn picks_respect_eligibility_and_the_target() {
        let odd: Vec<usize> = (0..300).filter(|q| q % 2 == 1).collect();
        let (words, eligible) = words_of(&odd);
        for m in 0..2_000u32 {
            for q in RandomRouting::default().pick(seed_of(m), 300, words, &eligible) {
                assert_eq!(q % 2, 1, "peer {q} is not eligible");
            }
        }
        let few = [3usize, 70, 200];
        let (words, eligible) = words_of(&few);
        assert_eq!(
            *RandomRouting::default().pick(seed_of(0), 20, words, &eligible),
            [3, 70, 200]
        );
        let many: Vec<usize> = (0..20).collect();
        let (words, eligible) = words_of(&many);
        assert_eq!(
            RandomRouting::default()
                .pick(seed_of(0), 20, words, &eligible)
                .len(),
            4
        );
        let mut done = RandomRouting::default();
        for _ in 0..4 {
            done.inc_sent();
        }
        assert!(done.pick(seed_of(0), 300, words, &eligible).is_empty());
        assert!(RandomRouting::default()
            .pick(seed_of(0), 300, 0, |_| 0)
            .is_empty());
    }

    /// The number taken follows upstream's walk: each eligible peer, in an
    /// arbitrary order, passes with probability 25/n until 4 have passed.
    /// 30 eligible among 300 (mean 2.5 passing): the counts 0..=4 of the
    /// two agree within sampling noise over 40 000 messages.
    #[test]
    fn the_count_taken_follows_upstreams_walk() {
        let (n, e) = (300usize, 30usize);
        let set: Vec<usize> = (0..e).map(|i| i * 7).collect();
        let (words, eligible) = words_of(&set);
        let trials = 40_000u32;
        let mut ours = [0u32; 5];
        let mut walk = [0u32; 5];
        for m in 0..trials {
            let seed = seed_of(m);
            ours[RandomRouting::default()
                .pick(seed, n, words, &eligible)
                .len()] += 1;
            let mut r = RandomRouting::default();
            for (i, _) in set.iter().enumerate() {
                if r.sample(n, peer_draw(seed ^ 0x5a5a, i as u32)) {
                    r.inc_sent();
                }
            }
            walk[r.remaining().abs_diff(RANDOM_CIRCULATION)] += 1;
        }
        for c in 0..5 {
            let (a, b) = (ours[c] as f64, walk[c] as f64);
            // Binomial noise on 40 000 trials: well under 4 sigma.
            let sigma = ((a + b) / 2.0 * (1.0 - (a + b) / 2.0 / trials as f64)).sqrt();
            assert!(
                (a - b).abs() < 4.0 * sigma.max(10.0),
                "count {c}: ours {ours:?}, upstream's walk {walk:?}"
            );
        }
        // And not a degenerate law: every count 0..=4 occurs.
        assert!(ours.iter().all(|c| *c > 500), "{ours:?}");
    }

    #[test]
    fn draws_are_deterministic_and_spread() {
        let s = message_seed(
            7,
            &Hash([1; 32]),
            ValidatorIndex(3),
            &CandidateBitfield::from_index(2),
        );
        assert_eq!(
            s,
            message_seed(
                7,
                &Hash([1; 32]),
                ValidatorIndex(3),
                &CandidateBitfield::from_index(2)
            )
        );
        assert_ne!(
            s,
            message_seed(
                8,
                &Hash([1; 32]),
                ValidatorIndex(3),
                &CandidateBitfield::from_index(2)
            )
        );
        let r = RandomRouting::default();
        let hits = (0..10_000u32)
            .filter(|p| r.sample(100, peer_draw(s, *p)))
            .count();
        assert!((2_000..3_000).contains(&hits), "{hits}");
    }
}
