//! Gossip beyond first receipt: bringing a peer up to date when a block
//! enters its view (`unify_with_peer`, upstream), re-sending along an
//! adjusted routing (`propagate`, upstream) and aggression driven by finality
//! lag (upstream `enable_aggression`).

use super::block::{BlockEntry, GridSent};
use super::knowledge::List;
use super::{emit_sends, State};
use crate::action::{Action, Outgoing, PeerId, View};
use crate::random_routing::{message_seed, peer_draw};
use crate::topology::RequiredRouting;
use tranche_primitives::Hash;

impl State {
    /// Send `peer` what it should have for `view`'s heads and their
    /// unfinalized ancestors it was not synced for.
    pub(super) fn unify_with_peer(
        &mut self,
        peer: PeerId,
        view: &View,
        retry_known_blocks: bool,
        out: &mut Vec<Action>,
    ) {
        let p = peer.0 as usize;
        let n_peers_total = self.peers.len();
        let seed_base = self.config.routing_seed;
        let mut assignments = Vec::new();
        let mut approvals = Vec::new();
        for head in &view.heads {
            let mut block = *head;
            while let Some(entry) = self.blocks.get_mut(&block) {
                if entry.block.number <= view.finalized_number {
                    break;
                }
                let fresh = !entry.known_by.contains(p);
                if !fresh && !retry_known_blocks {
                    break;
                }
                let topology = self.topologies.get(&entry.block.session);
                // A peer new to the block is in no list and, until it is
                // in `known_by` (after its sends, which are listed), the
                // grid answers nothing for it.
                let super::block::BlockEntry {
                    block: meta,
                    assignments: entries,
                    votes,
                    knowledge,
                    more_votes,
                    known_by,
                    pinned,
                    derive,
                    ..
                } = entry;
                let grid = GridSent::new(*derive, pinned, known_by, topology);
                for (slot, ae) in entries.iter_mut().enumerate() {
                    let in_grid = topology.is_some_and(|t| t.route_to_peer(ae.routing, p));
                    if !in_grid {
                        let Some(t) = topology else { continue };
                        if !t.is_validator(p) || ae.random.is_complete() {
                            continue;
                        }
                        let (v, claimed) = (ae.item.cert.validator, &ae.item.claimed);
                        let seed = message_seed(seed_base, &meta.hash, v, claimed);
                        if !ae.random.sample(n_peers_total, peer_draw(seed, peer.0)) {
                            continue;
                        }
                        ae.random.inc_sent();
                        knowledge.insert(&mut ae.known, List::Random, p);
                    }
                    if !(grid.sent(ae.sent, p) || knowledge.knows(&ae.known, p)) {
                        knowledge.insert(&mut ae.known, List::Sent, p);
                        assignments.push((peer, Outgoing::Assignment(ae.item.clone())));
                    }
                    for k in BlockEntry::votes_of(more_votes, slot as u32, ae.first_vote) {
                        let ve = &mut votes[k as usize];
                        if !(grid.sent(ve.sent, p) || knowledge.knows(&ve.known, p)) {
                            knowledge.insert(&mut ve.known, List::Sent, p);
                            approvals.push((peer, Outgoing::Approval(ve.vote.clone())));
                        }
                    }
                }
                entry.known_by.insert(p);
                block = entry.block.parent;
            }
        }
        emit_sends(out, assignments, approvals);
    }

