//! What distribution keeps per relay block (upstream `BlockEntry` in `approval-distribution/src/lib.rs`): the block's
//! metadata, which peers have it in view, and its messages. Each assignment
//! or approval we accepted gets a dense slot; per-peer knowledge (sent to
//! the peer, received from it, sent at random) is three short sorted lists
//! per slot in the block's `knowledge::Arena`, so a message costs a few
//! dozen bytes per validator holding it, whatever the number of peers.
//!
//! Sends along the grid are not listed: a message remembers the routing it
//! has gone along to every peer that knew the block (`sent`), and the grid
//! answers for those peers when asked ([`GridSent`]). Only the exceptions
//! are listed: random sends, sends to a peer that entered the block's view
//! later, and sends to a peer whose place in the grid changed while it knew
//! the block (`pinned`: its knowledge there is listed in full).

use super::hashers::IdMap;
use super::knowledge::{Arena, Known, List};
use super::topologies::TopologyEntry;
use crate::action::AssignmentItem;
use crate::check::CheckToken;
use crate::random_routing::RandomRouting;
use crate::topology::RequiredRouting;
use std::collections::hash_map::Entry;
use std::sync::Arc;
use tranche_primitives::bitset::BitSet;
use tranche_primitives::grow;
use tranche_primitives::{
    Block, BlockNumber, CandidateBitfield, IndirectSignedApprovalVote, ValidatorIndex,
};

/// Marks an empty slot reference.
pub(crate) const NONE: u32 = u32::MAX;

/// Chains of a validator's votes, by lowest candidate modulo this: a
/// validator votes at most once per candidate, so a chain holds a few votes
/// even uncoalesced at 100 cores, and the table costs 128 bytes a
/// validator, not 4 per candidate.
const VOTE_BUCKETS: usize = 32;

/// One accepted assignment (upstream's distribution-side `ApprovalEntry`).
pub(crate) struct AssignmentEntry {
    pub item: Arc<AssignmentItem>,
    /// Sent, received, sent at random.
    pub known: Known,
    /// The first vote covering candidates of this assignment (`NONE`);
    /// later ones are in `BlockEntry::more_votes`.
    pub first_vote: u32,
    pub routing: RequiredRouting,
    /// The routing it has gone along to every peer in the block's view
    /// (see [`GridSent`]).
    pub sent: RequiredRouting,
    pub local: bool,
    pub random: RandomRouting,
}

/// One accepted approval vote.
pub(crate) struct VoteEntry {
    pub vote: Arc<IndirectSignedApprovalVote>,
    /// Sent and received.
    pub known: Known,
    /// The routing it has gone along to every peer in the block's view
    /// (see [`GridSent`]).
    pub sent: RequiredRouting,
    /// Next vote of the same validator in the same bucket of lowest
    /// candidates.
    pub next_same_first: u32,
}

/// The checks outstanding for one validator's messages: nearly always one
/// (a check is in flight from the message's arrival to its verdict), held
/// in place; a list only while several are.
#[derive(Debug)]
pub(crate) enum Tokens {
    One(CheckToken),
    Many(Vec<CheckToken>),
}

impl Tokens {
    fn as_slice(&self) -> &[CheckToken] {
        match self {
            Tokens::One(t) => std::slice::from_ref(t),
            Tokens::Many(ts) => ts,
        }
    }

    fn push(&mut self, token: CheckToken) {
        match self {
            Tokens::One(t) => *self = Tokens::Many(vec![*t, token]),
            Tokens::Many(ts) => ts.push(token),
        }
    }

    /// Drop `token`; whether none is left.
    fn remove(&mut self, token: CheckToken) -> bool {
        match self {
            Tokens::One(t) => *t == token,
            Tokens::Many(ts) => {
                ts.retain(|t| *t != token);
                ts.is_empty()
            }
        }
    }
}

