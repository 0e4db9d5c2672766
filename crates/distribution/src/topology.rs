//! The 2-D gossip grid of a session (upstream `polkadot/node/network/protocol/src/grid_topology.rs` and `polkadot/node/network/gossip-support/src/lib.rs`): the shuffle of validators
//! onto grid positions derived from the session's randomness, row (X) and
//! column (Y) neighbours, and the required routing of a message depending
//! on who originated it. Public so that the benchmark's message generator
//! can compute the same grid (including upstream benchmark's identity
//! shuffle).

use std::sync::Arc;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use tranche_primitives::bitset::BitSet;
use tranche_primitives::{Hash, ValidatorIndex};

/// Prefix hashed with the epoch randomness to seed the shuffle.
pub const GOSSIP_SEED_PREFIX: &[u8; 8] = b"gossipsu";

/// Why a shuffle cannot be a grid topology.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopologyError {
    #[error("the shuffle is not a permutation of 0..{0}")]
    NotAPermutation(usize),
}

/// The shuffle seed of a session: BLAKE2b-256(`"gossipsu"` ‖ randomness).
pub fn shuffle_seed(randomness: &[u8; 32]) -> [u8; 32] {
    let mut input = [0u8; 40];
    input[..8].copy_from_slice(GOSSIP_SEED_PREFIX);
    input[8..].copy_from_slice(randomness);
    Hash::blake2_256(&input).0
}

/// Which validator sits at which grid position, and back. Every validator
/// of a session holds the same grid, so the tables are shared: a clone
/// (one per validator of a simulated network) costs two counts, not the
/// tables (about 12 bytes a validator each).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionGridTopology {
    /// Validator at each grid position (`canonical_shuffling`).
    canonical: Arc<[ValidatorIndex]>,
    /// Grid position of each validator (`shuffled_indices`).
    positions: Arc<[usize]>,
}

impl SessionGridTopology {
    /// The grid gossip-support builds: `n_authorities` shuffled with
    /// ChaCha20 seeded by [`shuffle_seed`] (rand 0.8 `SliceRandom::shuffle`).
    pub fn from_randomness(randomness: &[u8; 32], n_authorities: usize) -> Self {
        let mut rng = ChaCha20Rng::from_seed(shuffle_seed(randomness));
        let mut canonical: Vec<ValidatorIndex> =
            (0..n_authorities as u32).map(ValidatorIndex).collect();
        canonical.shuffle(&mut rng);
        Self::from_shuffle(canonical).expect("a shuffle of 0..n is a permutation")
    }

    /// Validator `i` at position `i`, as upstream's subsystem benchmark uses.
    pub fn identity(n: usize) -> Self {
        Self::from_shuffle((0..n as u32).map(ValidatorIndex).collect())
            .expect("the identity is a permutation")
    }

    /// A grid from the validator at each position.
    pub fn from_shuffle(canonical: Vec<ValidatorIndex>) -> Result<Self, TopologyError> {
        let n = canonical.len();
        let mut positions = vec![usize::MAX; n];
        for (pos, v) in canonical.iter().enumerate() {
            let slot = positions
                .get_mut(v.0 as usize)
                .ok_or(TopologyError::NotAPermutation(n))?;
            if *slot != usize::MAX {
                return Err(TopologyError::NotAPermutation(n));
            }
            *slot = pos;
        }
        Ok(SessionGridTopology {
            canonical: canonical.into(),
            positions: positions.into(),
        })
    }

    pub fn len(&self) -> usize {
        self.canonical.len()
    }

    pub fn is_empty(&self) -> bool {
        self.canonical.is_empty()
    }

    /// The validator at each position (`canonical_shuffling`).
    pub fn canonical_shuffling(&self) -> &[ValidatorIndex] {
        &self.canonical
    }

    /// The position of each validator (`shuffled_indices`).
    pub fn shuffled_indices(&self) -> &[usize] {
        &self.positions
    }

