//! Reading a notification for routing only: where each item of a v3
//! approval-distribution message lies in the bytes and whose validator it
//! carries, without building the items. It accepts and refuses exactly
//! what [`ValidationProtocol::decode_wire`] does, with the same
//! [`DecodeError`] (the same reads in the same order, without allocating
//! bitfields or item lists); a router reads this and leaves decoding the
//! items to the workers they go to ([`decode_item`]). Upstream's
//! network-bridge decodes before approval-distribution sees a message
//! (`polkadot/node/network/bridge/src/rx/mod.rs`); this is the split that
//! keeps decoding off the one router thread.

use crate::bitfield::read_bitfield_len;
use crate::cert::VrfSignature;
use crate::codec::{decode_all, DecodeError, Limits, Reader};
use crate::ids::ValidatorIndex;
use crate::wire::{
    check_size, read_approval_distribution_variant, ApprovalDistributionMessage, AssignmentItem,
    IndirectSignedApprovalVote, MIN_APPROVAL_ITEM, MIN_ASSIGNMENT_ITEM,
};
use std::ops::Range;

/// Which list a message carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    Assignments,
    Approvals,
}

/// A message's items: their kind, and for each its validator and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skim {
    pub kind: ItemKind,
    pub items: Vec<(ValidatorIndex, Range<usize>)>,
}

/// Skim one notification (the bytes `ValidationProtocol::decode_wire`
/// takes).
pub fn skim_wire(bytes: &[u8]) -> Result<Skim, DecodeError> {
    check_size(bytes)?;
    decode_all(bytes, Limits::WIRE, |r| {
        read_approval_distribution_variant(r)?;
        skim_message(r)
    })
}

fn skim_message(r: &mut Reader<&[u8]>) -> Result<Skim, DecodeError> {
    let offset = r.offset();
    let kind = match r.u8("approval-distribution message kind")? {
        0 => ItemKind::Assignments,
        1 => ItemKind::Approvals,
        index => {
            return Err(DecodeError::UnknownVariant {
                what: "approval-distribution message",
                index,
                offset,
            })
        }
    };
    let n = match kind {
        ItemKind::Assignments => r.list_len(MIN_ASSIGNMENT_ITEM, "assignment count")?,
        ItemKind::Approvals => r.list_len(MIN_APPROVAL_ITEM, "approval count")?,
    };
    let mut items = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let start = r.offset();
        let v = match kind {
            ItemKind::Assignments => {
                r.array::<32>("block hash")?;
                let v = r.u32("validator index")?;
                skip_cert_kind(r)?;
                VrfSignature::decode_from(r)?;
                skip_bitfield(r)?;
                v
            }
            ItemKind::Approvals => {
                r.array::<32>("block hash")?;
                skip_bitfield(r)?;
                let v = r.u32("validator index")?;
                r.array::<64>("signature")?;
                v
            }
        };
        items.push((ValidatorIndex(v), start..r.offset()));
    }
    Ok(Skim { kind, items })
}

/// `AssignmentCertKind::decode_from`, reading only.
fn skip_cert_kind(r: &mut Reader<&[u8]>) -> Result<(), DecodeError> {
    let offset = r.offset();
    match r.u8("certificate kind")? {
        0 => skip_bitfield(r),
        1 => r.u32("core index").map(drop),
        2 => r.u32("sample").map(drop),
        index => Err(DecodeError::UnknownVariant {
            what: "certificate kind",
            index,
            offset,
        }),
    }
}

/// `Bitfield::decode_from`, reading only.
fn skip_bitfield(r: &mut Reader<&[u8]>) -> Result<(), DecodeError> {
    let (_, mut n_bytes) = read_bitfield_len(r)?;
    let mut buf = [0u8; 64];
    while n_bytes > 0 {
        let k = n_bytes.min(buf.len());
        r.bytes(&mut buf[..k], "bitfield bytes")?;
        n_bytes -= k;
    }
    Ok(())
}

