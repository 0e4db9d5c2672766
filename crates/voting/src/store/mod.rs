//! Persistence of approval voting: the records the state machine writes
//! (`WriteOp`, batched per input in a `WriteBatch`; a block is stored as
//! the primitives' `Block`), the `Store` trait that applies them and loads
//! them back (`Snapshot`), their byte layout (`codec`), `MemoryStore`
//! (tests) and `FaultyStore` (any store failing on purpose, for tests).
//! The databases (redb, ParityDB) live in the `tranche-store` crate, so
//! that the protocol links none.
//!
//! Records are small and append-mostly so that importing a message never
//! re-encodes what a candidate already holds: one record per received
//! assignment, one per approving validator, one per scheduled wakeup, and a
//! small mutable record per block and per (block, candidate).

pub mod codec;
mod faulty;
mod memory;

pub use codec::{Table, SCHEMA_VERSION, TABLES};
pub use faulty::{op_kind, Fault, FaultPoint, FaultyStore};
pub use memory::MemoryStore;

use parity_scale_codec::{Decode, Encode};
use tranche_primitives::{
    AssignmentCert, Block, BlockNumber, CandidateHash, CandidateIndex, DelayTranche, Hash,
    SessionInfo, Tick, ValidatorIndex,
};

/// The mutable part of a block entry.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct BlockStateRecord {
    /// Bytes of the approved-candidates bit set (see `ValidatorSet::to_bytes`).
    pub approved: Vec<u8>,
    /// Bytes of the set of candidates whose multi-core assignment we sent.
    pub distributed: Vec<u8>,
    /// Our approvals waiting to be signed: `(index, hash, sign no later than)`.
    pub pending_signature: Vec<(CandidateIndex, CandidateHash, Tick)>,
}

/// Our own assignment for a (block, candidate) and how far our work got.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct OurAssignmentRecord {
    pub cert: AssignmentCert,
    pub tranche: DelayTranche,
    pub validator: ValidatorIndex,
    pub triggered: bool,
    /// Tick at which our check of the candidate completes, while it runs.
    pub check_due: Option<Tick>,
}

/// Our signed approval covering a (block, candidate).
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct OurApprovalRecord {
    pub signature: [u8; 64],
    pub candidate_indices: Vec<CandidateIndex>,
}

/// The mutable metadata of one (block, candidate) approval entry.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct ApprovalEntryRecord {
    pub our_assignment: Option<OurAssignmentRecord>,
    pub our_approval: Option<OurApprovalRecord>,
    pub approved: bool,
}

/// One received assignment of an approval entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Encode, Decode)]
pub struct AssignmentRecord {
    pub validator: ValidatorIndex,
    pub tranche: DelayTranche,
    pub tick: Tick,
}

/// One database write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteOp {
    PutSession(SessionInfo),
    PutFinalized(Option<BlockNumber>, Option<BlockNumber>),
    /// The immutable part of a block entry, written once at import.
    PutBlock(Block),
    PutBlockState(Hash, BlockStateRecord),
    /// Delete a block and everything keyed under it (its approval entries,
    /// assignments and wakeups).
    DeleteBlock(Hash),
    PutApprovalEntry(Hash, CandidateIndex, ApprovalEntryRecord),
    /// Append the `seq`-th assignment of a (block, candidate).
    PutAssignment(Hash, CandidateIndex, u32, AssignmentRecord),
    /// A validator approved a candidate (in every block that has it).
    PutApproval(CandidateHash, ValidatorIndex),
    /// Delete every approval of a candidate.
    DeleteCandidate(CandidateHash),
    PutWakeup(Hash, CandidateIndex, Tick),
    DeleteWakeup(Hash, CandidateIndex),
}

/// The writes of one input, applied atomically.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteBatch {
    pub ops: Vec<WriteOp>,
}

impl WriteBatch {
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    pub fn push(&mut self, op: WriteOp) {
        self.ops.push(op);
    }
}

/// Everything a store holds, decoded, for restoring a state machine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub sessions: Vec<SessionInfo>,
    /// `(last finalized number, lowest stored height)`.
    pub finalized: (Option<BlockNumber>, Option<BlockNumber>),
    pub blocks: Vec<Block>,
    pub block_states: Vec<(Hash, BlockStateRecord)>,
    pub approval_entries: Vec<(Hash, CandidateIndex, ApprovalEntryRecord)>,
    /// In `(block, candidate index, seq)` order.
    pub assignments: Vec<(Hash, CandidateIndex, u32, AssignmentRecord)>,
    pub approvals: Vec<(CandidateHash, ValidatorIndex)>,
    pub wakeups: Vec<(Hash, CandidateIndex, Tick)>,
}

/// Why a store could not be opened, read or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the {store} approval database at {path}: {reason}")]
    Open {
        store: &'static str,
        path: String,
        reason: String,
    },
    #[error("approval database is corrupt: {0}")]
    Corrupt(String),
    #[error("{store}: {what} failed: injected fault")]
    Injected { store: String, what: &'static str },
    #[error("{store} database at {path}: {what} failed: {reason}")]
    Backend {
        store: &'static str,
        path: String,
        what: &'static str,
        reason: String,
    },
}

/// How often a store has committed and fsynced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DurabilityCounts {
    /// Transactions committed (each survives a process crash).
    pub commits: u64,
    /// Of those, the ones fsynced (each survives a power loss).
    pub fsyncs: u64,
}

/// Where approval voting keeps its state.
pub trait Store {
    /// Apply one input's writes. A store may buffer them (write-behind) but
    /// must apply batches in order and each one whole.
    fn write(&mut self, batch: WriteBatch) -> Result<(), StoreError>;
    /// Commit every batch written so far so that it survives a crash of
    /// this process (not necessarily a power loss): the group commit, once
    /// per tick. A store may also fsync here, at an interval it states (see
    /// docs/durability.md).
    fn commit(&mut self) -> Result<(), StoreError> {
        self.flush()
    }
    /// Make every batch written so far durable, also against power loss
    /// (fsync).
    fn flush(&mut self) -> Result<(), StoreError>;
    /// Give the store up as a crash would: nothing more is committed, not
    /// even what is waiting, not even on drop (a simulated crash; see
    /// `tranche run --restart-at-block`).
    fn abandon(&mut self) {}
    /// Commits and fsyncs done so far, for reports.
    fn durability_counts(&self) -> DurabilityCounts {
        DurabilityCounts::default()
    }
    /// The store and where it is, for messages (`redb database at PATH`).
    fn describe(&self) -> String {
        "in-memory store".to_owned()
    }
    /// Load everything (after `flush`).
    fn load(&mut self) -> Result<Snapshot, StoreError>;
}

/// A boxed store is a store (the node picks its store at run time).
impl<S: Store + ?Sized> Store for Box<S> {
    fn write(&mut self, batch: WriteBatch) -> Result<(), StoreError> {
        (**self).write(batch)
    }
    fn commit(&mut self) -> Result<(), StoreError> {
        (**self).commit()
    }
    fn flush(&mut self) -> Result<(), StoreError> {
        (**self).flush()
    }
    fn abandon(&mut self) {
        (**self).abandon()
    }
    fn durability_counts(&self) -> DurabilityCounts {
        (**self).durability_counts()
    }
    fn describe(&self) -> String {
        (**self).describe()
    }
    fn load(&mut self) -> Result<Snapshot, StoreError> {
        (**self).load()
    }
}
