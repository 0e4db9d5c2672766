//! Block lifecycle and everything around it: messages held until their
//! block arrives, a topology that arrives late, aggression as finality
//! lags, pruning on finality, peers disconnecting, and batching.

use crate::common;
use common::*;
use std::collections::BTreeSet;
use tranche_distribution::reputation::*;
use tranche_distribution::*;
use tranche_primitives::*;

const N: u32 = 49;
const LOCAL: u32 = 24;

#[test]
fn messages_for_a_block_in_our_view_wait_for_it() {
    let m = meta(2, 4);
    let mut s = node_on_grid(N, LOCAL, &meta(1, 4), Config::default());
    s.our_view_change(&[m.hash]);
    let mut out = Vec::new();
    s.handle_peer_message(
        0,
        PeerId(22),
        assignments_msg(vec![delay_item(m.hash, 22, 0)]),
        &mut out,
    );
    s.handle_peer_message(
        0,
        PeerId(22),
        approvals_msg(vec![dummy_vote(m.hash, 22, &[0])]),
        &mut out,
    );
    assert!(out.is_empty(), "held, not judged: {out:?}");
    assert_eq!(s.n_held(), 2);
    for v in (0..N).filter(|v| *v != LOCAL) {
        s.peer_view_change(0, PeerId(v), view(&[m.hash], 0), &mut out);
    }
    s.new_blocks(0, vec![m.clone()], &mut out);
    let out = answer_all(&mut s, 0, out, Ok(0));
    assert_eq!(s.n_held(), 0);
    assert_eq!(n_imports(&out), 2);
    assert!(s.knows_approval(
        &m.hash,
        ValidatorIndex(22),
        &CandidateBitfield::from_index(0)
    ));
}

#[test]
fn held_messages_are_bounded_and_dropped_with_the_view() {
    let m = meta(2, 4);
    let mut s = State::new(Config {
        max_pending_per_block: 3,
        ..Config::default()
    });
    s.our_view_change(&[m.hash]);
    let mut out = Vec::new();
    for v in 0..10 {
        s.handle_peer_message(
            0,
            PeerId(1),
            assignments_msg(vec![delay_item(m.hash, v, 0)]),
            &mut out,
        );
    }
    assert_eq!(s.n_held(), 3);
    s.our_view_change(&[]);
    assert_eq!(s.n_held(), 0);
    assert!(out.is_empty());
}

/// Our choice beyond upstream: one peer cannot fill the buffer of a block
/// we do not know yet; other peers' early messages are still held, and all
/// of them are processed when the block arrives.
#[test]
fn one_peer_cannot_fill_the_held_messages_of_a_block() {
    let m = meta(2, 4);
    let mut s = State::new(Config {
        max_pending_per_block: 6,
        max_pending_per_peer: 2,
        ..Config::default()
    });
    s.our_view_change(&[m.hash]);
    let mut out = Vec::new();
    for v in 0..10 {
        s.handle_peer_message(
            0,
            PeerId(1),
            assignments_msg(vec![delay_item(m.hash, v, 0)]),
            &mut out,
        );
    }
    assert_eq!(s.n_held(), 2, "peer 1 holds its quota only");
    for peer in 2..=5 {
        s.handle_peer_message(
            0,
            PeerId(peer),
            assignments_msg(vec![delay_item(m.hash, 10 + peer, 0)]),
            &mut out,
        );
    }
    assert_eq!(s.n_held(), 6, "the block's bound still holds");
    assert!(out.is_empty(), "dropped without cost");
}

/// A node that knows the block `m`, its session and every peer (each with
/// `m` in view), but no gossip topology yet.
fn without_topology(m: &Block) -> State {
    let mut s = State::new(Config::default());
    s.add_session(session(N, 4));
    let mut out = Vec::new();
    for v in (0..N).filter(|v| *v != LOCAL) {
        s.peer_connected(PeerId(v), Some(ValidatorIndex(v)))
            .unwrap();
    }
    s.new_blocks(0, vec![m.clone()], &mut out);
    for v in (0..N).filter(|v| *v != LOCAL) {
        s.peer_view_change(0, PeerId(v), view(&[m.hash], 0), &mut out);
    }
    s
}

#[test]
fn late_topology_routes_what_was_pending() {
    let m = meta(1, 4);
    let mut s = without_topology(&m);
    let got = receive_ok(
        &mut s,
        0,
        22,
        assignments_msg(vec![delay_item(m.hash, 22, 0)]),
    );
    assert_eq!(n_imports(&got), 1);
    assert!(sent_to(&got).is_empty(), "no topology, no routing");
    let mut out = Vec::new();
    s.new_gossip_topology(
        1,
        SessionGridTopology::identity(N as usize),
        Some(ValidatorIndex(LOCAL)),
        &mut out,
    );
    // Now routed to the column (validator 22 is in our row).
    assert_eq!(sent_to(&out), BTreeSet::from([3, 10, 17, 31, 38, 45]));
}

