//! A simulated validator's connections: who it is connected to, views
//! sent over the links, disconnects and reconnects, reputation.
//!
//! Upstream's notification substreams are reliable: a notification that
//! cannot be delivered means the connection failed. So a notification the
//! link loses (`loss_probability`) disconnects the pair: the sender
//! forgets the peer at once (`State::peer_disconnected`) and tells it, over
//! the link's latency, when they reconnect — after a delay drawn from the
//! run's seed for that notification (normal, `reconnect_delay_ms`). At
//! that moment each side connects the other again; the lower validator
//! index sends its view (`Hello`), the other answers with its own
//! (`View`), and each side's distribution re-sends what the other lacks
//! (`unify_with_peer` in upstream
//! `polkadot/node/network/approval-distribution/src/lib.rs`). Views travel
//! as SCALE-encoded heads and finalized number, counted in the bytes and
//! through the bandwidth.
//!
//! An offline validator disconnects from everyone when it goes (its peers
//! learn it over the latency); one that comes back (`until_block`) imports
//! the blocks it missed, connects everyone again and sends its view.
//!
//! Reputation changes distribution reports are summed per peer; a peer
//! whose sum falls below upstream's ban threshold (`BANNED_THRESHOLD` in
//! `substrate/client/network/src/peer_store.rs`, 82 % of `i32::MIN`) is
//! disconnected for the rest of the run. Upstream's decay of reputation
//! over time is not modelled.
//!
//! A block imported at its slot still updates the views of all connected
//! peers at that moment (every validator imports it then): only views
//! after a reconnect travel over the links.

use parity_scale_codec::Encode;
use rand_distr::{Distribution, Normal};
use serde::{Deserialize, Serialize};
use tranche_distribution::{PeerId, View};
use tranche_links::mesh::stream;
use tranche_primitives::{Hash, ValidatorIndex};

use crate::drawn::Model;
use crate::member::{ms_ceil, sim, tick_of, Packet, SimNode};
use crate::verdicts::Verdicts;

/// Upstream's ban threshold: `82 * (i32::MIN / 100)`.
pub const BANNED_THRESHOLD: i64 = 82 * (i32::MIN as i64 / 100);

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

/// What a validator knows of its connections.
pub(crate) struct Peers {
    /// Per peer: connected now.
    pub(crate) connected: Vec<bool>,
    /// Per peer: disconnected until this moment (ms).
    down_until: Vec<u64>,
    /// Per peer: the sum of its reputation changes.
    reputation: Vec<i64>,
    /// Reconnects due, (moment, peer), unordered.
    due: Vec<(u64, u32)>,
}

impl Peers {
    pub(crate) fn new(n: u32, me: u32) -> Peers {
        let mut connected = vec![true; n as usize];
        connected[me as usize] = false;
        Peers {
            connected,
            down_until: vec![0; n as usize],
            reputation: vec![0; n as usize],
            due: Vec::new(),
        }
    }

    /// The next reconnect due, if any.
    pub(crate) fn next_ms(&self) -> Option<u64> {
        self.due.iter().map(|(t, _)| *t).min()
    }

    /// Record a disconnect lasting until `until_ms`; say whether the pair
    /// was connected.
    fn down(&mut self, peer: u32, until_ms: u64) -> bool {
        let p = peer as usize;
        self.down_until[p] = self.down_until[p].max(until_ms);
        if until_ms != u64::MAX {
            self.due.push((until_ms, peer));
        }
        std::mem::replace(&mut self.connected[p], false)
    }
}

/// The reconnect delay of the `seq`-th notification of `from` to `to`,
/// ms, drawn from the run's seed (so every process draws the same).
fn reconnect_delay_ms(model: &Model, from: u32, to: u32, seq: u64) -> u64 {
    let subject = (u64::from(from) << 44) ^ (u64::from(to) << 24) ^ seq;
    let mut rng = stream(model.seed, b"reconnect", subject);
    let (mean, sd) = model.reconnect_ms;
    let d = Normal::new(mean, sd.max(0.0)).map_or(mean, |n| n.sample(&mut rng));
    (d.max(1.0)).ceil() as u64
}

fn heads_of(view: &View) -> Vec<[u8; 32]> {
    view.heads.iter().map(|h| h.0).collect()
}

fn view_of(heads: &[[u8; 32]], finalized: u32) -> View {
    View {
        heads: heads.iter().map(|h| Hash(*h)).collect(),
        finalized_number: finalized,
    }
}

impl SimNode {
    /// Our view as peers see it: the latest block imported, the finalized
    /// number.
    fn our_view(&self) -> View {
        View {
            heads: self.latest_head().into_iter().collect(),
            finalized_number: self.finalized_number(),
        }
    }

    /// A control message to `to` over the link: its bytes through our
    /// egress, never lost.
    fn send_control(
        &mut self,
        now_ms: u64,
        to: u32,
        control: Control,
        model: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let bytes = match &control {
            Control::Disconnect { .. } => Vec::new(),
            Control::Hello { heads, finalized } | Control::View { heads, finalized } => {
                (heads, finalized).encode()
            }
        };
        let len = bytes.len() as u64;
        self.record.bytes_out += len;
        let left = ms_ceil(self.egress.reap(sim(now_ms), len));
        let seq = self.seq;
        self.seq += 1;
        out.push((
            left + model.links.latency_ms(self.index, to),
            Packet {
                to,
                from: self.index,
                seq,
                bytes,
                finality: None,
                known: Vec::new(),
                control: Some(control),
            },
        ));
    }

