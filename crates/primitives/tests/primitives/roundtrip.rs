//! Property tests of the wire codec: every message type, generated at random
//! (bitfields of 0–500 bits, all three certificate kinds, assignment and
//! approval lists up to the full batch sizes, the enclosing
//! `ValidationProtocol`), encodes and decodes back to the same value through
//! both `decode_wire` and parity-scale-codec's `Decode`; and no decoder
//! panics on any byte string, random or a mutated valid encoding.

use bitvec::prelude::{BitVec, Lsb0};
use parity_scale_codec::{Decode, DecodeAll, Encode};
use proptest::prelude::*;
use std::fmt::Debug;
use tranche_primitives::cert::{AssignmentCertKind, VrfSignature};
use tranche_primitives::codec::{decode_all, Limits};
use tranche_primitives::constants::{
    MAX_APPROVAL_BATCH_SIZE, MAX_ASSIGNMENT_BATCH_SIZE, MAX_BITFIELD_SIZE,
};
use tranche_primitives::{
    ApprovalDistributionMessage, AssignmentCert, AssignmentItem, CandidateBitfield, CoreBitfield,
    CoreIndex, Hash, IndirectAssignmentCert, IndirectSignedApprovalVote, ValidationProtocol,
    ValidatorIndex, ValidatorSignature,
};

const MAX_BITS: usize = MAX_BITFIELD_SIZE as usize;

fn bitvec(max_bits: usize) -> impl Strategy<Value = BitVec<u8, Lsb0>> {
    prop_oneof![
        // Any length, any bits.
        prop::collection::vec(any::<bool>(), 0..=max_bits).prop_map(BitVec::from_iter),
        // Sparse, minimal bitfields as honest nodes build them.
        prop::collection::vec(0..max_bits as u32, 1..8).prop_map(|ones| {
            let len = *ones.iter().max().unwrap() as usize + 1;
            let mut bits = BitVec::repeat(false, len);
            for i in ones {
                bits.set(i as usize, true);
            }
            bits
        }),
    ]
}

fn candidate_bitfield() -> impl Strategy<Value = CandidateBitfield> {
    bitvec(MAX_BITS).prop_map(CandidateBitfield::from_bitvec)
}

fn core_bitfield() -> impl Strategy<Value = CoreBitfield> {
    bitvec(MAX_BITS).prop_map(CoreBitfield::from_bitvec)
}

/// A canonical scalar: any 256-bit value below 2^252 is below the group
/// order, which is what VRF proof decoding demands.
fn scalar() -> impl Strategy<Value = [u8; 32]> {
    any::<[u8; 32]>().prop_map(|mut s| {
        s[31] &= 0x0f;
        s
    })
}

fn vrf() -> impl Strategy<Value = VrfSignature> {
    (any::<[u8; 32]>(), scalar(), scalar()).prop_map(|(pre_output, c, s)| {
        let mut proof = [0u8; 64];
        proof[..32].copy_from_slice(&c);
        proof[32..].copy_from_slice(&s);
        VrfSignature { pre_output, proof }
    })
}

fn cert_kind() -> impl Strategy<Value = AssignmentCertKind> {
    prop_oneof![
        core_bitfield()
            .prop_map(|core_bitfield| AssignmentCertKind::RelayVRFModuloCompact { core_bitfield }),
        any::<u32>().prop_map(|c| AssignmentCertKind::RelayVRFDelay {
            core_index: CoreIndex(c)
        }),
        any::<u32>().prop_map(|sample| AssignmentCertKind::RelayVRFModulo { sample }),
    ]
}

fn cert() -> impl Strategy<Value = AssignmentCert> {
    (cert_kind(), vrf()).prop_map(|(kind, vrf)| AssignmentCert { kind, vrf })
}

fn indirect_cert() -> impl Strategy<Value = IndirectAssignmentCert> {
    (any::<[u8; 32]>(), any::<u32>(), cert()).prop_map(|(h, v, cert)| IndirectAssignmentCert {
        block_hash: Hash(h),
        validator: ValidatorIndex(v),
        cert,
    })
}

