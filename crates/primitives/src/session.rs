//! Session parameters that approval voting reads (the relevant fields of
//! Polkadot's `SessionInfo`, the `EnableAssignmentsV2` node feature and
//! `ApprovalVotingParams`), and a parsed form with decompressed keys.

use crate::ids::{GroupIndex, SessionIndex, ValidatorIndex};
use crate::keys::ValidatorId;
use parity_scale_codec::{Decode, Encode};
use schnorrkel::PublicKey;

/// Per-session configuration of approval voting.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
pub struct SessionInfo {
    pub session_index: SessionIndex,
    pub n_cores: u32,
    pub needed_approvals: u32,
    pub relay_vrf_modulo_samples: u32,
    pub n_delay_tranches: u32,
    pub zeroth_delay_tranche_width: u32,
    pub no_show_slots: u32,
    /// Backing groups, indexed by `GroupIndex`.
    pub validator_groups: Vec<Vec<ValidatorIndex>>,
    /// VRF keys, indexed by `ValidatorIndex`.
    pub assignment_keys: Vec<ValidatorId>,
    /// Approval-signing keys, indexed by `ValidatorIndex`.
    pub validators: Vec<ValidatorId>,
    /// Node feature bit 0: tranche-0 assignments are compact v2 certificates.
    /// When false the session runs the legacy v1 modulo criterion, and only
    /// then are v1 modulo certificates (kind index 2) accepted.
    pub assignments_v2: bool,
    /// `ApprovalVotingParams::max_approval_coalesce_count` (default 1).
    pub max_approval_coalesce_count: u32,
}

impl SessionInfo {
    pub fn n_validators(&self) -> usize {
        self.validators.len()
    }

    /// Whether `validator` is a member of backing group `group`; a group that
    /// does not exist contains nobody.
    pub fn is_in_group(&self, group: GroupIndex, validator: ValidatorIndex) -> bool {
        self.validator_groups
            .get(group.0 as usize)
            .is_some_and(|g| g.contains(&validator))
    }
}

/// A session with its keys decompressed once, for checking.
#[derive(Debug, Clone)]
pub struct Session {
    pub info: SessionInfo,
    assignment_keys: Vec<Option<PublicKey>>,
    validator_keys: Vec<Option<PublicKey>>,
}

impl Session {
    pub fn new(info: SessionInfo) -> Self {
        let assignment_keys = info
            .assignment_keys
            .iter()
            .map(ValidatorId::parse)
            .collect();
        let validator_keys = info.validators.iter().map(ValidatorId::parse).collect();
        Session {
            info,
            assignment_keys,
            validator_keys,
        }
    }

    /// The assignment key of a validator: `None` if the index is out of
    /// range, `Some(None)` if the stored bytes are not a valid key.
    pub fn assignment_key(&self, v: ValidatorIndex) -> Option<Option<&PublicKey>> {
        self.assignment_keys.get(v.0 as usize).map(Option::as_ref)
    }

    /// The approval-signing key of a validator, as for `assignment_key`.
    pub fn validator_key(&self, v: ValidatorIndex) -> Option<Option<&PublicKey>> {
        self.validator_keys.get(v.0 as usize).map(Option::as_ref)
    }
}
