//! Wire types of validation protocol v3 (upstream `polkadot/node/network/protocol/src/lib.rs`, module `v3`): the approval-distribution
//! message and the enclosing `ValidationProtocol` enum with upstream's
//! variant indices. Decoding is total: any byte string gives a value or a
//! typed `DecodeError`, never a panic.

use crate::bitfield::CandidateBitfield;
use crate::cert::AssignmentCert;
use crate::codec::{decode_all, DecodeError, Limits, Reader};
use crate::constants::MAX_NOTIFICATION_SIZE;
use crate::ids::{Hash, ValidatorIndex};
use crate::impl_scale_decode;
use crate::vote::ValidatorSignature;
use parity_scale_codec::{Encode, Input, Output};
use smallvec::SmallVec;
use std::sync::Arc;

/// `IndirectAssignmentCertV2`: an assignment certificate for a block.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IndirectAssignmentCert {
    pub block_hash: Hash,
    pub validator: ValidatorIndex,
    pub cert: AssignmentCert,
}

impl IndirectAssignmentCert {
    pub fn decode_from<I: Input>(r: &mut Reader<I>) -> Result<Self, DecodeError> {
        Ok(IndirectAssignmentCert {
            block_hash: Hash(r.array("block hash")?),
            validator: ValidatorIndex(r.u32("validator index")?),
            cert: AssignmentCert::decode_from(r)?,
        })
    }
}

impl Encode for IndirectAssignmentCert {
    fn size_hint(&self) -> usize {
        32 + 4 + self.cert.size_hint()
    }

    fn encode_to<O: Output + ?Sized>(&self, dest: &mut O) {
        self.block_hash.encode_to(dest);
        self.validator.encode_to(dest);
        self.cert.encode_to(dest);
    }
}
impl_scale_decode!(IndirectAssignmentCert);

/// An assignment as it travels: the certificate and the candidates it
/// claims. Upstream sends the pair `(IndirectAssignmentCertV2,
/// CandidateBitfield)`; a struct's encoding is its fields in order, so the
/// bytes are the pair's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AssignmentItem {
    pub cert: IndirectAssignmentCert,
    /// The candidates the certificate claims.
    pub claimed: CandidateBitfield,
}

impl AssignmentItem {
    pub fn decode_from<I: Input>(r: &mut Reader<I>) -> Result<Self, DecodeError> {
        Ok(AssignmentItem {
            cert: IndirectAssignmentCert::decode_from(r)?,
            claimed: CandidateBitfield::decode_from(r)?,
        })
    }
}

impl Encode for AssignmentItem {
    fn size_hint(&self) -> usize {
        self.cert.size_hint() + self.claimed.size_hint()
    }

    fn encode_to<O: Output + ?Sized>(&self, dest: &mut O) {
        self.cert.encode_to(dest);
        self.claimed.encode_to(dest);
    }
}
impl_scale_decode!(AssignmentItem);

/// `IndirectSignedApprovalVoteV2`: a vote for one or more candidates of a
/// block.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IndirectSignedApprovalVote {
    pub block_hash: Hash,
    pub candidate_indices: CandidateBitfield,
    pub validator: ValidatorIndex,
    pub signature: ValidatorSignature,
}

impl IndirectSignedApprovalVote {
    pub fn decode_from<I: Input>(r: &mut Reader<I>) -> Result<Self, DecodeError> {
        Ok(IndirectSignedApprovalVote {
            block_hash: Hash(r.array("block hash")?),
            candidate_indices: CandidateBitfield::decode_from(r)?,
            validator: ValidatorIndex(r.u32("validator index")?),
            signature: ValidatorSignature(r.array("signature")?),
        })
    }
}

impl Encode for IndirectSignedApprovalVote {
    fn size_hint(&self) -> usize {
        32 + self.candidate_indices.size_hint() + 4 + 64
    }