fn vote() -> impl Strategy<Value = IndirectSignedApprovalVote> {
    (
        any::<[u8; 32]>(),
        candidate_bitfield(),
        any::<u32>(),
        any::<[u8; 32]>(),
        any::<[u8; 32]>(),
    )
        .prop_map(|(h, candidates, v, s0, s1)| {
            let mut sig = [0u8; 64];
            sig[..32].copy_from_slice(&s0);
            sig[32..].copy_from_slice(&s1);
            IndirectSignedApprovalVote {
                block_hash: Hash(h),
                candidate_indices: candidates,
                validator: ValidatorIndex(v),
                signature: ValidatorSignature(sig),
            }
        })
}

fn assignment_item() -> impl Strategy<Value = AssignmentItem> {
    (indirect_cert(), candidate_bitfield())
        .prop_map(|(cert, claimed)| AssignmentItem { cert, claimed })
}

fn message(
    max_assignments: usize,
    max_approvals: usize,
) -> impl Strategy<Value = ApprovalDistributionMessage> {
    prop_oneof![
        prop::collection::vec(assignment_item(), 0..=max_assignments)
            .prop_map(ApprovalDistributionMessage::assignments),
        prop::collection::vec(vote(), 0..=max_approvals)
            .prop_map(ApprovalDistributionMessage::approvals),
    ]
}

/// `value` encodes, and both `decode_all` of SCALE and (for wire types) the
/// typed decoder give it back.
fn scale_round_trip<T: Encode + Decode + PartialEq + Debug>(value: &T) -> Vec<u8> {
    let enc = value.encode();
    let back = T::decode_all(&mut &enc[..]).expect("own encoding decodes");
    assert_eq!(&back, value);
    enc
}

/// A decoder's result on arbitrary bytes: if it accepts them, the value
/// re-encodes to as many bytes and decodes again to itself.
fn check_any<T: Encode + PartialEq + Debug>(
    data: &[u8],
    decode: impl Fn(&[u8]) -> Option<(T, usize)>,
) {
    if let Some((value, consumed)) = decode(data) {
        let enc = value.encode();
        assert_eq!(enc.len(), consumed);
        let (again, used) = decode(&enc).expect("re-encoding decodes");
        assert_eq!(used, enc.len());
        assert_eq!(again, value);
    }
}

fn prefix<T: Decode>(data: &[u8]) -> Option<(T, usize)> {
    let mut input = data;
    let v = T::decode(&mut input).ok()?;
    Some((v, data.len() - input.len()))
}

/// Every decoder on one byte string.
fn all_decoders(data: &[u8]) {
    check_any(data, |d| {
        ValidationProtocol::decode_wire(d)
            .ok()
            .map(|v| (v, d.len()))
    });
    check_any(data, |d| {
        ApprovalDistributionMessage::decode_wire(d)
            .ok()
            .map(|v| (v, d.len()))
    });
    check_any(data, prefix::<ValidationProtocol>);
    check_any(data, prefix::<ApprovalDistributionMessage>);
    check_any(data, prefix::<AssignmentCert>);
    check_any(data, prefix::<IndirectAssignmentCert>);
    check_any(data, prefix::<AssignmentItem>);
    check_any(data, prefix::<IndirectSignedApprovalVote>);
    check_any(data, prefix::<CandidateBitfield>);
    check_any(data, |d| {
        decode_all(d, Limits::WIRE, CandidateBitfield::decode_from)
            .ok()
            .map(|v| (v, d.len()))
    });
}

/// A small edit of a byte string.
#[derive(Debug, Clone)]
enum Mutation {
    Flip { at: usize, mask: u8 },
    Truncate { at: usize },
    Insert { at: usize, byte: u8 },
    Remove { at: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1..=255u8).prop_map(|(at, mask)| Mutation::Flip { at, mask }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Insert { at, byte }),
        any::<usize>().prop_map(|at| Mutation::Remove { at }),
    ]
}

