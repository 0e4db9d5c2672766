//! Routing against a hand-computed grid: 49 validators on the identity
//! grid (7 × 7); we are validator 24 at row 3, column 3, so our row is
//! {21,22,23,25,26,27} and our column {3,10,17,31,38,45}.

use crate::common;
use common::*;
use std::collections::BTreeSet;
use tranche_distribution::*;
use tranche_primitives::*;

const N: u32 = 49;
const LOCAL: u32 = 24;

fn row() -> BTreeSet<u32> {
    [21, 22, 23, 25, 26, 27].into()
}
fn column() -> BTreeSet<u32> {
    [3, 10, 17, 31, 38, 45].into()
}

fn setup() -> (State, Block) {
    let m = meta(1, 4);
    (node_on_grid(N, LOCAL, &m, Config::default()), m)
}

/// The extras beyond `grid` are at most 4 random validator peers.
fn assert_grid_plus_random(sent: &BTreeSet<u32>, grid: &BTreeSet<u32>, source: Option<u32>) {
    assert!(sent.is_superset(grid), "{sent:?} misses grid {grid:?}");
    let extra: Vec<_> = sent.difference(grid).collect();
    assert!(extra.len() <= 4, "too many random peers: {extra:?}");
    if let Some(s) = source {
        assert!(!sent.contains(&s));
    }
    assert!(!sent.contains(&LOCAL));
}

#[test]
fn grid_of_the_identity_topology_is_as_computed_by_hand() {
    let n = SessionGridTopology::identity(49)
        .grid_neighbours(ValidatorIndex(24))
        .unwrap();
    let r: BTreeSet<u32> = n.row.iter().map(|v| v.0).collect();
    let c: BTreeSet<u32> = n.column.iter().map(|v| v.0).collect();
    assert_eq!(r, row());
    assert_eq!(c, column());
}

#[test]
fn own_assignment_goes_to_row_and_column() {
    let (mut s, m) = setup();
    let mut out = Vec::new();
    let AssignmentItem { cert, claimed } = delay_item(m.hash, LOCAL, 1);
    s.distribute_assignment(cert, claimed, &mut out);
    let sent = sent_to(&out);
    let grid: BTreeSet<u32> = row().union(&column()).copied().collect();
    assert_grid_plus_random(&sent, &grid, None);
    assert_eq!(n_imports(&out), 0, "our own messages are not re-imported");
    assert!(reps(&out).is_empty());
}

#[test]
fn row_message_is_forwarded_to_column_and_vice_versa() {
    let (mut s, m) = setup();
    let out = receive_ok(
        &mut s,
        0,
        22,
        assignments_msg(vec![delay_item(m.hash, 22, 0)]),
    );
    assert_grid_plus_random(&sent_to(&out), &column(), Some(22));
    assert_eq!(n_imports(&out), 1);
    assert_eq!(
        reps(&out),
        vec![(22, reputation::BENEFIT_VALID_MESSAGE_FIRST.value)]
    );

    let out = receive_ok(
        &mut s,
        0,
        10,
        assignments_msg(vec![delay_item(m.hash, 10, 2)]),
    );
    assert_grid_plus_random(&sent_to(&out), &row(), Some(10));
}

#[test]
fn message_from_outside_row_and_column_only_goes_to_random_peers() {
    let (mut s, m) = setup();
    // Validator 0 is neither in our row nor our column; it reached us
    // through peer 3 (our column neighbour).
    let out = receive_ok(
        &mut s,
        0,
        3,
        assignments_msg(vec![delay_item(m.hash, 0, 0)]),
    );
    let sent = sent_to(&out);
    assert!(sent.len() <= 4);
    assert!(!sent.contains(&3));
    assert_eq!(n_imports(&out), 1);
}