    fn encode_to<O: Output + ?Sized>(&self, dest: &mut O) {
        self.block_hash.encode_to(dest);
        self.candidate_indices.encode_to(dest);
        self.validator.encode_to(dest);
        dest.write(&self.signature.0);
    }
}
impl_scale_decode!(IndirectSignedApprovalVote);

/// Smallest encoded assignment item: hash, validator, a compact kind with an
/// empty bitfield, the VRF and an empty claimed bitfield.
pub(crate) const MIN_ASSIGNMENT_ITEM: usize = 32 + 4 + 2 + 96 + 1;
/// Smallest encoded approval item.
pub(crate) const MIN_APPROVAL_ITEM: usize = 32 + 1 + 4 + 64;

/// A notification's list of items: one held in place, more on the heap.
/// Most notifications carry one item (distribution forwards each item as
/// it is checked; the network simulation made a list, so an allocation,
/// for every delivery before: BENCHMARKS.md "One job a moment, and no
/// list allocated per delivery").
pub type Items<T> = SmallVec<[Arc<T>; 1]>;

/// v3 `ApprovalDistributionMessage`. Its items are shared (`Arc`): one
/// decoded item is what approval distribution keeps, what it sends on to
/// every peer and, in the simulation, what a receiver in the same process
/// is handed, without a copy; the bytes on the wire are the items' own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalDistributionMessage {
    /// Index 0: assignments, each with the candidates it claims.
    Assignments(Items<AssignmentItem>),
    /// Index 1: approval votes.
    Approvals(Items<IndirectSignedApprovalVote>),
}

impl ApprovalDistributionMessage {
    /// A notification of these assignments.
    pub fn assignments(items: impl IntoIterator<Item = AssignmentItem>) -> Self {
        ApprovalDistributionMessage::Assignments(items.into_iter().map(Arc::new).collect())
    }

    /// A notification of these approvals.
    pub fn approvals(votes: impl IntoIterator<Item = IndirectSignedApprovalVote>) -> Self {
        ApprovalDistributionMessage::Approvals(votes.into_iter().map(Arc::new).collect())
    }

    pub fn decode_from<I: Input>(r: &mut Reader<I>) -> Result<Self, DecodeError> {
        let offset = r.offset();
        match r.u8("approval-distribution message kind")? {
            0 => {
                let n = r.list_len(MIN_ASSIGNMENT_ITEM, "assignment count")?;
                let mut items = Items::with_capacity(n as usize);
                for _ in 0..n {
                    items.push(Arc::new(AssignmentItem::decode_from(r)?));
                }
                Ok(ApprovalDistributionMessage::Assignments(items))
            }
            1 => {
                let n = r.list_len(MIN_APPROVAL_ITEM, "approval count")?;
                let mut items = Items::with_capacity(n as usize);
                for _ in 0..n {
                    items.push(Arc::new(IndirectSignedApprovalVote::decode_from(r)?));
                }
                Ok(ApprovalDistributionMessage::Approvals(items))
            }
            index => Err(DecodeError::UnknownVariant {
                what: "approval-distribution message",
                index,
                offset,
            }),
        }
    }

    /// Decode a whole byte string with the wire limits.
    pub fn decode_wire(bytes: &[u8]) -> Result<Self, DecodeError> {
        check_size(bytes)?;
        decode_all(bytes, Limits::WIRE, Self::decode_from)
    }

    /// Number of items (assignments or approvals) carried.
    pub fn len(&self) -> usize {
        match self {
            ApprovalDistributionMessage::Assignments(a) => a.len(),
            ApprovalDistributionMessage::Approvals(a) => a.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The notification that carries this message
    /// (`ValidationProtocol::ApprovalDistribution`), written to `dest`:
    /// the protocol's variant byte, then the message. `ValidationProtocol`
    /// encodes through this.
    pub fn encode_notification_to<O: Output + ?Sized>(&self, dest: &mut O) {
        dest.push_byte(APPROVAL_DISTRIBUTION_INDEX);
        self.encode_to(dest);
    }

    /// The notification that carries this message, encoded.
    pub fn notification_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.notification_len());
        self.encode_notification_to(&mut bytes);
        bytes
    }

