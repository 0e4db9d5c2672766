//! Polkadot's approval voting as a sans-IO state machine.
//!
//! `ApprovalVoting` imports relay blocks, checked assignments and checked
//! approvals, decides when each candidate and block is approved (tranches,
//! no-shows, clock drift, coverage, the one-third rule: spec §4), triggers
//! and approves our own assignments, and prunes on finality. Each call takes
//! the current tick and returns an `Output` (actions, the database writes of
//! that input, the next wakeup); persistence goes through the `Store` trait
//! (`store`), with an in-memory and a redb implementation.

pub mod bits;
pub mod approval_rules;
pub mod machine;
pub mod store;
pub mod timer_table;

pub use bits::ValidatorSet;
pub use approval_rules::{Check, RequiredTranches, TrancheEntry, APPROVAL_DELAY};
pub use machine::{
    Action, ApprovalCheckError, ApprovalCheckResult, ApprovalVoting, AssignmentCheckError,
    AssignmentCheckResult, BlockMeta, CandidateStatus, CheckedApproval, CheckedAssignment, Config,
    IncludedCandidate, LocalKeys, NewBlock, Output,
};
pub use store::{MemoryStore, RedbStore, Snapshot, Store, StoreError, WriteBatch, WriteOp};
