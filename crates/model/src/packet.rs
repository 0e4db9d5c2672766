//! What travels between simulated validators: a [`Packet`] — a
//! notification's encoded bytes, a finality vote or a message about the
//! connection itself ([`Control`]) — with its sender's sequence number,
//! which orders a moment's deliveries.

use serde::{Deserialize, Serialize};

/// One notification on its way: who sends it to whom, the sender's
/// sequence number (the order of a moment's inputs), its encoded bytes —
/// or, with `finality` on, a finality vote: the sender has approved every
/// block up to this number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Packet {
    pub to: u32,
    pub from: u32,
    pub seq: u64,
    pub bytes: Vec<u8>,
    pub finality: Option<u32>,
    /// With several processes: the shared verdict of each item, in order
    /// (`Some(tranche)` of a valid assignment, `Some(0)` of a valid
    /// approval; `None` unknown), so that another process need not check
    /// again what was checked where it was made (`crate::verdicts`).
    #[serde(default)]
    pub known: Vec<Option<u32>>,
    /// A message about the connection itself (`crate::peers`).
    #[serde(default)]
    pub control: Option<Control>,
}

/// A message about the connection itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Control {
    /// The sender's notification failed: the pair is disconnected until
    /// this moment (ms; `u64::MAX`: for good).
    Disconnect { until_ms: u64 },
    /// The sender connected again: its view (heads, finalized number);
    /// answer with yours.
    Hello {
        heads: Vec<[u8; 32]>,
        finalized: u32,
    },
    /// The answer to a `Hello`: the sender's view.
    View {
        heads: Vec<[u8; 32]>,
        finalized: u32,
    },
}
