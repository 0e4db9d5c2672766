//! Batching of outgoing items into notifications (upstream `send_assignments_batched` / `send_approvals_batched`, `polkadot/node/network/approval-distribution/src/lib.rs`): per peer,
//! consecutive items of one kind are cut into chunks of at most 193
//! assignments or 266 approvals, each chunk one `ApprovalDistributionMessage`
//! that shares the items (no copy per peer; one item held in place, no list
//! allocated).

use crate::action::Outgoing;
use crate::PeerId;
use tranche_primitives::constants::{MAX_APPROVAL_BATCH_SIZE, MAX_ASSIGNMENT_BATCH_SIZE};
use tranche_primitives::{ApprovalDistributionMessage, Items};

/// Turn a list of (peer, item) sends into notifications, per peer in
/// ascending peer order, keeping each peer's item order (so an assignment
/// always travels before the approvals that depend on it).
pub fn batch_notifications(
    sends: impl IntoIterator<Item = (PeerId, Outgoing)>,
) -> Vec<(PeerId, ApprovalDistributionMessage)> {
    let mut sends: Vec<(PeerId, Outgoing)> = sends.into_iter().collect();
    let mut out = Vec::new();
    batch_notifications_into(&mut sends, &mut out);
    out
}

/// [`batch_notifications`] from a list it empties (keeping its capacity)
/// into a list it appends to: a caller that batches often reuses both.
pub fn batch_notifications_into(
    sends: &mut Vec<(PeerId, Outgoing)>,
    out: &mut Vec<(PeerId, ApprovalDistributionMessage)>,
) {
    // Stable: each peer's items keep their order.
    sends.sort_by_key(|(p, _)| *p);
    // A notification of an earlier call is never extended.
    let first = out.len();
    let mut rest = sends.drain(..);
    while let Some((peer, item)) = rest.next() {
        let last = out[first..]
            .last_mut()
            .filter(|(p, _)| *p == peer)
            .map(|(_, m)| m);
        match (last, item) {
            (Some(ApprovalDistributionMessage::Assignments(v)), Outgoing::Assignment(a))
                if v.len() < MAX_ASSIGNMENT_BATCH_SIZE =>
            {
                v.push(a)
            }
            (Some(ApprovalDistributionMessage::Approvals(v)), Outgoing::Approval(a))
                if v.len() < MAX_APPROVAL_BATCH_SIZE =>
            {
                v.push(a)
            }
            (_, Outgoing::Assignment(a)) => {
                let mut v = Items::with_capacity(run(peer, true, rest.as_slice()));
                v.push(a);
                out.push((peer, ApprovalDistributionMessage::Assignments(v)))
            }
            (_, Outgoing::Approval(a)) => {
                let mut v = Items::with_capacity(run(peer, false, rest.as_slice()));
                v.push(a);
                out.push((peer, ApprovalDistributionMessage::Approvals(v)))
            }
        }
    }
}

/// How many items the notification to `peer` that starts now will hold:
/// this one and those of the same kind that follow it for the same peer,
/// up to the kind's batch size (its list is made that size at once, not
/// grown item by item).
fn run(peer: PeerId, assignments: bool, rest: &[(PeerId, Outgoing)]) -> usize {
    let max = if assignments {
        MAX_ASSIGNMENT_BATCH_SIZE
    } else {
        MAX_APPROVAL_BATCH_SIZE
    };
    let same = |(p, o): &&(PeerId, Outgoing)| {
        *p == peer && matches!(o, Outgoing::Assignment(_)) == assignments
    };
    1 + rest.iter().take(max - 1).take_while(same).count()
}
