//! The properties every decoder fuzz target checks, one function per target.
//!
//! Each function feeds an arbitrary byte string to one decoder of
//! tranche-primitives. Decoding may fail (with a typed error) but must never
//! panic; when it succeeds, re-encoding the value and decoding that again must
//! give the same value, and the encoding must be exactly as long as the bytes
//! the decoder consumed. Values are compared, not bytes: padding bits of a
//! bitfield's last byte are ignored on decode, so the re-encoding may differ
//! from the input in those bits.
//!
//! Each function returns whether at least one decoder accepted the input.
//! The same file is compiled into `crates/primitives/tests/primitives/fuzz_corpus.rs`
//! (through `#[path]`), which replays the committed corpus with these checks
//! as a regular test, so the fuzzers and the test cannot drift apart.

use bitvec::prelude::{BitVec, Lsb0};
use parity_scale_codec::{Decode, DecodeAll, Encode};
use std::fmt::Debug;
use tranche_primitives::codec::{decode_all, Limits};
use tranche_primitives::constants::MAX_BITFIELD_SIZE;
use tranche_primitives::{
    ApprovalDistributionMessage, AssignmentCert, CandidateBitfield, IndirectAssignmentCert,
    IndirectSignedApprovalVote, ValidationProtocol,
};

/// A fuzz target: its name (the corpus folder) and its check.
pub type Target = (&'static str, fn(&[u8]) -> bool);

/// Every target, by the name of its corpus folder under `fuzz/corpus/`.
pub const TARGETS: &[Target] = &[
    ("validation_protocol", validation_protocol),
    ("approval_distribution", approval_distribution),
    ("assignment_cert", assignment_cert),
    ("indirect_assignment_cert", indirect_assignment_cert),
    ("indirect_approval_vote", indirect_approval_vote),
    ("candidate_bitfield", candidate_bitfield),
];

/// Decode `data` as one whole `T` with parity-scale-codec's `DecodeAll`
/// (SCALE limits, every byte consumed) and, if that succeeds, check the
/// round trip. Returns the value.
fn scale_whole<T: Decode + Encode + PartialEq + Debug>(data: &[u8]) -> Option<T> {
    let value = T::decode_all(&mut &data[..]).ok()?;
    let enc = value.encode();
    assert_eq!(enc.len(), data.len(), "re-encoding changed the length");
    let again = T::decode_all(&mut &enc[..]).expect("re-encoding does not decode");
    assert_eq!(again, value, "round trip changed the value");
    Some(value)
}

/// Decode a `T` from the front of `data` with parity-scale-codec's `Decode`
/// (trailing bytes allowed) and, if that succeeds, check the round trip and
/// that the encoding is as long as what was consumed. Returns the value.
fn scale_prefix<T: Decode + Encode + PartialEq + Debug>(data: &[u8]) -> Option<T> {
    let mut input = data;
    let value = T::decode(&mut input).ok()?;
    let consumed = data.len() - input.len();
    let enc = value.encode();
    assert_eq!(enc.len(), consumed, "re-encoding changed the length");
    let again = T::decode_all(&mut &enc[..]).expect("re-encoding does not decode");
    assert_eq!(again, value, "round trip changed the value");
    // What was consumed decodes alone to the same value.
    let alone = T::decode_all(&mut &data[..consumed]).expect("consumed prefix does not decode");
    assert_eq!(alone, value, "consumed prefix decodes differently");
    Some(value)
}

/// `ValidationProtocol::decode_wire`, and SCALE `Decode` of the same type;
/// the router's skim (`wire_skim::skim_wire`) accepts and refuses the same
/// bytes with the same error, and its items decode to the message's.
pub fn validation_protocol(data: &[u8]) -> bool {
    let full = ValidationProtocol::decode_wire(data);
    let skim = tranche_primitives::wire_skim::skim_wire(data);
    match (&full, &skim) {
        (Err(a), Err(b)) => assert_eq!(a, b, "skim and decoding refuse differently"),
        (Ok(ValidationProtocol::ApprovalDistribution(m)), Ok(s)) => {
            assert_eq!(m.len(), s.items.len(), "skim found another item count");
            for (i, (_, range)) in s.items.iter().enumerate() {
                let one = tranche_primitives::wire_skim::decode_item(s.kind, &data[range.clone()])
                    .expect("a skimmed item does not decode");
                let want = match m {
                    ApprovalDistributionMessage::Assignments(a) => {
                        ApprovalDistributionMessage::Assignments(
                            [a[i].clone()].into_iter().collect(),
                        )
                    }
                    ApprovalDistributionMessage::Approvals(a) => {
                        ApprovalDistributionMessage::Approvals([a[i].clone()].into_iter().collect())
                    }
                };
                assert_eq!(one, want, "a skimmed item decodes differently");
            }
        }
        _ => panic!("skim and decoding disagree: {full:?} vs {skim:?}"),
    }
    let wire = full.ok();
    if let Some(msg) = &wire {
        let enc = msg.encode();
        assert_eq!(enc.len(), data.len(), "re-encoding changed the length");
        let again = ValidationProtocol::decode_wire(&enc).expect("re-encoding does not decode");
        assert_eq!(&again, msg, "round trip changed the value");
    }
    let scale = scale_whole::<ValidationProtocol>(data);
    if let Some(msg) = &wire {
        // SCALE's limits are looser than the wire's: whatever the wire
        // accepts, SCALE accepts as the same value.
        assert_eq!(
            scale.as_ref(),
            Some(msg),
            "wire and SCALE decoding disagree"
        );
    }
    wire.is_some() || scale.is_some()
}

/// `ApprovalDistributionMessage::decode_wire`, and SCALE `Decode`.
pub fn approval_distribution(data: &[u8]) -> bool {
    let wire = ApprovalDistributionMessage::decode_wire(data).ok();
    if let Some(msg) = &wire {
        let enc = msg.encode();
        assert_eq!(enc.len(), data.len(), "re-encoding changed the length");
        let again =
            ApprovalDistributionMessage::decode_wire(&enc).expect("re-encoding does not decode");
        assert_eq!(&again, msg, "round trip changed the value");
        // The same message inside the enclosing protocol enum.
        let vp = ValidationProtocol::ApprovalDistribution(msg.clone()).encode();
        if let Ok(ValidationProtocol::ApprovalDistribution(inner)) =
            ValidationProtocol::decode_wire(&vp)
        {
            assert_eq!(&inner, msg, "enclosed message decodes differently");
        } else {
            // Only the one extra byte may push it over the size limit.
            assert_eq!(
                vp.len(),
                tranche_primitives::constants::MAX_NOTIFICATION_SIZE + 1,
                "enclosed message does not decode"
            );
        }
    }
    let scale = scale_whole::<ApprovalDistributionMessage>(data);
    if let Some(msg) = &wire {
        assert_eq!(
            scale.as_ref(),
            Some(msg),
            "wire and SCALE decoding disagree"
        );
    }
    wire.is_some() || scale.is_some()
}

/// `AssignmentCert` through `Decode`, from the front of the input.
pub fn assignment_cert(data: &[u8]) -> bool {
    scale_prefix::<AssignmentCert>(data).is_some()
}

/// `IndirectAssignmentCert` through `Decode`, from the front of the input.
pub fn indirect_assignment_cert(data: &[u8]) -> bool {
    scale_prefix::<IndirectAssignmentCert>(data).is_some()
}

/// `IndirectSignedApprovalVote` through `Decode`, from the front of the
/// input.
pub fn indirect_approval_vote(data: &[u8]) -> bool {
    scale_prefix::<IndirectSignedApprovalVote>(data).is_some()
}

/// `CandidateBitfield::decode_from` with the wire limits over the whole
/// input; `Decode` (SCALE limits) from the front of the input, compared with
/// parity-scale-codec's own `BitVec<u8, Lsb0>` decoding, which is what
/// Polkadot runs.
pub fn candidate_bitfield(data: &[u8]) -> bool {
    let wire = decode_all(data, Limits::WIRE, CandidateBitfield::decode_from).ok();
    if let Some(bf) = &wire {
        assert!(bf.len() <= MAX_BITFIELD_SIZE as usize, "wire limit ignored");
        let enc = bf.encode();
        assert_eq!(enc.len(), data.len(), "re-encoding changed the length");
        let again = decode_all(&enc, Limits::WIRE, CandidateBitfield::decode_from)
            .expect("re-encoding does not decode");
        assert_eq!(&again, bf, "round trip changed the value");
    }

    let mut ours_in = data;
    let ours = CandidateBitfield::decode(&mut ours_in).ok();
    let mut theirs_in = data;
    let theirs = BitVec::<u8, Lsb0>::decode(&mut theirs_in).ok();
    assert_eq!(
        ours.as_ref().map(|b| b.as_bitvec()),
        theirs.as_ref(),
        "bitfield decoding differs from parity-scale-codec's"
    );
    if ours.is_some() {
        assert_eq!(
            ours_in.len(),
            theirs_in.len(),
            "bitfield decoding consumed a different number of bytes than parity-scale-codec"
        );
    }
    let scale = scale_prefix::<CandidateBitfield>(data);
    if let Some(bf) = &wire {
        assert_eq!(scale.as_ref(), Some(bf), "wire and SCALE decoding disagree");
    }
    wire.is_some() || scale.is_some()
}