pub(crate) struct BlockEntry {
    /// The block as approval voting announced it.
    pub block: Block,
    /// Peers that have this block in (or below) their view.
    pub known_by: BitSet,
    pub assignments: Vec<AssignmentEntry>,
    pub votes: Vec<VoteEntry>,
    /// Per-peer knowledge of every message of this block, beyond what
    /// the grid answers.
    pub knowledge: Arena,
    /// Peers whose knowledge of this block's messages is listed in full
    /// (their place in the grid changed while they knew the block).
    pub pinned: BitSet,
    /// Whether the grid answers for sends at all (false: every send is
    /// listed, as before; kept for the equivalence test).
    pub derive: bool,
    /// Votes after an assignment's first, by assignment slot, ascending.
    pub more_votes: IdMap<u32, Vec<u32>>,
    /// Per validator and candidate (validator-major, grown on demand):
    /// the first assignment covering it (upstream's
    /// `CandidateEntry::assignments`), or `NONE`.
    covering: Vec<u32>,
    /// Per validator and bucket of lowest candidate (`VOTE_BUCKETS` a
    /// validator): the last vote slot, chained through `next_same_first`.
    vote_head: Vec<u32>,
    /// Assignments claiming several candidates, by validator and lowest
    /// candidate (the only ones an exact look-up cannot resolve through
    /// `covering`).
    multi: IdMap<(u32, u32), Vec<u32>>,
    /// Checks outstanding for messages of a validator.
    in_flight: IdMap<u32, Tokens>,
    pub last_resent_at: Option<BlockNumber>,
}

impl BlockEntry {
    pub fn new(block: Block, derive: bool) -> Self {
        BlockEntry {
            block,
            known_by: BitSet::new(),
            assignments: Vec::new(),
            votes: Vec::new(),
            knowledge: Arena::default(),
            pinned: BitSet::new(),
            derive,
            more_votes: IdMap::default(),
            covering: Vec::new(),
            vote_head: Vec::new(),
            multi: IdMap::default(),
            in_flight: IdMap::default(),
            last_resent_at: None,
        }
    }

    fn n_candidates(&self) -> usize {
        self.block.candidates.len()
    }

    /// Checks outstanding for messages of `v`.
    pub fn in_flight_of(&self, v: ValidatorIndex) -> &[CheckToken] {
        self.in_flight.get(&v.0).map_or(&[], Tokens::as_slice)
    }

    pub fn add_in_flight(&mut self, v: ValidatorIndex, token: CheckToken) {
        match self.in_flight.entry(v.0) {
            Entry::Vacant(e) => {
                e.insert(Tokens::One(token));
            }
            Entry::Occupied(mut e) => e.get_mut().push(token),
        }
    }

    pub fn remove_in_flight(&mut self, v: ValidatorIndex, token: CheckToken) {
        if self
            .in_flight
            .get_mut(&v.0)
            .is_some_and(|ts| ts.remove(token))
        {
            self.in_flight.remove(&v.0);
        }
    }

    /// Every set bit names a candidate of this block.
    pub fn contains_candidates(&self, bits: &CandidateBitfield) -> bool {
        bits.iter_ones()
            .all(|i| (i as usize) < self.block.candidates.len())
    }

    /// The index of `(v, i)` in `covering` and `vote_head`, if stored.
    fn cell(table: &[u32], n: usize, v: ValidatorIndex, i: u32) -> Option<usize> {
        let k = (v.0 as usize).checked_mul(n)?.checked_add(i as usize)?;
        ((i as usize) < n && k < table.len()).then_some(k)
    }

    /// Grow `table` to hold validator `v`'s row (by an eighth at least,
    /// so validators seen in ascending order cost few copies).
    fn row(table: &mut Vec<u32>, n: usize, v: ValidatorIndex) {
        let need = (v.0 as usize + 1) * n;
        if table.len() < need {
            table.reserve_exact((need - table.len()).max(table.len() / 8));
            table.resize(need, NONE);
        }
    }

    /// The assignment slot covering candidate `i` for `v`, if any.
    pub fn covering(&self, v: ValidatorIndex, i: u32) -> Option<u32> {
        let k = Self::cell(&self.covering, self.n_candidates(), v, i)?;
        let e = self.covering[k];
        (e != NONE).then_some(e)
    }

    /// The slot of the assignment subject `(v, claimed)`. As upstream's
    /// knowledge, a single-candidate subject is also known when a
    /// multi-candidate assignment covers that candidate; it then resolves
    /// to the first assignment covering it.
    pub fn find_assignment(&self, v: ValidatorIndex, claimed: &CandidateBitfield) -> Option<u32> {
        let first = claimed.first_one()?;
        let e = self.covering(v, first)?;
        if claimed.count_ones() == 1 || self.assignments[e as usize].item.claimed == *claimed {
            return Some(e);
        }
        self.multi
            .get(&(v.0, first))?
            .iter()
            .copied()
            .find(|&s| self.assignments[s as usize].item.claimed == *claimed)
    }