/// A session's topology heard again (upstream `handle_new_session_topology`
/// runs `adjust_required_routing_and_propagate` every time): one that came
/// while we were no validator of it is ignored, the next one routes what
/// was pending; after that the first grid is kept (upstream
/// `SessionGridTopologies::insert_topology`), so a different later grid
/// changes no routing, and a message sent once is not sent again.
#[test]
fn a_later_topology_for_a_session_still_propagates_and_keeps_the_first_grid() {
    let m = meta(1, 4);
    let fresh = || without_topology(&m);
    let identity = || SessionGridTopology::identity(N as usize);
    let mut s = fresh();
    let got = receive_ok(
        &mut s,
        0,
        22,
        assignments_msg(vec![delay_item(m.hash, 22, 0)]),
    );
    assert!(sent_to(&got).is_empty(), "no topology, no routing");
    let mut out = Vec::new();
    s.new_gossip_topology(1, identity(), None, &mut out);
    assert!(out.is_empty(), "not a validator of the session: ignored");
    s.new_gossip_topology(1, identity(), Some(ValidatorIndex(LOCAL)), &mut out);
    let column = BTreeSet::from([3, 10, 17, 31, 38, 45]);
    assert_eq!(sent_to(&out), column, "the later topology routes it");
    // A different grid for the same session: the first one stays.
    let reversed: Vec<ValidatorIndex> = (0..N).rev().map(ValidatorIndex).collect();
    let mut out = Vec::new();
    s.new_gossip_topology(
        1,
        SessionGridTopology::from_shuffle(reversed).unwrap(),
        Some(ValidatorIndex(LOCAL)),
        &mut out,
    );
    assert!(out.is_empty(), "nothing re-sent: {:?}", sent_to(&out));
    // The next message is routed exactly as by a node that only ever
    // heard the identity grid.
    let next = || assignments_msg(vec![delay_item(m.hash, 22, 1)]);
    let got = receive_ok(&mut s, 0, 22, next());
    let mut only_identity = fresh();
    let mut out = Vec::new();
    only_identity.new_gossip_topology(1, identity(), Some(ValidatorIndex(LOCAL)), &mut out);
    let expected = receive_ok(&mut only_identity, 0, 22, next());
    assert!(sent_to(&got).is_superset(&column));
    assert_eq!(
        sent_to(&got),
        sent_to(&expected),
        "routed by the first grid"
    );
}

/// A chain 1..=n; block 1 has 4 candidates, the rest none.
fn chain(n: u32) -> Vec<Block> {
    (1..=n)
        .map(|i| meta(i, if i == 1 { 4 } else { 0 }))
        .collect()
}

fn grow(s: &mut State, metas: &[Block]) -> Vec<Action> {
    let mut out = Vec::new();
    for m in metas {
        s.new_blocks(0, vec![m.clone()], &mut out);
        for v in (0..N).filter(|v| *v != LOCAL) {
            s.peer_view_change(0, PeerId(v), view(&[m.hash], 0), &mut out);
        }
    }
    out
}

#[test]
fn aggression_l1_sends_our_messages_to_everyone_and_resends() {
    let metas = chain(18);
    let mut s = node_on_grid(N, LOCAL, &metas[0], Config::default());
    let mut out = Vec::new();
    let AssignmentItem { cert, claimed } = delay_item(metas[0].hash, LOCAL, 1);
    s.distribute_assignment(cert, claimed, &mut out);
    let first = sent_to(&out);
    assert!(first.len() < 20);
    // Up to age 15 (blocks 2..=16): nothing happens yet.
    let out = grow(&mut s, &metas[1..16]);
    assert!(sent_to(&out).is_empty());
    // Age 16: L1 — the oldest block's own messages go to every validator
    // peer; it is also a resend, so peers we had sent it to get it again.
    let out = grow(&mut s, &metas[16..17]);
    let everyone: BTreeSet<u32> = (0..N).filter(|v| *v != LOCAL).collect();
    assert_eq!(sent_to(&out), everyone);
    // Age 17: nothing new.
    let out = grow(&mut s, &metas[17..18]);
    assert!(sent_to(&out).is_empty());
}