    /// Send every message of `blocks` to the peers its (current) routing
    /// names that do not know it yet.
    pub(super) fn propagate(&mut self, blocks: &[Hash], out: &mut Vec<Action>) {
        let mut assignments = Vec::new();
        let mut approvals = Vec::new();
        for h in blocks {
            let Some(entry) = self.blocks.get_mut(h) else {
                continue;
            };
            let Some(t) = self.topologies.get(&entry.block.session) else {
                continue;
            };
            let super::block::BlockEntry {
                assignments: entries,
                votes,
                known_by,
                knowledge,
                more_votes,
                pinned,
                derive,
                ..
            } = entry;
            let grid = GridSent::new(*derive, pinned, known_by, Some(t));
            for (slot, ae) in entries.iter_mut().enumerate() {
                if ae.routing.is_empty() {
                    continue;
                }
                let route = t.peers_to_route(ae.routing);
                for q in route.iter_and(known_by) {
                    let peer = PeerId(q as u32);
                    // Sends along the route the message is about to be
                    // noted as gone along are the grid's to answer for.
                    let listed = !grid.covers(q);
                    if !(grid.sent(ae.sent, q) || knowledge.knows(&ae.known, q)) {
                        if listed {
                            knowledge.insert(&mut ae.known, List::Sent, q);
                        }
                        assignments.push((peer, Outgoing::Assignment(ae.item.clone())));
                    }
                    for k in BlockEntry::votes_of(more_votes, slot as u32, ae.first_vote) {
                        let ve = &mut votes[k as usize];
                        if !(grid.sent(ve.sent, q) || knowledge.knows(&ve.known, q)) {
                            if listed {
                                knowledge.insert(&mut ve.known, List::Sent, q);
                            }
                            approvals.push((peer, Outgoing::Approval(ve.vote.clone())));
                        }
                    }
                }
                ae.sent = ae.routing;
                for k in BlockEntry::votes_of(more_votes, slot as u32, ae.first_vote) {
                    let ve = &mut votes[k as usize];
                    ve.sent = ve.sent.combine(ae.routing);
                }
            }
        }
        emit_sends(out, assignments, approvals);
    }

    /// Aggression (upstream `enable_aggression`): when the unfinalized span reaches L1, the oldest
    /// block's messages are periodically re-sent (`resend`) and its routing
    /// escalated: our own messages to every validator peer (L1), everybody's
    /// to row and column (L2).
    pub(super) fn enable_aggression(&mut self, resend: bool, out: &mut Vec<Action>) {
        let (Some((&min, _)), Some((&max, _))) = (
            self.blocks_by_number.first_key_value(),
            self.blocks_by_number.last_key_value(),
        ) else {
            return;
        };
        let cfg = self.config.aggression;
        let age = max - min;
        if !cfg.should_trigger(age) {
            return;
        }
        let oldest: Vec<Hash> = self.blocks_by_number[&min].clone();
        if let (true, Some(period)) = (resend, cfg.resend_unfinalized_period) {
            let mut resent = Vec::new();
            for h in &oldest {
                let b = self.blocks.get_mut(h).expect("indexed blocks exist");
                let block_age = max - b.block.number;
                let may = b.last_resent_at.is_none_or(|l| max - l >= 2 * period);
                if block_age > 0 && block_age.is_multiple_of(period) && may {
                    for ae in &mut b.assignments {
                        b.knowledge.clear(&mut ae.known, List::Sent);
                        ae.sent = RequiredRouting::None;
                    }
                    for ve in &mut b.votes {
                        b.knowledge.clear(&mut ve.known, List::Sent);
                        ve.sent = RequiredRouting::None;
                    }
                    b.last_resent_at = Some(max);
                    resent.push(*h);
                }
            }
            self.propagate(&resent, out);
        }
        for h in &oldest {
            let b = self.blocks.get_mut(h).expect("indexed blocks exist");
            if !self.topologies.contains_key(&b.block.session) {
                continue;
            }
            for ae in &mut b.assignments {
                let mut r = ae.routing;
                if r == RequiredRouting::PendingTopology {
                    continue;
                }
                if cfg.l1_threshold.is_some_and(|t| age >= t)
                    && ae.local
                    && r != RequiredRouting::All
                {
                    r = RequiredRouting::All;
                }
                if cfg.l2_threshold.is_some_and(|t| age >= t)
                    && !ae.local
                    && r != RequiredRouting::GridXY
                {
                    r = RequiredRouting::GridXY;
                }
                ae.routing = r;
            }
        }
        self.propagate(&oldest, out);
    }
}
