//! The write-behind both stores share: a batch's records become table
//! operations at once (`to_kv`) and wait in memory until the store
//! commits; a store commits by itself once `WRITE_BEHIND_OPS` wait.

use tranche_voting::codec::{prepare, to_kv, KvOp};
use tranche_voting::WriteBatch;

/// Committed once this many table operations are waiting.
pub const WRITE_BEHIND_OPS: usize = 16_384;

/// The table operations waiting for the next commit.
#[derive(Debug)]
pub struct Pending {
    ops: Vec<KvOp>,
    /// Commit after this many waiting operations.
    pub limit: usize,
}

impl Default for Pending {
    fn default() -> Self {
        Pending {
            ops: Vec::new(),
            limit: WRITE_BEHIND_OPS,
        }
    }
}

impl Pending {
    /// Add a batch; whether the store should commit now.
    pub fn add(&mut self, batch: WriteBatch) -> bool {
        for op in batch.ops {
            to_kv(op, &mut self.ops);
        }
        self.ops.len() >= self.limit
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// What a commit writes, in order: the last write of each key,
    /// assignment runs joined, each row sealed (`codec::prepare`).
    pub fn take(&mut self) -> Vec<KvOp> {
        prepare(std::mem::take(&mut self.ops))
    }

    /// Forget what waits (an abandoned store).
    pub fn clear(&mut self) {
        self.ops.clear();
    }
}