    /// Row and column neighbours of `validator`; `None` if it is not in
    /// the grid.
    pub fn grid_neighbours(&self, validator: ValidatorIndex) -> Option<GridNeighbours> {
        let pos = *self.positions.get(validator.0 as usize)?;
        let (row, column) = matrix_neighbours(pos, self.len())?;
        let to_validators = |ps: Vec<usize>| -> Vec<ValidatorIndex> {
            let mut vs: Vec<ValidatorIndex> = ps.into_iter().map(|p| self.canonical[p]).collect();
            vs.sort();
            vs
        };
        Some(GridNeighbours::new(
            to_validators(row),
            to_validators(column),
        ))
    }
}

/// Row and column neighbour *positions* of position `pos` in a grid of
/// `len` positions laid out in rows of `floor(sqrt(len))`; `None` if `pos`
/// is outside the grid.
pub fn matrix_neighbours(pos: usize, len: usize) -> Option<(Vec<usize>, Vec<usize>)> {
    if pos >= len {
        return None;
    }
    let width = (len as f64).sqrt() as usize;
    let row_start = (pos / width) * width;
    let row_end = (row_start + width).min(len);
    let row = (row_start..row_end).filter(|q| *q != pos).collect();
    let column = (pos % width..len)
        .step_by(width)
        .filter(|q| *q != pos)
        .collect();
    Some((row, column))
}

/// How far a message must travel from us (upstream `RequiredRouting`, `grid_topology.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RequiredRouting {
    /// The session's topology is not known yet.
    PendingTopology,
    /// Every validator peer (aggression level 1 for our own messages).
    All,
    /// Row and column.
    GridXY,
    /// Row only.
    GridX,
    /// Column only.
    GridY,
    /// Nobody (beyond random routing).
    None,
}

impl RequiredRouting {
    /// True for `None` and `PendingTopology`.
    pub fn is_empty(self) -> bool {
        matches!(
            self,
            RequiredRouting::None | RequiredRouting::PendingTopology
        )
    }

    /// The routing of a vote that covers messages routed `self` and `other`.
    pub fn combine(self, other: RequiredRouting) -> RequiredRouting {
        use RequiredRouting::*;
        match (self, other) {
            (All, _) | (_, All) => All,
            (GridXY, _) | (_, GridXY) | (GridX, GridY) | (GridY, GridX) => GridXY,
            (GridX, GridX) => GridX,
            (GridY, GridY) => GridY,
            (None, PendingTopology) | (PendingTopology, None) => PendingTopology,
            (None | PendingTopology, x) | (x, None | PendingTopology) => x,
        }
    }
}

/// Our row (X) and column (Y) neighbours as validator indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridNeighbours {
    pub row: Vec<ValidatorIndex>,
    pub column: Vec<ValidatorIndex>,
    x: BitSet,
    y: BitSet,
}

impl GridNeighbours {
    pub fn new(row: Vec<ValidatorIndex>, column: Vec<ValidatorIndex>) -> Self {
        let x = row.iter().map(|v| v.0 as usize).collect();
        let y = column.iter().map(|v| v.0 as usize).collect();
        GridNeighbours { row, column, x, y }
    }

    pub fn in_row(&self, v: ValidatorIndex) -> bool {
        self.x.contains(v.0 as usize)
    }

    pub fn in_column(&self, v: ValidatorIndex) -> bool {
        self.y.contains(v.0 as usize)
    }

    /// Routing of a message originated by `originator` (`local`: by us).
    pub fn required_routing_by_index(
        &self,
        originator: ValidatorIndex,
        local: bool,
    ) -> RequiredRouting {
        if local {
            return RequiredRouting::GridXY;
        }
        match (self.in_row(originator), self.in_column(originator)) {
            (true, true) => RequiredRouting::GridXY,
            (true, false) => RequiredRouting::GridY,
            (false, true) => RequiredRouting::GridX,
            (false, false) => RequiredRouting::None,
        }
    }

