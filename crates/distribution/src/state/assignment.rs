//! Assignments (upstream `import_and_circulate_assignment`, `approval-distribution/src/lib.rs`): sanitising, the no-crypto part of validation
//! (phase 1), finishing import after the verdict (phase 2), our own
//! assignments, and circulation to grid and random peers.

use super::block::{AssignmentEntry, GridSent, Slot, NONE};
use super::knowledge::{Known, List};
use super::known::judge_copy;
use super::{rep, AwaitingVerdict, Pending, State};
use crate::action::{Action, AssignmentItem, Outgoing, PeerId};
use crate::check::{AssignmentCheck, AssignmentVerdict, CheckToken};
use crate::random_routing::{message_seed, RandomRouting};
use crate::reputation::*;
use crate::topology::RequiredRouting;
use std::sync::Arc;
use tranche_primitives::constants::MAX_BITFIELD_SIZE;
use tranche_primitives::time::{
    slot_start_tick, ticks_per_slot, tranche_now, TICK_TOO_FAR_IN_FUTURE,
};
use tranche_primitives::{
    AssignmentCertKind, CoreBitfield, GroupIndex, Session, SessionIndex, Tick,
};

/// Sanitising (upstream `sanitize_v2_assignments`). Quirk decision: an empty claimed bitfield is
/// refused here like an oversized one (upstream computes `len - 1` on it
/// and underflows); the top bit must be set, so every accepted claim is
/// minimal.
pub(crate) fn sane(item: &AssignmentItem) -> bool {
    let AssignmentItem { cert, claimed } = item;
    let cert_bits: u64 = match &cert.cert.kind {
        AssignmentCertKind::RelayVRFDelay { core_index } => core_index.0 as u64 + 1,
        AssignmentCertKind::RelayVRFModulo { .. } => claimed.len() as u64,
        AssignmentCertKind::RelayVRFModuloCompact { core_bitfield } => core_bitfield.len() as u64,
    };
    let max = MAX_BITFIELD_SIZE as u64;
    cert_bits <= max && (claimed.len() as u64) <= max && claimed.is_minimal()
}

/// What checking `item` needs, if it passes the validity that needs no
/// crypto: a known session, the validator and the claimed candidates in
/// range, at least one claimed (the token is left 0).
fn check_inputs(
    sessions: &std::collections::BTreeMap<SessionIndex, Arc<Session>>,
    entry: &super::block::BlockEntry,
    item: &Arc<AssignmentItem>,
) -> Option<AssignmentCheck> {
    let (v, claimed) = (item.cert.validator, &item.claimed);
    let session = sessions.get(&entry.block.session)?;
    if claimed.len() > session.info.n_cores as usize
        || (v.0 as usize) >= session.info.n_validators()
        || !entry.contains_candidates(claimed)
        || claimed.count_ones() == 0
    {
        return None;
    }
    let cores: Vec<u32> = claimed
        .iter_ones()
        .map(|i| entry.block.candidates[i as usize].core.0)
        .collect();
    let backing_groups: Vec<GroupIndex> = claimed
        .iter_ones()
        .map(|i| entry.block.candidates[i as usize].group)
        .collect();
    let claimed_cores = CoreBitfield::from_indices(&cores).ok()?;
    Some(AssignmentCheck {
        token: CheckToken(0),
        session: session.clone(),
        vrf_story: entry.block.relay_vrf_story,
        validator: v,
        claimed_cores,
        backing_groups,
        assignment: item.clone(),
    })
}

impl State {
    /// The certificate check that handling `item` from a peer would ask
    /// for now — whichever peer sent it — or `None` where phase 1 would not
    /// ask for one (the item is not sane, its block is unknown or held,
    /// the assignment is known or being checked, or it is invalid without
    /// crypto). Reads the state only: a runtime that drained several
    /// messages checks their certificates back to back with it, then
    /// hands each verdict in when phase 1 asks (the token is 0).
    pub fn assignment_check_ahead(&self, item: &AssignmentItem) -> Option<AssignmentCheck> {
        if !sane(item) || self.pending_known.contains_key(&item.cert.block_hash) {
            return None;
        }
        let entry = self.blocks.get(&item.cert.block_hash)?;
        let v = item.cert.validator;
        let checking = entry.in_flight_of(v).iter().any(
            |t| matches!(&self.in_flight[t].message, Pending::Assignment(a) if a.claimed == item.claimed),
        );
        if checking {
            return None;
        }
        if entry.find_assignment(v, &item.claimed).is_some() {
            return None;
        }
        check_inputs(&self.sessions, entry, &Arc::new(item.clone()))
    }

