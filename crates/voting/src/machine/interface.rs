//! What crosses the state machine's boundary: its settings (`Config`,
//! `LocalKeys`), its inputs (`NewBlock`, `CheckedAssignment`,
//! `CheckedApproval`), its outputs (`Output`, `Action`), the
//! import results and errors of votes (upstream `AssignmentCheckResult`,
//! `ApprovalCheckResult` and their errors in
//! `polkadot/node/core/approval-voting/src/lib.rs`), and the read-only
//! `CandidateStatus`.

use crate::approval_rules::RequiredTranches;
use crate::store::WriteBatch;
use std::sync::Arc;
use tranche_primitives::{
    AssignmentCert, Block, BlockNumber, CandidateBitfield, CandidateHash, CandidateIndex,
    DelayTranche, Hash, IndirectAssignmentCert, IndirectSignedApprovalVote, Session, SessionIndex,
    Tick, ValidatorIndex, ValidatorPair, ValidatorSignature,
};

/// Node-side settings of the state machine.
#[derive(Clone, Debug)]
pub struct Config {
    /// Relay-chain slot length (a multiple of 500 ms).
    pub slot_duration_millis: u64,
    /// How long our own check of a candidate takes, in ticks (availability
    /// recovery and validation are modelled as this delay).
    pub check_delay_ticks: Tick,
    /// Trigger our assignment of every tranche when its tranche comes,
    /// needed or not, approved or not (the load of upstream's throughput
    /// test, `polkadot/node/subsystem-bench/examples/approvals_throughput.yaml`,
    /// where every tranche is sent). Not upstream behaviour: only the
    /// whole-network simulation's `trigger_all_tranches` sets it.
    pub trigger_all_tranches: bool,
    /// Whether our certificates carry their VRF proofs. `Skipped` only
    /// where nobody checks certificates (the whole-network simulation's
    /// `--verify model`): the same assignments, no proof computed.
    pub own_proofs: tranche_primitives::criteria::Proofs,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            slot_duration_millis: tranche_primitives::time::DEFAULT_SLOT_DURATION_MILLIS,
            check_delay_ticks: 0,
            trigger_all_tranches: false,
            own_proofs: tranche_primitives::criteria::Proofs::Made,
        }
    }
}

/// Our validator keys: the pair (used for VRFs and approval signatures) and
/// our index in the sessions we validate in.
#[derive(Clone, Debug)]
pub struct LocalKeys {
    /// Our assignment key (the session's `assignment_keys[index]`): our
    /// VRF certificates.
    pub assignment: ValidatorPair,
    /// Our validator key (the session's `validators[index]`): our approval
    /// signatures.
    pub approval: ValidatorPair,
    pub index: ValidatorIndex,
}

impl LocalKeys {
    /// One pair for both roles (tests, single-key setups).
    pub fn single(pair: ValidatorPair, index: ValidatorIndex) -> Self {
        LocalKeys {
            assignment: pair.clone(),
            approval: pair,
            index,
        }
    }
}

/// A relay block to import, with its session and that session's
/// parameters (`block.session` is `session.info.session_index`).
#[derive(Clone, Debug)]
pub struct NewBlock {
    pub block: Block,
    pub session: Arc<Session>,
}

/// An assignment whose certificate distribution already checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedAssignment {
    pub block_hash: Hash,
    pub validator: ValidatorIndex,
    /// The candidate indices it claims.
    pub claimed: CandidateBitfield,
    /// The tranche the certificate proves.
    pub tranche: DelayTranche,
    /// The certificate itself; voting does not read it.
    pub cert: Option<AssignmentCert>,
}

/// An approval whose signature distribution already checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedApproval {
    pub block_hash: Hash,
    pub validator: ValidatorIndex,
    pub candidates: CandidateBitfield,
    pub signature: ValidatorSignature,
}

/// Why an assignment was refused (upstream `AssignmentCheckError`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AssignmentCheckError {
    UnknownBlock(Hash),
    UnknownSessionIndex(SessionIndex),
    InvalidCandidateIndex(CandidateIndex),
    InvalidCandidate(CandidateIndex, CandidateHash),
    InvalidCert(ValidatorIndex, String),
    Internal(Hash, CandidateHash),
    InvalidBitfield(usize),
}

