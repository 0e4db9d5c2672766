//! Shared fixtures for the distribution tests: sessions with real keys,
//! blocks, dummy and real messages, a node set up on a grid, and
//! helpers that pick actions apart.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::sync::Arc;
use tranche_distribution::*;
use tranche_primitives::*;

pub fn pair(v: u32) -> ValidatorPair {
    ValidatorPair::from_label(&format!("validator-{v}"))
}

/// A session of `n` validators with `n_cores` cores; validator `v`'s keys
/// come from the label `validator-{v}`; group `g` = validators {2g, 2g+1}.
pub fn session(n: u32, n_cores: u32) -> Arc<Session> {
    let keys: Vec<ValidatorId> = (0..n).map(|v| pair(v).id()).collect();
    Arc::new(Session::new(SessionInfo {
        session_index: 1,
        n_cores,
        needed_approvals: 3,
        relay_vrf_modulo_samples: 2,
        n_delay_tranches: 10,
        zeroth_delay_tranche_width: 0,
        no_show_slots: 2,
        validator_groups: (0..n_cores)
            .map(|g| vec![ValidatorIndex((2 * g) % n), ValidatorIndex((2 * g + 1) % n)])
            .collect(),
        assignment_keys: keys.clone(),
        validators: keys,
        assignments_v2: true,
        max_approval_coalesce_count: 8,
    }))
}

pub fn block_hash(number: u32) -> Hash {
    Hash::blake2_256(&number.to_le_bytes())
}

pub fn meta(number: u32, n_candidates: u32) -> Block {
    Block {
        hash: block_hash(number),
        number,
        parent: block_hash(number.wrapping_sub(1)),
        candidates: (0..n_candidates)
            .map(|c| Candidate {
                hash: CandidateHash(Hash::blake2_256(&[number as u8, c as u8, 0xca])),
                core: CoreIndex(c),
                group: GroupIndex(c),
            })
            .collect(),
        slot: 0,
        session: 1,
        relay_vrf_story: RelayVrfStory([number as u8; 32]),
    }
}

/// A delay assignment with a dummy VRF (for tests that inject verdicts).
pub fn delay_item(block: Hash, v: u32, core: u32) -> AssignmentItem {
    AssignmentItem {
        cert: IndirectAssignmentCert {
            block_hash: block,
            validator: ValidatorIndex(v),
            cert: AssignmentCert {
                kind: AssignmentCertKind::RelayVRFDelay {
                    core_index: CoreIndex(core),
                },
                vrf: VrfSignature {
                    pre_output: [0; 32],
                    proof: [0; 64],
                },
            },
        },
        claimed: CandidateBitfield::from_index(core),
    }
}

pub fn dummy_vote(block: Hash, v: u32, indices: &[u32]) -> IndirectSignedApprovalVote {
    IndirectSignedApprovalVote {
        block_hash: block,
        candidate_indices: CandidateBitfield::from_indices(indices).unwrap(),
        validator: ValidatorIndex(v),
        signature: ValidatorSignature([0; 64]),
    }
}

/// A real vote by validator `v` for candidates of `meta`.
pub fn real_vote(meta: &Block, v: u32, indices: &[u32]) -> IndirectSignedApprovalVote {
    let hashes: Vec<CandidateHash> = indices
        .iter()
        .map(|i| meta.candidates[*i as usize].hash)
        .collect();
    IndirectSignedApprovalVote {
        block_hash: meta.hash,
        candidate_indices: CandidateBitfield::from_indices(indices).unwrap(),
        validator: ValidatorIndex(v),
        signature: vote::sign_approval(&pair(v), &hashes, meta.session),
    }
}

