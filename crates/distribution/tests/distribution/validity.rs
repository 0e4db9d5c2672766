//! Every class of bad input gets upstream's reputation change and is
//! neither imported nor forwarded; the benign classes (out of view, known
//! copies) are rewarded as upstream does.

use crate::common;
use common::*;
use tranche_distribution::reputation::*;
use tranche_distribution::*;
use tranche_primitives::*;

const N: u32 = 49;
const LOCAL: u32 = 24;

fn setup() -> (State, Block) {
    let m = meta(1, 4);
    (node_on_grid(N, LOCAL, &m, Config::default()), m)
}

/// Phase 1 only.
fn phase1(s: &mut State, peer: u32, msg: ApprovalDistributionMessage) -> Vec<Action> {
    let mut out = Vec::new();
    s.handle_peer_message(0, PeerId(peer), msg, &mut out);
    out
}

/// Phase 1 and real crypto: the checks run inline, their verdicts fed back
/// until no check is left; every other action is returned.
fn checked(s: &mut State, peer: u32, msg: ApprovalDistributionMessage) -> Vec<Action> {
    let mut work = Vec::new();
    s.handle_peer_message(0, PeerId(peer), msg, &mut work);
    run_checks(s, 0, work, |c| c.check(), |c| c.check())
}

fn assert_rejected(out: &[Action], peer: u32, cost: Rep) {
    assert_eq!(reps(out), vec![(peer, cost.value)], "{out:?}");
    assert_eq!(n_imports(out), 0);
    assert!(sent_to(out).is_empty());
    assert!(check_tokens(out).is_empty());
}

#[test]
fn unknown_block() {
    let (mut s, _) = setup();
    let other = block_hash(99);
    let out = phase1(&mut s, 3, assignments_msg(vec![delay_item(other, 3, 0)]));
    assert_rejected(&out, 3, COST_UNEXPECTED_MESSAGE);
    let out = phase1(&mut s, 3, approvals_msg(vec![dummy_vote(other, 3, &[0])]));
    assert_rejected(&out, 3, COST_UNEXPECTED_MESSAGE);
}

#[test]
fn recently_finalized_block_costs_nothing() {
    let (mut s, m) = setup();
    let mut out = Vec::new();
    s.block_finalized(1, &mut out);
    assert_eq!(s.n_blocks(), 0);
    let out = phase1(&mut s, 3, assignments_msg(vec![delay_item(m.hash, 3, 0)]));
    assert!(out.is_empty());
}

#[test]
fn out_of_view_is_charged_but_processed() {
    let (mut s, m) = setup();
    // Peer 60 is connected but never showed a view containing the block.
    s.peer_connected(PeerId(60), None).unwrap();
    let out = receive_ok(
        &mut s,
        0,
        60,
        assignments_msg(vec![delay_item(m.hash, 3, 0)]),
    );
    assert_eq!(
        reps(&out),
        vec![
            (60, COST_UNEXPECTED_MESSAGE.value),
            (60, BENEFIT_VALID_MESSAGE_FIRST.value)
        ]
    );
    assert_eq!(n_imports(&out), 1);
}

#[test]
fn too_far_in_the_future_is_refused_and_not_remembered() {
    let (mut s, m) = setup();
    let msg = assignments_msg(vec![delay_item(m.hash, 3, 0)]);
    let mut out = Vec::new();
    s.handle_peer_message(0, PeerId(3), msg.clone(), &mut out);
    let out = answer_all(&mut s, 0, out, Ok(20));
    assert_rejected(&out, 3, COST_ASSIGNMENT_TOO_FAR_IN_THE_FUTURE);
    assert!(!s.knows_assignment(
        &m.hash,
        ValidatorIndex(3),
        &CandidateBitfield::from_index(0)
    ));
    // Later (tranche 20 is now only 19 ticks ahead) the same message is
    // checked again and accepted.
    let mut out = Vec::new();
    s.handle_peer_message(1, PeerId(3), msg, &mut out);
    assert_eq!(check_tokens(&out).len(), 1);
    let out = answer_all(&mut s, 1, out, Ok(20));
    assert_eq!(n_imports(&out), 1);
}

