//! `FaultyStore`: any store, failing on purpose at a chosen point — the
//! n-th write, commit or flush, or the first write carrying a given kind
//! of record — as a full disk or an I/O error would make it fail, for the
//! tests of what the node does then (docs/durability.md, "Store faults").
//! A failed write applies nothing of its batch; a failed commit or flush
//! commits nothing of what waited, now or later (the inner store is
//! abandoned, as a real store is after a failed commit).

use super::{DurabilityCounts, Snapshot, Store, StoreError, WriteBatch, WriteOp};

/// Where a fault strikes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultPoint {
    /// A call of `write`.
    Write,
    /// A call of `commit` (the group commit).
    Commit,
    /// A call of `flush` (before an announcement, at the end).
    Flush,
    /// A call of `write` whose batch holds a record of this kind (the
    /// name of the `WriteOp` variant, as [`op_kind`] gives it).
    WriteOf(&'static str),
}

/// A fault: at the `after`-th (from 0) call matching `point`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    pub point: FaultPoint,
    pub after: u64,
}

/// The name of a record's kind.
pub fn op_kind(op: &WriteOp) -> &'static str {
    match op {
        WriteOp::PutSession(_) => "PutSession",
        WriteOp::PutFinalized(..) => "PutFinalized",
        WriteOp::PutBlock(_) => "PutBlock",
        WriteOp::PutBlockState(..) => "PutBlockState",
        WriteOp::DeleteBlock(_) => "DeleteBlock",
        WriteOp::PutApprovalEntry(..) => "PutApprovalEntry",
        WriteOp::PutAssignment(..) => "PutAssignment",
        WriteOp::PutApproval(..) => "PutApproval",
        WriteOp::DeleteCandidate(_) => "DeleteCandidate",
        WriteOp::PutWakeup(..) => "PutWakeup",
        WriteOp::DeleteWakeup(..) => "DeleteWakeup",
    }
}

/// `inner`, failing once at `fault` and at every call after it.
pub struct FaultyStore<S> {
    inner: S,
    fault: Fault,
    /// Calls matching the fault's point so far.
    seen: u64,
    failed: bool,
}

impl<S: Store> FaultyStore<S> {
    pub fn new(inner: S, fault: Fault) -> Self {
        FaultyStore {
            inner,
            fault,
            seen: 0,
            failed: false,
        }
    }

    /// Whether the fault has struck.
    pub fn has_failed(&self) -> bool {
        self.failed
    }

    fn strikes(&mut self, matches: bool, what: &'static str) -> Result<(), StoreError> {
        if !self.failed && matches {
            self.seen += 1;
            if self.seen > self.fault.after {
                self.failed = true;
            }
        }
        if self.failed {
            self.inner.abandon();
            return Err(StoreError::Injected {
                store: self.inner.describe(),
                what,
            });
        }
        Ok(())
    }
}

impl<S: Store> Store for FaultyStore<S> {
    fn write(&mut self, batch: WriteBatch) -> Result<(), StoreError> {
        let matches = match self.fault.point {
            FaultPoint::Write => true,
            FaultPoint::WriteOf(kind) => batch.ops.iter().any(|op| op_kind(op) == kind),
            _ => false,
        };
        self.strikes(matches, "write")?;
        self.inner.write(batch)
    }

    fn commit(&mut self) -> Result<(), StoreError> {
        self.strikes(self.fault.point == FaultPoint::Commit, "commit")?;
        self.inner.commit()
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        self.strikes(self.fault.point == FaultPoint::Flush, "flush")?;
        self.inner.flush()
    }

    fn abandon(&mut self) {
        self.inner.abandon()
    }

    fn durability_counts(&self) -> DurabilityCounts {
        self.inner.durability_counts()
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn load(&mut self) -> Result<Snapshot, StoreError> {
        self.inner.load()
    }
}
