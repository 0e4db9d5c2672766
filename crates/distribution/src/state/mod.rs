//! The approval-distribution state machine: owns blocks, peers, topologies,
//! messages waiting for their block and checks in flight. Every input takes
//! `now` (where time matters) and appends the resulting actions to `out`.
//! Inputs for peers, views, topology and block lifecycle live here; message
//! handling is in `assignment` and `approval`, gossip (unify, propagate,
//! aggression) in `gossip`.

mod approval;
mod assignment;
mod block;
#[cfg(test)]
mod equivalence;
mod gossip;
mod hashers;
mod knowledge;
mod known;
mod pending;
mod topologies;

use crate::action::{Action, AssignmentItem, Outgoing, PeerId, View, MAX_PEER_ID};
use crate::check::CheckToken;
use crate::reputation::Rep;
use crate::topology::SessionGridTopology;
use block::BlockEntry;
use hashers::{BuildBlockHasher, IdMap};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use topologies::TopologyEntry;
use tranche_primitives::{
    Block, BlockNumber, CandidateBitfield, CandidateIndex, Hash, IndirectSignedApprovalVote,
    Session, SessionIndex, ValidatorIndex, ValidatorSignature,
};

/// Finality-lag thresholds, in blocks (upstream `AggressionConfig`, `approval-distribution/src/lib.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AggressionConfig {
    /// Our own messages for the oldest block go to every validator peer.
    pub l1_threshold: Option<BlockNumber>,
    /// Everybody's messages for the oldest block go to row and column.
    pub l2_threshold: Option<BlockNumber>,
    /// Re-send the oldest block's messages this often.
    pub resend_unfinalized_period: Option<BlockNumber>,
}

impl Default for AggressionConfig {
    fn default() -> Self {
        AggressionConfig {
            l1_threshold: Some(16),
            l2_threshold: Some(64),
            resend_unfinalized_period: Some(8),
        }
    }
}

impl AggressionConfig {
    fn should_trigger(&self, age: BlockNumber) -> bool {
        match (self.l1_threshold, self.resend_unfinalized_period) {
            (Some(t), _) => age >= t,
            (None, Some(p)) => age > 0 && age.is_multiple_of(p),
            (None, None) => false,
        }
    }
}

/// Configuration of one state machine.
#[derive(Debug, Clone)]
pub struct Config {
    /// Seeds random routing. Give every worker of one node the same seed.
    pub routing_seed: u64,
    pub slot_duration_millis: u64,
    pub aggression: AggressionConfig,
    /// Most messages held for one block we do not know yet.
    pub max_pending_per_block: usize,
    /// Most of those from one peer (our choice: upstream holds without
    /// bound; see `state/pending.rs`).
    pub max_pending_per_peer: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            routing_seed: 0,
            slot_duration_millis: tranche_primitives::time::DEFAULT_SLOT_DURATION_MILLIS,
            aggression: AggressionConfig::default(),
            max_pending_per_block: 50_000,
            max_pending_per_peer: 5_000,
        }
    }
}

/// How many recently finalized block hashes are remembered, so late
/// messages for them cost the sender nothing.
pub const RECENTLY_OUTDATED: usize = 20;

/// A peer id above [`MAX_PEER_ID`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("peer id {0} is above {MAX_PEER_ID}")]
pub struct PeerIdTooLarge(pub u32);

/// A message held until its block is known.
#[derive(Debug, Clone)]
pub(crate) enum Pending {
    Assignment(Arc<AssignmentItem>),
    Approval(Arc<IndirectSignedApprovalVote>),
}

/// A message whose crypto check is outstanding.
pub(crate) struct AwaitingVerdict {
    pub block: Hash,
    pub validator: ValidatorIndex,
    pub source: PeerId,
    pub message: Pending,
    /// Messages that arrived meanwhile and depend on this one (copies from
    /// other peers, votes needing this assignment): handled again when the
    /// verdict is in.
    pub waiting: Vec<(PeerId, Pending)>,
}

struct PeerEntry {
    view: View,
    authority: Option<ValidatorIndex>,
}

/// Counts of what we accepted for one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockKnowledge {
    pub assignments: usize,
    pub approvals: usize,
}