#[test]
fn duplicates() {
    let (mut s, m) = setup();
    let a = assignments_msg(vec![delay_item(m.hash, 22, 0)]);
    let v = approvals_msg(vec![dummy_vote(m.hash, 22, &[0])]);
    let _ = receive_ok(&mut s, 0, 22, a.clone());
    assert_rejected(&phase1(&mut s, 22, a), 22, COST_DUPLICATE_MESSAGE);
    let _ = receive_ok(&mut s, 0, 22, v.clone());
    assert_rejected(&phase1(&mut s, 22, v.clone()), 22, COST_DUPLICATE_MESSAGE);
    // The same vote from another peer is a known valid message.
    let out = phase1(&mut s, 21, v);
    assert_eq!(reps(&out), vec![(21, BENEFIT_VALID_MESSAGE.value)]);
    assert_eq!(
        n_imports(&out) + sent_to(&out).len() + check_tokens(&out).len(),
        0
    );
}

#[test]
fn copy_we_sent_to_the_peer_is_not_a_duplicate() {
    let (mut s, m) = setup();
    // Received from 22 (row), forwarded to the column, e.g. to 10.
    let out = receive_ok(
        &mut s,
        0,
        22,
        assignments_msg(vec![delay_item(m.hash, 22, 0)]),
    );
    assert!(sent_to(&out).contains(&10));
    // 10 sends it back (it crossed ours on the wire): no cost.
    let out = phase1(&mut s, 10, assignments_msg(vec![delay_item(m.hash, 22, 0)]));
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn approval_before_assignment() {
    let (mut s, m) = setup();
    let out = phase1(
        &mut s,
        22,
        approvals_msg(vec![dummy_vote(m.hash, 22, &[0])]),
    );
    assert_rejected(&out, 22, COST_UNEXPECTED_MESSAGE);
    // Assignment for candidate 0 only; a vote also covering 1 is early too.
    let _ = receive_ok(
        &mut s,
        0,
        22,
        assignments_msg(vec![delay_item(m.hash, 22, 0)]),
    );
    let out = phase1(
        &mut s,
        22,
        approvals_msg(vec![dummy_vote(m.hash, 22, &[0, 1])]),
    );
    assert_rejected(&out, 22, COST_UNEXPECTED_MESSAGE);
}

#[test]
fn oversized_and_empty_bitfields() {
    let (mut s, m) = setup();
    let mut big_claim = delay_item(m.hash, 3, 0);
    big_claim.claimed = CandidateBitfield::from_index(500);
    let big_core = delay_item(m.hash, 3, 500);
    let mut big_compact = delay_item(m.hash, 3, 0);
    big_compact.cert.cert.kind = AssignmentCertKind::RelayVRFModuloCompact {
        core_bitfield: CoreBitfield::from_index(500),
    };
    // Quirk decision: an empty claim is refused as oversized.
    let mut empty = delay_item(m.hash, 3, 0);
    empty.claimed = CandidateBitfield::with_len(0, []);
    let mut not_minimal = delay_item(m.hash, 3, 0);
    not_minimal.claimed = CandidateBitfield::with_len(4, [0]);
    for item in [big_claim, big_core, big_compact, empty, not_minimal] {
        let out = phase1(&mut s, 3, assignments_msg(vec![item]));
        assert_rejected(&out, 3, COST_OVERSIZED_BITFIELD);
    }
    let mut big_vote = dummy_vote(m.hash, 3, &[0]);
    big_vote.candidate_indices = CandidateBitfield::with_len(501, [0]);
    assert_rejected(
        &phase1(&mut s, 3, approvals_msg(vec![big_vote])),
        3,
        COST_OVERSIZED_BITFIELD,
    );
}

#[test]
fn empty_vote_is_invalid() {
    let (mut s, m) = setup();
    // Quirk decision: a vote naming no candidate is invalid (upstream
    // panics on it).
    let mut v = dummy_vote(m.hash, 3, &[0]);
    v.candidate_indices = CandidateBitfield::with_len(2, []);
    assert_rejected(
        &phase1(&mut s, 3, approvals_msg(vec![v])),
        3,
        COST_INVALID_MESSAGE,
    );
}

#[test]
fn bad_indices_are_invalid() {
    let (mut s, m) = setup();
    // Candidate 5 of a block with 4 candidates.
    let mut item = delay_item(m.hash, 3, 0);
    item.claimed = CandidateBitfield::from_index(5);
    item.cert.cert.kind = AssignmentCertKind::RelayVRFDelay {
        core_index: CoreIndex(5),
    };
    assert_rejected(
        &phase1(&mut s, 3, assignments_msg(vec![item])),
        3,
        COST_INVALID_MESSAGE,
    );
    // Validator 49 of 49.
    let item = delay_item(m.hash, 49, 0);
    assert_rejected(
        &phase1(&mut s, 3, assignments_msg(vec![item])),
        3,
        COST_INVALID_MESSAGE,
    );
    // A vote for candidate 5 is treated like one for an unknown block.
    let v = dummy_vote(m.hash, 3, &[5]);
    assert_rejected(
        &phase1(&mut s, 3, approvals_msg(vec![v])),
        3,
        COST_UNEXPECTED_MESSAGE,
    );
}

#[test]
fn invalid_certificate_real_crypto() {
    let (mut s, m) = setup();
    let sess = session(N, 4);
    let (item, _) = real_assignments(&sess, &m, 5).remove(0);
    // Validator 6 claims validator 5's certificate.
    let mut forged = item.clone();
    forged.cert.validator = ValidatorIndex(6);
    let out = checked(&mut s, 3, assignments_msg(vec![forged]));
    assert_rejected(&out, 3, COST_INVALID_MESSAGE);
    // A corrupted VRF output.
    let mut corrupt = item.clone();
    corrupt.cert.cert.vrf.pre_output[0] ^= 1;
    let out = checked(&mut s, 3, assignments_msg(vec![corrupt]));
    assert_rejected(&out, 3, COST_INVALID_MESSAGE);
    // The genuine one passes.
    let out = checked(&mut s, 3, assignments_msg(vec![item]));
    assert_eq!(n_imports(&out), 1);
    assert_eq!(reps(&out), vec![(3, BENEFIT_VALID_MESSAGE_FIRST.value)]);
}

#[test]
fn invalid_signature_real_crypto() {
    let (mut s, m) = setup();
    let sess = session(N, 4);
    let (item, _) = real_assignments(&sess, &m, 5).remove(0);
    let cands: Vec<u32> = item.claimed.iter_ones().collect();
    let out = checked(&mut s, 3, assignments_msg(vec![item]));
    assert_eq!(n_imports(&out), 1);
    let good = real_vote(&m, 5, &cands);
    let mut bad = good.clone();
    bad.signature.0[0] ^= 1;
    let out = checked(&mut s, 3, approvals_msg(vec![bad]));
    assert_rejected(&out, 3, COST_INVALID_MESSAGE);
    // Signed by someone else.
    let mut other = real_vote(&m, 6, &cands);
    other.validator = ValidatorIndex(5);
    let out = checked(&mut s, 3, approvals_msg(vec![other]));
    assert_rejected(&out, 3, COST_INVALID_MESSAGE);
    let out = checked(&mut s, 3, approvals_msg(vec![good]));
    assert_eq!(n_imports(&out), 1);
}

#[test]
fn unknown_session_makes_messages_invalid() {
    let m = meta(1, 4);
    let mut s = State::new(Config::default());
    let mut out = Vec::new();
    s.new_blocks(0, vec![m.clone()], &mut out);
    let out = phase1(&mut s, 3, assignments_msg(vec![delay_item(m.hash, 3, 0)]));
    // Out of view (no peer view) and then invalid (no session info).
    assert_eq!(
        reps(&out),
        vec![
            (3, COST_UNEXPECTED_MESSAGE.value),
            (3, COST_INVALID_MESSAGE.value)
        ]
    );
    assert_eq!(n_imports(&out), 0);
}

#[test]
fn copies_arriving_during_a_check_wait_for_its_verdict() {
    let (mut s, m) = setup();
    let a = assignments_msg(vec![delay_item(m.hash, 22, 0)]);
    let v = approvals_msg(vec![dummy_vote(m.hash, 22, &[0])]);
    let first = phase1(&mut s, 22, a.clone());
    let tokens = check_tokens(&first);
    assert_eq!(tokens.len(), 1);
    // Another copy, and the vote that needs it, arrive before the verdict.
    assert!(phase1(&mut s, 21, a).is_empty());
    assert!(phase1(&mut s, 22, v).is_empty());
    assert_eq!(s.n_in_flight(), 1);
    let out = feed(&mut s, 0, vec![assignment_verdict(tokens[0], Ok(0))]);
    // The assignment is imported; the copy is a known valid message; the
    // vote now needs its own check.
    assert_eq!(n_imports(&out), 1);
    assert_eq!(
        reps(&out),
        vec![
            (22, BENEFIT_VALID_MESSAGE_FIRST.value),
            (21, BENEFIT_VALID_MESSAGE.value)
        ]
    );
    assert_eq!(check_tokens(&out).len(), 1);
    let out = answer_all(&mut s, 0, out, Ok(0));
    assert_eq!(n_imports(&out), 2);
}

#[test]
fn copies_of_an_invalid_message_are_checked_on_their_own() {
    let (mut s, m) = setup();
    let a = assignments_msg(vec![delay_item(m.hash, 22, 0)]);
    let first = phase1(&mut s, 22, a.clone());
    assert!(phase1(&mut s, 21, a).is_empty());
    let out = feed(
        &mut s,
        0,
        vec![assignment_verdict(
            check_tokens(&first)[0],
            Err(criteria::InvalidAssignmentReason::VRFDelayOutputMismatch),
        )],
    );
    assert_eq!(reps(&out), vec![(22, COST_INVALID_MESSAGE.value)]);
    // 21's copy gets its own check.
    assert_eq!(check_tokens(&out).len(), 1);
    assert_eq!(n_imports(&out), 0);
}

#[test]
fn unknown_tokens_are_ignored() {
    let (mut s, _) = setup();
    let out = feed(
        &mut s,
        0,
        vec![
            assignment_verdict(CheckToken(12345), Ok(0)),
            approval_verdict(CheckToken(12345), Ok(())),
        ],
    );
    assert!(out.is_empty());
}

#[test]
fn huge_peer_ids_are_refused() {
    let mut s = State::new(Config::default());
    assert!(s.peer_connected(PeerId(MAX_PEER_ID + 1), None).is_err());
}

/// The parallel layout's batched signatures: each message's approval
/// checks kept for one batch, numbered by the message (its group), until
/// the batch is due; then verified together (`ApprovalCheck::check_batch`)
/// and handed back to the settle loop (`Verifier::due`).
#[derive(Default)]
struct Batch {
    checks: Vec<(ApprovalCheck, u64)>,
    message: u64,
    due: bool,
}

impl Verifier for Batch {
    type Error = std::convert::Infallible;

    fn assignment(&mut self, c: AssignmentCheck) -> Result<Option<AssignmentVerdict>, Self::Error> {
        Ok(Some(c.check()))
    }

    fn approval(&mut self, check: ApprovalCheck) -> Result<Option<ApprovalVerdict>, Self::Error> {
        self.checks.push((check, self.message));
        Ok(None)
    }

    fn due(&mut self, due: &mut Vec<DeferredVerdict>) -> Result<(), Self::Error> {
        if !self.due || self.checks.is_empty() {
            return Ok(());
        }
        let checks: Vec<ApprovalCheck> = self.checks.iter().map(|(c, _)| c.clone()).collect();
        let verdicts = ApprovalCheck::check_batch(&checks);
        for ((c, message), verdict) in self.checks.drain(..).zip(verdicts) {
            due.push(DeferredVerdict {
                token: c.token,
                verdict: CheckVerdict::Approval(verdict),
                group: message,
            });
        }
        Ok(())
    }
}

/// Six approvals from six peers, each in its own message, every signature
/// deferred into one batch (each check numbered by its voter), one of
/// them forged. Returns the voters, in the order their messages came.
fn six_approvals_waiting(s: &mut State, m: &Block, batch: &mut Batch) -> Vec<u32> {
    let sess = session(N, 4);
    let voters: Vec<u32> = (5..=10).collect();
    let mut votes = Vec::new();
    for &v in &voters {
        let (item, _) = real_assignments(&sess, m, v).remove(0);
        let cands: Vec<u32> = item.claimed.iter_ones().collect();
        assert_eq!(n_imports(&checked(s, v, assignments_msg(vec![item]))), 1);
        votes.push(real_vote(m, v, &cands));
    }
    votes[3].signature.0[2] ^= 0x10; // validator 8's, sent by peer 8
    let mut settled = Settled::default();
    for (v, vote) in voters.iter().zip(votes) {
        batch.message = u64::from(*v);
        let mut work = Vec::new();
        s.handle_peer_message(0, PeerId(*v), approvals_msg(vec![vote]), &mut work);
        match s.settle(0, &mut work, batch, &mut settled) {
            Ok(()) => {}
            Err(never) => match never {},
        }
        assert!(settled.is_empty(), "nothing before the verdicts");
    }
    assert_eq!(batch.checks.len(), 6, "every vote waits for the batch");
    voters
}

/// The parallel layout's batched signatures (`ApprovalCheck::check_batch`):
/// six approvals from six peers checked as one batch, one of them forged —
/// exactly its sender is charged, the other five are imported, and every
/// verdict is the one its own check gives. The batch's verdicts are fed
/// back by the settle loop itself, once the batch is due.
#[test]
fn a_batch_with_one_bad_signature_charges_exactly_its_sender_and_imports_the_rest() {
    let (mut s, m) = setup();
    let mut batch = Batch::default();
    six_approvals_waiting(&mut s, &m, &mut batch);
    let checks: Vec<ApprovalCheck> = batch.checks.iter().map(|(c, _)| c.clone()).collect();
    for (c, v) in checks.iter().zip(ApprovalCheck::check_batch(&checks)) {
        assert_eq!(v, c.check(), "validator {:?}", c.validator);
    }
    batch.due = true;
    let mut settled = Settled::default();
    match s.settle(0, &mut Vec::new(), &mut batch, &mut settled) {
        Ok(()) => {}
        Err(never) => match never {},
    }
    assert!(batch.checks.is_empty(), "the batch was answered");
    let out = settled_actions(&mut settled);
    let costs: Vec<(u32, i32)> = reps(&out).into_iter().filter(|(_, r)| *r < 0).collect();
    assert_eq!(costs, vec![(8, COST_INVALID_MESSAGE.value)]);
    let imported: Vec<u32> = out
        .iter()
        .filter_map(|a| match a {
            Action::ImportApproval { vote } => Some(vote.validator.0),
            _ => None,
        })
        .collect();
    assert_eq!(imported, vec![5, 6, 7, 9, 10]);
    assert_eq!(s.n_in_flight(), 0);
}

/// What each deferred verdict causes settles into its own group, one per
/// message (what came before the batch is the first group, empty here):
/// the node sends each group as one group of notifications.
#[test]
fn a_batch_s_verdicts_settle_into_one_group_per_message() {
    let (mut s, m) = setup();
    let mut batch = Batch::default();
    let voters = six_approvals_waiting(&mut s, &m, &mut batch);
    batch.due = true;
    let mut settled = Settled::default();
    match s.settle(0, &mut Vec::new(), &mut batch, &mut settled) {
        Ok(()) => {}
        Err(never) => match never {},
    }
    let groups: Vec<GroupSize> = settled.groups().collect();
    assert_eq!(groups.len(), 1 + voters.len(), "{groups:?}");
    assert_eq!(groups[0], GroupSize::default());
    let (mut sends, mut imports) = (0, 0);
    for (g, v) in groups[1..].iter().zip(&voters) {
        let mine = &settled.sends[sends..sends + g.sends];
        assert!(
            mine.iter().all(|(_, item)| matches!(item,
                Outgoing::Approval(vote) if vote.validator.0 == *v)),
            "validator {v}'s group sends only its vote"
        );
        assert_eq!(g.reputations, 1, "validator {v}");
        if *v == 8 {
            assert_eq!((g.imports, g.sends), (0, 0), "the forged vote goes nowhere");
        } else {
            assert_eq!(g.imports, 1, "validator {v}");
            assert!(g.sends > 0, "validator {v}'s vote is routed on");
            assert!(matches!(&settled.imports[imports],
                Import::Approval { vote } if vote.validator.0 == *v));
        }
        sends += g.sends;
        imports += g.imports;
    }
    assert_eq!(
        (sends, imports),
        (settled.sends.len(), settled.imports.len())
    );
}