fn mutate(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        let n = bytes.len();
        match *m {
            Mutation::Flip { at, mask } if n > 0 => bytes[at % n] ^= mask,
            Mutation::Truncate { at } => bytes.truncate(at % (n + 1)),
            Mutation::Insert { at, byte } => bytes.insert(at % (n + 1), byte),
            Mutation::Remove { at } if n > 0 => {
                bytes.remove(at % n);
            }
            _ => {}
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn bitfield_round_trips(bf in candidate_bitfield()) {
        let enc = scale_round_trip(&bf);
        prop_assert_eq!(enc.len(), {
            let n = bf.len();
            let prefix = if n < 64 { 1 } else if n < 1 << 14 { 2 } else { 4 };
            prefix + n.div_ceil(8)
        });
        let wire = decode_all(&enc, Limits::WIRE, CandidateBitfield::decode_from);
        prop_assert_eq!(wire, Ok(bf.clone()));
        // Byte-exact with parity-scale-codec's BitVec.
        prop_assert_eq!(&enc, &bf.as_bitvec().encode());
    }

    #[test]
    fn bitfield_decode_ignores_padding(bf in candidate_bitfield(), pad in any::<u8>()) {
        let mut enc = bf.encode();
        let used = bf.len() % 8;
        if used != 0 {
            *enc.last_mut().unwrap() |= pad & !((1u8 << used) - 1);
        }
        let wire = decode_all(&enc, Limits::WIRE, CandidateBitfield::decode_from);
        prop_assert_eq!(wire, Ok(bf));
    }

    #[test]
    fn cert_round_trips(c in cert()) {
        scale_round_trip(&c);
    }

    #[test]
    fn indirect_cert_round_trips(c in indirect_cert(), claimed in candidate_bitfield()) {
        scale_round_trip(&c);
        let pair = scale_round_trip(&(c.clone(), claimed.clone()));
        // The named item is upstream's pair, byte for byte, both ways.
        let item = AssignmentItem { cert: c, claimed };
        prop_assert_eq!(scale_round_trip(&item), pair.clone());
        prop_assert_eq!(AssignmentItem::decode_all(&mut &pair[..]), Ok(item));
    }

    #[test]
    fn vote_round_trips(v in vote()) {
        scale_round_trip(&v);
    }

    #[test]
    fn message_round_trips(m in message(24, 24)) {
        let enc = scale_round_trip(&m);
        prop_assert_eq!(ApprovalDistributionMessage::decode_wire(&enc), Ok(m.clone()));
        let vp = ValidationProtocol::ApprovalDistribution(m);
        let enc = scale_round_trip(&vp);
        prop_assert_eq!(enc[0], 4);
        prop_assert_eq!(ValidationProtocol::decode_wire(&enc), Ok(vp));
    }

    #[test]
    fn any_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..1024)) {
        all_decoders(&data);
    }

    #[test]
    fn any_bytes_behind_each_prefix_never_panic(
        lead in prop::sample::select(vec![
            vec![], vec![4], vec![4, 0], vec![4, 1], vec![0], vec![1], vec![2],
        ]),
        data in prop::collection::vec(any::<u8>(), 0..1024),
    ) {
        let mut bytes = lead;
        bytes.extend_from_slice(&data);
        all_decoders(&bytes);
    }

    #[test]
    fn mutated_encodings_never_panic(
        m in message(6, 6),
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let vp = ValidationProtocol::ApprovalDistribution(m).encode();
        all_decoders(&mutate(vp.clone(), &mutations));
        all_decoders(&mutate(vp[1..].to_vec(), &mutations));
    }
}

proptest! {
    // Full batches are large: fewer cases.
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn full_batches_round_trip(
        assignments in prop::collection::vec(assignment_item(), MAX_ASSIGNMENT_BATCH_SIZE),
        votes in prop::collection::vec(vote(), MAX_APPROVAL_BATCH_SIZE),
    ) {
        for m in [
            ApprovalDistributionMessage::assignments(assignments),
            ApprovalDistributionMessage::approvals(votes),
        ] {
            let vp = ValidationProtocol::ApprovalDistribution(m);
            let enc = vp.encode();
            prop_assert_eq!(ValidationProtocol::decode_wire(&enc), Ok(vp));
        }
    }
}

#[test]
fn bitfield_over_the_wire_limit_is_refused_only_on_the_wire() {
    let bf = CandidateBitfield::from_index(MAX_BITFIELD_SIZE);
    let enc = bf.encode();
    assert!(decode_all(&enc, Limits::WIRE, CandidateBitfield::decode_from).is_err());
    assert_eq!(CandidateBitfield::decode_all(&mut &enc[..]), Ok(bf));
}