#[test]
fn approval_follows_the_paths_of_its_assignment() {
    let (mut s, m) = setup();
    let a = receive_ok(
        &mut s,
        0,
        22,
        assignments_msg(vec![delay_item(m.hash, 22, 0)]),
    );
    let assignment_peers = sent_to(&a);
    let v = receive_ok(
        &mut s,
        0,
        22,
        approvals_msg(vec![dummy_vote(m.hash, 22, &[0])]),
    );
    assert_eq!(sent_to(&v), assignment_peers);
    assert_eq!(n_imports(&v), 1);
    // Every send of the vote comes after... it is an approval item.
    assert!(v.iter().all(|x| !matches!(
        x,
        Action::Send {
            item: Outgoing::Assignment(_),
            ..
        }
    )));
}

#[test]
fn coalesced_vote_combines_the_routing_of_both_assignments() {
    let (mut s, m) = setup();
    // Validator 22 (row) has two assignments, received from 22 and routed
    // to the column; a vote covering both goes where both went.
    let a1 = receive_ok(
        &mut s,
        0,
        22,
        assignments_msg(vec![delay_item(m.hash, 22, 0)]),
    );
    let a2 = receive_ok(
        &mut s,
        0,
        22,
        assignments_msg(vec![delay_item(m.hash, 22, 3)]),
    );
    let union: BTreeSet<u32> = sent_to(&a1).union(&sent_to(&a2)).copied().collect();
    let v = receive_ok(
        &mut s,
        0,
        22,
        approvals_msg(vec![dummy_vote(m.hash, 22, &[0, 3])]),
    );
    assert_eq!(sent_to(&v), union);
}

#[test]
fn random_routing_is_deterministic_per_seed() {
    let run = |seed| {
        let m = meta(1, 4);
        let mut s = node_on_grid(
            N,
            LOCAL,
            &m,
            Config {
                routing_seed: seed,
                ..Config::default()
            },
        );
        let mut all = Vec::new();
        for v in [0u32, 1, 2, 5, 6] {
            let out = receive_ok(
                &mut s,
                0,
                3,
                assignments_msg(vec![delay_item(m.hash, v, 0)]),
            );
            all.push(sent_to(&out));
        }
        all
    };
    assert_eq!(run(1), run(1));
    assert_ne!(run(1), run(2));
}

#[test]
fn non_validator_peers_get_no_random_messages() {
    let m = meta(1, 4);
    let mut s = node_on_grid(N, LOCAL, &m, Config::default());
    // Peer 100 is connected but not a validator.
    s.peer_connected(PeerId(100), None).unwrap();
    let mut out = Vec::new();
    s.peer_view_change(0, PeerId(100), view(&[m.hash], 0), &mut out);
    for v in 0..N {
        if v == LOCAL {
            continue;
        }
        let out = receive_ok(
            &mut s,
            0,
            v,
            assignments_msg(vec![delay_item(m.hash, v, 1)]),
        );
        assert!(!sent_to(&out).contains(&100));
    }
}

#[test]
fn peer_gets_what_it_should_have_when_the_block_enters_its_view() {
    let m = meta(1, 4);
    let mut s = node_on_grid(N, LOCAL, &m, Config::default());
    let mut out = Vec::new();
    // Peer 10 (column) forgets the block by disconnecting, then comes back.
    s.peer_disconnected(PeerId(10));
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
        approvals_msg(vec![dummy_vote(m.hash, 22, &[0])]),
    );
    s.peer_connected(PeerId(10), Some(ValidatorIndex(10)))
        .unwrap();
    s.peer_view_change(0, PeerId(10), view(&[m.hash], 0), &mut out);
    let items: Vec<&Outgoing> = out
        .iter()
        .filter_map(|a| match a {
            Action::Send { peer, item } if peer.0 == 10 => Some(item),
            _ => None,
        })
        .collect();
    assert_eq!(items.len(), 2);
    assert!(matches!(items[0], Outgoing::Assignment(_)));
    assert!(matches!(items[1], Outgoing::Approval(_)));
    // A second view update with the same head sends nothing again.
    let mut again = Vec::new();
    s.peer_view_change(0, PeerId(10), view(&[m.hash], 0), &mut again);
    assert!(sent_to(&again).is_empty());
}

