//! One member of the simulated network: a validator's protocol
//! (`crate::node`) with what surrounds it in the simulation — its end of
//! the links (`crate::port`), its connections (`crate::peers`), its
//! behaviour (no-show, slow, offline and back) — and, at the end, its
//! record. The engine (`tranche_simulation`) hands it the packets that
//! reach it and takes the ones it sends.

use crate::drawn::Model;
use crate::node::{Cx, Net, Node};
use crate::peers::{heads_of, reconnect_delay_ms, view_of, Peers};
use crate::port::Port;
use crate::verdicts::Verdicts;
use tranche_links::RateLimiter;
use tranche_primitives::ApprovalDistributionMessage;

pub use crate::node::NodeSetup;
pub use crate::packet::{Control, Packet};
pub use crate::record::{Behaviour, BlockRecord, NodeRecord, OfflineSpan};
pub use crate::time::{slot_ms, tick_of};

/// One validator of the simulated network.
pub struct SimNode {
    index: u32,
    n: u32,
    behaviour: Behaviour,
    /// From this moment on the node is silent (offline ones)...
    offline_from_ms: Option<u64>,
    /// ... until this one, if it comes back.
    back_ms: Option<u64>,
    /// Whether it went offline already, and came back.
    gone: bool,
    returned: bool,
    node: Node,
    port: Port,
    peers: Peers,
    /// Items (assignments and approvals) it handled from peers.
    items_in: u64,
}

impl SimNode {
    pub fn new(setup: NodeSetup<'_>, model: &Model) -> SimNode {
        let index = setup.index;
        let behaviour = setup.behaviour;
        let (offline_from_ms, back_ms) = match behaviour {
            Behaviour::Offline(OfflineSpan {
                at_block,
                until_block,
            }) => (
                setup.blocks.get(at_block as usize - 1).map(slot_ms),
                until_block.and_then(|u| setup.blocks.get(u as usize - 1).map(slot_ms)),
            ),
            _ => (None, None),
        };
        SimNode {
            index,
            n: model.n,
            behaviour,
            offline_from_ms,
            back_ms,
            gone: false,
            returned: false,
            node: Node::new(setup),
            port: Port::new(
                index,
                RateLimiter::new(model.bandwidth),
                RateLimiter::new(model.bandwidth),
            ),
            peers: Peers::new(model.n, index),
            items_in: 0,
        }
    }

    pub fn index(&self) -> u32 {
        self.index
    }

    fn is_offline(&self, now_ms: u64) -> bool {
        self.offline_from_ms.is_some_and(|t| now_ms >= t)
            && !matches!(self.back_ms, Some(b) if now_ms >= b)
    }

    /// The next moment this node has something to do by itself (a block
    /// to import, a voting timer, a CPU event, a reconnect), if any before
    /// it goes offline.
    pub fn next_event_ms(&self) -> Option<u64> {
        let next = [self.node.next_event_ms(), self.peers.next_ms()]
            .into_iter()
            .flatten()
            .min();
        match self.offline_from_ms {
            // Wake to go offline at the latest.
            Some(off) if !self.gone => [next, Some(off)].into_iter().flatten().min(),
            // Offline: wake only to come back.
            Some(_) if !self.returned => self.back_ms,
            _ => next,
        }
    }

    /// A notification reaches this node at `now_ms`: when does it pass the
    /// node's ingress bandwidth? Counted here.
    pub fn arrive(&mut self, now_ms: u64, packet: &Packet) -> u64 {
        if self.is_offline(now_ms) {
            // Lost on the way to a node that is gone; `moment` drops it.
            return now_ms;
        }
        self.port.arrive(now_ms, packet)
    }

    /// Everything due at `now_ms`: due timers first, then blocks whose slot
    /// starts, then the notifications delivered now, in (sender, sequence)
    /// order (the caller sorts them). Sends go to `out` as
    /// (arrival moment, packet).
    pub fn moment(
        &mut self,
        now_ms: u64,
        delivered: Vec<Packet>,
        verdicts: &Verdicts,
        model: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let mut back = false;
        if let Some(off) = self.offline_from_ms {
            if !self.gone && now_ms >= off {
                self.gone = true;
                self.go_offline(now_ms, model, out);
            }
            if self.gone && !self.returned {
                match self.back_ms {
                    Some(b) if now_ms >= b => {
                        self.returned = true;
                        back = true;
                    }
                    _ => return,
                }
            }
        }
        let mut links = Links {
            me: self.index,
            n: self.n,
            port: &mut self.port,
            peers: &mut self.peers,
            verdicts,
            model,
            out,
        };
        let node = &mut self.node;
        node.open_moment(now_ms, &mut links.cx());
        // After the blocks (those missed offline too): views carry them.
        for p in links.peers.reconnect_due(now_ms) {
            node.peer_connected(p);
            if back || self.index < p {
                let view = node.view();
                let hello = Control::Hello {
                    heads: heads_of(&view),
                    finalized: view.finalized_number,
                };
                links.port.control(now_ms, p, hello, model, links.out);
            }
        }
        for p in delivered {
            if let Some(up_to) = p.finality {
                node.finality_vote(now_ms, p.from, up_to, &mut links.cx());
                continue;
            }
            if let Some(control) = &p.control {
                links.control(now_ms, p.from, control, node);
                continue;
            }
            // Bytes from another process that did not decode: dropped.
            let Some(m) = p.message else {
                continue;
            };
            self.items_in += m.len() as u64;
            verdicts.learn(&m, &p.known);
            node.peer_message(now_ms, p.from, m, &mut links.cx());
        }
        node.close_moment(now_ms, &mut links.cx());
    }

