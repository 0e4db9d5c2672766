//! Assignment certificate types (upstream `polkadot/node/primitives/src/approval/mod.rs`, modules `v1` and `v2`): the v2 certificate kinds with
//! their SCALE indices, the VRF signature, the legacy v1 kinds and the v1→v2
//! conversion.

use crate::bitfield::CoreBitfield;
use crate::codec::{DecodeError, Reader};
use crate::ids::CoreIndex;
use crate::impl_scale_decode;
use parity_scale_codec::{Encode, Input, Output};

/// A VRF signature as it travels: 32-byte pre-output ‖ 64-byte DLEQ proof
/// (`c ‖ s`, two canonical scalars).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct VrfSignature {
    pub pre_output: [u8; 32],
    pub proof: [u8; 64],
}

impl std::fmt::Debug for VrfSignature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VrfSignature(")?;
        for b in &self.pre_output[..4] {
            write!(f, "{b:02x}")?;
        }
        write!(f, "…)")
    }
}

impl VrfSignature {
    /// Decoding rejects proofs whose scalars are not canonical, as sp-core's
    /// `VrfSignature` decoding does.
    pub fn decode_from<I: Input>(r: &mut Reader<I>) -> Result<Self, DecodeError> {
        let pre_output = r.array::<32>("VRF pre-output")?;
        let offset = r.offset();
        let proof = r.array::<64>("VRF proof")?;
        if schnorrkel::vrf::VRFProof::from_bytes(&proof).is_err() {
            return Err(DecodeError::InvalidVrfProof { offset });
        }
        Ok(VrfSignature { pre_output, proof })
    }
}

impl Encode for VrfSignature {
    fn size_hint(&self) -> usize {
        96
    }
    fn encode_to<O: Output + ?Sized>(&self, dest: &mut O) {
        dest.write(&self.pre_output);
        dest.write(&self.proof);
    }
}
impl_scale_decode!(VrfSignature);

/// `AssignmentCertKindV2`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AssignmentCertKind {
    /// Index 0: one tranche-0 certificate for several cores (v2).
    RelayVRFModuloCompact { core_bitfield: CoreBitfield },
    /// Index 1: a delay-tranche certificate for one core.
    RelayVRFDelay { core_index: CoreIndex },
    /// Index 2: the legacy one-core-per-sample modulo certificate (v1).
    RelayVRFModulo { sample: u32 },
}

impl AssignmentCertKind {
    /// The name used in logs and conformance files.
    pub fn name(&self) -> &'static str {
        match self {
            AssignmentCertKind::RelayVRFModuloCompact { .. } => "RelayVRFModuloCompact",
            AssignmentCertKind::RelayVRFDelay { .. } => "RelayVRFDelay",
            AssignmentCertKind::RelayVRFModulo { .. } => "RelayVRFModulo",
        }
    }

    pub fn decode_from<I: Input>(r: &mut Reader<I>) -> Result<Self, DecodeError> {
        let offset = r.offset();
        match r.u8("certificate kind")? {
            0 => Ok(AssignmentCertKind::RelayVRFModuloCompact {
                core_bitfield: CoreBitfield::decode_from(r)?,
            }),
            1 => Ok(AssignmentCertKind::RelayVRFDelay {
                core_index: CoreIndex(r.u32("core index")?),
            }),
            2 => Ok(AssignmentCertKind::RelayVRFModulo {
                sample: r.u32("sample")?,
            }),
            index => Err(DecodeError::UnknownVariant {
                what: "certificate kind",
                index,
                offset,
            }),
        }
    }
}

impl Encode for AssignmentCertKind {
    fn size_hint(&self) -> usize {
        1 + match self {
            AssignmentCertKind::RelayVRFModuloCompact { core_bitfield } => {
                core_bitfield.size_hint()
            }
            AssignmentCertKind::RelayVRFDelay { .. }
            | AssignmentCertKind::RelayVRFModulo { .. } => 4,
        }
    }

    fn encode_to<O: Output + ?Sized>(&self, dest: &mut O) {
        match self {
            AssignmentCertKind::RelayVRFModuloCompact { core_bitfield } => {
                dest.push_byte(0);
                core_bitfield.encode_to(dest);
            }
            AssignmentCertKind::RelayVRFDelay { core_index } => {
                dest.push_byte(1);
                core_index.encode_to(dest);
            }
            AssignmentCertKind::RelayVRFModulo { sample } => {
                dest.push_byte(2);
                sample.encode_to(dest);
            }
        }
    }
}
impl_scale_decode!(AssignmentCertKind);

/// `AssignmentCertV2`: a certificate kind with its VRF signature.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AssignmentCert {
    pub kind: AssignmentCertKind,
    pub vrf: VrfSignature,
}

impl AssignmentCert {
    pub fn decode_from<I: Input>(r: &mut Reader<I>) -> Result<Self, DecodeError> {
        let kind = AssignmentCertKind::decode_from(r)?;
        let vrf = VrfSignature::decode_from(r)?;
        Ok(AssignmentCert { kind, vrf })
    }
}

impl Encode for AssignmentCert {
    fn size_hint(&self) -> usize {
        self.kind.size_hint() + self.vrf.size_hint()
    }

    fn encode_to<O: Output + ?Sized>(&self, dest: &mut O) {
        self.kind.encode_to(dest);
        self.vrf.encode_to(dest);
    }
}
impl_scale_decode!(AssignmentCert);

/// The legacy v1 certificate kinds (index 0 modulo, index 1 delay). Only
/// history and conversion need them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssignmentCertKindV1 {
    RelayVRFModulo { sample: u32 },
    RelayVRFDelay { core_index: CoreIndex },
}

/// `AssignmentCert` (v1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssignmentCertV1 {
    pub kind: AssignmentCertKindV1,
    pub vrf: VrfSignature,
}

impl From<AssignmentCertV1> for AssignmentCert {
    fn from(c: AssignmentCertV1) -> Self {
        let kind = match c.kind {
            AssignmentCertKindV1::RelayVRFModulo { sample } => {
                AssignmentCertKind::RelayVRFModulo { sample }
            }
            AssignmentCertKindV1::RelayVRFDelay { core_index } => {
                AssignmentCertKind::RelayVRFDelay { core_index }
            }
        };
        AssignmentCert { kind, vrf: c.vrf }
    }
}

/// A v2 certificate has no v1 form when it is compact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("compact modulo certificates have no v1 form")]
pub struct CertificateNotSupported;

impl TryFrom<AssignmentCert> for AssignmentCertV1 {
    type Error = CertificateNotSupported;
    fn try_from(c: AssignmentCert) -> Result<Self, Self::Error> {
        let kind = match c.kind {
            AssignmentCertKind::RelayVRFModulo { sample } => {
                AssignmentCertKindV1::RelayVRFModulo { sample }
            }
            AssignmentCertKind::RelayVRFDelay { core_index } => {
                AssignmentCertKindV1::RelayVRFDelay { core_index }
            }
            AssignmentCertKind::RelayVRFModuloCompact { .. } => {
                return Err(CertificateNotSupported)
            }
        };
        Ok(AssignmentCertV1 { kind, vrf: c.vrf })
    }
}