/// Upstream `route_to_peer`: `RequiredRouting::All => true`. At L1 our own
/// messages go to every peer that knows the block, a peer that is not a
/// validator of the session too.
#[test]
fn aggression_l1_reaches_peers_that_are_not_validators() {
    let metas = chain(18);
    let mut s = node_on_grid(N, LOCAL, &metas[0], Config::default());
    let outsider = PeerId(N + 7);
    s.peer_connected(outsider, None).unwrap();
    let mut out = Vec::new();
    s.peer_view_change(0, outsider, view(&[metas[0].hash], 0), &mut out);
    let AssignmentItem { cert, claimed } = delay_item(metas[0].hash, LOCAL, 1);
    let mut out = Vec::new();
    s.distribute_assignment(cert, claimed, &mut out);
    assert!(
        !sent_to(&out).contains(&outsider.0),
        "the grid route skips it"
    );
    grow(&mut s, &metas[1..16]);
    for m in &metas[1..16] {
        let mut o = Vec::new();
        s.peer_view_change(0, outsider, view(&[m.hash], 0), &mut o);
    }
    let out = grow(&mut s, &metas[16..17]);
    assert!(sent_to(&out).contains(&outsider.0), "{:?}", sent_to(&out));
}

#[test]
fn duplicates_are_not_punished_during_aggression() {
    let metas = chain(17);
    let mut s = node_on_grid(N, LOCAL, &metas[0], Config::default());
    let a = assignments_msg(vec![delay_item(metas[0].hash, 22, 0)]);
    let _ = receive_ok(&mut s, 0, 22, a.clone());
    let mut out = Vec::new();
    s.handle_peer_message(0, PeerId(22), a.clone(), &mut out);
    assert_eq!(reps(&out), vec![(22, COST_DUPLICATE_MESSAGE.value)]);
    grow(&mut s, &metas[1..17]);
    let mut out = Vec::new();
    s.handle_peer_message(0, PeerId(22), a, &mut out);
    assert!(reps(&out).is_empty());
}

#[test]
fn aggression_l2_sends_everybodys_messages_to_row_and_column() {
    let metas = chain(65);
    let mut s = node_on_grid(N, LOCAL, &metas[0], Config::default());
    // Validator 0's assignment reached us from 3: routing None (random only).
    let got = receive_ok(
        &mut s,
        0,
        3,
        assignments_msg(vec![delay_item(metas[0].hash, 0, 0)]),
    );
    let random = sent_to(&got);
    let out = grow(&mut s, &metas[1..64]);
    let before_l2 = sent_to(&out);
    let out = grow(&mut s, &metas[64..65]);
    let grid: BTreeSet<u32> = [21, 22, 23, 25, 26, 27, 3, 10, 17, 31, 38, 45].into();
    assert!(before_l2.is_empty(), "{before_l2:?}");
    assert!(!random.is_empty(), "random routing sent it somewhere");
    // L2 comes with a resend of the oldest block (its age is a multiple of
    // the resend period), which forgets what was sent: everyone in row and
    // column gets it, the randomly routed peers in the grid too, but not
    // 3, which sent it to us.
    let expect: BTreeSet<u32> = grid.iter().copied().filter(|p| *p != 3).collect();
    assert_eq!(sent_to(&out), expect);
}

#[test]
fn finality_prunes_blocks_and_topologies() {
    let metas = chain(3);
    let mut s = node_on_grid(N, LOCAL, &metas[0], Config::default());
    grow(&mut s, &metas[1..3]);
    assert_eq!(s.n_blocks(), 3);
    let mut out = Vec::new();
    s.block_finalized(2, &mut out);
    assert_eq!(s.n_blocks(), 1);
    assert!(s.block_knowledge(&metas[0].hash).is_none());
    assert!(s.block_knowledge(&metas[2].hash).is_some());
    s.block_finalized(3, &mut out);
    assert_eq!(s.n_blocks(), 0);
    // The session's topology went with its last block: a new block of it
    // has no routing until a topology comes again.
    let m = meta(4, 4);
    s.new_blocks(0, vec![m.clone()], &mut out);
    for v in (0..N).filter(|v| *v != LOCAL) {
        s.peer_view_change(0, PeerId(v), view(&[m.hash], 3), &mut out);
    }
    let got = receive_ok(
        &mut s,
        0,
        22,
        assignments_msg(vec![delay_item(m.hash, 22, 0)]),
    );
    assert!(sent_to(&got).is_empty());
}

