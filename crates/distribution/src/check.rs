//! The crypto-check boundary. Handling a peer's message is two-phase: the
//! state machine first does everything that needs no crypto and, for a
//! message new to it, emits a check request carrying all the check needs;
//! the runtime runs the check on the thread of its choice and reports the
//! verdict back with the request's token. The checks themselves are the
//! primitives' functions.

use std::sync::Arc;
use tranche_primitives::criteria::{check_assignment_cert, InvalidAssignmentReason};
use tranche_primitives::vote::{
    approval_payload, verify_approval, verify_batch, BatchItem, VoteError,
};
use tranche_primitives::AssignmentItem;
use tranche_primitives::{
    CandidateHash, CoreBitfield, DelayTranche, GroupIndex, IndirectSignedApprovalVote,
    RelayVrfStory, Session, SessionIndex, ValidatorIndex,
};

/// Names one outstanding check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CheckToken(pub u64);

/// The result of an assignment check: the tranche it proves.
pub type AssignmentVerdict = Result<DelayTranche, InvalidAssignmentReason>;
/// The result of an approval check.
pub type ApprovalVerdict = Result<(), InvalidVote>;

/// Why an approval vote is refused by its check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum InvalidVote {
    #[error("validator index out of bounds")]
    ValidatorIndexOutOfBounds,
    #[error("validator key does not parse")]
    InvalidKey,
    #[error(transparent)]
    Signature(#[from] VoteError),
}

/// Everything needed to check one assignment certificate.
#[derive(Debug, Clone)]
pub struct AssignmentCheck {
    pub token: CheckToken,
    pub session: Arc<Session>,
    pub vrf_story: RelayVrfStory,
    pub validator: ValidatorIndex,
    /// The cores of the claimed candidates.
    pub claimed_cores: CoreBitfield,
    /// Backing groups of the claimed candidates, in candidate order.
    pub backing_groups: Vec<GroupIndex>,
    /// The message itself (certificate and claimed candidates).
    pub assignment: Arc<AssignmentItem>,
}

impl AssignmentCheck {
    /// Run the check (≈100 µs of VRF verification).
    pub fn check(&self) -> AssignmentVerdict {
        check_assignment_cert(
            &self.claimed_cores,
            self.validator,
            &self.session,
            &self.vrf_story,
            &self.assignment.cert.cert,
            &self.backing_groups,
        )
    }
}

/// Everything needed to check one approval signature.
#[derive(Debug, Clone)]
pub struct ApprovalCheck {
    pub token: CheckToken,
    pub session: Arc<Session>,
    pub session_index: SessionIndex,
    pub validator: ValidatorIndex,
    /// Hashes of the approved candidates, in candidate-index order.
    pub candidate_hashes: Vec<CandidateHash>,
    pub vote: Arc<IndirectSignedApprovalVote>,
}

impl ApprovalCheck {
    /// Run the check (≈40 µs of sr25519 verification).
    pub fn check(&self) -> ApprovalVerdict {
        let key = self
            .session
            .validator_key(self.validator)
            .ok_or(InvalidVote::ValidatorIndexOutOfBounds)?
            .ok_or(InvalidVote::InvalidKey)?;
        verify_approval(
            key,
            &self.candidate_hashes,
            self.session_index,
            &self.vote.signature,
        )?;
        Ok(())
    }
}

impl ApprovalCheck {
    /// Run many checks as one batch of signature verifications
    /// ([`verify_batch`]: a failing batch is bisected). Each verdict is
    /// exactly what [`ApprovalCheck::check`] says of that check alone.
    pub fn check_batch(checks: &[ApprovalCheck]) -> Vec<ApprovalVerdict> {
        let mut verdicts: Vec<ApprovalVerdict> = vec![Ok(()); checks.len()];
        let mut items = Vec::with_capacity(checks.len());
        let mut of_item = Vec::with_capacity(checks.len());
        for (i, c) in checks.iter().enumerate() {
            let key = c
                .session
                .validator_key(c.validator)
                .ok_or(InvalidVote::ValidatorIndexOutOfBounds)
                .and_then(|k| k.ok_or(InvalidVote::InvalidKey));
            match key {
                Ok(public) => {
                    items.push(BatchItem {
                        public,
                        payload: approval_payload(&c.candidate_hashes, c.session_index),
                        signature: c.vote.signature,
                    });
                    of_item.push(i);
                }
                Err(e) => verdicts[i] = Err(e),
            }
        }
        for (v, i) in verify_batch(&items).into_iter().zip(of_item) {
            verdicts[i] = v.map_err(InvalidVote::from);
        }
        verdicts
    }
}
