//! The JSON schema of conformance files (`polkadot-approval-conformance/1`,
//! see `testdata/vectors/`): every field the format names and nothing else,
//! so a misspelled field is an error.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

/// Bytes written as lowercase hex; read with or without a `0x` prefix.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hex(pub Vec<u8>);

impl Hex {
    /// The bytes as a fixed array, or an error naming the field.
    pub fn array<const N: usize>(&self, field: &str) -> anyhow::Result<[u8; N]> {
        self.0.as_slice().try_into().map_err(|_| {
            anyhow::anyhow!(
                "field `{field}` must hold {N} bytes, found {}",
                self.0.len()
            )
        })
    }
}

impl Serialize for Hex {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for Hex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let body = s.strip_prefix("0x").unwrap_or(&s);
        hex::decode(body)
            .map(Hex)
            .map_err(|e| de::Error::custom(format!("bad hex string {s:?}: {e}")))
    }
}

impl<const N: usize> From<[u8; N]> for Hex {
    fn from(v: [u8; N]) -> Self {
        Hex(v.to_vec())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BitfieldJson {
    pub len: u32,
    pub ones: Vec<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConformanceFile {
    pub format: String,
    pub case: String,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<serde_json::Value>,
    pub validators: Vec<ValidatorJson>,
    pub session: SessionJson,
    pub blocks: Vec<BlockJson>,
    pub approvals: Vec<ApprovalJson>,
    pub wire: Vec<WireJson>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValidatorJson {
    pub index: u32,
    pub seed_label: String,
    pub seed: Hex,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_key: Option<Hex>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionJson {
    pub session_index: u32,
    pub n_cores: u32,
    pub relay_vrf_modulo_samples: u32,
    pub n_delay_tranches: u32,
    pub zeroth_delay_tranche_width: u32,
    pub validator_groups: Vec<Vec<u32>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockJson {
    pub block_hash: Hex,
    pub relay_vrf_story: Hex,
    pub leaving_cores: Vec<LeavingCoreJson>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assignments: Option<Vec<ValidatorAssignmentsJson>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeavingCoreJson {
    pub candidate_hash: Hex,
    pub core_index: u32,
    pub group_index: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValidatorAssignmentsJson {
    pub validator_index: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modulo: Option<ModuloJson>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Vec<DelayJson>>,
    pub assignments: Vec<AssignmentJson>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModuloJson {
    pub vrf_pre_output: Hex,
    pub core_randomness: Hex,
    pub sampled_cores: Vec<u32>,
    pub assigned_cores: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelayJson {
    pub core_index: u32,
    pub vrf_pre_output: Hex,
    pub tranche_randomness: Hex,
    pub tranche: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssignmentJson {
    pub core_index: u32,
    pub tranche: u32,
    pub cert_kind: String,
    pub claimed_cores: BitfieldJson,
    pub cert: Hex,
    pub vrf_pre_output: Hex,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalJson {
    pub validator_index: u32,
    pub session_index: u32,
    pub candidate_hashes: Vec<Hex>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub single: Option<Vec<SingleVoteJson>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiple: Option<MultipleVoteJson>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SingleVoteJson {
    pub candidate_hash: Hex,
    pub payload: Hex,
    pub signature: Hex,
    pub corrupted_signature: Hex,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MultipleVoteJson {
    pub payload: Hex,
    pub signature: Hex,
    pub corrupted_signature: Hex,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireJson {
    pub id: String,
    pub message: MessageJson,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoded: Option<Hex>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation_protocol_encoded: Option<Hex>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", deny_unknown_fields)]
pub enum MessageJson {
    Assignments {
        assignments: Vec<AssignmentItemJson>,
    },
    Approvals {
        approvals: Vec<ApprovalItemJson>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssignmentItemJson {
    pub block_hash: Hex,
    pub validator: u32,
    pub cert: CertJson,
    pub candidate_bitfield: BitfieldJson,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", deny_unknown_fields)]
pub enum CertJson {
    RelayVRFModuloCompact {
        core_bitfield: BitfieldJson,
        vrf_pre_output: Hex,
        vrf_proof: Hex,
    },
    RelayVRFDelay {
        core_index: u32,
        vrf_pre_output: Hex,
        vrf_proof: Hex,
    },
    RelayVRFModulo {
        sample: u32,
        vrf_pre_output: Hex,
        vrf_proof: Hex,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalItemJson {
    pub block_hash: Hex,
    pub candidate_bitfield: BitfieldJson,
    pub validator: u32,
    pub signature: Hex,
}
