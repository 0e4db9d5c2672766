//! Batching of outgoing items into notifications (upstream `send_assignments_batched` / `send_approvals_batched`, `polkadot/node/network/approval-distribution/src/lib.rs`): per peer,
//! consecutive items of one kind are cut into chunks of at most 193
//! assignments or 266 approvals, each chunk one `ApprovalDistributionMessage`
//! that shares the items (no copy per peer).

use crate::action::Outgoing;
use crate::PeerId;
use std::collections::BTreeMap;
use tranche_primitives::constants::{MAX_APPROVAL_BATCH_SIZE, MAX_ASSIGNMENT_BATCH_SIZE};
use tranche_primitives::ApprovalDistributionMessage;

/// Turn a list of (peer, item) sends into notifications, per peer in
/// ascending peer order, keeping each peer's item order (so an assignment
/// always travels before the approvals that depend on it).
pub fn batch_notifications(
    sends: impl IntoIterator<Item = (PeerId, Outgoing)>,
) -> Vec<(PeerId, ApprovalDistributionMessage)> {
    let mut per_peer: BTreeMap<PeerId, Vec<ApprovalDistributionMessage>> = BTreeMap::new();
    for (peer, item) in sends {
        let msgs = per_peer.entry(peer).or_default();
        match (msgs.last_mut(), item) {
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
                msgs.push(ApprovalDistributionMessage::Assignments(vec![a]))
            }
            (_, Outgoing::Approval(a)) => {
                msgs.push(ApprovalDistributionMessage::Approvals(vec![a]))
            }
        }
    }
    per_peer
        .into_iter()
        .flat_map(|(p, msgs)| msgs.into_iter().map(move |m| (p, m)))
        .collect()
}
