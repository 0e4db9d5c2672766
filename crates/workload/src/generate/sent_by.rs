//! Who delivers each generated message to the node under test
//! (subsystem-bench §3.4): the grid neighbours that would forward another
//! validator's message to the node, plus the validators whose random routing
//! picks the node.
//!
//! The random part follows upstream's model — each sender routes a message
//! to up to 4 peers, taking each peer of a random order with probability
//! 25/N — but draws "did the sender pick the node?" directly (the node's
//! position in the order is uniform; it is picked if fewer than 4 peers
//! before it were picked and it is picked itself) instead of shuffling all N
//! peers for every sender. Same distribution, O(N) per sampling instead of
//! O(N²), which matters at 1,000 validators.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rand_distr::{Binomial, Distribution};
use tranche_primitives::ValidatorIndex;

/// Peers a random-routing sender targets (`DEFAULT_RANDOM_CIRCULATION`).
const RANDOM_CIRCULATION: u32 = 4;
/// `DEFAULT_RANDOM_SAMPLE_RATE`: each peer is picked with probability
/// `RANDOM_SAMPLE_RATE / N`, or always when N is smaller.
const RANDOM_SAMPLE_RATE: u32 = 25;

/// Row and column neighbours in the standard sqrt grid with the identity
/// shuffle (validator `i` sits at position `i`), as subsystem-bench uses.
pub struct IdentityGrid {
    n: u32,
    row_len: u32,
}

impl IdentityGrid {
    pub fn new(n: u32) -> Self {
        let row_len = (n as f64).sqrt().floor().max(1.0) as u32;
        IdentityGrid { n, row_len }
    }

    /// Validators in `v`'s row, without `v`.
    pub fn row(&self, v: u32) -> impl Iterator<Item = u32> + '_ {
        let start = v / self.row_len * self.row_len;
        (start..(start + self.row_len).min(self.n)).filter(move |w| *w != v)
    }

    /// Validators in `v`'s column, without `v`.
    pub fn column(&self, v: u32) -> impl Iterator<Item = u32> + '_ {
        (v % self.row_len..self.n)
            .step_by(self.row_len as usize)
            .filter(move |w| *w != v)
    }

    fn same_row(&self, a: u32, b: u32) -> bool {
        a / self.row_len == b / self.row_len
    }

    fn same_column(&self, a: u32, b: u32) -> bool {
        a % self.row_len == b % self.row_len
    }

    /// The grid neighbours that forward `v`'s messages to `node`: the one of
    /// `v`'s column that sits in `node`'s row, the one of `v`'s row that sits
    /// in `node`'s column, and `v` itself when it neighbours `node`. Lowest
    /// index first where upstream takes an arbitrary one.
    pub fn senders_to(&self, v: u32, node: u32) -> Vec<u32> {
        let mut out = Vec::with_capacity(3);
        if let Some(y) = self
            .column(v)
            .find(|w| *w != node && self.same_row(*w, node))
        {
            out.push(y);
        }
        if let Some(x) = self
            .row(v)
            .find(|w| *w != node && self.same_column(*w, node))
        {
            out.push(x);
        }
        if self.same_row(v, node) || self.same_column(v, node) {
            out.push(v);
        }
        out
    }
}

/// `count` independent samplings of the set of validators whose random
/// routing picks `node` (upstream draws 2N of them from a ChaCha20 seeded
/// with `0x07` bytes; we fold in the run seed).
pub fn random_samplings(node: u32, n: u32, count: usize, seed: u64) -> Vec<Vec<ValidatorIndex>> {
    let mut key = [0x07u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    let mut rng = ChaCha20Rng::from_seed(key);
    let p = if RANDOM_SAMPLE_RATE > n {
        1.0
    } else {
        f64::from(RANDOM_SAMPLE_RATE) / f64::from(n)
    };
    (0..count)
        .map(|_| {
            (0..n)
                .filter(|s| *s != node)
                .filter(|_| {
                    let position = rng.gen_range(0..n) as u64;
                    let picked_before = Binomial::new(position, p)
                        .map(|b| b.sample(&mut rng))
                        .unwrap_or(0);
                    picked_before < u64::from(RANDOM_CIRCULATION) && rng.gen_bool(p)
                })
                .map(ValidatorIndex)
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_of_ten() {
        // Row length 3: rows {0,1,2} {3,4,5} {6,7,8} {9}.
        let g = IdentityGrid::new(10);
        assert_eq!(g.row(4).collect::<Vec<_>>(), vec![3, 5]);
        assert_eq!(g.column(4).collect::<Vec<_>>(), vec![1, 7]);
        assert_eq!(g.row(9).count(), 0);
        assert_eq!(g.column(0).collect::<Vec<_>>(), vec![3, 6, 9]);
        // Validator 4 reaches node 0 through 1 (its column, node's row) and
        // 3 (its row, node's column).
        assert_eq!(g.senders_to(4, 0), vec![1, 3]);
        // Validator 3 is in node 0's column: it sends directly too.
        assert_eq!(g.senders_to(3, 0), vec![3]);
    }

    #[test]
    fn random_routing_picks_about_four_per_message() {
        let n = 500;
        let s = random_samplings(0, n, 400, 1);
        let mean = s.iter().map(Vec::len).sum::<usize>() as f64 / s.len() as f64;
        // Each of 499 senders picks the node with probability ~4/500.
        assert!((3.0..5.0).contains(&mean), "mean {mean}");
        assert!(s.iter().flatten().all(|v| v.0 != 0));
        // Small networks: every sender picks its first 4 peers of 10.
        let small = random_samplings(0, 10, 400, 1);
        let mean = small.iter().map(Vec::len).sum::<usize>() as f64 / 400.0;
        assert!((3.0..4.2).contains(&mean), "mean {mean}");
        assert_eq!(random_samplings(0, n, 5, 9), random_samplings(0, n, 5, 9));
    }
}
