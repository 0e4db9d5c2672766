//! What a node restarted from its store tells the rest of the node before
//! anything else, as upstream's approval-voting does when it becomes active
//! (`polkadot/node/core/approval-voting/src/lib.rs`: on startup it sends
//! approval-distribution every stored unfinalized block and re-distributes
//! our own assignments and approvals, since distribution keeps nothing
//! across restarts): every stored block, oldest first, then our triggered
//! assignments and our signed approvals. Unfinished checks and signing
//! deadlines are re-armed by `restore` itself.

use super::interface::Action;
use super::timers::claimed_candidates;
use super::ApprovalVoting;
use std::collections::BTreeSet;
use tranche_primitives::{
    CandidateBitfield, IndirectAssignmentCert, IndirectSignedApprovalVote, ValidatorSignature,
};

impl ApprovalVoting {
    /// The announcements of activation after a restore (empty for a fresh
    /// machine): `NewBlock` for every stored block, by number, then
    /// `DistributeAssignment` and `DistributeApproval` for our own.
    pub fn activation(&self) -> Vec<Action> {
        let mut blocks: Vec<_> = self.blocks.values().collect();
        blocks.sort_by_key(|b| (b.record.number, b.record.hash));
        let mut out: Vec<Action> = blocks
            .iter()
            .map(|b| Action::NewBlock(b.record.clone()))
            .collect();
        let mut sent_certs = BTreeSet::new();
        let mut sent_votes = BTreeSet::new();
        for b in &blocks {
            for (i, c) in b.record.candidates.iter().enumerate() {
                let Some(ae) = self
                    .candidates
                    .get(&c.hash)
                    .and_then(|e| e.entry(&b.record.hash))
                else {
                    continue;
                };
                if let Some(our) = ae.our.as_ref().filter(|o| o.triggered) {
                    if let Some(claimed) = claimed_candidates(&b.record, i as u32, &our.cert) {
                        let key: Vec<u32> = claimed.iter_ones().collect();
                        if sent_certs.insert((b.record.hash, key)) {
                            out.push(Action::DistributeAssignment {
                                cert: IndirectAssignmentCert {
                                    block_hash: b.record.hash,
                                    validator: our.validator,
                                    cert: our.cert.clone(),
                                },
                                claimed,
                            });
                        }
                    }
                }
                if let (Some(vote), Some(keys)) = (&ae.our_approval, &self.keys) {
                    if sent_votes.insert((b.record.hash, vote.candidate_indices.clone())) {
                        if let Ok(candidate_indices) =
                            CandidateBitfield::from_indices(&vote.candidate_indices)
                        {
                            out.push(Action::DistributeApproval(IndirectSignedApprovalVote {
                                block_hash: b.record.hash,
                                candidate_indices,
                                validator: keys.index,
                                signature: ValidatorSignature(vote.signature),
                            }));
                        }
                    }
                }
            }
        }
        out
    }
}
