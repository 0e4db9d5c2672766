//! Per-session grid topologies as distribution uses them (upstream `SessionGridTopologies` in `grid_topology.rs`):
//! our neighbours, and the peer bitsets each required routing sends to,
//! kept current as peers connect and disconnect. The first topology
//! received for a session wins; a session's topology is dropped when its
//! last block is finalized.

use crate::topology::{GridNeighbours, RequiredRouting, SessionGridTopology};
use tranche_primitives::bitset::BitSet;
use tranche_primitives::ValidatorIndex;

pub(crate) struct TopologyEntry {
    pub grid: SessionGridTopology,
    pub neighbours: GridNeighbours,
    pub peers_x: BitSet,
    pub peers_y: BitSet,
    pub peers_xy: BitSet,
    /// Peers that are authorities of this session.
    pub validator_peers: BitSet,
    empty: BitSet,
}

/// Every possible peer id: `RequiredRouting::All` goes to every peer that
/// knows the block, validator or not (upstream `route_to_peer`:
/// `RequiredRouting::All => true`). The same 8 KiB for every holder, made
/// once per process (not once per simulated validator).
fn everyone() -> &'static BitSet {
    static EVERYONE: std::sync::OnceLock<BitSet> = std::sync::OnceLock::new();
    EVERYONE.get_or_init(|| {
        let mut all = BitSet::zeroed(crate::action::MAX_PEER_ID as usize + 1);
        for p in 0..=crate::action::MAX_PEER_ID as usize {
            all.insert(p);
        }
        all
    })
}

impl TopologyEntry {
    pub fn new(grid: SessionGridTopology, neighbours: GridNeighbours) -> Self {
        TopologyEntry {
            grid,
            neighbours,
            peers_x: BitSet::new(),
            peers_y: BitSet::new(),
            peers_xy: BitSet::new(),
            validator_peers: BitSet::new(),
            empty: BitSet::new(),
        }
    }

    /// Note that peer `p` is validator `authority`.
    pub fn add_peer(&mut self, p: usize, authority: ValidatorIndex) {
        if (authority.0 as usize) >= self.grid.len() {
            return;
        }
        self.validator_peers.insert(p);
        if self.neighbours.in_row(authority) {
            self.peers_x.insert(p);
            self.peers_xy.insert(p);
        }
        if self.neighbours.in_column(authority) {
            self.peers_y.insert(p);
            self.peers_xy.insert(p);
        }
    }

    pub fn remove_peer(&mut self, p: usize) {
        for s in [
            &mut self.peers_x,
            &mut self.peers_y,
            &mut self.peers_xy,
            &mut self.validator_peers,
        ] {
            s.remove(p);
        }
    }

    /// The peers a routing sends to (`peers_to_route`).
    pub fn peers_to_route(&self, r: RequiredRouting) -> &BitSet {
        match r {
            RequiredRouting::All => everyone(),
            RequiredRouting::GridX => &self.peers_x,
            RequiredRouting::GridY => &self.peers_y,
            RequiredRouting::GridXY => &self.peers_xy,
            RequiredRouting::None | RequiredRouting::PendingTopology => &self.empty,
        }
    }

    pub fn route_to_peer(&self, r: RequiredRouting, p: usize) -> bool {
        self.peers_to_route(r).contains(p)
    }

    pub fn is_validator(&self, p: usize) -> bool {
        self.validator_peers.contains(p)
    }
}
