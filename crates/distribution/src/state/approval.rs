//! Approval votes (upstream `import_and_circulate_approval`, `approval-distribution/src/lib.rs`): the no-crypto part of validation (phase 1),
//! finishing import after the verdict (phase 2), our own votes, and
//! circulation along the paths the covered assignments took.

use super::block::{GridSent, Slot};
use super::knowledge::List;
use super::known::judge_copy;
use super::{rep, AwaitingVerdict, Pending, State};
use crate::action::{Action, Outgoing, PeerId};
use crate::check::{ApprovalCheck, ApprovalVerdict, CheckToken};
use crate::reputation::*;
use std::sync::Arc;
use tranche_primitives::{CandidateHash, IndirectSignedApprovalVote, Tick};

impl State {
    /// Phase 1 for one sanitised vote from a peer.
    pub(super) fn process_approval(
        &mut self,
        _now: Tick,
        peer: PeerId,
        vote: Arc<IndirectSignedApprovalVote>,
        out: &mut Vec<Action>,
    ) {
        let hash = vote.block_hash;
        let v = vote.validator;
        let bits = &vote.candidate_indices;
        let aggression = self.aggression_on();
        let entry = match self.blocks.get_mut(&hash) {
            Some(e) if e.contains_candidates(bits) => e,
            _ => {
                if !self.recent_outdated.contains(&hash) {
                    rep(out, peer, COST_UNEXPECTED_MESSAGE);
                }
                return;
            }
        };
        // Wait for an outstanding check of this vote, or of an assignment
        // it needs.
        for t in entry.in_flight_of(v) {
            let f = self.in_flight.get_mut(t).expect("tokens are tracked");
            let depends = match &f.message {
                Pending::Approval(o) => o.candidate_indices == *bits,
                Pending::Assignment(a) => bits
                    .iter_ones()
                    .any(|i| a.claimed.bit_at(i) && entry.covering(v, i).is_none()),
            };
            if depends {
                f.waiting.push((peer, Pending::Approval(vote)));
                return;
            }
        }
        // Approval before assignment.
        if bits.iter_ones().any(|i| entry.covering(v, i).is_none()) {
            rep(out, peer, COST_UNEXPECTED_MESSAGE);
            return;
        }
        let topology = self.topologies.get(&entry.block.session);
        let resend_topology = aggression.then_some(topology).flatten();
        let found = entry.find_vote(v, bits).map(Slot::Vote);
        let (known_by, copy) = entry.copy_of(topology, found, peer.0 as usize);
        if judge_copy(out, peer, known_by, copy, resend_topology) {
            return;
        }
        // Validity that needs no crypto (upstream's check_vote_valid before
        // the signature). Quirk decision: a vote naming no candidate is
        // invalid (upstream panics on it).
        let Some(session) = self.sessions.get(&entry.block.session).cloned() else {
            rep(out, peer, COST_INVALID_MESSAGE);
            return;
        };
        if bits.len() > entry.block.candidates.len()
            || bits.count_ones() == 0
            || (v.0 as usize) >= session.info.n_validators()
        {
            rep(out, peer, COST_INVALID_MESSAGE);
            return;
        }
        let candidate_hashes: Vec<CandidateHash> = bits
            .iter_ones()
            .map(|i| entry.block.candidates[i as usize].hash)
            .collect();
        let session_index = entry.block.session;
        self.next_token += 1;
        let token = CheckToken(self.next_token);
        entry.add_in_flight(v, token);
        self.in_flight.insert(
            token,
            AwaitingVerdict {
                block: hash,
                validator: v,
                source: peer,
                message: Pending::Approval(vote.clone()),
                waiting: Vec::new(),
            },
        );
        out.push(Action::CheckApproval(ApprovalCheck {
            token,
            session,
            session_index,
            validator: v,
            candidate_hashes,
            vote,
        }));
    }

    /// Phase 2: the verdict of a `CheckApproval`. Unknown tokens are
    /// ignored. Messages that waited for this one are handled afterwards.
    pub(crate) fn approval_checked(
        &mut self,
        now: Tick,
        token: CheckToken,
        verdict: ApprovalVerdict,
        out: &mut Vec<Action>,
    ) {
        let Some(f) = self.finish_in_flight(token) else {
            return;
        };
        if let Pending::Approval(vote) = f.message {
            let peer = f.source;
            match (verdict, self.blocks.get_mut(&vote.block_hash)) {
                (_, None) => {}
                (Err(_), Some(_)) => rep(out, peer, COST_INVALID_MESSAGE),
                (Ok(()), Some(entry)) => {
                    let p = peer.0 as usize;
                    if let Some(k) = entry.find_vote(vote.validator, &vote.candidate_indices) {
                        if entry.known_by.contains(p) {
                            let known = &mut entry.votes[k as usize].known;
                            entry.knowledge.insert(known, List::Received, p);
                        }
                        rep(out, peer, BENEFIT_VALID_MESSAGE);
                    } else {
                        out.push(Action::ImportApproval { vote: vote.clone() });
                        rep(out, peer, BENEFIT_VALID_MESSAGE_FIRST);
                        self.circulate_approval(Some(peer), vote, out);
                    }
                }
            }
        }
        for (p, m) in f.waiting {
            self.process(now, p, m, out);
        }
    }

    /// Our own vote, from approval voting (trusted, not checked). Ignored
    /// if already known or if we do not know its assignments.
    pub fn distribute_approval(&mut self, vote: IndirectSignedApprovalVote, out: &mut Vec<Action>) {
        let Some(entry) = self.blocks.get(&vote.block_hash) else {
            return;
        };
        if entry
            .find_vote(vote.validator, &vote.candidate_indices)
            .is_some()
        {
            return;
        }
        self.circulate_approval(None, Arc::new(vote), out);
    }

    /// Store an accepted vote and send it to the peers that know the block
    /// and are on the grid routing of the assignments it covers, or were
    /// sent one of them at random.
    fn circulate_approval(
        &mut self,
        source: Option<PeerId>,
        vote: Arc<IndirectSignedApprovalVote>,
        out: &mut Vec<Action>,
    ) {
        let Some(entry) = self.blocks.get_mut(&vote.block_hash) else {
            return;
        };
        let Some((slot, routing, random)) = entry.insert_vote(vote.clone()) else {
            return; // vote before assignment (only possible for our own)
        };
        let src = source.map(|p| p.0 as usize);
        let ve = &mut entry.votes[slot as usize];
        let known = &mut ve.known;
        let knowledge = &mut entry.knowledge;
        if let Some(s) = src {
            if entry.known_by.contains(s) {
                knowledge.insert(known, List::Received, s);
            }
        }
        let Some(t) = self.topologies.get(&entry.block.session) else {
            return; // no topology: no grid and no random peers either
        };
        let sent = &mut self.scratch;
        sent.clear();
        let route = t.peers_to_route(routing);
        sent.extend(
            route
                .iter_or_and(&random, &entry.known_by)
                .filter(|&q| Some(q) != src),
        );
        out.extend(sent.iter().map(|&q| Action::Send {
            peer: PeerId(q as u32),
            item: Outgoing::Approval(vote.clone()),
        }));
        // The grid answers for the route; the rest is listed.
        let grid = GridSent::new(entry.derive, &entry.pinned, &entry.known_by, Some(t));
        sent.retain(|&q| !(grid.covers(q) && route.contains(q)));
        knowledge.extend(known, List::Sent, sent);
        ve.sent = routing;
    }
}