    /// The slot of the approval subject `(v, bits)` (exact bitfield).
    pub fn find_vote(&self, v: ValidatorIndex, bits: &CandidateBitfield) -> Option<u32> {
        let first = bits.first_one()? as usize;
        if first >= self.n_candidates() {
            return None;
        }
        let bucket = (first % VOTE_BUCKETS) as u32;
        let mut k = self.vote_head[Self::cell(&self.vote_head, VOTE_BUCKETS, v, bucket)?];
        while k != NONE {
            let e = &self.votes[k as usize];
            if e.vote.candidate_indices == *bits {
                return Some(k);
            }
            k = e.next_same_first;
        }
        None
    }

    /// Store an accepted assignment; returns its slot.
    pub fn insert_assignment(&mut self, entry: AssignmentEntry) -> u32 {
        let slot = self.assignments.len() as u32;
        let v = entry.item.cert.validator;
        let n = self.n_candidates();
        let claimed = entry.item.claimed.clone();
        grow::push(&mut self.assignments, entry);
        Self::row(&mut self.covering, n, v);
        for i in claimed.iter_ones() {
            if let Some(k) = Self::cell(&self.covering, n, v, i) {
                if self.covering[k] == NONE {
                    self.covering[k] = slot;
                }
            }
        }
        if claimed.count_ones() > 1 {
            if let Some(first) = claimed.first_one() {
                self.multi.entry((v.0, first)).or_default().push(slot);
            }
        }
        slot
    }

    /// The votes covering candidates of assignment `slot`, in the order
    /// they were accepted.
    pub fn votes_of<'a>(
        more_votes: &'a IdMap<u32, Vec<u32>>,
        slot: u32,
        first: u32,
    ) -> impl Iterator<Item = u32> + 'a {
        let more = if first == NONE {
            None
        } else {
            more_votes.get(&slot)
        };
        (first != NONE)
            .then_some(first)
            .into_iter()
            .chain(more.into_iter().flatten().copied())
    }

    /// Store an accepted vote and link it to the assignments covering its
    /// candidates (upstream's `note_approval`). Returns the vote's slot, the
    /// combined routing of those assignments and the peers they were sent to
    /// at random; `None` (nothing stored) if a candidate has no assignment.
    pub fn insert_vote(
        &mut self,
        vote: Arc<IndirectSignedApprovalVote>,
    ) -> Option<(u32, RequiredRouting, BitSet)> {
        let v = vote.validator;
        let mut covering: Vec<u32> = Vec::with_capacity(2);
        for i in vote.candidate_indices.iter_ones() {
            let e = self.covering(v, i)?;
            if !covering.contains(&e) {
                covering.push(e);
            }
        }
        let first = vote.candidate_indices.first_one()? as usize;
        if first >= self.n_candidates() {
            return None;
        }
        let bucket = (first % VOTE_BUCKETS) as u32;
        let slot = self.votes.len() as u32;
        Self::row(&mut self.vote_head, VOTE_BUCKETS, v);
        let cell = Self::cell(&self.vote_head, VOTE_BUCKETS, v, bucket)?;
        let head = &mut self.vote_head[cell];
        let next = *head;
        *head = slot;
        grow::push(
            &mut self.votes,
            VoteEntry {
                vote,
                known: Known::default(),
                sent: RequiredRouting::None,
                next_same_first: next,
            },
        );
        let mut routing: Option<RequiredRouting> = None;
        let mut random = BitSet::new();
        for e in covering {
            let ae = &mut self.assignments[e as usize];
            if ae.first_vote == NONE {
                ae.first_vote = slot;
            } else {
                self.more_votes.entry(e).or_default().push(slot);
            }
            for q in self.knowledge.iter(&ae.known, List::Random) {
                random.insert(q);
            }
            routing = Some(routing.map_or(ae.routing, |r| r.combine(ae.routing)));
        }
        Some((slot, routing?, random))
    }

    /// Forget everything about peer `p` for this block.
    pub fn forget_peer(&mut self, p: usize) {
        self.known_by.remove(p);
        self.pinned.remove(p);
        let known = self
            .assignments
            .iter_mut()
            .map(|e| &mut e.known)
            .chain(self.votes.iter_mut().map(|e| &mut e.known));
        for k in known {
            self.knowledge.remove(k, List::Sent, p);
            self.knowledge.remove(k, List::Received, p);
        }
    }

    /// What judging a copy of message `m` (if we hold it) from peer `p`
    /// needs under topology `t`: the peers with the block in view and,
    /// for a message we hold, its knowledge and whether the grid says
    /// `p` knows it.
    pub fn copy_of(
        &mut self,
        t: Option<&TopologyEntry>,
        m: Option<Slot>,
        p: usize,
    ) -> (&BitSet, Option<(&mut Arena, &mut Known, bool)>) {
        let (sent, known) = match m {
            None => return (&self.known_by, None),
            Some(Slot::Assignment(k)) => {
                let e = &mut self.assignments[k as usize];
                (e.sent, &mut e.known)
            }
            Some(Slot::Vote(k)) => {
                let e = &mut self.votes[k as usize];
                (e.sent, &mut e.known)
            }
        };
        let grid_sent = GridSent::new(self.derive, &self.pinned, &self.known_by, t).sent(sent, p);
        (
            &self.known_by,
            Some((&mut self.knowledge, known, grid_sent)),
        )
    }

    /// What the grid answers for this block's messages under topology `t`.
    pub fn grid<'a>(&'a self, t: Option<&'a TopologyEntry>) -> GridSent<'a> {
        GridSent::new(self.derive, &self.pinned, &self.known_by, t)
    }

    /// Whether peer `p` knows assignment `slot`.
    pub fn peer_knows_assignment(&self, t: Option<&TopologyEntry>, slot: u32, p: usize) -> bool {
        let ae = &self.assignments[slot as usize];
        self.grid(t).sent(ae.sent, p) || self.knowledge.knows(&ae.known, p)
    }

    /// List in full what the grid answers for peer `p` under `t`, before
    /// its place in the grid changes; from then on its sends are listed.
    pub fn pin_peer(&mut self, t: Option<&TopologyEntry>, p: usize) {
        if !self.derive || !self.known_by.contains(p) || self.pinned.contains(p) {
            return;
        }
        let grid = GridSent::new(true, &self.pinned, &self.known_by, t);
        let known = self
            .assignments
            .iter_mut()
            .map(|e| (e.sent, &mut e.known))
            .chain(self.votes.iter_mut().map(|e| (e.sent, &mut e.known)));
        for (sent, k) in known {
            if grid.sent(sent, p) && !self.knowledge.contains(k, List::Received, p) {
                self.knowledge.insert(k, List::Sent, p);
            }
        }
        self.pinned.insert(p);
    }
}

