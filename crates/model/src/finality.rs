//! Finality in the simulation, GRANDPA reduced to its rule: a validator
//! tells every other one (over the links' latency, never lost, outside
//! distribution's bytes and bandwidth) the highest block it approved with
//! all its ancestors, and finalizes the highest block more than two thirds
//! of the validators voted for; voting and distribution prune it and the
//! connected peers' views carry the new finalized number. This module
//! holds the votes and the rule; the validator (`crate::protocol`) carries out
//! what they decide.

use crate::record::BlockRecord;
use tranche_primitives::Block;

/// One validator's tally of the finality votes it heard.
pub(crate) struct Finality {
    /// Every validator's highest block approved with all its ancestors,
    /// as far as this one has heard.
    votes: Vec<u32>,
    /// The highest block finalized here (0: none).
    pub finalized: u32,
    me: u32,
}

impl Finality {
    pub fn new(n: u32, me: u32) -> Finality {
        Finality {
            votes: vec![0; n as usize],
            finalized: 0,
            me,
        }
    }

    /// Our own new vote, if every block up to a new height is approved
    /// (or finalized) here: the highest block of that unbroken prefix.
    pub fn own_vote(&self, blocks: &[Block], records: &[BlockRecord]) -> Option<u32> {
        let prefix = records
            .iter()
            .take_while(|b| b.approved_after_ms.is_some() || b.finalized_after_ms.is_some())
            .count();
        let up_to = blocks[prefix.checked_sub(1)?].number;
        (up_to > self.votes[self.me as usize]).then_some(up_to)
    }

    /// Record a validator's vote; say whether finality moved, and to
    /// which block (the highest one more than two thirds voted for).
    pub fn tally(&mut self, from: u32, up_to: u32) -> Option<u32> {
        let v = &mut self.votes[from as usize];
        *v = (*v).max(up_to);
        // GRANDPA's supermajority, the votes sorted high to low.
        let mut sorted = self.votes.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let needed = (self.votes.len() * 2) / 3 + 1;
        let best = sorted[needed - 1];
        (best > self.finalized).then(|| {
            self.finalized = best;
            best
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_is_final_once_more_than_two_thirds_voted_for_it() {
        let mut f = Finality::new(4, 0);
        assert_eq!(f.tally(0, 2), None);
        assert_eq!(f.tally(1, 2), None, "two of four is not more than 2/3");
        assert_eq!(f.tally(2, 1), Some(1), "three voted for block 1 or later");
        assert_eq!(f.tally(3, 2), Some(2));
        assert_eq!(f.finalized, 2);
        assert_eq!(f.tally(3, 2), None, "nothing new");
    }
}