/// Real assignments of validator `v` for `meta`: one item per certificate
/// (a compact certificate claims all its candidates).
pub fn real_assignments(
    session: &Session,
    meta: &Block,
    v: u32,
) -> Vec<(AssignmentItem, DelayTranche)> {
    let ours = criteria::compute_assignments(
        &pair(v),
        ValidatorIndex(v),
        &meta.relay_vrf_story,
        &session.info,
        &meta.candidates,
    );
    let mut items: Vec<(AssignmentItem, DelayTranche)> = Vec::new();
    for (core, a) in ours {
        let cand = meta.candidates.iter().position(|c| c.core == core).unwrap() as u32;
        if let Some((it, _)) = items.iter_mut().find(|(it, _)| it.cert.cert == a.cert) {
            let mut idx: Vec<u32> = it.claimed.iter_ones().collect();
            idx.push(cand);
            it.claimed = CandidateBitfield::from_indices(&idx).unwrap();
        } else {
            let cert = IndirectAssignmentCert {
                block_hash: meta.hash,
                validator: ValidatorIndex(v),
                cert: a.cert.clone(),
            };
            let claimed = CandidateBitfield::from_index(cand);
            items.push((AssignmentItem { cert, claimed }, a.tranche));
        }
    }
    items
}

/// A node at `local` on the identity grid of `n` validators, connected to
/// every other validator (peer id = validator index), with `meta` known to
/// it and to every peer.
pub fn node_on_grid(n: u32, local: u32, meta: &Block, cfg: Config) -> State {
    node_on_grid_with(n, local, meta, cfg, |v| Some(ValidatorIndex(v)))
}

/// [`node_on_grid`], each peer `v` (every validator but `local`, which may
/// lie outside the grid) connected with the identity `authority(v)`.
pub fn node_on_grid_with(
    n: u32,
    local: u32,
    meta: &Block,
    cfg: Config,
    authority: impl Fn(u32) -> Option<ValidatorIndex>,
) -> State {
    let mut s = State::new(cfg);
    s.add_session(session(n, meta.candidates.len().max(1) as u32));
    let mut out = Vec::new();
    s.new_gossip_topology(
        1,
        SessionGridTopology::identity(n as usize),
        Some(ValidatorIndex(local)),
        &mut out,
    );
    for v in (0..n).filter(|v| *v != local) {
        s.peer_connected(PeerId(v), authority(v)).unwrap();
    }
    s.new_blocks(0, vec![meta.clone()], &mut out);
    for v in (0..n).filter(|v| *v != local) {
        s.peer_view_change(0, PeerId(v), view(&[meta.hash], 0), &mut out);
    }
    s
}

pub fn view(heads: &[Hash], finalized: u32) -> View {
    View {
        heads: heads.to_vec(),
        finalized_number: finalized,
    }
}

pub fn assignments_msg(items: Vec<AssignmentItem>) -> ApprovalDistributionMessage {
    ApprovalDistributionMessage::assignments(items)
}

pub fn approvals_msg(votes: Vec<IndirectSignedApprovalVote>) -> ApprovalDistributionMessage {
    ApprovalDistributionMessage::approvals(votes)
}

/// Peers sent anything.
pub fn sent_to(out: &[Action]) -> BTreeSet<u32> {
    out.iter()
        .filter_map(|a| match a {
            Action::Send { peer, .. } => Some(peer.0),
            _ => None,
        })
        .collect()
}

pub fn reps(out: &[Action]) -> Vec<(u32, i32)> {
    out.iter()
        .filter_map(|a| match a {
            Action::Reputation { peer, rep } => Some((peer.0, rep.value)),
            _ => None,
        })
        .collect()
}

pub fn n_imports(out: &[Action]) -> usize {
    out.iter()
        .filter(|a| {
            matches!(
                a,
                Action::ImportAssignment { .. } | Action::ImportApproval { .. }
            )
        })
        .count()
}

pub fn check_tokens(out: &[Action]) -> Vec<CheckToken> {
    out.iter()
        .filter_map(|a| match a {
            Action::CheckAssignment(c) => Some(c.token),
            Action::CheckApproval(c) => Some(c.token),
            _ => None,
        })
        .collect()
}

/// Phase 1 then every check answered with `ok` verdicts (tranche 0).
pub fn receive_ok(
    s: &mut State,
    now: Tick,
    peer: u32,
    msg: ApprovalDistributionMessage,
) -> Vec<Action> {
    let mut out = Vec::new();
    s.handle_peer_message(now, PeerId(peer), msg, &mut out);
    answer_all(s, now, out, Ok(0))
}

/// Feed verdicts back until no check remains: every assignment check is
/// answered with `tranche`, every approval check with `Ok` when `tranche`
/// is `Ok` and with an invalid key otherwise.
pub fn answer_all(
    s: &mut State,
    now: Tick,
    work: Vec<Action>,
    tranche: Result<DelayTranche, criteria::InvalidAssignmentReason>,
) -> Vec<Action> {
    let vote = if tranche.is_ok() {
        Ok(())
    } else {
        Err(InvalidVote::InvalidKey)
    };
    run_checks(s, now, work, |_| tranche, |_| vote)
}