/// One of a block's messages, by slot.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Slot {
    Assignment(u32),
    Vote(u32),
}

/// What the grid answers about sends of one block's messages: a message
/// that has gone along routing `sent` was sent to (or received from) every
/// peer on that route that has the block in view and is not pinned. Upstream
/// lists every such peer (`PeerKnowledge::sent` in
/// `polkadot/node/network/approval-distribution/src/lib.rs`).
#[derive(Clone, Copy)]
pub(crate) struct GridSent<'a> {
    derive: bool,
    pinned: &'a BitSet,
    known_by: &'a BitSet,
    topology: Option<&'a TopologyEntry>,
}

impl<'a> GridSent<'a> {
    pub fn new(
        derive: bool,
        pinned: &'a BitSet,
        known_by: &'a BitSet,
        topology: Option<&'a TopologyEntry>,
    ) -> Self {
        GridSent {
            derive,
            pinned,
            known_by,
            topology,
        }
    }

    /// Whether a message gone along `sent` is known to `p` by the grid.
    pub fn sent(&self, sent: RequiredRouting, p: usize) -> bool {
        self.derive
            && self.topology.is_some_and(|t| t.route_to_peer(sent, p))
            && self.known_by.contains(p)
            && !self.pinned.contains(p)
    }

    /// Whether a send to `p` (on the route about to be noted as gone
    /// along) needs no listing: the grid will answer for it.
    pub fn covers(&self, p: usize) -> bool {
        self.derive && !self.pinned.contains(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_hold_one_in_place_and_several_in_order() {
        let (a, b, c) = (CheckToken(1), CheckToken(2), CheckToken(3));
        let mut ts = Tokens::One(a);
        assert_eq!(ts.as_slice(), &[a]);
        assert!(!ts.remove(b), "another token leaves it as it was");
        assert_eq!(ts.as_slice(), &[a]);
        ts.push(b);
        ts.push(c);
        assert_eq!(ts.as_slice(), &[a, b, c]);
        assert!(!ts.remove(b));
        assert_eq!(ts.as_slice(), &[a, c]);
        assert!(!ts.remove(a));
        assert!(ts.remove(c), "the last one removed");
        assert!(Tokens::One(a).remove(a));
    }
}
