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
//!
//! All of this is the validator's protocol's own state (`crate::protocol`
//! owns a [`Peers`] and a [`Presence`]), so that a moment needs no answer
//! from the links: what it sends over them — notifications, the
//! connection's own messages, finality votes — it makes ready as
//! `crate::moment::Transmit`s, each with its sequence number and, for a
//! notification, whether the link loses it (the mesh's draw for that
//! number, `tranche_links::mesh`). Among fixed peers (`crate::fixed`: no
//! run model) nothing is lost and no one is banned.

use rand_distr::{Distribution, Normal};
use tranche_distribution::{batch_notifications, View};
use tranche_links::mesh::stream;
use tranche_primitives::{Block, Hash};

use crate::drawn::Model;
use crate::moment::Transmit;
use crate::packet::Connection;
use crate::protocol::{Cx, Protocol};
use crate::record::{Behaviour, OfflineSpan};
use crate::time::slot_ms;

/// Upstream's ban threshold: `82 * (i32::MIN / 100)`.
pub const BANNED_THRESHOLD: i64 = 82 * (i32::MIN as i64 / 100);

/// What a validator knows of its connections.
pub(crate) struct Peers {
    /// Per peer: connected now.
    connected: Vec<bool>,
    /// Per peer: disconnected until this moment (ms).
    down_until: Vec<u64>,
    /// Per peer: the sum of its reputation changes.
    reputation: Vec<i64>,
    /// Reconnects due, (moment, peer), unordered.
    due: Vec<(u64, u32)>,
    /// Times a peer was connected again after a disconnect.
    pub reconnects: u32,
}

impl Peers {
    /// Of `n` validators, `peers` connected.
    pub fn new(n: u32, peers: &[u32]) -> Peers {
        let mut connected = vec![false; n as usize];
        for &p in peers {
            connected[p as usize] = true;
        }
        Peers {
            connected,
            down_until: vec![0; n as usize],
            reputation: vec![0; n as usize],
            due: Vec::new(),
            reconnects: 0,
        }
    }

    /// The peers connected now, in ascending order.
    pub fn connected(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.connected.len() as u32).filter(|&p| self.connected[p as usize])
    }

    /// The next reconnect due, if any.
    pub fn next_ms(&self) -> Option<u64> {
        self.due.iter().map(|(t, _)| *t).min()
    }

    /// Record a disconnect lasting until `until_ms` (`u64::MAX`: for
    /// good); say whether the pair was connected (distribution must then
    /// forget the peer).
    pub fn down(&mut self, peer: u32, until_ms: u64) -> bool {
        let p = peer as usize;
        self.down_until[p] = self.down_until[p].max(until_ms);
        if until_ms != u64::MAX {
            self.due.push((until_ms, peer));
        }
        std::mem::replace(&mut self.connected[p], false)
    }

    /// The reconnects due by `now_ms`, each peer once and in ascending
    /// order, marked connected (distribution must connect them).
    pub fn reconnect_due(&mut self, now_ms: u64) -> Vec<u32> {
        let mut due: Vec<u32> = Vec::new();
        self.due.retain(|&(t, p)| {
            if t <= now_ms {
                due.push(p);
                false
            } else {
                true
            }
        });
        due.sort_unstable();
        due.dedup();
        due.retain(|&p| {
            let i = p as usize;
            if self.connected[i] || self.down_until[i] > now_ms {
                return false;
            }
            self.connected[i] = true;
            self.reconnects += 1;
            true
        });
        due
    }

    /// A reputation change distribution reported about `peer`: whether it
    /// is disconnected by it now, banned for the rest of the run.
    pub fn banned_by(&mut self, peer: u32, value: i32) -> bool {
        self.reputation(peer, value) && self.down(peer, u64::MAX)
    }

    /// A peer's view reached us at `now_ms`: `None` if we do not take it
    /// (the pair is down, or the peer banned); otherwise whether the peer
    /// is newly connected by it.
    pub fn view_from(&mut self, from: u32, now_ms: u64) -> Option<bool> {
        let i = from as usize;
        if self.down_until[i] > now_ms || self.reputation[i] < BANNED_THRESHOLD {
            return None;
        }
        if self.connected[i] {
            return Some(false);
        }
        self.connected[i] = true;
        self.reconnects += 1;
        Some(true)
    }

    /// A reputation change distribution reported about `peer`: say
    /// whether it is banned now (disconnected for the rest of the run).
    pub fn reputation(&mut self, peer: u32, value: i32) -> bool {
        let Some(r) = self.reputation.get_mut(peer as usize) else {
            return false;
        };
        *r += i64::from(value);
        *r < BANNED_THRESHOLD
    }
}

/// When a validator is offline: from its block's slot on (offline ones),
/// until another's, if it comes back.
pub(crate) struct Presence {
    offline_from_ms: Option<u64>,
    back_ms: Option<u64>,
    /// Whether it went offline already, and came back.
    gone: bool,
    returned: bool,
}