/// Decode one item of a skimmed message (`bytes` is its range) as a
/// message of that one item.
pub fn decode_item(
    kind: ItemKind,
    bytes: &[u8],
) -> Result<ApprovalDistributionMessage, DecodeError> {
    decode_all(bytes, Limits::WIRE, |r| {
        Ok(match kind {
            ItemKind::Assignments => {
                ApprovalDistributionMessage::assignments([AssignmentItem::decode_from(r)?])
            }
            ItemKind::Approvals => {
                ApprovalDistributionMessage::approvals([IndirectSignedApprovalVote::decode_from(
                    r,
                )?])
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitfield::{CandidateBitfield, CoreBitfield};
    use crate::cert::{AssignmentCert, AssignmentCertKind};
    use crate::ids::{CoreIndex, Hash};
    use crate::vote::ValidatorSignature;
    use crate::wire::{IndirectAssignmentCert, ValidationProtocol};
    use parity_scale_codec::Encode;

    fn vrf(seed: u8) -> VrfSignature {
        VrfSignature {
            pre_output: [seed; 32],
            proof: [0; 64],
        }
    }

    fn messages() -> Vec<Vec<u8>> {
        let assignment = |v: u32, kind: AssignmentCertKind, claimed: &[u32]| AssignmentItem {
            cert: IndirectAssignmentCert {
                block_hash: Hash([v as u8; 32]),
                validator: ValidatorIndex(v),
                cert: AssignmentCert {
                    kind,
                    vrf: vrf(v as u8),
                },
            },
            claimed: CandidateBitfield::from_indices(claimed).unwrap(),
        };
        let vote = |v: u32, c: &[u32]| IndirectSignedApprovalVote {
            block_hash: Hash([9; 32]),
            candidate_indices: CandidateBitfield::from_indices(c).unwrap(),
            validator: ValidatorIndex(v),
            signature: ValidatorSignature([v as u8; 64]),
        };
        let wrap =
            |m: ApprovalDistributionMessage| ValidationProtocol::ApprovalDistribution(m).encode();
        vec![
            wrap(ApprovalDistributionMessage::assignments([
                assignment(
                    3,
                    AssignmentCertKind::RelayVRFDelay {
                        core_index: CoreIndex(4),
                    },
                    &[4],
                ),
                assignment(
                    8,
                    AssignmentCertKind::RelayVRFModuloCompact {
                        core_bitfield: CoreBitfield::from_indices(&[1, 70]).unwrap(),
                    },
                    &[1, 70],
                ),
                assignment(1, AssignmentCertKind::RelayVRFModulo { sample: 2 }, &[0]),
            ])),
            wrap(ApprovalDistributionMessage::approvals([
                vote(5, &[2]),
                vote(6, &[0, 3, 9]),
            ])),
            wrap(ApprovalDistributionMessage::approvals([])),
        ]
    }

    fn same_verdict(bytes: &[u8]) {
        let full = ValidationProtocol::decode_wire(bytes);
        let skim = skim_wire(bytes);
        match (&full, &skim) {
            (Ok(ValidationProtocol::ApprovalDistribution(m)), Ok(s)) => {
                assert_eq!(m.len(), s.items.len());
                let items: Vec<_> = s
                    .items
                    .iter()
                    .map(|(_, range)| decode_item(s.kind, &bytes[range.clone()]).unwrap())
                    .collect();
                match m {
                    ApprovalDistributionMessage::Assignments(a) => {
                        for ((want, got), (v, _)) in a.iter().zip(&items).zip(&s.items) {
                            assert_eq!(want.cert.validator, *v);
                            assert_eq!(
                                got,
                                &ApprovalDistributionMessage::Assignments(smallvec::smallvec![
                                    want.clone()
                                ])
                            );
                        }
                    }
                    ApprovalDistributionMessage::Approvals(a) => {
                        for ((want, got), (v, _)) in a.iter().zip(&items).zip(&s.items) {
                            assert_eq!(want.validator, *v);
                            assert_eq!(
                                got,
                                &ApprovalDistributionMessage::Approvals(smallvec::smallvec![
                                    want.clone()
                                ])
                            );
                        }
                    }
                }
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "bytes {bytes:02x?}"),
            _ => panic!("decode {full:?} but skim {skim:?} for {bytes:02x?}"),
        }
    }

    /// Every truncation and every single-byte change of valid messages is
    /// judged by the skim exactly as by the decoder.
    #[test]
    fn skim_accepts_and_refuses_what_decoding_does_with_the_same_error() {
        for m in messages() {
            same_verdict(&m);
            for n in 0..m.len() {
                same_verdict(&m[..n]);
            }
            for at in 0..m.len() {
                for x in [0x01u8, 0x80, 0xff] {
                    let mut b = m.clone();
                    b[at] ^= x;
                    same_verdict(&b);
                }
            }
            let mut longer = m.clone();
            longer.push(0);
            same_verdict(&longer);
        }
    }
}
