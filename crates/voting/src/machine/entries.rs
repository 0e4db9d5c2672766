//! The in-memory state behind the machine: one `BlockEntry` per relay
//! block, one `CandidateEntry` per candidate with an `ApprovalEntry` per
//! block that includes it (upstream
//! `polkadot/node/core/approval-voting/src/persisted_entries.rs`), our own
//! assignments and checks in flight, and the approval status of a pair.

use crate::approval_rules::{tranches_to_approve, Clock, TranchesToApprove};
use crate::bits::ValidatorSet;
use crate::store::{ApprovalEntryRecord, BlockStateRecord, OurApprovalRecord, OurAssignmentRecord};
use crate::tranches::Tranches;
use std::collections::BTreeMap;
use std::sync::Arc;
use tranche_primitives::{
    AssignmentCert, Block, Candidate, CandidateHash, CandidateIndex, DelayTranche, Hash, Session,
    Tick, ValidatorIndex,
};

#[derive(Clone, Debug)]
pub(super) struct OurAssignment {
    pub(super) cert: AssignmentCert,
    pub(super) tranche: DelayTranche,
    pub(super) validator: ValidatorIndex,
    pub(super) triggered: bool,
    pub(super) check_due: Option<Tick>,
}

#[derive(Clone, Debug)]
pub(super) struct ApprovalEntry {
    pub(super) block: Hash,
    pub(super) index: CandidateIndex,
    pub(super) tranches: Tranches,
    pub(super) assigned: ValidatorSet,
    pub(super) our: Option<OurAssignment>,
    pub(super) our_approval: Option<OurApprovalRecord>,
    pub(super) approved: bool,
    pub(super) next_seq: u32,
    pub(super) reported_no_shows: ValidatorSet,
}

impl ApprovalEntry {
    pub(super) fn new(
        block: Hash,
        index: CandidateIndex,
        n_validators: usize,
        our: Option<OurAssignment>,
    ) -> Self {
        ApprovalEntry {
            block,
            index,
            tranches: Tranches::new(),
            assigned: ValidatorSet::new(n_validators),
            our,
            our_approval: None,
            approved: false,
            next_seq: 0,
            reported_no_shows: ValidatorSet::default(),
        }
    }

    /// Add an assignment (upstream `ApprovalEntry::import_assignment` in
    /// `polkadot/node/core/approval-voting/src/persisted_entries.rs`): the
    /// tranche's entry is created even for a validator already assigned, but
    /// the assignment itself is recorded once per validator, in the first
    /// tranche it claimed.
    pub(super) fn push_assignment(&mut self, tranche: DelayTranche, v: ValidatorIndex, tick: Tick) {
        let duplicate = self.assigned.contains_validator(v);
        self.tranches
            .push(tranche, (!duplicate).then_some((v, tick)));
        self.assigned.insert(v.0 as usize);
    }

    pub(super) fn record(&self) -> ApprovalEntryRecord {
        ApprovalEntryRecord {
            our_assignment: self.our.as_ref().map(|o| OurAssignmentRecord {
                cert: o.cert.clone(),
                tranche: o.tranche,
                validator: o.validator,
                triggered: o.triggered,
                check_due: o.check_due,
            }),
            our_approval: self.our_approval.clone(),
            approved: self.approved,
        }
    }

    pub(super) fn n_assignments(&self) -> usize {
        self.tranches.n_assignments()
    }
}

#[derive(Clone, Debug)]
pub(super) struct CandidateEntry {
    pub(super) approvals: ValidatorSet,
    /// One per block that includes the candidate.
    pub(super) entries: Vec<ApprovalEntry>,
}

impl CandidateEntry {
    pub(super) fn entry(&self, block: &Hash) -> Option<&ApprovalEntry> {
        self.entries.iter().find(|e| e.block == *block)
    }
    pub(super) fn entry_mut(&mut self, block: &Hash) -> Option<&mut ApprovalEntry> {
        self.entries.iter_mut().find(|e| e.block == *block)
    }
}

#[derive(Clone, Debug)]
pub(super) struct BlockEntry {
    /// The immutable part, as imported and stored.
    pub(super) record: Block,
    pub(super) session: Arc<Session>,
    pub(super) block_tick: Tick,
    pub(super) approved: ValidatorSet,
    pub(super) distributed: ValidatorSet,
    pub(super) pending_signature: BTreeMap<CandidateIndex, (CandidateHash, Tick)>,
    pub(super) children: Vec<Hash>,
}

impl BlockEntry {
    pub(super) fn state_record(&self) -> BlockStateRecord {
        BlockStateRecord {
            approved: self.approved.to_bytes(),
            distributed: self.distributed.to_bytes(),
            pending_signature: self
                .pending_signature
                .iter()
                .map(|(i, (h, t))| (*i, *h, *t))
                .collect(),
        }
    }

    pub(super) fn no_show_duration(&self, tps: Tick) -> Tick {
        (self.session.info.no_show_slots as Tick).saturating_mul(tps)
    }

    pub(super) fn clock(&self, now: Tick, tps: Tick) -> Clock {
        Clock {
            tranche_now: now.saturating_sub(self.block_tick) as DelayTranche,
            block_tick: self.block_tick,
            no_show_duration: self.no_show_duration(tps),
        }
    }

    pub(super) fn candidate(&self, i: CandidateIndex) -> Option<&Candidate> {
        self.record.candidates.get(i as usize)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Transition {
    Remote(ValidatorIndex),
    Local(ValidatorIndex),
    Wakeup,
}

impl Transition {
    pub(super) fn validator(self) -> Option<ValidatorIndex> {
        match self {
            Transition::Remote(v) | Transition::Local(v) => Some(v),
            Transition::Wakeup => None,
        }
    }
}

/// A check of one candidate in progress.
#[derive(Clone, Debug)]
pub(super) struct RunningCheck {
    pub(super) validator: ValidatorIndex,
    pub(super) blocks: Vec<Hash>,
}

pub(super) fn status_of(
    block: &BlockEntry,
    ae: &ApprovalEntry,
    approvals: &ValidatorSet,
    now: Tick,
    tps: Tick,
) -> TranchesToApprove {
    tranches_to_approve(
        &ae.tranches,
        approvals,
        ae.assigned.len(),
        block.clock(now, tps),
        block.session.info.needed_approvals as usize,
    )
}
