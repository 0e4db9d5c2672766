//! What one simulated validator records of a run, as plain data: its
//! behaviour, what it saw of each block ([`BlockRecord`]) and its counters
//! ([`NodeRecord`]). The engine gathers them; `tranche_report::network`
//! builds the run's report, table and page from them.

use serde::{Deserialize, Serialize};

/// How one validator behaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Behaviour {
    /// Checks at the configured speed and sends everything.
    #[default]
    Honest,
    /// Triggers and sends its assignments, never sends an approval.
    NoShow,
    /// Honest, but its checks take `slow_factor` times longer.
    Slow,
    /// Honest until the slot of block `at_block` (1-based), then silent:
    /// it handles nothing and sends nothing, until the slot of
    /// `until_block` if it comes back (the objective's own span).
    Offline(OfflineSpan),
}

impl Behaviour {
    /// Whether the validator is expected to approve every block: honest and
    /// slow ones are; no-shows and offline ones are not counted.
    pub fn counts(self) -> bool {
        matches!(self, Behaviour::Honest | Behaviour::Slow)
    }

    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Behaviour::Honest => "honest",
            Behaviour::NoShow => "no-show",
            Behaviour::Slow => "slow",
            Behaviour::Offline(_) => "offline",
        }
    }
}

/// What one validator saw of one block.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockRecord {
    /// When it approved the block, milliseconds after the block's slot
    /// started.
    pub approved_after_ms: Option<u64>,
    /// Candidates its own triggered assignments claim.
    pub own_assignments: u32,
    /// Its approval signatures sent (each may cover several candidates).
    pub own_approvals: u32,
    /// When it sent its last approval for the block, milliseconds after
    /// the block's slot started.
    pub last_approval_after_ms: Option<u64>,
    /// Highest tranche of a peer's assignment it imported.
    pub max_tranche: u32,
    /// Candidates claimed by the peers' assignments it imported, by
    /// tranche (index 0: tranche 0).
    pub by_tranche: Vec<u32>,
    /// Assignees it saw as no-shows.
    pub no_shows: u32,
    /// When it finalized the block (with `finality` on), milliseconds
    /// after the block's slot started.
    pub finalized_after_ms: Option<u64>,
    /// When it had gathered enough assignments for every candidate (each
    /// one's required tranches known: only approvals were missing, or it
    /// was approved), milliseconds after the block's slot started.
    #[serde(default)]
    pub enough_after_ms: Option<u64>,
}

/// When a validator is offline: from the slot of block `at_block`
/// (1-based) on it handles nothing and sends nothing, until the slot of
/// `until_block` if it comes back (views exchanged again, what it lacks
/// re-sent). One type for the objective and the validators' records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfflineSpan {
    /// 1-based block number.
    pub at_block: u32,
    /// 1-based block from whose slot on they are back; `None`: gone for
    /// good.
    #[serde(default)]
    pub until_block: Option<u32>,
}

/// Everything one validator reports at the end.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeRecord {
    pub validator: u32,
    pub behaviour: Behaviour,
    /// One per block, in block order.
    pub blocks: Vec<BlockRecord>,
    /// Distribution's notifications: bytes and count, out and in.
    pub bytes_out: u64,
    pub bytes_in: u64,
    pub notifications_out: u64,
    pub notifications_in: u64,
    /// Items (assignments and approvals) it handled from peers.
    pub items_in: u64,
    /// Blocks imported while the unfinalized chain was at least the
    /// aggression L1 threshold long.
    pub aggression: u32,
    /// With the CPU model: virtual CPU time each of its threads used,
    /// milliseconds, in the layout's thread order (empty without it;
    /// always written: the engine moves records between processes in a
    /// format without field names).
    #[serde(default)]
    pub cpu_busy_ms: Vec<u64>,
    /// Times it connected a peer again after a disconnect (a failed
    /// notification, an offline peer back).
    #[serde(default)]
    pub reconnects: u32,
}
