//! The protocol's side of its connections (`crate::peers` holds their
//! state): what it puts on the links — notifications, the connection's own
//! messages, finality votes — made ready as `crate::moment::Transmit`s,
//! each with its sequence number and, for a notification, whether the
//! link loses it (the mesh's draw for that number,
//! `tranche_links::mesh`); a loss disconnecting the pair until a drawn
//! delay, the reconnect and its hello, the connection's messages from
//! peers, going offline. Among fixed peers (`crate::fixed`: no run model)
//! nothing is lost and no one is banned.

use crate::moment::Transmit;
use crate::packet::Connection;
use crate::peers::{heads_of, reconnect_delay_ms, view_of};
use crate::protocol::{Cx, Protocol};
use tranche_distribution::batch_notifications_into;

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
        let mut batched = std::mem::take(&mut self.batched);
        batch_notifications_into(&mut self.sends, &mut batched);
        for (peer, message) in batched.drain(..) {
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
        self.batched = batched;
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
    use crate::setup::Shared;
    use crate::verdicts::{Verdicts, Verify};
    use std::collections::{BTreeMap, VecDeque};
    use tranche_config::approval_network::parse;

    /// Validator 0 alone (nobody answers), on links that lose almost a
    /// third of the notifications, every tranche triggered so that it
    /// sends a lot.
    const SPEC: &str = "!ApprovalNetwork\nn_validators: 12\nn_cores: 2\nnum_blocks: 2\n\
                        needed_approvals: 4\nloss_probability: 0.3\n\
                        trigger_all_tranches: true\nrun_after_last_block_secs: 30\n";

    #[test]
    fn a_moment_numbers_its_packets_and_a_lost_notification_disconnects_the_pair() {
        let spec = parse(SPEC, "test").unwrap();
        let shared = Shared::new(&spec, 5, Verify::Model);
        let verdicts = Verdicts::new(Verify::Model, false, &shared.verdicts);
        let cx = Cx {
            verdicts: &verdicts,
            network: Some(&shared.model),
        };
        let mut protocol = Protocol::new(shared.setup(0));
        let (mut next_seq, mut notifications, mut lost, mut hellos) = (0, 0, 0, 0);
        // Peers disconnected by a lost notification: until when.
        let mut down: BTreeMap<u32, u64> = BTreeMap::new();
        let mut now = shared.start_ms;
        while now <= shared.end_ms {
            let ready = protocol.moment(now, std::iter::empty(), cx);
            // Lost notifications whose disconnect is still to come.
            let mut pending = VecDeque::new();
            for transmit in ready.transmits.drain(..) {
                let (to, seq) = match &transmit {
                    Transmit::Notification { to, seq, .. }
                    | Transmit::Connection { to, seq, .. }
                    | Transmit::Beyond { to, seq, .. } => (*to, *seq),
                };
                assert_eq!(seq, next_seq, "every packet takes the next number");
                next_seq += 1;
                match transmit {
                    Transmit::Notification { lost: l, .. } => {
                        assert_eq!(l, shared.model.links.lost(0, to, seq), "the mesh's draw");
                        assert!(!down.contains_key(&to), "nothing to {to} while down");
                        notifications += 1;
                        if l {
                            lost += 1;
                            pending.push_back(to);
                        }
                    }
                    Transmit::Connection {
                        message: Connection::Disconnect { until_ms },
                        ..
                    } => {
                        assert_eq!(pending.pop_front(), Some(to), "after its lost notification");
                        assert!(until_ms > now);
                        down.insert(to, until_ms);
                    }
                    Transmit::Connection {
                        message: Connection::Hello { .. },
                        ..
                    } => {
                        let until = down.remove(&to).expect("a hello only after a disconnect");
                        assert!(until <= now, "reconnected at its moment");
                        hellos += 1;
                    }
                    other => panic!("unexpected {other:?}"),
                }
            }
            assert!(pending.is_empty(), "every loss disconnects in its moment");
            assert!(ready.approved.is_empty(), "nobody else approves");
            match protocol.next_event_ms() {
                Some(t) => now = t.max(now + 1),
                None => break,
            }
        }
        assert!(
            notifications > 20 && lost > 0 && hellos > 0,
            "{notifications} {lost} {hellos}"
        );
        assert_eq!(u64::from(protocol.reconnects()), hellos);
    }
}
