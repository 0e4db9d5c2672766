//! Finality in the simulation, GRANDPA reduced to its rule: a validator
//! tells every other one (over the links' latency, never lost, outside
//! distribution's bytes and bandwidth) the highest block it votes for,
//! and finalizes the highest block more than two thirds of the validators
//! voted for; voting and distribution prune it and the connected peers'
//! views carry the new finalized number. This module holds the votes and
//! the rule; the validator (`crate::protocol`) carries out what they
//! decide.
//!
//! A validator votes for the highest block approved here with all its
//! ancestors (Polkadot's chain selection, upstream
//! `polkadot/node/service/src/relay_chain_selection.rs`), restricted as
//! Polkadot's GRANDPA voter restricts it: its service takes
//! `VotingRulesBuilder::default()` (`polkadot/node/service/src/builder/mod.rs`),
//! that is `BeforeBestBlockBy(2)` (at least two blocks behind the best
//! block) and `ThreeQuartersOfTheUnfinalizedChain` (at most three quarters
//! of the way from the last finalized block to the best one), both in
//! `substrate/client/consensus/grandpa/src/voting_rule.rs`. So finality
//! never reaches the head: the best block and its parent stay unfinalized
//! (and with them the session's grid topology in distribution, which is
//! dropped with the session's last unfinalized block, as upstream's
//! `SessionGridTopologies::dec_session_refs`). After the run's last
//! generated block the chain goes on, one block a slot (blocks without
//! candidates, not modelled), so the last blocks finalize in the run's
//! tail as on a live network.

use crate::record::BlockRecord;
use tranche_primitives::Block;

/// `BeforeBestBlockBy(2)`: a vote stays this many blocks behind the best.
const BEFORE_BEST: u32 = 2;

/// The highest block GRANDPA's voting rules let a validator vote for with
/// `finalized` the last finalized block and `best` the best one:
/// `BeforeBestBlockBy(2)`, then `ThreeQuartersOfTheUnfinalizedChain`
/// (`finalized + (3 * (best - finalized) + 2) / 4`, its rounding).
pub(crate) fn vote_limit(finalized: u32, best: u32) -> u32 {
    let behind = best.saturating_sub(BEFORE_BEST);
    let unfinalized = u64::from(best.saturating_sub(finalized));
    let three_quarters = finalized + ((3 * unfinalized + 2) / 4) as u32;
    behind.min(three_quarters)
}

/// The highest block approved (or finalized) here with all its
/// ancestors, if any.
pub(crate) fn approved_up_to(blocks: &[Block], records: &[BlockRecord]) -> Option<u32> {
    let prefix = records
        .iter()
        .take_while(|b| b.approved_after_ms.is_some() || b.finalized_after_ms.is_some())
        .count();
    Some(blocks[prefix.checked_sub(1)?].number)
}

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
    /// (or finalized) here and the voting rules allow that height with
    /// `best` the best block's number: the highest block of that unbroken
    /// prefix, restricted by [`vote_limit`].
    pub fn own_vote(&self, blocks: &[Block], records: &[BlockRecord], best: u32) -> Option<u32> {
        let approved = approved_up_to(blocks, records)?;
        let up_to = approved.min(vote_limit(self.finalized, best));
        (up_to > self.votes[self.me as usize] && up_to > self.finalized).then_some(up_to)
    }

    /// The least best-block number at which our approved prefix (up to
    /// `approved`) could be voted for in full, if it is not already.
    pub fn best_needed(&self, approved: u32) -> u32 {
        let mut best = approved.saturating_add(BEFORE_BEST);
        while vote_limit(self.finalized, best) < approved {
            best += 1;
        }
        best
    }

    /// The highest block we voted for (0: none).
    pub fn own_last_vote(&self) -> u32 {
        self.votes[self.me as usize]
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
    use tranche_primitives::{Hash, RelayVrfStory};

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

    #[test]
    fn a_vote_stays_two_blocks_behind_the_best_as_polkadots_grandpa_voter() {
        // BeforeBestBlockBy(2).
        assert_eq!(vote_limit(0, 1), 0);
        assert_eq!(vote_limit(0, 2), 0);
        assert_eq!(vote_limit(0, 3), 1);
        assert_eq!(vote_limit(7, 10), 8);
        // ThreeQuartersOfTheUnfinalizedChain binds once finality lags by
        // more than ten blocks: 3/4 of 20 behind block 30 is block 25.
        assert_eq!(vote_limit(10, 22), 19);
        assert_eq!(vote_limit(10, 30), 25);
        assert_eq!(vote_limit(0, 40), 30);
    }

    #[test]
    fn our_vote_waits_for_the_best_block_to_move_two_past_it() {
        let blocks: Vec<Block> = (1..=3)
            .map(|n| Block {
                hash: Hash([n as u8; 32]),
                number: n,
                parent: Hash([0; 32]),
                slot: n.into(),
                session: 1,
                relay_vrf_story: RelayVrfStory([0; 32]),
                candidates: Vec::new().into(),
            })
            .collect();
        let approved = BlockRecord {
            approved_after_ms: Some(7_000),
            ..BlockRecord::default()
        };
        let records = vec![approved.clone(), approved, BlockRecord::default()];
        let f = Finality::new(4, 0);
        assert_eq!(
            f.own_vote(&blocks, &records, 2),
            None,
            "best 2: nothing yet"
        );
        assert_eq!(f.own_vote(&blocks, &records, 3), Some(1));
        assert_eq!(f.own_vote(&blocks, &records, 4), Some(2));
        assert_eq!(
            f.own_vote(&blocks, &records, 9),
            Some(2),
            "block 3 unapproved"
        );
        assert_eq!(f.best_needed(2), 4);
        assert_eq!(f.best_needed(20), 26, "(3 * 26 + 2) / 4 is 20");
    }
}