    /// The length of [`Self::notification_bytes`], without encoding:
    /// SCALE's size of the message and the protocol's variant byte.
    pub fn notification_len(&self) -> usize {
        1 + self.encoded_size()
    }
}

/// The compact length prefix and the items' own sizes (`per_item`):
/// SCALE's size hint for a list guesses from the element's in-memory
/// size, which for a shared item is the pointer's.
fn list_size<T>(items: &[Arc<T>], per_item: impl Fn(&T) -> usize) -> usize {
    let n = items.len() as u32;
    <parity_scale_codec::Compact<u32> as parity_scale_codec::CompactLen<u32>>::compact_len(&n)
        + items.iter().map(|i| per_item(i)).sum::<usize>()
}

impl Encode for ApprovalDistributionMessage {
    /// The exact size: one allocation for the encoding.
    fn size_hint(&self) -> usize {
        self.encoded_size()
    }

    fn encoded_size(&self) -> usize {
        1 + match self {
            ApprovalDistributionMessage::Assignments(items) => {
                list_size(items, Encode::encoded_size)
            }
            ApprovalDistributionMessage::Approvals(items) => list_size(items, Encode::encoded_size),
        }
    }

    fn encode_to<O: Output + ?Sized>(&self, dest: &mut O) {
        match self {
            ApprovalDistributionMessage::Assignments(items) => {
                dest.push_byte(0);
                items.encode_to(dest);
            }
            ApprovalDistributionMessage::Approvals(items) => {
                dest.push_byte(1);
                items.encode_to(dest);
            }
        }
    }
}
impl_scale_decode!(ApprovalDistributionMessage);

/// Index of bitfield distribution in v3 `ValidationProtocol`.
pub const BITFIELD_DISTRIBUTION_INDEX: u8 = 1;
/// Index of statement distribution in v3 `ValidationProtocol`.
pub const STATEMENT_DISTRIBUTION_INDEX: u8 = 3;
/// Index of approval distribution in v3 `ValidationProtocol`.
pub const APPROVAL_DISTRIBUTION_INDEX: u8 = 4;

/// v3 `ValidationProtocol`: what one notification on the validation peer
/// set carries. Only the approval-distribution variant is modelled; the
/// others decode to `UnsupportedVariant`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValidationProtocol {
    ApprovalDistribution(ApprovalDistributionMessage),
}

/// Read the `ValidationProtocol` variant, which must be approval
/// distribution (the only one modelled); `wire_skim` reads the same.
pub(crate) fn read_approval_distribution_variant<I: Input>(
    r: &mut Reader<I>,
) -> Result<(), DecodeError> {
    let offset = r.offset();
    match r.u8("validation protocol variant")? {
        APPROVAL_DISTRIBUTION_INDEX => Ok(()),
        index @ (BITFIELD_DISTRIBUTION_INDEX | STATEMENT_DISTRIBUTION_INDEX) => {
            Err(DecodeError::UnsupportedVariant {
                what: "validation protocol",
                index,
            })
        }
        index => Err(DecodeError::UnknownVariant {
            what: "validation protocol",
            index,
            offset,
        }),
    }
}

impl ValidationProtocol {
    pub fn decode_from<I: Input>(r: &mut Reader<I>) -> Result<Self, DecodeError> {
        read_approval_distribution_variant(r)?;
        Ok(ValidationProtocol::ApprovalDistribution(
            ApprovalDistributionMessage::decode_from(r)?,
        ))
    }

