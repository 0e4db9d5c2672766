//! Random routing (upstream `RandomRouting` in
//! `polkadot/node/network/protocol/src/grid_topology.rs`): besides the grid,
//! each message goes to up to 4 random validator peers, each candidate peer
//! passing with probability 25/n. Upstream walks its peers in the order of
//! a hash map (an arbitrary order, different per node) and stops after 4;
//! walking them in ascending id would pick nearly always among the lowest
//! ids, so each message takes its 4 among all peers that pass, in an order
//! of its own ([`Picks`]): the same distribution as a random walk order.
//! Upstream draws from a node-local entropy RNG; we draw from a generator
//! seeded by (node seed, block, validator, candidates, peer), so the choice
//! never depends on which worker or thread handled the message, nor on the
//! order messages arrived in.

use tranche_primitives::{CandidateBitfield, Hash, ValidatorIndex};

/// Peers a message is sent to at random (`DEFAULT_RANDOM_CIRCULATION`).
pub const RANDOM_CIRCULATION: usize = 4;
/// Expected sample size (`DEFAULT_RANDOM_SAMPLE_RATE = MIN_GOSSIP_PEERS`).
pub const RANDOM_SAMPLE_RATE: usize = 25;

/// The random-routing counter of one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RandomRouting {
    target: usize,
    sent: usize,
    sample_rate: usize,
}

impl Default for RandomRouting {
    fn default() -> Self {
        RandomRouting {
            target: RANDOM_CIRCULATION,
            sent: 0,
            sample_rate: RANDOM_SAMPLE_RATE,
        }
    }
}

impl RandomRouting {
    /// Whether to send to one more peer, given `n_peers_total` connected
    /// peers and a uniformly random 64-bit `draw`.
    pub fn sample(&self, n_peers_total: usize, draw: u64) -> bool {
        if n_peers_total == 0 || self.sent >= self.target {
            false
        } else if self.sample_rate > n_peers_total {
            true
        } else {
            // Bernoulli(sample_rate / n): the draw scaled into 0..n.
            (((draw as u128) * (n_peers_total as u128)) >> 64) < self.sample_rate as u128
        }
    }

    pub fn inc_sent(&mut self) {
        self.sent += 1;
    }

    pub fn is_complete(&self) -> bool {
        self.sent >= self.target
    }

    /// How many more peers this message may go to.
    pub fn remaining(&self) -> usize {
        self.target.saturating_sub(self.sent)
    }
}

/// Salt of the per-message order among the peers that pass.
const ORDER_SALT: u64 = 0x6f72_6465_7200_0001;

/// The peers a message goes to among those that passed the sampling: the
/// `k` with the lowest per-message priority, i.e. the first `k` of a random
/// order of all peers, whatever their ids.
#[derive(Debug)]
pub struct Picks {
    k: usize,
    /// `(priority, peer)`, at most `k`, unsorted.
    best: Vec<(u64, usize)>,
}

impl Picks {
    pub fn new(k: usize) -> Self {
        Picks {
            k,
            best: Vec::with_capacity(k),
        }
    }

    /// Offer a peer that passed the sampling for the message of `seed`.
    pub fn offer(&mut self, seed: u64, peer: usize) {
        if self.k == 0 {
            return;
        }
        let priority = peer_draw(seed ^ ORDER_SALT, peer as u32);
        if self.best.len() < self.k {
            self.best.push((priority, peer));
            return;
        }
        let (worst, at) = self
            .best
            .iter()
            .enumerate()
            .map(|(i, (p, _))| (*p, i))
            .max()
            .expect("k > 0 entries");
        if priority < worst {
            self.best[at] = (priority, peer);
        }
    }

    /// The chosen peers, in ascending id.
    pub fn into_peers(self) -> Vec<usize> {
        let mut peers: Vec<usize> = self.best.into_iter().map(|(_, q)| q).collect();
        peers.sort_unstable();
        peers
    }
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

    /// Over many messages every peer is picked about equally often (with
    /// an ascending walk that stops after 4 hits, the lowest ids would take
    /// nearly all picks).
    #[test]
    fn picks_are_spread_over_all_peers() {
        let n = 1_000usize;
        let mut count = vec![0u32; n];
        for m in 0..20_000u32 {
            let seed = message_seed(
                1,
                &Hash([(m % 251) as u8; 32]),
                ValidatorIndex(m),
                &CandidateBitfield::from_index(0),
            );
            let r = RandomRouting::default();
            let mut picks = Picks::new(r.remaining());
            for q in 0..n {
                if r.sample(n, peer_draw(seed, q as u32)) {
                    picks.offer(seed, q);
                }
            }
            let chosen = picks.into_peers();
            assert!(chosen.len() <= RANDOM_CIRCULATION);
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