#[test]
fn partitioned_workers_send_what_one_state_sends() {
    // The parallel architecture splits messages by validator over workers;
    // the union of their sends must equal one state's.
    let m = meta(1, 4);
    let mut one = node_on_grid(N, LOCAL, &m, Config::default());
    let mut workers = [
        node_on_grid(N, LOCAL, &m, Config::default()),
        node_on_grid(N, LOCAL, &m, Config::default()),
    ];
    let mut a = BTreeSet::new();
    let mut b = BTreeSet::new();
    for v in (0..N).filter(|v| *v != LOCAL) {
        let peer = (v * 7 + 3) % N;
        let peer = if peer == LOCAL { 0 } else { peer };
        for msg in [
            assignments_msg(vec![delay_item(m.hash, v, v % 4)]),
            approvals_msg(vec![dummy_vote(m.hash, v, &[v % 4])]),
        ] {
            for x in sends(&receive_ok(&mut one, 0, peer, msg.clone())) {
                a.insert(x);
            }
            let w = &mut workers[(v % 2) as usize];
            for x in sends(&receive_ok(w, 0, peer, msg)) {
                b.insert(x);
            }
        }
    }
    assert_eq!(a, b);
}

fn sends(out: &[Action]) -> Vec<(u32, Vec<u8>)> {
    use parity_scale_codec::Encode;
    out.iter()
        .filter_map(|a| match a {
            Action::Send { peer, item } => Some((
                peer.0,
                match item {
                    Outgoing::Assignment(x) => x.encode(),
                    Outgoing::Approval(x) => x.encode(),
                },
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn learning_a_peers_identity_sends_what_the_grid_meant_for_it() {
    let m = meta(1, 4);
    // Peer 10 (our column) connects without a known identity.
    let mut s = node_on_grid_with(N, LOCAL, &m, Config::default(), |v| {
        (v != 10).then_some(ValidatorIndex(v))
    });
    let got = receive_ok(
        &mut s,
        0,
        22,
        assignments_msg(vec![delay_item(m.hash, 22, 0)]),
    );
    assert!(!sent_to(&got).contains(&10));
    let mut out = Vec::new();
    s.peer_authority_updated(PeerId(10), ValidatorIndex(10), &mut out);
    assert_eq!(sent_to(&out), BTreeSet::from([10]));
}

/// A disconnect keeps the peer's validator identity (upstream's topology
/// keeps its peers' authority ids): reconnecting without one, it is routed
/// to as before.
#[test]
fn a_disconnect_keeps_the_peers_identity() {
    let m = meta(1, 4);
    let mut s = node_on_grid(N, LOCAL, &m, Config::default());
    s.peer_disconnected(PeerId(10));
    s.peer_connected(PeerId(10), None).unwrap();
    let mut out = Vec::new();
    s.peer_view_change(0, PeerId(10), view(&[m.hash], 0), &mut out);
    let got = receive_ok(
        &mut s,
        0,
        22,
        assignments_msg(vec![delay_item(m.hash, 22, 0)]),
    );
    assert!(sent_to(&got).contains(&10), "{:?}", sent_to(&got));
}

/// A node whose index lies outside the grid keeps the session's topology
/// with no neighbours (upstream `GridNeighbors::empty`): no grid routes,
/// but random routing still reaches peers.
#[test]
fn a_node_outside_the_grid_keeps_the_topology_for_random_routing() {
    let m = meta(1, 4);
    let mut s = node_on_grid_with(N, N + 5, &m, Config::default(), |v| Some(ValidatorIndex(v)));
    let got = receive_ok(
        &mut s,
        0,
        22,
        assignments_msg(vec![delay_item(m.hash, 22, 0)]),
    );
    let sent = sent_to(&got);
    assert!(
        !sent.is_empty() && sent.len() <= 4,
        "random routing only: {sent:?}"
    );
}
