//! A moment of a validator's protocol as data, in the Ready style of
//! quinn-proto's `Transmit`s and raft-rs's `Ready`: what the links
//! delivered to it in the moment ([`Delivery`], in order), and what the
//! moment made ready for its caller to carry out ([`Ready`]: the packets
//! to put on the links as [`Transmit`]s, in the order they were made, and
//! the blocks it approved). Nothing of the caller's is called during a
//! moment.
//!
//! [`Protocol::moment`] is the one order of work in a moment, for every
//! driver (the simulation's member, `crate::member`; the benchmark's node
//! under test, `crate::fixed`).

use crate::packet::Connection;
use crate::protocol::{Cx, Protocol};
use tranche_primitives::ApprovalDistributionMessage;

/// What the links delivered to a validator.
#[derive(Debug)]
pub enum Delivery {
    /// A peer's notification.
    Notification {
        from: u32,
        message: ApprovalDistributionMessage,
    },
    /// A peer's finality vote: it approved every block up to `up_to`.
    FinalityVote { from: u32, up_to: u32 },
    /// A message about the connection itself from a peer.
    Connection { from: u32, message: Connection },
}

/// A packet a moment made ready for the links, with its sequence number
/// (every packet of a validator takes the next one).
#[derive(Debug)]
pub enum Transmit {
    /// A notification to `to`, through our bandwidth; `lost`: the link
    /// loses it on the way (its bytes still leave; the pair is
    /// disconnected). `known`: with several processes, the shared verdict
    /// of each item (`crate::packet::Packet::known`).
    Notification {
        to: u32,
        seq: u64,
        message: ApprovalDistributionMessage,
        known: Vec<Option<u32>>,
        lost: bool,
    },
    /// A message about the connection to `to`, through our bandwidth,
    /// never lost.
    Connection {
        to: u32,
        seq: u64,
        message: Connection,
    },
    /// Outside the bandwidth and never lost, over the link's latency: a
    /// finality vote, or the news that we went away.
    Beyond {
        to: u32,
        seq: u64,
        finality: Option<u32>,
        connection: Option<Connection>,
    },
}

/// What a moment made ready for the caller.
#[derive(Debug, Default)]
pub struct Ready {
    /// The packets for the links, in order.
    pub transmits: Vec<Transmit>,
    /// The blocks (by index) approved in the moment.
    pub approved: Vec<usize>,
}

impl Protocol {
    /// The moment `now_ms` with what the links delivered in it, in order:
    /// going offline (if this is the moment; away, nothing else), the CPU
    /// up to the moment, voting's due timers, the blocks whose slot has
    /// come, the reconnects due (after the blocks, those missed offline
    /// too: views carry them), the deliveries, then the CPU up to the
    /// moment's end. What it made ready is returned for the caller to
    /// carry out (and drain: the buffers are reused).
    pub fn moment(
        &mut self,
        now_ms: u64,
        deliveries: impl IntoIterator<Item = Delivery>,
        cx: Cx<'_>,
    ) -> &mut Ready {
        self.ready.transmits.clear();
        self.ready.approved.clear();
        let turn = self.presence.turn(now_ms);
        if let Some(until_ms) = turn.leaves_until {
            self.go_offline(until_ms);
        }
        let Some(back) = turn.here else {
            return &mut self.ready;
        };
        self.advance(now_ms, cx);
        self.run_timers(now_ms, cx);
        self.import_due_blocks(now_ms, cx);
        self.reconnect_due(now_ms, back);
        for delivery in deliveries {
            match delivery {
                Delivery::Notification { from, message } => {
                    self.peer_message(now_ms, from, message, cx)
                }
                Delivery::FinalityVote { from, up_to } => {
                    self.finality_vote(now_ms, from, up_to, cx)
                }
                Delivery::Connection { from, message } => {
                    self.connection(now_ms, from, message, cx)
                }
            }
        }
        self.advance(now_ms, cx);
        &mut self.ready
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
