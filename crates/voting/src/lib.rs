//! Polkadot's approval voting as a sans-IO state machine: given relay
//! blocks, checked assignments, checked approvals and the time, it decides
//! when each candidate and block is approved, and what this node must send
//! and store.
//!
//! `ApprovalVoting` imports relay blocks, checked assignments and checked
//! approvals, applies the approval rules (tranches, no-shows, clock drift,
//! coverage, the one-third rule: upstream
//! `polkadot/node/core/approval-voting/src/approval_checking.rs`), triggers
//! and approves our own assignments, and prunes on finality (upstream
//! `polkadot/node/core/approval-voting/src/lib.rs`). Each call takes the
//! current tick and returns an `Output` (actions, the database writes of
//! that input, the next wakeup); persistence goes through the `Store` trait,
//! with an in-memory and a redb implementation.
//!
//! Modules, all private; everything public is re-exported below:
//!
//! * `machine`: the state machine, by concern (blocks, votes, timers,
//!   queries, restore, and the types at its boundary);
//! * `approval_rules`: the pure approval rules;
//! * `timer_table`: every pending timer, in one table;
//! * `maps`: the hash maps' hasher;
//! * `tranches`: an approval entry's assignments by delay tranche;
//! * `bits`: the validator and candidate bit sets;
//! * `store`: the `Store` trait, its records and implementations.

mod approval_rules;
mod bits;
mod machine;
mod maps;
mod store;
mod timer_table;
mod tranches;

pub use approval_rules::{Check, RequiredTranches, APPROVAL_DELAY};
pub use bits::ValidatorSet;
pub use machine::{
    Action, ApprovalCheckError, ApprovalCheckResult, ApprovalVoting, AssignmentCheckError,
    AssignmentCheckResult, CandidateStatus, CheckedApproval, CheckedAssignment, Config, LocalKeys,
    NewBlock, Output,
};
pub use store::{
    codec, op_kind, AssignmentRecord, DurabilityCounts, Fault, FaultPoint, FaultyStore,
    MemoryStore, Snapshot, Store, StoreError, Table, WriteBatch, WriteOp, SCHEMA_VERSION, TABLES,
};
pub use tranches::{Assignee, Assignees, Tranches};