/// Feed the verdicts of `assign` and `approve` back until no check
/// remains (distribution's one settle loop, `State::settle`); what is
/// left is returned as actions: imports, then reputation changes, then
/// sends, each in the order they came.
pub fn run_checks(
    s: &mut State,
    now: Tick,
    mut work: Vec<Action>,
    assign: impl FnMut(&AssignmentCheck) -> Result<DelayTranche, criteria::InvalidAssignmentReason>,
    approve: impl FnMut(&ApprovalCheck) -> Result<(), InvalidVote>,
) -> Vec<Action> {
    let mut verifier = AnswerWith::new(assign, approve);
    let mut settled = Settled::default();
    match s.settle(now, &mut work, &mut verifier, &mut settled) {
        Ok(()) => {}
        Err(never) => match never {},
    }
    settled_actions(&mut settled)
}

/// What settled, as actions: imports, then reputation changes, then
/// sends, each in the order they came.
pub fn settled_actions(settled: &mut Settled) -> Vec<Action> {
    let imports = settled.imports.drain(..).map(|i| match i {
        Import::Assignment {
            assignment,
            tranche,
        } => Action::ImportAssignment {
            assignment,
            tranche,
        },
        Import::Approval { vote } => Action::ImportApproval { vote },
    });
    let reps = settled
        .reputations
        .drain(..)
        .map(|(peer, rep)| Action::Reputation { peer, rep });
    let sends = settled
        .sends
        .drain(..)
        .map(|(peer, item)| Action::Send { peer, item });
    imports.chain(reps).chain(sends).collect()
}

/// A verifier that answers no check now: each check it is asked is kept
/// as the action that asked for it (`kept`), and the verdicts in `later`
/// are handed back the first time the settle loop asks what is due.
#[derive(Default)]
pub struct Later {
    pub kept: Vec<Action>,
    pub later: Vec<DeferredVerdict>,
    /// Times the settle loop asked what is due.
    pub asked: usize,
}

impl Verifier for Later {
    type Error = std::convert::Infallible;

    fn assignment(
        &mut self,
        check: AssignmentCheck,
    ) -> Result<Option<AssignmentVerdict>, Self::Error> {
        self.kept.push(Action::CheckAssignment(check));
        Ok(None)
    }

    fn approval(&mut self, check: ApprovalCheck) -> Result<Option<ApprovalVerdict>, Self::Error> {
        self.kept.push(Action::CheckApproval(check));
        Ok(None)
    }

    fn due(&mut self, due: &mut Vec<DeferredVerdict>) -> Result<(), Self::Error> {
        self.asked += 1;
        due.append(&mut self.later);
        Ok(())
    }
}

/// Hand `verdicts` back as deferred verdicts due now, through the settle
/// loop (one group); what they caused is returned as actions as by
/// [`settled_actions`], then the checks they caused, kept unanswered.
pub fn feed(s: &mut State, now: Tick, verdicts: Vec<DeferredVerdict>) -> Vec<Action> {
    let mut verifier = Later {
        later: verdicts,
        ..Later::default()
    };
    let mut settled = Settled::default();
    match s.settle(now, &mut Vec::new(), &mut verifier, &mut settled) {
        Ok(()) => {}
        Err(never) => match never {},
    }
    assert_eq!(verifier.asked, 2, "asked until nothing more was due");
    let mut out = settled_actions(&mut settled);
    out.append(&mut verifier.kept);
    out
}

/// An assignment check's verdict, deferred.
pub fn assignment_verdict(token: CheckToken, verdict: AssignmentVerdict) -> DeferredVerdict {
    DeferredVerdict {
        token,
        verdict: CheckVerdict::Assignment(verdict),
        group: 0,
    }
}

/// An approval check's verdict, deferred.
pub fn approval_verdict(token: CheckToken, verdict: ApprovalVerdict) -> DeferredVerdict {
    DeferredVerdict {
        token,
        verdict: CheckVerdict::Approval(verdict),
        group: 0,
    }
}