    /// Decode one notification: at most `MAX_NOTIFICATION_SIZE` bytes, every
    /// byte consumed, bitfields at most `MAX_BITFIELD_SIZE` bits.
    pub fn decode_wire(bytes: &[u8]) -> Result<Self, DecodeError> {
        check_size(bytes)?;
        decode_all(bytes, Limits::WIRE, Self::decode_from)
    }
}

impl Encode for ValidationProtocol {
    fn size_hint(&self) -> usize {
        match self {
            ValidationProtocol::ApprovalDistribution(m) => m.notification_len(),
        }
    }

    fn encoded_size(&self) -> usize {
        match self {
            ValidationProtocol::ApprovalDistribution(m) => m.notification_len(),
        }
    }

    fn encode_to<O: Output + ?Sized>(&self, dest: &mut O) {
        match self {
            ValidationProtocol::ApprovalDistribution(m) => m.encode_notification_to(dest),
        }
    }
}
impl_scale_decode!(ValidationProtocol);

pub(crate) fn check_size(bytes: &[u8]) -> Result<(), DecodeError> {
    if bytes.len() > MAX_NOTIFICATION_SIZE {
        return Err(DecodeError::MessageTooLarge {
            len: bytes.len(),
            max: MAX_NOTIFICATION_SIZE,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitfield::CoreBitfield;
    use crate::cert::{AssignmentCertKind, VrfSignature};
    use crate::ids::CoreIndex;
    use parity_scale_codec::Decode;

    fn vrf() -> VrfSignature {
        // A proof of two zero scalars is canonical.
        VrfSignature {
            pre_output: [0xaa; 32],
            proof: [0; 64],
        }
    }

    fn delay_item(core: u32) -> AssignmentItem {
        AssignmentItem {
            cert: IndirectAssignmentCert {
                block_hash: Hash([0x11; 32]),
                validator: ValidatorIndex(7),
                cert: AssignmentCert {
                    kind: AssignmentCertKind::RelayVRFDelay {
                        core_index: CoreIndex(core),
                    },
                    vrf: vrf(),
                },
            },
            claimed: CandidateBitfield::from_index(core),
        }
    }

    fn vote(indices: &[u32]) -> IndirectSignedApprovalVote {
        IndirectSignedApprovalVote {
            block_hash: Hash([0x11; 32]),
            candidate_indices: CandidateBitfield::from_indices(indices).unwrap(),
            validator: ValidatorIndex(7),
            signature: ValidatorSignature([0xcc; 64]),
        }
    }

    #[test]
    fn sizes_match_spec_examples() {
        let m =
            ValidationProtocol::ApprovalDistribution(ApprovalDistributionMessage::assignments([
                delay_item(5),
            ]));
        assert_eq!(m.encode().len(), 143 - 1);
        let compact = AssignmentItem {
            cert: IndirectAssignmentCert {
                block_hash: Hash([0x11; 32]),
                validator: ValidatorIndex(7),
                cert: AssignmentCert {
                    kind: AssignmentCertKind::RelayVRFModuloCompact {
                        core_bitfield: CoreBitfield::from_indices(&[3, 17, 42]).unwrap(),
                    },
                    vrf: vrf(),
                },
            },
            claimed: CandidateBitfield::from_indices(&[3, 17, 42]).unwrap(),
        };
        assert_eq!(compact.encode().len(), 147);
        assert_eq!(vote(&[5]).encode().len(), 102);
        assert_eq!(vote(&[3, 17, 42]).encode().len(), 107);
        let full = ApprovalDistributionMessage::assignments((0..193).map(|_| delay_item(5)));
        assert_eq!(
            ValidationProtocol::ApprovalDistribution(full)
                .encode()
                .len(),
            26_832 - 1
        );
        let full = ApprovalDistributionMessage::approvals((0..266).map(|_| vote(&[5])));
        assert_eq!(
            ValidationProtocol::ApprovalDistribution(full)
                .encode()
                .len(),
            27_137 - 1
        );
    }

    #[test]
    fn an_assignment_item_is_upstreams_pair_on_the_wire() {
        for item in [delay_item(5), delay_item(300)] {
            let pair = (item.cert.clone(), item.claimed.clone());
            assert_eq!(item.encode(), pair.encode());
            assert_eq!(item.size_hint(), pair.size_hint());
            let back = AssignmentItem::decode(&mut &pair.encode()[..]).unwrap();
            assert_eq!(back, item);
            let list = vec![item.clone(), delay_item(1)];
            let pairs: Vec<_> = list
                .iter()
                .map(|i| (i.cert.clone(), i.claimed.clone()))
                .collect();
            let m = ApprovalDistributionMessage::assignments(list);
            let mut upstream = vec![0u8];
            pairs.encode_to(&mut upstream);
            assert_eq!(m.encode(), upstream);
        }
    }

    #[test]
    fn the_size_hint_covers_the_encoding_in_one_allocation() {
        let messages = [
            ApprovalDistributionMessage::assignments((0..40).map(delay_item)),
            ApprovalDistributionMessage::approvals([vote(&[5]), vote(&[3, 17, 42])]),
        ];
        for m in messages {
            assert_eq!(m.notification_len(), m.notification_bytes().len());
            let m = ValidationProtocol::ApprovalDistribution(m);
            assert_eq!(m.encoded_size(), m.encode().len());
            let (hint, len) = (m.size_hint(), m.encode().len());
            // One allocation: the hint is at least the length and at most
            // twice it (bitvec's own hint is generous).
            assert!(hint >= len && hint <= 2 * len, "hint {hint}, len {len}");
        }
    }

    #[test]
    fn decode_errors_are_typed() {
        let m = ValidationProtocol::ApprovalDistribution(ApprovalDistributionMessage::approvals([
            vote(&[1, 2]),
        ]));
        let bytes = m.encode();
        assert_eq!(ValidationProtocol::decode_wire(&bytes), Ok(m));
        assert!(matches!(
            ValidationProtocol::decode_wire(&bytes[..bytes.len() - 1]),
            Err(DecodeError::Truncated { .. })
        ));
        let mut extra = bytes.clone();
        extra.push(0);
        assert!(matches!(
            ValidationProtocol::decode_wire(&extra),
            Err(DecodeError::TrailingBytes { .. })
        ));
        assert!(matches!(
            ValidationProtocol::decode_wire(&[9]),
            Err(DecodeError::UnknownVariant { index: 9, .. })
        ));
        assert!(matches!(
            ValidationProtocol::decode_wire(&[3]),
            Err(DecodeError::UnsupportedVariant { index: 3, .. })
        ));
        assert!(matches!(
            ValidationProtocol::decode_wire(&[4, 2]),
            Err(DecodeError::UnknownVariant { index: 2, .. })
        ));
        let big = vote(&[600]);
        let m = ApprovalDistributionMessage::approvals([big]);
        assert!(matches!(
            ApprovalDistributionMessage::decode_wire(&m.encode()),
            Err(DecodeError::BitfieldTooLarge { bits: 601, .. })
        ));
        let huge = vec![0u8; MAX_NOTIFICATION_SIZE + 1];
        assert!(matches!(
            ValidationProtocol::decode_wire(&huge),
            Err(DecodeError::MessageTooLarge { .. })
        ));
        // A forged item count cannot make the decoder allocate.
        assert!(matches!(
            ApprovalDistributionMessage::decode_wire(&[1, 0xfe, 0xff, 0xff, 0xff]),
            Err(DecodeError::ListTooLong { .. })
        ));
        // A proof scalar that is not canonical is refused at decode time.
        let mut item = delay_item(1);
        item.cert.cert.vrf.proof = [0xff; 64];
        let m = ApprovalDistributionMessage::assignments([item]);
        assert!(matches!(
            ApprovalDistributionMessage::decode_wire(&m.encode()),
            Err(DecodeError::InvalidVrfProof { .. })
        ));
    }
}