/// The import result of an assignment (upstream `AssignmentCheckResult`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AssignmentCheckResult {
    Accepted,
    AcceptedDuplicate,
    /// Too far ahead of the block's current tranche: not imported (the
    /// classic layout asks [`crate::ApprovalVoting::is_too_far_in_future`]
    /// before importing, as upstream did before polkadot-sdk#4928).
    TooFarInFuture,
    Bad(AssignmentCheckError),
}

/// Why an approval was refused (upstream `ApprovalCheckError`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApprovalCheckError {
    UnknownBlock(Hash),
    UnknownSessionIndex(SessionIndex),
    InvalidCandidateIndex(CandidateIndex),
    InvalidValidatorIndex(ValidatorIndex),
    InvalidCandidate(CandidateIndex, CandidateHash),
    InvalidSignature(ValidatorIndex),
    NoAssignment(ValidatorIndex),
    Internal(Hash, CandidateHash),
}

/// The import result of an approval (upstream `ApprovalCheckResult`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApprovalCheckResult {
    Accepted,
    Bad(ApprovalCheckError),
}

/// What the caller should do or know after an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// The result of an `import_assignment`.
    AssignmentImported {
        block: Hash,
        validator: ValidatorIndex,
        result: AssignmentCheckResult,
    },
    /// The result of an `import_approval`.
    ApprovalImported {
        block: Hash,
        validator: ValidatorIndex,
        result: ApprovalCheckResult,
    },
    /// A block was imported: tell distribution.
    NewBlock(Block),
    /// Send our assignment.
    DistributeAssignment {
        cert: IndirectAssignmentCert,
        claimed: CandidateBitfield,
    },
    /// Send our (possibly coalesced) approval.
    DistributeApproval(IndirectSignedApprovalVote),
    /// A candidate became approved under a block.
    CandidateApproved {
        block: Hash,
        candidate_index: CandidateIndex,
        candidate: CandidateHash,
        tick: Tick,
        tranche: DelayTranche,
        /// Approved through the one-third rule.
        one_third: bool,
        /// No-shows tolerated (covered by later tranches).
        tolerated_no_shows: usize,
        /// The required tranches at the moment of approval.
        required: Option<RequiredTranches>,
    },
    /// Every candidate of a block is approved: tell chain selection.
    BlockApproved {
        block: Hash,
        number: BlockNumber,
        tick: Tick,
    },
    /// Assignees first seen as no-shows.
    NoShowObserved {
        block: Hash,
        candidate_index: CandidateIndex,
        validators: Vec<ValidatorIndex>,
        tick: Tick,
    },
    /// A block was pruned on finality.
    BlockPruned { block: Hash, number: BlockNumber },
}

/// Everything one input produced.
#[derive(Clone, Debug, Default)]
pub struct Output {
    pub actions: Vec<Action>,
    /// The database writes of this input: apply them (`Store::write`) before
    /// acting on the actions.
    pub writes: WriteBatch,
    /// The next tick `tick` must be called at, if any.
    pub next_wakeup: Option<Tick>,
}

impl Output {
    /// The assignment import result in this output.
    pub fn assignment_result(&self) -> Option<&AssignmentCheckResult> {
        self.actions.iter().find_map(|a| match a {
            Action::AssignmentImported { result, .. } => Some(result),
            _ => None,
        })
    }

    /// The approval import result in this output.
    pub fn approval_result(&self) -> Option<&ApprovalCheckResult> {
        self.actions.iter().find_map(|a| match a {
            Action::ApprovalImported { result, .. } => Some(result),
            _ => None,
        })
    }
}

/// The approval status of one (block, candidate) pair, for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CandidateStatus {
    pub candidate: CandidateHash,
    pub required: RequiredTranches,
    pub no_shows: Vec<ValidatorIndex>,
    /// Assignments received (entries, duplicates included).
    pub assignments: usize,
    /// Validators that approved the candidate.
    pub approvals: usize,
    pub approved: bool,
}
