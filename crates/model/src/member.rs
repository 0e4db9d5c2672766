//! One member of the simulated network: a validator's protocol
//! (`crate::protocol`, which owns its connections and behaviour) and its
//! end of the links (`crate::port`) — and, at the end, its record. The
//! engine (`tranche_simulation`) hands it the packets that reach it; it
//! hands them to the protocol as the moment's deliveries and carries out
//! what the moment made ready through the port, as packets for the
//! engine.

use crate::drawn::Model;
use crate::moment::Arrival;
use crate::port::Port;
use crate::protocol::{Cx, Protocol};
use crate::verdicts::Verdicts;
use tranche_links::RateLimiter;

pub use crate::packet::{Connection, Packet};
pub use crate::protocol::NodeSetup;
pub use crate::record::{Behaviour, BlockRecord, NodeRecord, OfflineSpan};
pub use crate::time::{slot_ms, tick_of};

/// One validator of the simulated network.
pub struct SimNode {
    index: u32,
    behaviour: Behaviour,
    protocol: Protocol,
    port: Port,
    /// Items (assignments and approvals) it handled from peers.
    items_in: u64,
}

impl SimNode {
    pub fn new(setup: NodeSetup, model: &Model) -> SimNode {
        let index = setup.index;
        SimNode {
            index,
            behaviour: setup.behaviour,
            protocol: Protocol::new(setup),
            port: Port::new(
                index,
                RateLimiter::new(model.bandwidth),
                RateLimiter::new(model.bandwidth),
            ),
            items_in: 0,
        }
    }

    pub fn index(&self) -> u32 {
        self.index
    }

    /// The next moment this node has something to do by itself (a block
    /// to import, a voting timer, a CPU event, a reconnect, going offline
    /// or coming back).
    pub fn next_event_ms(&self) -> Option<u64> {
        self.protocol.next_event_ms()
    }

    /// A notification reaches this node at `now_ms`: when does it pass the
    /// node's ingress bandwidth? Counted here.
    pub fn arrive(&mut self, now_ms: u64, packet: &Packet) -> u64 {
        if self.protocol.is_offline(now_ms) {
            // Lost on the way to a node that is gone; `moment` drops it.
            return now_ms;
        }
        self.port.arrive(now_ms, packet)
    }

    /// Everything due at `now_ms` (the protocol's one order of work,
    /// `Protocol::moment`), with the notifications delivered now in
    /// (sender, sequence) order (the caller sorts them; those a validator
    /// that is away does not take are dropped). Sends go to `out` as
    /// (arrival moment, packet).
    pub fn moment(
        &mut self,
        now_ms: u64,
        delivered: impl IntoIterator<Item = Packet>,
        verdicts: &Verdicts,
        model: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let items_in = &mut self.items_in;
        let deliveries = delivered.into_iter().filter_map(|p| {
            if let Some(up_to) = p.finality {
                return Some(Arrival::FinalityVote {
                    from: p.from,
                    up_to,
                });
            }
            if let Some(message) = p.connection {
                return Some(Arrival::Connection {
                    from: p.from,
                    message: *message,
                });
            }
            // Bytes from another process that did not decode: dropped.
            let message = p.message?;
            *items_in += message.len() as u64;
            verdicts.learn(&message, &p.known);
            Some(Arrival::Notification {
                from: p.from,
                message,
            })
        });
        let cx = Cx {
            verdicts,
            network: Some(model),
        };
        let ready = self.protocol.moment(now_ms, deliveries, cx);
        for transmit in ready.transmits.drain(..) {
            self.port.transmit(now_ms, transmit, model, out);
        }
    }

    /// The record, at the end.
    pub fn record(&self) -> NodeRecord {
        let c = self.port.counted;
        NodeRecord {
            validator: self.index,
            behaviour: self.behaviour,
            blocks: self.protocol.records().to_vec(),
            bytes_out: c.bytes_out,
            bytes_in: c.bytes_in,
            notifications_out: c.notifications_out,
            notifications_in: c.notifications_in,
            items_in: self.items_in,
            aggression: self.protocol.aggression(),
            cpu_busy_ms: self.protocol.busy_ms(),
            reconnects: self.protocol.reconnects(),
        }
    }
}