    /// Phase 1 for one sanitised assignment from a peer.
    pub(super) fn process_assignment(
        &mut self,
        _now: Tick,
        peer: PeerId,
        item: Arc<AssignmentItem>,
        out: &mut Vec<Action>,
    ) {
        let hash = item.cert.block_hash;
        let v = item.cert.validator;
        let claimed = &item.claimed;
        let aggression = self.aggression_on();
        let Some(entry) = self.blocks.get_mut(&hash) else {
            if !self.recent_outdated.contains(&hash) {
                rep(out, peer, COST_UNEXPECTED_MESSAGE);
            }
            return;
        };
        // A copy of a message whose check is outstanding waits for it.
        for t in entry.in_flight_of(v) {
            let f = self.in_flight.get_mut(t).expect("tokens are tracked");
            if matches!(&f.message, Pending::Assignment(a) if a.claimed == *claimed) {
                f.waiting.push((peer, Pending::Assignment(item)));
                return;
            }
        }
        let topology = self.topologies.get(&entry.block.session);
        let resend_topology = aggression.then_some(topology).flatten();
        let found = entry.find_assignment(v, claimed).map(Slot::Assignment);
        let (known_by, copy) = entry.copy_of(topology, found, peer.0 as usize);
        if judge_copy(out, peer, known_by, copy, resend_topology) {
            return;
        }
        // Validity that needs no crypto (upstream's check_assignment_valid
        // before the certificate check); failures are invalid messages.
        let Some(mut check) = check_inputs(&self.sessions, entry, &item) else {
            rep(out, peer, COST_INVALID_MESSAGE);
            return;
        };
        self.next_token += 1;
        let token = CheckToken(self.next_token);
        entry.add_in_flight(v, token);
        self.in_flight.insert(
            token,
            AwaitingVerdict {
                block: hash,
                validator: v,
                source: peer,
                message: Pending::Assignment(item.clone()),
                waiting: Vec::new(),
            },
        );
        check.token = token;
        out.push(Action::CheckAssignment(check));
    }

    /// Phase 2: the verdict of a `CheckAssignment`. Unknown tokens are
    /// ignored. Messages that waited for this one are handled afterwards.
    pub(crate) fn assignment_checked(
        &mut self,
        now: Tick,
        token: CheckToken,
        verdict: AssignmentVerdict,
        out: &mut Vec<Action>,
    ) {
        let Some(f) = self.finish_in_flight(token) else {
            return;
        };
        if let Pending::Assignment(item) = f.message {
            self.finish_assignment(now, f.source, item, verdict, out);
        }
        for (p, m) in f.waiting {
            self.process(now, p, m, out);
        }
    }

    pub(super) fn finish_in_flight(&mut self, token: CheckToken) -> Option<AwaitingVerdict> {
        let f = self.in_flight.remove(&token)?;
        if let Some(b) = self.blocks.get_mut(&f.block) {
            b.remove_in_flight(f.validator, token);
        }
        Some(f)
    }

    fn finish_assignment(
        &mut self,
        now: Tick,
        peer: PeerId,
        item: Arc<AssignmentItem>,
        verdict: AssignmentVerdict,
        out: &mut Vec<Action>,
    ) {
        let tps = ticks_per_slot(self.config.slot_duration_millis);
        let Some(entry) = self.blocks.get_mut(&item.cert.block_hash) else {
            return; // finalized meanwhile
        };
        let tranche = match verdict {
            Err(_) => {
                rep(out, peer, COST_INVALID_MESSAGE);
                return;
            }
            Ok(t) => t,
        };
        // Quirk decision: like upstream, a too-far-in-the-future assignment
        // is not remembered, so it can be accepted once its time is near.
        let block_tick = slot_start_tick(entry.block.slot, tps);
        if tranche as Tick >= tranche_now(now, block_tick) as Tick + TICK_TOO_FAR_IN_FUTURE {
            rep(out, peer, COST_ASSIGNMENT_TOO_FAR_IN_THE_FUTURE);
            return;
        }
        let p = peer.0 as usize;
        if let Some(e) = entry.find_assignment(item.cert.validator, &item.claimed) {
            // Imported meanwhile by another path (e.g. our own).
            rep(out, peer, BENEFIT_VALID_MESSAGE);
            if entry.known_by.contains(p) {
                let known = &mut entry.assignments[e as usize].known;
                entry.knowledge.insert(known, List::Received, p);
            }
            return;
        }
        out.push(Action::ImportAssignment {
            assignment: item.clone(),
            tranche,
        });
        rep(out, peer, BENEFIT_VALID_MESSAGE_FIRST);
        self.circulate_assignment(Some(peer), item, out);
    }

