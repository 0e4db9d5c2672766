//! A relay block as approval voting sees it, and the candidates it
//! includes: the one vocabulary shared by the generator, voting (and its
//! store), distribution, the node, the benchmark and conformance.
//!
//! Both derive SCALE `Encode`/`Decode` in field order; the voting store
//! writes blocks with it, so reordering fields changes its byte layout (a
//! test in the store pins it).

use crate::ids::{BlockNumber, CandidateHash, CoreIndex, GroupIndex, Hash, SessionIndex, Slot};
use parity_scale_codec::{Decode, Encode};

/// The per-block randomness that all assignments of that block mix in.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Encode, Decode)]
pub struct RelayVrfStory(pub [u8; 32]);

/// A candidate included by a relay block: its hash, the core it leaves
/// (what assignments are made for) and its backing group.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Encode, Decode)]
pub struct Candidate {
    pub hash: CandidateHash,
    pub core: CoreIndex,
    /// The backing group of the candidate.
    pub group: GroupIndex,
}

/// A relay block: where it sits in the chain, its slot and session, the
/// randomness its assignments mix in, and its candidates.
#[derive(Clone, PartialEq, Eq, Debug, Encode, Decode)]
pub struct Block {
    pub hash: Hash,
    pub number: BlockNumber,
    pub parent: Hash,
    pub slot: Slot,
    pub session: SessionIndex,
    pub relay_vrf_story: RelayVrfStory,
    /// In candidate-index order.
    pub candidates: Vec<Candidate>,
}
