//! What travels between simulated validators: a [`Packet`] — a
//! notification, a finality vote or a message about the connection
//! itself ([`Connection`]) — with its sender's sequence number, which orders
//! a moment's deliveries, and its length on the wire.
//!
//! A notification travels decoded: within a process the receiver is handed
//! the sender's items (shared, immutable: `ApprovalDistributionMessage`
//! holds them behind `Arc`), and its bytes are counted from SCALE's size
//! of it (`notification_len`), not from an encoding. Only what crosses
//! processes is encoded — the packet's serde form carries the
//! notification's SCALE bytes and the receiving process decodes them with
//! the wire's limits ([`wire_form`]).

use serde::{Deserialize, Serialize};
use tranche_primitives::{ApprovalDistributionMessage, ValidationProtocol};

/// One notification on its way: who sends it to whom, the sender's
/// sequence number (the order of a moment's inputs), the notification
/// and its length on the wire — or, with `finality` on, a finality vote:
/// the sender has approved every block up to this number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Packet {
    pub to: u32,
    pub from: u32,
    pub seq: u64,
    /// The notification (none for a finality vote or a connection's message,
    /// and for bytes from another process that do not decode: counted,
    /// then dropped as a node drops what it cannot decode).
    #[serde(with = "wire_form")]
    pub message: Option<ApprovalDistributionMessage>,
    /// Bytes on the wire: the encoded notification's length, or a
    /// connection's message's.
    pub len: u64,
    pub finality: Option<u32>,
    /// With several processes: the shared verdict of each item, in order
    /// (`Some(tranche)` of a valid assignment, `Some(0)` of a valid
    /// approval; `None` unknown), so that another process need not check
    /// again what was checked where it was made (`crate::verdicts`).
    #[serde(default)]
    pub known: Vec<Option<u32>>,
    /// A message about the connection itself (`crate::peers`); boxed, as
    /// it is rare and a packet is moved several times on its way (its
    /// size is the copy's).
    #[serde(default)]
    pub connection: Option<Box<Connection>>,
}

/// A message about the connection itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Connection {
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

/// A packet's notification between processes: its encoded notification
/// (`ValidationProtocol`), decoded on arrival with the wire's limits.
/// Bytes that do not decode give no notification (never an error that
/// would stop the process's dataflow).
pub mod wire_form {
    use super::*;
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(
        message: &Option<ApprovalDistributionMessage>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        message
            .as_ref()
            .map(ApprovalDistributionMessage::notification_bytes)
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<ApprovalDistributionMessage>, D::Error> {
        let bytes = Option::<Vec<u8>>::deserialize(d)?;
        Ok(
            bytes.and_then(|b| match ValidationProtocol::decode_wire(&b) {
                Ok(ValidationProtocol::ApprovalDistribution(m)) => Some(m),
                Err(_) => None,
            }),
        )
    }
}