/// What a moment is for a validator's presence.
pub(crate) struct Turn {
    /// It goes offline now, until this moment (`u64::MAX`: for good).
    pub leaves_until: Option<u64>,
    /// It handles the moment (`Some`), coming back in it (`Some(true)`);
    /// `None`: it is away.
    pub here: Option<bool>,
}

impl Presence {
    /// The presence of a validator with `behaviour` on the chain `blocks`.
    pub fn new(behaviour: Behaviour, blocks: &[Block]) -> Presence {
        let (offline_from_ms, back_ms) = match behaviour {
            Behaviour::Offline(OfflineSpan {
                at_block,
                until_block,
            }) => (
                blocks.get(at_block as usize - 1).map(slot_ms),
                until_block.and_then(|u| blocks.get(u as usize - 1).map(slot_ms)),
            ),
            _ => (None, None),
        };
        Presence {
            offline_from_ms,
            back_ms,
            gone: false,
            returned: false,
        }
    }

    /// Whether it is offline at `now_ms`.
    pub fn is_offline(&self, now_ms: u64) -> bool {
        self.offline_from_ms.is_some_and(|t| now_ms >= t)
            && !matches!(self.back_ms, Some(b) if now_ms >= b)
    }

    /// The next moment it has something to do, of `next` (its own work)
    /// and its going and coming back.
    pub fn next_ms(&self, next: Option<u64>) -> Option<u64> {
        match self.offline_from_ms {
            // Wake to go offline at the latest.
            Some(off) if !self.gone => [next, Some(off)].into_iter().flatten().min(),
            // Offline: wake only to come back.
            Some(_) if !self.returned => self.back_ms,
            _ => next,
        }
    }

    /// Moment `now_ms` comes: whether it goes now, and whether it is here.
    pub fn turn(&mut self, now_ms: u64) -> Turn {
        let mut turn = Turn {
            leaves_until: None,
            here: Some(false),
        };
        if let Some(off) = self.offline_from_ms {
            if !self.gone && now_ms >= off {
                self.gone = true;
                turn.leaves_until = Some(self.back_ms.unwrap_or(u64::MAX));
            }
            if self.gone && !self.returned {
                match self.back_ms {
                    Some(b) if now_ms >= b => {
                        self.returned = true;
                        turn.here = Some(true);
                    }
                    _ => turn.here = None,
                }
            }
        }
        turn
    }
}

/// The reconnect delay of the `seq`-th notification of `from` to `to`,
/// ms, drawn from the run's seed (so every process draws the same).
pub(crate) fn reconnect_delay_ms(model: &Model, from: u32, to: u32, seq: u64) -> u64 {
    let subject = (u64::from(from) << 44) ^ (u64::from(to) << 24) ^ seq;
    let mut rng = stream(model.seed, b"reconnect", subject);
    let (mean, sd) = model.reconnect_ms;
    let d = Normal::new(mean, sd.max(0.0)).map_or(mean, |n| n.sample(&mut rng));
    (d.max(1.0)).ceil() as u64
}

/// A view's heads as they travel.
pub(crate) fn heads_of(view: &View) -> Vec<[u8; 32]> {
    view.heads.iter().map(|h| h.0).collect()
}

/// A view as it arrived.
pub(crate) fn view_of(heads: &[[u8; 32]], finalized: u32) -> View {
    View {
        heads: heads.iter().map(|h| Hash(*h)).collect(),
        finalized_number: finalized,
    }
}

/// The protocol's side of its connections: what it sends over the links,
/// what the links lose, what it hears about the connection itself.
impl Protocol {
    /// The sequence number of the next packet.
    fn next_seq(&mut self) -> u64 {
        let seq = self.seq;
        self.seq += 1;
        seq
    }

    /// A message about the connection to `to`, through our bandwidth.
    fn transmit_connection(&mut self, to: u32, message: Connection) {
        let seq = self.next_seq();
        self.ready
            .transmits
            .push(Transmit::Connection { to, seq, message });
    }

    /// Outside the bandwidth and never lost, to `to`: a finality vote, or
    /// the news that we went away.
    fn transmit_beyond(&mut self, to: u32, finality: Option<u32>, connection: Option<Connection>) {
        let seq = self.next_seq();
        self.ready.transmits.push(Transmit::Beyond {
            to,
            seq,
            finality,
            connection,
        });
    }

    /// Our finality vote, to every other validator.
    pub(crate) fn transmit_finality_vote(&mut self, up_to: u32) {
        let me = self.index;
        for to in (0..self.n).filter(|&p| p != me) {
            self.transmit_beyond(to, Some(up_to), None);
        }
    }