/// The approval-distribution state machine.
pub struct State {
    config: Config,
    sessions: BTreeMap<SessionIndex, Arc<Session>>,
    blocks: HashMap<Hash, BlockEntry, BuildBlockHasher>,
    blocks_by_number: BTreeMap<BlockNumber, Vec<Hash>>,
    pending_known: BTreeMap<Hash, pending::Held>,
    /// Validator identities of peers, kept across disconnects (upstream's
    /// topology keeps its peer ids' authorities whatever the connection).
    authorities: BTreeMap<PeerId, ValidatorIndex>,
    peers: BTreeMap<PeerId, PeerEntry>,
    topologies: BTreeMap<SessionIndex, TopologyEntry>,
    session_refs: BTreeMap<SessionIndex, usize>,
    recent_outdated: VecDeque<Hash>,
    in_flight: IdMap<CheckToken, AwaitingVerdict>,
    next_token: u64,
    /// The peers a message is being sent to (kept for its allocation).
    scratch: Vec<usize>,
    /// Whether the grid answers for sends along it (see `block::GridSent`);
    /// false only in the equivalence test, which lists every send as before.
    derive_grid: bool,
}

fn rep(out: &mut Vec<Action>, peer: PeerId, rep: Rep) {
    out.push(Action::Reputation { peer, rep });
}

impl State {
    pub fn new(config: Config) -> Self {
        State {
            config,
            sessions: BTreeMap::new(),
            blocks: HashMap::default(),
            blocks_by_number: BTreeMap::new(),
            pending_known: BTreeMap::new(),
            authorities: BTreeMap::new(),
            peers: BTreeMap::new(),
            topologies: BTreeMap::new(),
            session_refs: BTreeMap::new(),
            recent_outdated: VecDeque::with_capacity(RECENTLY_OUTDATED),
            in_flight: IdMap::default(),
            next_token: 0,
            scratch: Vec::new(),
            derive_grid: true,
        }
    }

    /// A state machine that lists every send instead of letting the grid
    /// answer for those along it: the former representation, which the
    /// equivalence test holds beside the current one.
    #[cfg(test)]
    pub(crate) fn listing_every_send(config: Config) -> Self {
        State {
            derive_grid: false,
            ..State::new(config)
        }
    }