#[test]
fn disconnect_forgets_the_peer() {
    let m = meta(1, 4);
    let mut s = node_on_grid(N, LOCAL, &m, Config::default());
    let _ = receive_ok(
        &mut s,
        0,
        22,
        assignments_msg(vec![delay_item(m.hash, 22, 0)]),
    );
    assert!(s.peer_knows_assignment(
        &m.hash,
        PeerId(22),
        ValidatorIndex(22),
        &CandidateBitfield::from_index(0)
    ));
    s.peer_disconnected(PeerId(22));
    assert!(!s.peer_knows_assignment(
        &m.hash,
        PeerId(22),
        ValidatorIndex(22),
        &CandidateBitfield::from_index(0)
    ));
    // While disconnected it is not a routing target.
    let got = receive_ok(
        &mut s,
        0,
        10,
        assignments_msg(vec![delay_item(m.hash, 10, 1)]),
    );
    assert!(!sent_to(&got).contains(&22));
}

#[test]
fn batching_by_upstream_limits() {
    let h = block_hash(1);
    let mut sends = Vec::new();
    for i in 0..400u32 {
        sends.push((
            PeerId(1),
            Outgoing::Assignment(std::sync::Arc::new(delay_item(h, i, 0))),
        ));
    }
    for i in 0..300u32 {
        sends.push((
            PeerId(1),
            Outgoing::Approval(std::sync::Arc::new(dummy_vote(h, i, &[0]))),
        ));
    }
    sends.push((
        PeerId(0),
        Outgoing::Approval(std::sync::Arc::new(dummy_vote(h, 0, &[0]))),
    ));
    let msgs = batch_notifications(sends);
    let shape: Vec<(u32, bool, usize)> = msgs
        .iter()
        .map(|(p, m)| {
            (
                p.0,
                matches!(m, ApprovalDistributionMessage::Assignments(_)),
                m.len(),
            )
        })
        .collect();
    assert_eq!(
        shape,
        vec![
            (0, false, 1),
            (1, true, 193),
            (1, true, 193),
            (1, true, 14),
            (1, false, 266),
            (1, false, 34)
        ]
    );
    // Order within a peer is kept.
    if let ApprovalDistributionMessage::Assignments(a) = &msgs[1].1 {
        assert_eq!(a[0].cert.validator, ValidatorIndex(0));
        assert_eq!(a[192].cert.validator, ValidatorIndex(192));
    }
    assert_eq!(slack(&msgs), vec![0; 6]);
}

/// Each notification's list capacity beyond its items.
fn slack(msgs: &[(PeerId, ApprovalDistributionMessage)]) -> Vec<usize> {
    msgs.iter()
        .map(|(_, m)| match m {
            ApprovalDistributionMessage::Assignments(v) => v.capacity() - v.len(),
            ApprovalDistributionMessage::Approvals(v) => v.capacity() - v.len(),
        })
        .collect()
}

#[test]
fn a_notification_s_list_is_made_at_its_size() {
    let h = block_hash(1);
    let a = |i| Outgoing::Assignment(std::sync::Arc::new(delay_item(h, i, 0)));
    let v = |i| Outgoing::Approval(std::sync::Arc::new(dummy_vote(h, i, &[0])));
    // Kinds interleaved for one peer, another peer's items between.
    let sends = vec![
        (PeerId(2), a(0)),
        (PeerId(2), a(1)),
        (PeerId(3), a(7)),
        (PeerId(2), v(0)),
        (PeerId(2), a(2)),
        (PeerId(3), a(8)),
        (PeerId(2), a(3)),
    ];
    let msgs = batch_notifications(sends);
    let lens: Vec<(u32, usize)> = msgs.iter().map(|(p, m)| (p.0, m.len())).collect();
    assert_eq!(lens, vec![(2, 2), (2, 1), (2, 2), (3, 2)]);
    assert_eq!(slack(&msgs), vec![0; 4]);
}

#[test]
fn approval_signatures_are_collected_by_validator() {
    let m = meta(1, 4);
    let mut s = node_on_grid(N, LOCAL, &m, Config::default());
    let _ = receive_ok(
        &mut s,
        0,
        22,
        assignments_msg(vec![delay_item(m.hash, 22, 0)]),
    );
    let _ = receive_ok(
        &mut s,
        0,
        22,
        assignments_msg(vec![delay_item(m.hash, 22, 2)]),
    );
    let _ = receive_ok(
        &mut s,
        0,
        22,
        approvals_msg(vec![dummy_vote(m.hash, 22, &[0, 2])]),
    );
    let sigs = s.approval_signatures(&[(m.hash, 2)]);
    assert_eq!(sigs.len(), 1);
    assert_eq!(sigs[&ValidatorIndex(22)].1, vec![0, 2]);
    assert!(s.approval_signatures(&[(m.hash, 1)]).is_empty());
}
