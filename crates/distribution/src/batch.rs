//! Batching of outgoing items into notifications (upstream `send_assignments_batched` / `send_approvals_batched`, `polkadot/node/network/approval-distribution/src/lib.rs`): per peer,
//! consecutive items of one kind are cut into chunks of at most 193
//! assignments or 266 approvals, each chunk one `ApprovalDistributionMessage`
//! that shares the items (no copy per peer).

use crate::action::Outgoing;
use crate::PeerId;
use tranche_primitives::constants::{MAX_APPROVAL_BATCH_SIZE, MAX_ASSIGNMENT_BATCH_SIZE};
use tranche_primitives::ApprovalDistributionMessage;

/// Turn a list of (peer, item) sends into notifications, per peer in
/// ascending peer order, keeping each peer's item order (so an assignment
/// always travels before the approvals that depend on it).
pub fn batch_notifications(
    sends: impl IntoIterator<Item = (PeerId, Outgoing)>,
) -> Vec<(PeerId, ApprovalDistributionMessage)> {
    let mut sends: Vec<(PeerId, Outgoing)> = sends.into_iter().collect();
    // Stable: each peer's items keep their order.
    sends.sort_by_key(|(p, _)| *p);
    let mut out: Vec<(PeerId, ApprovalDistributionMessage)> = Vec::new();
    for (peer, item) in sends {
        let last = out.last_mut().filter(|(p, _)| *p == peer).map(|(_, m)| m);
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
                out.push((peer, ApprovalDistributionMessage::Assignments(vec![a])))
            }
            (_, Outgoing::Approval(a)) => {
                out.push((peer, ApprovalDistributionMessage::Approvals(vec![a])))
            }
        }
    }
    out
}