    /// Our `seq`-th notification to `peer` failed: disconnect the pair
    /// and tell the peer when we reconnect.
    pub(crate) fn notification_failed(
        &mut self,
        now_ms: u64,
        peer: u32,
        seq: u64,
        model: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let until_ms = now_ms + reconnect_delay_ms(model, self.index, peer, seq);
        self.disconnect(peer, until_ms);
        self.send_control(now_ms, peer, Control::Disconnect { until_ms }, model, out);
    }

    fn disconnect(&mut self, peer: u32, until_ms: u64) {
        if self.peers.down(peer, until_ms) {
            self.dist.peer_disconnected(PeerId(peer));
        }
    }

    /// We go offline: everyone is disconnected until we are back.
    pub(crate) fn go_offline(
        &mut self,
        now_ms: u64,
        back_ms: Option<u64>,
        model: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let until_ms = back_ms.unwrap_or(u64::MAX);
        let me = self.index;
        for p in (0..self.n).filter(|&p| p != me) {
            self.disconnect(p, until_ms);
            // Our peers notice over the link; nothing of ours is sent
            // after this (the bytes are the transport's, not counted).
            out.push((
                now_ms + model.links.latency_ms(self.index, p),
                Packet {
                    to: p,
                    from: self.index,
                    seq: self.seq,
                    bytes: Vec::new(),
                    finality: None,
                    known: Vec::new(),
                    control: Some(Control::Disconnect { until_ms }),
                },
            ));
            self.seq += 1;
        }
    }

    /// Reconnects due by `now_ms`: connect, and the lower index sends its
    /// view (a validator back from offline sends it to everyone).
    pub(crate) fn reconnect_due(
        &mut self,
        now_ms: u64,
        back: bool,
        model: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let mut due: Vec<u32> = Vec::new();
        self.peers.due.retain(|&(t, p)| {
            if t <= now_ms {
                due.push(p);
                false
            } else {
                true
            }
        });
        due.sort_unstable();
        due.dedup();
        for p in due {
            let i = p as usize;
            if self.peers.connected[i] || self.peers.down_until[i] > now_ms {
                continue;
            }
            self.peers.connected[i] = true;
            self.record.reconnects += 1;
            self.dist
                .peer_connected(PeerId(p), Some(ValidatorIndex(p)))
                .expect("validator counts are bounded below MAX_PEER_ID");
            if back || self.index < p {
                let view = self.our_view();
                let hello = Control::Hello {
                    heads: heads_of(&view),
                    finalized: view.finalized_number,
                };
                self.send_control(now_ms, p, hello, model, out);
            }
        }
    }

    /// A control message from a peer.
    pub(crate) fn control(
        &mut self,
        now_ms: u64,
        from: u32,
        control: &Control,
        v: &Verdicts,
        model: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let i = from as usize;
        match control {
            Control::Disconnect { until_ms } => self.disconnect(from, *until_ms),
            Control::Hello { heads, finalized } | Control::View { heads, finalized } => {
                if self.peers.down_until[i] > now_ms || self.peers.reputation[i] < BANNED_THRESHOLD
                {
                    return;
                }
                if !self.peers.connected[i] {
                    self.peers.connected[i] = true;
                    self.record.reconnects += 1;
                    self.dist
                        .peer_connected(PeerId(from), Some(ValidatorIndex(from)))
                        .expect("validator counts are bounded below MAX_PEER_ID");
                }
                if matches!(control, Control::Hello { .. }) {
                    let view = self.our_view();
                    let answer = Control::View {
                        heads: heads_of(&view),
                        finalized: view.finalized_number,
                    };
                    self.send_control(now_ms, from, answer, model, out);
                }
                let mut work = std::mem::take(&mut self.actions);
                self.dist.peer_view_change(
                    tick_of(now_ms),
                    PeerId(from),
                    view_of(heads, *finalized),
                    &mut work,
                );
                self.settle(now_ms, work, v, model, out);
            }
        }
    }

    /// A reputation change distribution reported about `peer`: below the
    /// ban threshold, it is disconnected for the rest of the run.
    pub(crate) fn reputation(&mut self, peer: PeerId, value: i32) {
        let Some(r) = self.peers.reputation.get_mut(peer.0 as usize) else {
            return;
        };
        *r += i64::from(value);
        if *r < BANNED_THRESHOLD {
            self.disconnect(peer.0, u64::MAX);
        }
    }

    /// Whether `peer` is connected now.
    pub(crate) fn is_connected(&self, peer: u32) -> bool {
        self.peers.connected[peer as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ban_threshold_is_upstreams() {
        assert_eq!(BANNED_THRESHOLD, -1_760_936_552);
    }

    #[test]
    fn a_disconnect_keeps_the_latest_end_and_says_if_the_pair_was_up() {
        let mut p = Peers::new(3, 0);
        assert!(p.down(1, 500));
        assert!(!p.down(1, 300), "already down");
        assert_eq!(p.down_until[1], 500);
        assert_eq!(p.next_ms(), Some(300));
        assert!(!p.connected[1]);
        assert!(p.connected[2]);
        p.down(2, u64::MAX);
        assert_eq!(p.due.len(), 2, "no reconnect for good");
    }
}
