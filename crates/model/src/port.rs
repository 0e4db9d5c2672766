//! One validator's end of the simulated links: its egress and ingress
//! bandwidth (the token bucket of `crates/links/src/limiter.rs`), the
//! link's latency (`tranche_links::mesh`, through the run's [`Model`])
//! and the bytes and notifications it counts. It carries out the packets
//! a moment made ready (`crate::moment::Transmit`: numbered, and a lost
//! notification marked so, by the protocol). It knows packets and bytes,
//! not the protocol.

use crate::drawn::Model;
use crate::moment::Transmit;
use crate::packet::{Connection, Packet};
use crate::time::{ms_ceil, sim};
use parity_scale_codec::Encode;
use tranche_links::RateLimiter;
use tranche_primitives::ApprovalDistributionMessage;

/// What a validator's links counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counted {
    pub bytes_out: u64,
    pub bytes_in: u64,
    pub notifications_out: u64,
    pub notifications_in: u64,
}

/// What a packet carries over the link, and its length on the wire.
struct Carried {
    message: Option<ApprovalDistributionMessage>,
    len: u64,
    known: Vec<Option<u32>>,
    connection: Option<Connection>,
}

/// A validator's end of the links.
pub(crate) struct Port {
    me: u32,
    egress: RateLimiter,
    ingress: RateLimiter,
    pub counted: Counted,
}

impl Port {
    pub fn new(me: u32, egress: RateLimiter, ingress: RateLimiter) -> Port {
        Port {
            me,
            egress,
            ingress,
            counted: Counted::default(),
        }
    }

    /// A packet reaches us at `now_ms`: when it has passed our ingress
    /// bandwidth (a disconnect and a finality vote are not bytes of ours).
    pub fn arrive(&mut self, now_ms: u64, packet: &Packet) -> u64 {
        if packet.finality.is_some() {
            return now_ms;
        }
        match packet.connection.as_deref() {
            Some(Connection::Disconnect { .. }) => return now_ms,
            Some(_) => {}
            None => self.counted.notifications_in += 1,
        }
        self.counted.bytes_in += packet.len;
        ms_ceil(self.ingress.reap(sim(now_ms), packet.len))
    }

    /// Carry out one packet a moment `now_ms` made ready: to `out` as
    /// (arrival moment, packet), unless the link loses it.
    pub fn transmit(
        &mut self,
        now_ms: u64,
        transmit: Transmit,
        model: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        match transmit {
            Transmit::Notification {
                to,
                seq,
                message,
                known,
                lost,
            } => {
                // Its encoded length, through our egress, even if lost.
                self.counted.notifications_out += 1;
                let len = message.notification_len() as u64;
                let carried = Carried {
                    message: Some(message),
                    len,
                    known,
                    connection: None,
                };
                self.through_egress(now_ms, (to, seq), carried, lost, model, out);
            }
            Transmit::Connection { to, seq, message } => {
                let len = match &message {
                    Connection::Disconnect { .. } => 0,
                    Connection::Hello { heads, finalized }
                    | Connection::View { heads, finalized } => {
                        (heads, finalized).encoded_size() as u64
                    }
                };
                let carried = Carried {
                    message: None,
                    len,
                    known: Vec::new(),
                    connection: Some(message),
                };
                self.through_egress(now_ms, (to, seq), carried, false, model, out);
            }
            Transmit::Beyond {
                to,
                seq,
                finality,
                connection,
            } => {
                // The transport's bytes (the news that we went away), not
                // counted.
                let packet = Packet {
                    to,
                    from: self.me,
                    seq,
                    message: None,
                    len: 0,
                    finality,
                    known: Vec::new(),
                    connection: connection.map(Box::new),
                };
                out.push((now_ms + model.links.latency_ms(self.me, to), packet));
            }
        }
    }