    /// Before `p`'s place in the grids changes, list what the grid
    /// answers for it in every block it knows.
    fn pin_peer(&mut self, p: usize) {
        for b in self.blocks.values_mut() {
            if b.known_by.contains(p) {
                b.pin_peer(self.topologies.get(&b.block.session), p);
            }
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Session parameters and keys, needed to check messages of its blocks.
    pub fn add_session(&mut self, session: Arc<Session>) {
        self.sessions.insert(session.info.session_index, session);
    }

    /// Whether the session's parameters are known.
    pub fn has_session(&self, index: SessionIndex) -> bool {
        self.sessions.contains_key(&index)
    }

    // ---- peers ----------------------------------------------------------

    /// A peer connected; `authority` is its validator index, if it is one
    /// (the same index in every session, a simplification of upstream's
    /// authority-discovery keys). Nothing is sent until it shows a view.
    pub fn peer_connected(
        &mut self,
        peer: PeerId,
        authority: Option<ValidatorIndex>,
    ) -> Result<(), PeerIdTooLarge> {
        if peer.0 > MAX_PEER_ID {
            return Err(PeerIdTooLarge(peer.0));
        }
        let known = self.authorities.get(&peer).copied();
        let entry = self.peers.entry(peer).or_insert(PeerEntry {
            view: View::default(),
            authority: known,
        });
        if authority.is_some() {
            entry.authority = authority;
        }
        if let Some(a) = entry.authority {
            self.authorities.insert(peer, a);
        }
        if let Some(a) = entry.authority {
            self.pin_peer(peer.0 as usize);
            for t in self.topologies.values_mut() {
                t.add_peer(peer.0 as usize, a);
            }
        }
        Ok(())
    }

    /// We learnt which validator a connected peer is (upstream's
    /// `UpdatedAuthorityIds`): messages the grid meant for it are re-evaluated
    /// for every unfinalized block it already knows.
    pub fn peer_authority_updated(
        &mut self,
        peer: PeerId,
        authority: ValidatorIndex,
        out: &mut Vec<Action>,
    ) {
        let Some(e) = self.peers.get_mut(&peer) else {
            return;
        };
        if e.authority == Some(authority) {
            return;
        }
        let p = peer.0 as usize;
        e.authority = Some(authority);
        self.authorities.insert(peer, authority);
        let finalized = e.view.finalized_number;
        self.pin_peer(p);
        for t in self.topologies.values_mut() {
            t.remove_peer(p);
            t.add_peer(p, authority);
        }
        let heads: Vec<Hash> = self
            .ordered_blocks()
            .filter(|h| {
                let b = &self.blocks[h];
                b.block.number > finalized && b.known_by.contains(p)
            })
            .collect();
        let view = View {
            heads,
            finalized_number: finalized,
        };
        self.unify_with_peer(peer, &view, true, out);
    }

    /// A peer disconnected: forget its view and everything it knew.
    /// A peer disconnected: its view and what it knew are forgotten; its
    /// validator identity is kept (a reconnect without one reuses it), and
    /// so are the grid's routes to it, which only matter once it knows a
    /// block again.
    pub fn peer_disconnected(&mut self, peer: PeerId) {
        if self.peers.remove(&peer).is_none() {
            return;
        }
        let p = peer.0 as usize;
        for b in self.blocks.values_mut() {
            b.forget_peer(p);
        }
    }

    /// A peer's new view: blocks it finalized are forgotten for it, then it
    /// gets what the routing rules say it should have for its new heads.
    pub fn peer_view_change(
        &mut self,
        now: tranche_primitives::Tick,
        peer: PeerId,
        view: View,
        out: &mut Vec<Action>,
    ) {
        let _ = now;
        if peer.0 > MAX_PEER_ID {
            return;
        }
        let old_finalized = match self.peers.get_mut(&peer) {
            Some(e) => std::mem::replace(&mut e.view, view.clone()).finalized_number,
            None => {
                self.peers.insert(
                    peer,
                    PeerEntry {
                        view: view.clone(),
                        authority: None,
                    },
                );
                0
            }
        };
        let p = peer.0 as usize;
        if view.finalized_number >= old_finalized {
            for (_, hashes) in self
                .blocks_by_number
                .range(old_finalized..=view.finalized_number)
            {
                for h in hashes {
                    if let Some(b) = self.blocks.get_mut(h) {
                        b.forget_peer(p);
                    }
                }
            }
        }
        self.unify_with_peer(peer, &view, false, out);
    }

    /// Our own view: heads we do not know yet get a place to hold early
    /// messages; held messages for heads that left the view are dropped.
    pub fn our_view_change(&mut self, heads: &[Hash]) {
        for h in heads {
            if !self.blocks.contains_key(h) {
                self.pending_known.entry(*h).or_default();
            }
        }
        self.pending_known.retain(|h, _| heads.contains(h));
    }

    // ---- topology -------------------------------------------------------

    /// The grid of a session. Ignored without a local index (we are not a
    /// validator) or when the session already has one (the first wins).
    /// Messages waiting for it are routed now.
    pub fn new_gossip_topology(
        &mut self,
        session: SessionIndex,
        grid: SessionGridTopology,
        local_index: Option<ValidatorIndex>,
        out: &mut Vec<Action>,
    ) {
        // Upstream `handle_new_session_topology`: only validators care.
        let Some(local) = local_index else { return };
        // The first topology of a session is kept (upstream
        // `SessionGridTopologies::insert_topology`); a later one still
        // re-evaluates and propagates, as upstream's does.
        if !self.topologies.contains_key(&session) {
            // A local index outside the grid keeps the topology with no
            // neighbours (upstream `GridNeighbors::empty`).
            let neighbours = grid
                .grid_neighbours(local)
                .unwrap_or_else(|| crate::GridNeighbours::new(Vec::new(), Vec::new()));
            let mut entry = TopologyEntry::new(grid, neighbours);
            for (peer, a) in &self.authorities {
                entry.add_peer(peer.0 as usize, *a);
            }
            self.topologies.insert(session, entry);
        }
        let entry = &self.topologies[&session];
        let hashes: Vec<Hash> = self
            .ordered_blocks()
            .filter(|h| self.blocks[h].block.session == session)
            .collect();
        for h in &hashes {
            let b = self.blocks.get_mut(h).expect("listed");
            for ae in &mut b.assignments {
                if ae.routing == crate::topology::RequiredRouting::PendingTopology {
                    ae.routing = entry
                        .neighbours
                        .required_routing_by_index(ae.item.cert.validator, ae.local);
                }
            }
        }
        self.propagate(&hashes, out);
    }

    // ---- blocks ---------------------------------------------------------

    /// Block hashes in ascending number, then arrival order.
    fn ordered_blocks(&self) -> impl Iterator<Item = Hash> + '_ {
        self.blocks_by_number.values().flatten().copied()
    }

    /// New blocks from approval voting.
    pub fn new_blocks(
        &mut self,
        now: tranche_primitives::Tick,
        blocks: Vec<Block>,
        out: &mut Vec<Action>,
    ) {
        let mut new_hashes = Vec::new();
        for block in blocks {
            if self.blocks.contains_key(&block.hash) {
                continue;
            }
            let (hash, number, session) = (block.hash, block.number, block.session);
            self.blocks
                .insert(hash, BlockEntry::new(block, self.derive_grid));
            *self.session_refs.entry(session).or_default() += 1;
            self.blocks_by_number.entry(number).or_default().push(hash);
            new_hashes.push(hash);
        }
        let peer_views: Vec<(PeerId, View)> = self
            .peers
            .iter()
            .map(|(p, e)| {
                let heads = e
                    .view
                    .heads
                    .iter()
                    .filter(|h| new_hashes.contains(h))
                    .copied()
                    .collect();
                (
                    *p,
                    View {
                        heads,
                        finalized_number: e.view.finalized_number,
                    },
                )
            })
            .filter(|(_, v)| !v.heads.is_empty())
            .collect();
        for (p, v) in peer_views {
            self.unify_with_peer(p, &v, false, out);
        }
        for h in &new_hashes {
            if let Some(held) = self.pending_known.remove(h) {
                for (peer, m) in held.into_messages() {
                    self.process(now, peer, m, out);
                }
            }
        }
        self.enable_aggression(true, out);
    }

    /// Blocks up to `number` are final: prune them.
    pub fn block_finalized(&mut self, number: BlockNumber, out: &mut Vec<Action>) {
        let keep = self.blocks_by_number.split_off(&(number.saturating_add(1)));
        let gone = std::mem::replace(&mut self.blocks_by_number, keep);
        for h in gone.into_values().flatten() {
            if let Some(b) = self.blocks.remove(&h) {
                if self.recent_outdated.len() == RECENTLY_OUTDATED {
                    self.recent_outdated.pop_front();
                }
                self.recent_outdated.push_back(h);
                if let Some(n) = self.session_refs.get_mut(&b.block.session) {
                    *n -= 1;
                    if *n == 0 {
                        self.session_refs.remove(&b.block.session);
                        self.topologies.remove(&b.block.session);
                    }
                }
            }
        }
        self.enable_aggression(false, out);
    }

    // ---- peer messages --------------------------------------------------

    /// Phase 1 of a peer's message: sanitising, deduplication, knowledge.
    /// New messages produce `CheckAssignment`/`CheckApproval` actions,
    /// which [`State::settle`] answers through a [`crate::Verifier`].
    pub fn handle_peer_message(
        &mut self,
        now: tranche_primitives::Tick,
        peer: PeerId,
        msg: tranche_primitives::ApprovalDistributionMessage,
        out: &mut Vec<Action>,
    ) {
        use tranche_primitives::ApprovalDistributionMessage as M;
        match msg {
            M::Assignments(items) => {
                for item in items {
                    if !assignment::sane(&item) {
                        rep(out, peer, crate::reputation::COST_OVERSIZED_BITFIELD);
                        continue;
                    }
                    self.process_or_hold(now, peer, Pending::Assignment(item), out);
                }
            }
            M::Approvals(votes) => {
                for vote in votes {
                    if vote.candidate_indices.len()
                        > tranche_primitives::constants::MAX_BITFIELD_SIZE as usize
                    {
                        rep(out, peer, crate::reputation::COST_OVERSIZED_BITFIELD);
                        continue;
                    }
                    self.process_or_hold(now, peer, Pending::Approval(vote), out);
                }
            }
        }
    }

    fn process_or_hold(
        &mut self,
        now: tranche_primitives::Tick,
        peer: PeerId,
        m: Pending,
        out: &mut Vec<Action>,
    ) {
        let hash = match &m {
            Pending::Assignment(a) => a.cert.block_hash,
            Pending::Approval(v) => v.block_hash,
        };
        if let Some(held) = self.pending_known.get_mut(&hash) {
            let (per_block, per_peer) = (
                self.config.max_pending_per_block,
                self.config.max_pending_per_peer,
            );
            held.push(peer, m, per_block, per_peer);
            return;
        }
        self.process(now, peer, m, out);
    }

    fn process(
        &mut self,
        now: tranche_primitives::Tick,
        peer: PeerId,
        m: Pending,
        out: &mut Vec<Action>,
    ) {
        match m {
            Pending::Assignment(a) => self.process_assignment(now, peer, a, out),
            Pending::Approval(v) => self.process_approval(now, peer, v, out),
        }
    }

    /// Whether aggression is on (finality lag at least L1).
    fn aggression_age(&self) -> Option<BlockNumber> {
        let min = *self.blocks_by_number.keys().next()?;
        let max = *self.blocks_by_number.keys().next_back()?;
        Some(max - min)
    }

    /// Whether the unfinalized span triggers aggression; duplicates from
    /// validator peers are then expected and not charged.
    fn aggression_on(&self) -> bool {
        self.aggression_age()
            .is_some_and(|age| self.config.aggression.should_trigger(age))
    }

    // ---- queries --------------------------------------------------------

    /// What we accepted for a block.
    pub fn block_knowledge(&self, hash: &Hash) -> Option<BlockKnowledge> {
        self.blocks.get(hash).map(|b| BlockKnowledge {
            assignments: b.assignments.len(),
            approvals: b.votes.len(),
        })
    }

    /// Whether we accepted the assignment subject `(v, claimed)`.
    pub fn knows_assignment(
        &self,
        hash: &Hash,
        v: ValidatorIndex,
        claimed: &CandidateBitfield,
    ) -> bool {
        self.blocks
            .get(hash)
            .is_some_and(|b| b.find_assignment(v, claimed).is_some())
    }

    /// Whether we accepted the approval subject `(v, candidates)`.
    pub fn knows_approval(
        &self,
        hash: &Hash,
        v: ValidatorIndex,
        candidates: &CandidateBitfield,
    ) -> bool {
        self.blocks
            .get(hash)
            .is_some_and(|b| b.find_vote(v, candidates).is_some())
    }

    /// Whether we have recorded that `peer` knows the assignment subject.
    pub fn peer_knows_assignment(
        &self,
        hash: &Hash,
        peer: PeerId,
        v: ValidatorIndex,
        claimed: &CandidateBitfield,
    ) -> bool {
        self.blocks.get(hash).is_some_and(|b| {
            b.find_assignment(v, claimed).is_some_and(|e| {
                let t = self.topologies.get(&b.block.session);
                b.peer_knows_assignment(t, e, peer.0 as usize)
            })
        })
    }

    /// Number of blocks held.
    pub fn n_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Messages held for blocks not known yet.
    pub fn n_held(&self) -> usize {
        self.pending_known.values().map(pending::Held::len).sum()
    }

    /// Checks outstanding.
    pub fn n_in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Approval signatures we hold for (block, candidate) pairs, by
    /// validator (`GetApprovalSignatures`); a later vote of the same
    /// validator overwrites an earlier one.
    pub fn approval_signatures(
        &self,
        indices: &[(Hash, CandidateIndex)],
    ) -> BTreeMap<ValidatorIndex, (Hash, Vec<CandidateIndex>, ValidatorSignature)> {
        let mut all = BTreeMap::new();
        for (hash, i) in indices {
            let Some(b) = self.blocks.get(hash) else {
                continue;
            };
            for v in b.votes.iter().map(|e| &e.vote) {
                if v.candidate_indices.bit_at(*i) {
                    all.insert(
                        v.validator,
                        (
                            *hash,
                            v.candidate_indices.iter_ones().collect(),
                            v.signature,
                        ),
                    );
                }
            }
        }
        all
    }
}

/// Emit per-peer sends: all assignments first, then all approvals.
fn emit_sends(
    out: &mut Vec<Action>,
    assignments: Vec<(PeerId, Outgoing)>,
    approvals: Vec<(PeerId, Outgoing)>,
) {
    out.extend(
        assignments
            .into_iter()
            .chain(approvals)
            .map(|(peer, item)| Action::Send { peer, item }),
    );
}
