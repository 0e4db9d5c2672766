//! Who delivers each generated message to the node under test (upstream
//! `polkadot/node/subsystem-bench/src/lib/approval/message_generator.rs`,
//! `compute_sent_by` and `random_samplings_to_node`): the grid neighbours that would forward another
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
use tranche_distribution::random_routing::{RANDOM_CIRCULATION, RANDOM_SAMPLE_RATE};
use tranche_distribution::{GridNeighbours, SessionGridTopology};
use tranche_primitives::ValidatorIndex;

/// Who forwards other validators' messages to one node on the session's
/// grid: the distribution crate's topology (upstream's benchmark uses the
/// identity shuffle, validator `i` at position `i`).
pub struct SendersTo {
    grid: SessionGridTopology,
    node: ValidatorIndex,
    of_node: Option<GridNeighbours>,
}

impl SendersTo {
    /// The identity grid of `n` validators, seen from `node`.
    pub fn identity(n: u32, node: ValidatorIndex) -> Self {
        let grid = SessionGridTopology::identity(n as usize);
        let of_node = grid.grid_neighbours(node);
        SendersTo {
            grid,
            node,
            of_node,
        }
    }

    /// The grid neighbours that forward `v`'s messages to the node: the one
    /// of `v`'s column that sits in the node's row, the one of `v`'s row
    /// that sits in the node's column, and `v` itself when it neighbours
    /// the node. Lowest index first where upstream takes an arbitrary one.
    pub fn of(&self, v: u32) -> Vec<u32> {
        let v = ValidatorIndex(v);
        let (Some(node), Some(theirs)) = (&self.of_node, self.grid.grid_neighbours(v)) else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(3);
        if let Some(y) = theirs
            .column
            .iter()
            .find(|w| **w != self.node && node.in_row(**w))
        {
            out.push(y.0);
        }
        if let Some(x) = theirs
            .row
            .iter()
            .find(|w| **w != self.node && node.in_column(**w))
        {
            out.push(x.0);
        }
        if node.in_row(v) || node.in_column(v) {
            out.push(v.0);
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
    let rate = RANDOM_SAMPLE_RATE as u32;
    let p = if rate > n {
        1.0
    } else {
        f64::from(rate) / f64::from(n)
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
                    picked_before < RANDOM_CIRCULATION as u64 && rng.gen_bool(p)
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
        let g = SendersTo::identity(10, ValidatorIndex(0));
        // Validator 4 reaches node 0 through 1 (its column, node's row) and
        // 3 (its row, node's column).
        assert_eq!(g.of(4), vec![1, 3]);
        // Validator 3 is in node 0's column: it sends directly too.
        assert_eq!(g.of(3), vec![3]);
        // Validator 9 sits alone in the last row; its column holds 0, 3, 6:
        // 3 is in node 0's column, not its row, so only 9 itself (column 0).
        assert_eq!(g.of(9), vec![9]);
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