    /// What is carried to `to` through our egress, then the link's
    /// latency, unless `lost` on the way.
    fn through_egress(
        &mut self,
        now_ms: u64,
        (to, seq): (u32, u64),
        carried: Carried,
        lost: bool,
        model: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let Carried {
            message,
            len,
            known,
            connection,
        } = carried;
        self.counted.bytes_out += len;
        let left = ms_ceil(self.egress.reap(sim(now_ms), len));
        if lost {
            return;
        }
        let packet = Packet {
            to,
            from: self.me,
            seq,
            message,
            len,
            finality: None,
            known,
            connection: connection.map(Box::new),
        };
        out.push((left + model.links.latency_ms(self.me, to), packet));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tranche_config::approval_network::NetworkSpec;
    use tranche_primitives::{
        AssignmentCert, AssignmentCertKind, AssignmentItem, CandidateBitfield, CoreBitfield,
        CoreIndex, Hash, IndirectAssignmentCert, IndirectSignedApprovalVote, ValidationProtocol,
        ValidatorIndex, ValidatorSignature, VrfSignature,
    };

    fn item(kind: AssignmentCertKind, claimed: CandidateBitfield) -> AssignmentItem {
        AssignmentItem {
            cert: IndirectAssignmentCert {
                block_hash: Hash([0x11; 32]),
                validator: ValidatorIndex(70_000),
                cert: AssignmentCert {
                    kind,
                    vrf: VrfSignature {
                        pre_output: [0xaa; 32],
                        proof: [0; 64],
                    },
                },
            },
            claimed,
        }
    }

    fn vote(indices: &[u32]) -> IndirectSignedApprovalVote {
        IndirectSignedApprovalVote {
            block_hash: Hash([0x22; 32]),
            candidate_indices: CandidateBitfield::from_indices(indices).unwrap(),
            validator: ValidatorIndex(3),
            signature: ValidatorSignature([0xcc; 64]),
        }
    }

    /// Every message kind: v1 modulo, v2 compact and delay assignments,
    /// single and coalesced approvals, bitfields of every width class
    /// (under and over a byte, a compact length of one and two bytes),
    /// a full batch of each.
    fn every_kind() -> Vec<ApprovalDistributionMessage> {
        let wide: Vec<u32> = (0..300).step_by(7).collect();
        vec![
            ApprovalDistributionMessage::assignments([item(
                AssignmentCertKind::RelayVRFModulo { sample: 2 },
                CandidateBitfield::from_index(5),
            )]),
            ApprovalDistributionMessage::assignments([item(
                AssignmentCertKind::RelayVRFModuloCompact {
                    core_bitfield: CoreBitfield::from_indices(&[0, 9, 63, 64]).unwrap(),
                },
                CandidateBitfield::from_indices(&[0, 9, 63, 64]).unwrap(),
            )]),
            ApprovalDistributionMessage::assignments([
                item(
                    AssignmentCertKind::RelayVRFDelay {
                        core_index: CoreIndex(299),
                    },
                    CandidateBitfield::from_index(299),
                ),
                item(
                    AssignmentCertKind::RelayVRFModuloCompact {
                        core_bitfield: CoreBitfield::from_indices(&wide).unwrap(),
                    },
                    CandidateBitfield::from_indices(&wide).unwrap(),
                ),
            ]),
            ApprovalDistributionMessage::assignments((0..193).map(|c| {
                item(
                    AssignmentCertKind::RelayVRFDelay {
                        core_index: CoreIndex(c),
                    },
                    CandidateBitfield::from_index(c),
                )
            })),
            ApprovalDistributionMessage::approvals([vote(&[0])]),
            ApprovalDistributionMessage::approvals([vote(&[1, 8, 70]), vote(&wide)]),
            ApprovalDistributionMessage::approvals((0..266).map(|c| vote(&[c]))),
        ]
    }

    #[test]
    fn the_bytes_counted_are_the_encoded_notifications_length() {
        let model = Model::new(&NetworkSpec::default(), 0);
        let bandwidth = || RateLimiter::new(model.bandwidth);
        let mut sender = Port::new(0, bandwidth(), bandwidth());
        let mut receiver = Port::new(1, bandwidth(), bandwidth());
        let mut out = Vec::new();
        let mut expected = 0;
        for (seq, m) in (0..).zip(every_kind()) {
            let encoded = ValidationProtocol::ApprovalDistribution(m.clone()).encode();
            assert_eq!(m.notification_bytes(), encoded);
            expected += encoded.len() as u64;
            let notification = Transmit::Notification {
                to: 1,
                seq,
                message: m.clone(),
                known: Vec::new(),
                lost: false,
            };
            sender.transmit(0, notification, &model, &mut out);
            assert_eq!(out.len() as u64, seq + 1, "sent");
            let (_, packet) = out.last().expect("sent");
            assert_eq!((packet.to, packet.from, packet.seq), (1, 0, seq));
            assert_eq!(packet.len, encoded.len() as u64);
            assert_eq!(packet.message.as_ref(), Some(&m), "handed over as made");
            receiver.arrive(0, packet);
        }
        assert_eq!(sender.counted.bytes_out, expected);
        assert_eq!(receiver.counted.bytes_in, expected);
        assert_eq!(receiver.counted.notifications_in, out.len() as u64);
        // A lost notification's bytes leave all the same; nothing arrives.
        let m = every_kind().remove(0);
        let len = m.notification_len() as u64;
        let lost = Transmit::Notification {
            to: 1,
            seq: 99,
            message: m,
            known: Vec::new(),
            lost: true,
        };
        let sent = out.len();
        sender.transmit(0, lost, &model, &mut out);
        assert_eq!(out.len(), sent, "lost on the way");
        assert_eq!(sender.counted.bytes_out, expected + len);
        // A connection's own messages count their view's encoding.
        let heads = vec![[7u8; 32], [8u8; 32]];
        let hello = Transmit::Connection {
            to: 1,
            seq: 100,
            message: Connection::Hello {
                heads: heads.clone(),
                finalized: 3,
            },
        };
        sender.transmit(0, hello, &model, &mut out);
        assert_eq!(
            out.last().unwrap().1.len,
            (&heads, 3u32).encode().len() as u64
        );
    }

    #[test]
    fn a_packet_crosses_processes_as_its_encoding_and_garbage_is_dropped() {
        for m in every_kind() {
            let packet = Packet {
                to: 1,
                from: 0,
                seq: 9,
                len: m.notification_len() as u64,
                message: Some(m),
                finality: None,
                known: vec![Some(1)],
                connection: None,
            };
            let bytes = bincode::serialize(&packet).unwrap();
            let back: Packet = bincode::deserialize(&bytes).unwrap();
            assert_eq!(back, packet);
        }
        // Bytes from another process that do not decode: no notification
        // (the receiver drops it), not an error that would stop the run.
        #[derive(serde::Deserialize)]
        struct Form(
            #[serde(with = "crate::packet::wire_form")] Option<ApprovalDistributionMessage>,
        );
        for garbage in [
            vec![4u8, 9, 9],
            vec![3],
            vec![],
            vec![4, 0, 0xfe, 0xff, 0xff, 0xff],
        ] {
            let bytes = bincode::serialize(&Some(garbage)).unwrap();
            let Form(m) = bincode::deserialize(&bytes).unwrap();
            assert_eq!(m, None);
        }
    }
}