    /// Our own assignment, from approval voting (trusted, not checked).
    pub fn distribute_assignment(
        &mut self,
        cert: tranche_primitives::IndirectAssignmentCert,
        claimed: tranche_primitives::CandidateBitfield,
        out: &mut Vec<Action>,
    ) {
        let Some(entry) = self.blocks.get(&cert.block_hash) else {
            return;
        };
        if claimed.count_ones() == 0
            || !entry.contains_candidates(&claimed)
            || entry.find_assignment(cert.validator, &claimed).is_some()
        {
            return;
        }
        self.circulate_assignment(None, Arc::new(AssignmentItem { cert, claimed }), out);
    }

    /// Store an accepted assignment and send it to the grid peers of its
    /// required routing that know the block, plus random validator peers.
    /// Peers that already know it (the source) are not sent it again.
    fn circulate_assignment(
        &mut self,
        source: Option<PeerId>,
        item: Arc<AssignmentItem>,
        out: &mut Vec<Action>,
    ) {
        let n_peers_total = self.peers.len();
        let seed_base = self.config.routing_seed;
        let Some(entry) = self.blocks.get_mut(&item.cert.block_hash) else {
            return;
        };
        let topology = self.topologies.get(&entry.block.session);
        let local = source.is_none();
        let v = item.cert.validator;
        let routing = topology.map_or(RequiredRouting::PendingTopology, |t| {
            t.neighbours.required_routing_by_index(v, local)
        });
        let mut ae = AssignmentEntry {
            item: item.clone(),
            known: Known::default(),
            first_vote: NONE,
            routing,
            sent: RequiredRouting::None,
            local,
            random: RandomRouting::default(),
        };
        let knowledge = &mut entry.knowledge;
        let src = source.map(|p| p.0 as usize);
        if let Some(s) = src {
            if entry.known_by.contains(s) {
                knowledge.insert(&mut ae.known, List::Received, s);
            }
        }
        if let Some(t) = topology {
            let route = t.peers_to_route(routing);
            // Eligible at random: validator peers that know the block,
            // neither the source nor on the grid route.
            let (src_word, src_bit) = src.map_or((usize::MAX, 0), |s| (s / 64, 1u64 << (s % 64)));
            let words = entry.known_by.word_count();
            let seed = message_seed(seed_base, &item.cert.block_hash, v, &item.claimed);
            let picks = ae.random.pick(seed, n_peers_total, words, |w| {
                let mut bits = entry.known_by.word(w) & !route.word(w) & t.validator_peers.word(w);
                if w == src_word {
                    bits &= !src_bit;
                }
                bits
            });
            for q in picks {
                ae.random.inc_sent();
                knowledge.insert(&mut ae.known, List::Random, q);
            }
            // Grid and random peers in ascending id, as one bitset of
            // sent peers would list them.
            let sent = &mut self.scratch;
            sent.clear();
            let mut picked = picks.iter().copied().peekable();
            for q in route.iter_and(&entry.known_by) {
                if Some(q) == src {
                    continue;
                }
                while let Some(r) = picked.next_if(|&r| r < q) {
                    sent.push(r);
                }
                sent.push(q);
            }
            sent.extend(picked);
            out.extend(sent.iter().map(|&q| Action::Send {
                peer: PeerId(q as u32),
                item: Outgoing::Assignment(item.clone()),
            }));
            // The grid answers for the route; the rest is listed.
            let grid = GridSent::new(entry.derive, &entry.pinned, &entry.known_by, topology);
            sent.retain(|&q| !(grid.covers(q) && route.contains(q)));
            knowledge.extend(&mut ae.known, List::Sent, sent);
            ae.sent = routing;
        }
        entry.insert_assignment(ae);
    }
}
