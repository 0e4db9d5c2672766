//! A relay block as approval voting sees it, and the candidates it
//! includes: the one vocabulary shared by the generator, voting (and its
//! store), distribution, the node, the benchmark and conformance.
//!
//! Both derive SCALE `Encode`/`Decode` in field order; the voting store
//! writes blocks with it, so reordering fields changes its byte layout (a
//! test in the store pins it).

use crate::ids::{BlockNumber, CandidateHash, CoreIndex, GroupIndex, Hash, SessionIndex, Slot};
use parity_scale_codec::{Decode, Encode};
use std::sync::Arc;

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
    pub candidates: Candidates,
}

/// A block's candidates, in candidate-index order, shared between the
/// copies of the block: every holder of a block (voting, distribution,
/// each validator of a simulated network) clones it, and a clone counts
/// a reference instead of copying the list (40 bytes a candidate).
/// SCALE-encoded as the `Vec<Candidate>` it replaces, byte for byte.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Candidates(Arc<[Candidate]>);

impl std::ops::Deref for Candidates {
    type Target = [Candidate];

    fn deref(&self) -> &[Candidate] {
        &self.0
    }
}

impl<'a> IntoIterator for &'a Candidates {
    type Item = &'a Candidate;
    type IntoIter = std::slice::Iter<'a, Candidate>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl From<Vec<Candidate>> for Candidates {
    fn from(list: Vec<Candidate>) -> Self {
        Candidates(list.into())
    }
}

impl FromIterator<Candidate> for Candidates {
    fn from_iter<I: IntoIterator<Item = Candidate>>(iter: I) -> Self {
        Candidates(iter.into_iter().collect())
    }
}

impl Encode for Candidates {
    fn size_hint(&self) -> usize {
        self.0.as_ref().size_hint()
    }

    fn encode_to<W: parity_scale_codec::Output + ?Sized>(&self, dest: &mut W) {
        self.0.as_ref().encode_to(dest)
    }
}

impl Decode for Candidates {
    fn decode<I: parity_scale_codec::Input>(
        input: &mut I,
    ) -> Result<Self, parity_scale_codec::Error> {
        Vec::<Candidate>::decode(input).map(Candidates::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{CandidateHash, CoreIndex, GroupIndex};

    fn candidate(i: u8) -> Candidate {
        Candidate {
            hash: CandidateHash(Hash([i; 32])),
            core: CoreIndex(u32::from(i)),
            group: GroupIndex(u32::from(i) * 3),
        }
    }

    #[test]
    fn candidates_encode_as_the_list_they_hold() {
        let list: Vec<Candidate> = (0..5).map(candidate).collect();
        let shared = Candidates::from(list.clone());
        assert_eq!(shared.encode(), list.encode());
        assert_eq!(Candidates::decode(&mut &list.encode()[..]), Ok(shared));
    }

    #[test]
    fn a_clone_shares_the_candidates() {
        let a: Candidates = (0..3).map(candidate).collect();
        let b = a.clone();
        assert!(std::ptr::eq(a.as_ptr(), b.as_ptr()));
        assert_eq!(b.len(), 3);
        assert_eq!(b[2].core, CoreIndex(2));
    }

    #[test]
    fn cut_candidates_are_an_error() {
        let bytes = vec![candidate(1), candidate(2)].encode();
        assert!(Candidates::decode(&mut &bytes[..bytes.len() - 1]).is_err());
    }
}
