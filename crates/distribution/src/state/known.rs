//! A peer's copy of a message we may already hold: upstream's peer-knowledge
//! checks, before any crypto, written once for assignments
//! (`import_and_circulate_assignment`) and approvals
//! (`import_and_circulate_approval`, both in
//! `polkadot/node/network/approval-distribution/src/lib.rs`).

use super::knowledge::{Arena, Known, List};
use super::rep;
use super::topologies::TopologyEntry;
use crate::action::{Action, PeerId};
use crate::reputation::*;
use tranche_primitives::bitset::BitSet;

/// Judges a message from `peer` against what we know: `known_by`, the
/// peers that have its block in view, and `slot`, the message's per-peer
/// knowledge (sent to the peer, received from it, in its block's arena;
/// and whether the grid says it was sent to the peer) when we hold it. A
/// peer
/// without the block in view is charged, and processing goes on (an
/// upstream quirk kept). A message the peer already knows is a duplicate,
/// charged unless a resend was to be expected: under aggression
/// (`resend_topology`: then the block's session topology) from a validator
/// peer. A
/// message we hold that is new to the peer is worth a benefit and noted as
/// received. True when the message is done with; false when it is new to
/// us and goes on to be checked.
pub(super) fn judge_copy(
    out: &mut Vec<Action>,
    peer: PeerId,
    known_by: &BitSet,
    slot: Option<(&mut Arena, &mut Known, bool)>,
    resend_topology: Option<&TopologyEntry>,
) -> bool {
    let p = peer.0 as usize;
    let in_view = known_by.contains(p);
    if !in_view {
        rep(out, peer, COST_UNEXPECTED_MESSAGE);
    }
    let Some((arena, known, grid_sent)) = slot else {
        return false;
    };
    if in_view && (grid_sent || arena.knows(known, p)) {
        let expected = resend_topology.is_some_and(|t| t.is_validator(p));
        if !arena.insert(known, List::Received, p) && !expected {
            rep(out, peer, COST_DUPLICATE_MESSAGE);
        }
        return true;
    }
    if in_view {
        arena.insert(known, List::Received, p);
    }
    rep(out, peer, BENEFIT_VALID_MESSAGE);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reputation::Rep;

    fn reps(out: &[Action]) -> Vec<Rep> {
        out.iter()
            .map(|a| match a {
                Action::Reputation { rep, .. } => *rep,
                other => panic!("not a reputation change: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn each_copy_is_judged_once_by_what_the_peer_and_we_know() {
        let peer = PeerId(3);
        let in_view: BitSet = [3].into_iter().collect();
        let mut arena = Arena::default();
        let mut held = Known::default();
        let mut out = Vec::new();
        // New to us, block in view: nothing said, on to the check.
        assert!(!judge_copy(&mut out, peer, &in_view, None, None));
        assert!(out.is_empty());
        // New to us, block not in view: charged, and still checked.
        assert!(!judge_copy(&mut out, peer, &BitSet::new(), None, None));
        assert_eq!(reps(&out), [COST_UNEXPECTED_MESSAGE]);
        // Held, new to the peer: a benefit, and noted as received.
        out.clear();
        let slot = Some((&mut arena, &mut held, false));
        assert!(judge_copy(&mut out, peer, &in_view, slot, None));
        assert_eq!(reps(&out), [BENEFIT_VALID_MESSAGE]);
        assert!(arena.contains(&held, List::Received, 3));
        // The same again: a duplicate.
        out.clear();
        let slot = Some((&mut arena, &mut held, false));
        assert!(judge_copy(&mut out, peer, &in_view, slot, None));
        assert_eq!(reps(&out), [COST_DUPLICATE_MESSAGE]);
        // One we sent it: the first copy back is no duplicate, the next is.
        let mut sent_to = Known::default();
        arena.insert(&mut sent_to, List::Sent, 3);
        out.clear();
        let slot = Some((&mut arena, &mut sent_to, false));
        assert!(judge_copy(&mut out, peer, &in_view, slot, None));
        assert!(out.is_empty() && arena.contains(&sent_to, List::Received, 3));
        let slot = Some((&mut arena, &mut sent_to, false));
        assert!(judge_copy(&mut out, peer, &in_view, slot, None));
        assert_eq!(reps(&out), [COST_DUPLICATE_MESSAGE]);
        // One the grid says we sent it: as one listed as sent.
        let mut on_grid = Known::default();
        out.clear();
        let slot = Some((&mut arena, &mut on_grid, true));
        assert!(judge_copy(&mut out, peer, &in_view, slot, None));
        assert!(out.is_empty() && arena.contains(&on_grid, List::Received, 3));
        let slot = Some((&mut arena, &mut on_grid, true));
        assert!(judge_copy(&mut out, peer, &in_view, slot, None));
        assert_eq!(reps(&out), [COST_DUPLICATE_MESSAGE]);
        // Held, block not in view: charged, then the benefit, not noted.
        let mut fresh = Known::default();
        out.clear();
        let slot = Some((&mut arena, &mut fresh, false));
        assert!(judge_copy(&mut out, peer, &BitSet::new(), slot, None));
        assert_eq!(reps(&out), [COST_UNEXPECTED_MESSAGE, BENEFIT_VALID_MESSAGE]);
        assert!(!arena.knows(&fresh, 3));
    }
}