    /// Whether `routing` sends to the validator `v` (`All`: any validator).
    pub fn route_to_validator(&self, routing: RequiredRouting, v: ValidatorIndex) -> bool {
        match routing {
            RequiredRouting::All => true,
            RequiredRouting::GridX => self.in_row(v),
            RequiredRouting::GridY => self.in_column(v),
            RequiredRouting::GridXY => self.in_row(v) || self.in_column(v),
            RequiredRouting::None | RequiredRouting::PendingTopology => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vs(v: &[u32]) -> Vec<ValidatorIndex> {
        v.iter().map(|i| ValidatorIndex(*i)).collect()
    }

    #[test]
    fn shuffle_reproduces_spec_vectors() {
        let seed = shuffle_seed(&[0; 32]);
        let hex: String = seed.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "a02f2b1a8819bad04c50784fe04a18fffe3a7da747496e2822a317c7c5a4026f"
        );
        let t = SessionGridTopology::from_randomness(&[0; 32], 10);
        assert_eq!(
            t.canonical_shuffling(),
            &vs(&[6, 2, 8, 7, 9, 1, 3, 5, 4, 0])[..]
        );
        assert_eq!(t.shuffled_indices(), &[9, 5, 1, 6, 8, 7, 0, 3, 2, 4]);
        let n = t.grid_neighbours(ValidatorIndex(0)).unwrap();
        assert!(n.row.is_empty());
        assert_eq!(n.column, vs(&[3, 6, 7]));
    }

    #[test]
    fn matrix_neighbours_match_upstream_examples() {
        assert_eq!(matrix_neighbours(0, 9), Some((vec![1, 2], vec![3, 6])));
        assert_eq!(matrix_neighbours(9, 10), Some((vec![], vec![0, 3, 6])));
        assert_eq!(matrix_neighbours(10, 11), Some((vec![9], vec![1, 4, 7])));
        assert_eq!(matrix_neighbours(7, 11), Some((vec![6, 8], vec![1, 4, 10])));
        assert_eq!(matrix_neighbours(11, 11), None);
    }

    #[test]
    fn identity_grid_and_required_routing() {
        // 16 validators, identity: a 4x4 grid; validator 5 is at row 1,
        // column 1.
        let t = SessionGridTopology::identity(16);
        let n = t.grid_neighbours(ValidatorIndex(5)).unwrap();
        assert_eq!(n.row, vs(&[4, 6, 7]));
        assert_eq!(n.column, vs(&[1, 9, 13]));
        use RequiredRouting::*;
        assert_eq!(n.required_routing_by_index(ValidatorIndex(6), false), GridY);
        assert_eq!(n.required_routing_by_index(ValidatorIndex(9), false), GridX);
        assert_eq!(n.required_routing_by_index(ValidatorIndex(0), false), None);
        assert_eq!(n.required_routing_by_index(ValidatorIndex(0), true), GridXY);
        assert!(n.route_to_validator(GridY, ValidatorIndex(13)));
        assert!(!n.route_to_validator(GridY, ValidatorIndex(4)));
        assert!(n.route_to_validator(GridXY, ValidatorIndex(4)));
        assert!(n.route_to_validator(All, ValidatorIndex(0)));
        assert!(!n.route_to_validator(None, ValidatorIndex(4)));
        assert!(!n.route_to_validator(PendingTopology, ValidatorIndex(4)));
    }

    #[test]
    fn combine_table() {
        use RequiredRouting::*;
        assert_eq!(GridX.combine(GridY), GridXY);
        assert_eq!(GridY.combine(GridX), GridXY);
        assert_eq!(GridX.combine(GridX), GridX);
        assert_eq!(None.combine(GridY), GridY);
        assert_eq!(PendingTopology.combine(None), PendingTopology);
        assert_eq!(None.combine(PendingTopology), PendingTopology);
        assert_eq!(GridX.combine(All), All);
        assert_eq!(None.combine(None), None);
        assert!(None.is_empty() && PendingTopology.is_empty() && !GridX.is_empty());
    }

    #[test]
    fn bad_shuffles_are_refused() {
        assert!(SessionGridTopology::from_shuffle(vs(&[0, 0])).is_err());
        assert!(SessionGridTopology::from_shuffle(vs(&[0, 2])).is_err());
    }
}
