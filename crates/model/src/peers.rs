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
//! owns a `Peers` and a `Presence`; `crate::connections` acts on
//! them), so that a moment needs no answer from the links.

use rand_distr::{Distribution, Normal};
use tranche_distribution::View;
use tranche_links::mesh::stream;
use tranche_primitives::{Block, Hash};

use crate::drawn::Model;
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