    /// Cut the pending sends into notifications and put them on the links;
    /// one the link loses disconnects the pair, until a delay drawn for it.
    pub(crate) fn flush_sends(&mut self, now_ms: u64, cx: Cx<'_>) {
        if self.sends.is_empty() {
            return;
        }
        let mut lost = Vec::new();
        for (peer, message) in batch_notifications(self.sends.drain(..)) {
            let seq = self.seq;
            self.seq += 1;
            let to = peer.0;
            let dropped = cx
                .network
                .is_some_and(|model| model.links.lost(self.index, to, seq));
            let known = if cx.verdicts.across_processes() {
                cx.verdicts.known(&message)
            } else {
                Vec::new()
            };
            self.ready.transmits.push(Transmit::Notification {
                to,
                seq,
                message,
                known,
                lost: dropped,
            });
            if dropped {
                lost.push((to, seq));
            }
        }
        let Some(model) = cx.network else {
            return;
        };
        for (peer, seq) in lost {
            let until_ms = now_ms + reconnect_delay_ms(model, self.index, peer, seq);
            let was_up = self.peers.down(peer, until_ms);
            self.transmit_connection(peer, Connection::Disconnect { until_ms });
            if was_up {
                self.peer_disconnected(peer);
            }
        }
    }

    /// Our view, as it travels.
    fn own_view(&self) -> (Vec<[u8; 32]>, u32) {
        let view = self.view();
        (heads_of(&view), view.finalized_number)
    }

    /// The reconnects due by `now_ms`: each peer connected again, and
    /// greeted with our view by the lower index of the pair (or by us,
    /// `back` from offline).
    pub(crate) fn reconnect_due(&mut self, now_ms: u64, back: bool) {
        for p in self.peers.reconnect_due(now_ms) {
            self.peer_connected(p);
            if back || self.index < p {
                let (heads, finalized) = self.own_view();
                self.transmit_connection(p, Connection::Hello { heads, finalized });
            }
        }
    }

    /// A message about the connection from a peer.
    pub(crate) fn connection(&mut self, now_ms: u64, from: u32, message: Connection, cx: Cx<'_>) {
        let hello = matches!(message, Connection::Hello { .. });
        match message {
            Connection::Disconnect { until_ms } => {
                if self.peers.down(from, until_ms) {
                    self.peer_disconnected(from);
                }
            }
            Connection::Hello { heads, finalized } | Connection::View { heads, finalized } => {
                let Some(newly) = self.peers.view_from(from, now_ms) else {
                    return;
                };
                if newly {
                    self.peer_connected(from);
                }
                if hello {
                    let (heads, finalized) = self.own_view();
                    self.transmit_connection(from, Connection::View { heads, finalized });
                }
                self.peer_view(now_ms, from, view_of(&heads, finalized), cx);
            }
        }
    }

    /// We go offline: everyone is disconnected until `until_ms`, and
    /// learns it over the link (outside the bandwidth: nothing of ours is
    /// sent after this).
    pub(crate) fn go_offline(&mut self, until_ms: u64) {
        let me = self.index;
        for p in (0..self.n).filter(|&p| p != me) {
            if self.peers.down(p, until_ms) {
                self.peer_disconnected(p);
            }
            self.transmit_beyond(p, None, Some(Connection::Disconnect { until_ms }));
        }
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
        let mut p = Peers::new(3, &[1, 2]);
        assert!(p.down(1, 500));
        assert!(!p.down(1, 300), "already down");
        assert_eq!(p.down_until[1], 500);
        assert_eq!(p.next_ms(), Some(300));
        assert!(!p.connected[1]);
        assert!(p.connected[2]);
        p.down(2, u64::MAX);
        assert_eq!(p.due.len(), 2, "no reconnect for good");
    }

    #[test]
    fn presence_goes_at_its_slot_and_comes_back_at_another() {
        let mut p = Presence {
            offline_from_ms: Some(100),
            back_ms: Some(300),
            gone: false,
            returned: false,
        };
        assert!(!p.is_offline(99));
        assert_eq!(p.next_ms(Some(500)), Some(100), "wakes to go");
        let t = p.turn(50);
        assert_eq!((t.leaves_until, t.here), (None, Some(false)));
        let t = p.turn(100);
        assert_eq!(
            (t.leaves_until, t.here),
            (Some(300), None),
            "goes until back"
        );
        assert!(p.is_offline(299));
        assert_eq!(p.next_ms(Some(150)), Some(300), "wakes only to come back");
        let t = p.turn(200);
        assert_eq!((t.leaves_until, t.here), (None, None));
        let t = p.turn(300);
        assert_eq!((t.leaves_until, t.here), (None, Some(true)), "back");
        assert!(!p.is_offline(300));
        let t = p.turn(400);
        assert_eq!((t.leaves_until, t.here), (None, Some(false)));
        assert_eq!(p.next_ms(Some(450)), Some(450));

        let mut gone = Presence {
            offline_from_ms: Some(100),
            back_ms: None,
            gone: false,
            returned: false,
        };
        let t = gone.turn(120);
        assert_eq!((t.leaves_until, t.here), (Some(u64::MAX), None), "for good");
        assert_eq!(gone.next_ms(Some(130)), None);
    }
}