    /// We go offline: everyone is disconnected until we are back, and
    /// learns it over the link.
    fn go_offline(&mut self, now_ms: u64, model: &Model, out: &mut Vec<(u64, Packet)>) {
        let until_ms = self.back_ms.unwrap_or(u64::MAX);
        for p in (0..self.n).filter(|&p| p != self.index) {
            if self.peers.down(p, until_ms) {
                self.node.peer_disconnected(p);
            }
            // Nothing of ours is sent after this (the bytes are the
            // transport's, not counted).
            let control = Some(Control::Disconnect { until_ms });
            self.port
                .beyond_bandwidth(now_ms, p, None, control, model, out);
        }
    }

    /// The record, at the end.
    pub fn record(&self) -> NodeRecord {
        let c = self.port.counted;
        NodeRecord {
            validator: self.index,
            behaviour: self.behaviour,
            blocks: self.node.records().to_vec(),
            bytes_out: c.bytes_out,
            bytes_in: c.bytes_in,
            notifications_out: c.notifications_out,
            notifications_in: c.notifications_in,
            items_in: self.items_in,
            aggression: self.node.aggression(),
            cpu_busy_ms: self.node.busy_ms(),
            reconnects: self.peers.reconnects,
        }
    }
}

/// A member's surroundings during one moment: its end of the links and
/// its connections, as its protocol sees them ([`Net`]).
struct Links<'a> {
    me: u32,
    n: u32,
    port: &'a mut Port,
    peers: &'a mut Peers,
    verdicts: &'a Verdicts,
    model: &'a Model,
    out: &'a mut Vec<(u64, Packet)>,
}

impl<'a> Links<'a> {
    /// What a call into the protocol is given.
    fn cx(&mut self) -> Cx<'_> {
        Cx {
            verdicts: self.verdicts,
            net: self,
        }
    }

    /// A control message from a peer.
    fn control(&mut self, now_ms: u64, from: u32, control: &Control, node: &mut Node) {
        match control {
            Control::Disconnect { until_ms } => {
                if self.peers.down(from, *until_ms) {
                    node.peer_disconnected(from);
                }
            }
            Control::Hello { heads, finalized } | Control::View { heads, finalized } => {
                let Some(newly) = self.peers.view_from(from, now_ms) else {
                    return;
                };
                if newly {
                    node.peer_connected(from);
                }
                if matches!(control, Control::Hello { .. }) {
                    let view = node.view();
                    let answer = Control::View {
                        heads: heads_of(&view),
                        finalized: view.finalized_number,
                    };
                    self.port
                        .control(now_ms, from, answer, self.model, self.out);
                }
                node.peer_view(now_ms, from, view_of(heads, *finalized), &mut self.cx());
            }
        }
    }
}

impl Net for Links<'_> {
    fn connected(&self) -> Vec<u32> {
        self.peers.connected().collect()
    }

    fn notify(
        &mut self,
        now_ms: u64,
        peer: u32,
        message: ApprovalDistributionMessage,
    ) -> Result<(), u64> {
        let known = if self.verdicts.across_processes() {
            self.verdicts.known(&message)
        } else {
            Vec::new()
        };
        self.port
            .notify(now_ms, peer, message, known, self.model, self.out)
    }

    fn lost(&mut self, now_ms: u64, peer: u32, seq: u64) -> bool {
        let until_ms = now_ms + reconnect_delay_ms(self.model, self.me, peer, seq);
        let was_up = self.peers.down(peer, until_ms);
        self.port.control(
            now_ms,
            peer,
            Control::Disconnect { until_ms },
            self.model,
            self.out,
        );
        was_up
    }

    fn reputation(&mut self, peer: u32, value: i32) -> bool {
        self.peers.reputation(peer, value) && self.peers.down(peer, u64::MAX)
    }

    fn finality_vote(&mut self, now_ms: u64, up_to: u32) {
        for to in (0..self.n).filter(|&p| p != self.me) {
            self.port
                .beyond_bandwidth(now_ms, to, Some(up_to), None, self.model, self.out);
        }
    }
}
