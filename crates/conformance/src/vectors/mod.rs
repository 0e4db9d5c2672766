//! `tranche conformance`: read a conformance file, ignore its outputs,
//! compute every output with the project's own primitives, and write a file
//! of the same schema. `check` compares such a result with a reference file
//! the way Polkadot's checker does: deterministic fields byte for byte,
//! proofs and signatures by verification.

pub mod schema;

use anyhow::{anyhow, bail, Context, Result};
use parity_scale_codec::Encode;
use schema::*;
use std::path::Path;
use tranche_primitives::bitfield::Bitfield;
use tranche_primitives::criteria::compute_assignments_traced;
use tranche_primitives::vote::{approval_payload, sign_approval};
use tranche_primitives::{
    ApprovalDistributionMessage, AssignmentCert, AssignmentCertKind, AssignmentItem, Candidate,
    CandidateHash, CoreBitfield, CoreIndex, GroupIndex, Hash, IndirectAssignmentCert,
    IndirectSignedApprovalVote, RelayVrfStory, Session, SessionInfo, ValidationProtocol,
    ValidatorId, ValidatorIndex, ValidatorPair, ValidatorSignature, VrfSignature,
};

/// The only format this command reads and writes.
pub const FORMAT: &str = "polkadot-approval-conformance/1";

/// Read and parse a conformance file.
pub fn load(path: &Path) -> Result<ConformanceFile> {
    let text = tranche_cli::input::read_text(path, tranche_cli::input::MAX_INPUT_FILE_BYTES)
        .with_context(|| {
            format!(
                "cannot read conformance file {}",
                tranche_cli::text::path(path)
            )
        })?;
    parse(&text, &tranche_cli::text::path(path))
}

/// Parse a conformance file's `text`, `source` naming it in errors (shown
/// by the safe-text rule already): its schema, its format and its sizes.
pub fn parse(text: &str, source: &str) -> Result<ConformanceFile> {
    let file: ConformanceFile = serde_json::from_str(text)
        .with_context(|| format!("{source} is not a valid conformance file"))?;
    if file.format != FORMAT {
        bail!(
            "{source}: format is {}, expected {FORMAT:?}",
            tranche_cli::text::quote(&file.format)
        );
    }
    check_sizes(&file).with_context(|| source.to_owned())?;
    Ok(file)
}

/// Sizes within the tool's bounds (`tranche_primitives::limits`), so that
/// nothing allocates for a size no real session has.
pub fn check_sizes(file: &ConformanceFile) -> Result<()> {
    use tranche_primitives::limits::{MAX_BLOCKS, MAX_CORES, MAX_DELAY_TRANCHES, MAX_VALIDATORS};
    let s = &file.session;
    let checks: [(&str, u64, u32); 6] = [
        ("validators", file.validators.len() as u64, MAX_VALIDATORS),
        ("session.n_cores", s.n_cores.into(), MAX_CORES),
        (
            "session.relay_vrf_modulo_samples",
            s.relay_vrf_modulo_samples.into(),
            MAX_CORES,
        ),
        (
            "session.n_delay_tranches",
            s.n_delay_tranches.into(),
            MAX_DELAY_TRANCHES,
        ),
        (
            "session.zeroth_delay_tranche_width",
            s.zeroth_delay_tranche_width.into(),
            MAX_DELAY_TRANCHES,
        ),
        ("blocks", file.blocks.len() as u64, MAX_BLOCKS),
    ];
    for (key, value, max) in checks {
        if value > u64::from(max) {
            bail!("{key} is {value}, above the bound of {max}");
        }
    }
    if s.validator_groups.len() as u64 > u64::from(MAX_CORES) {
        bail!(
            "session.validator_groups has {} groups, above the bound of {MAX_CORES}",
            s.validator_groups.len()
        );
    }
    let groups = s.validator_groups.len();
    for (b, block) in file.blocks.iter().enumerate() {
        if block.leaving_cores.len() as u64 > u64::from(MAX_CORES) {
            bail!(
                "blocks[{b}] has {} leaving cores, above the bound of {MAX_CORES}",
                block.leaving_cores.len()
            );
        }
        // A core's bitfield is as long as its index: an index beyond the
        // session's cores would have every assignment allocate for it.
        for (i, lc) in block.leaving_cores.iter().enumerate() {
            if lc.core_index >= s.n_cores {
                bail!(
                    "blocks[{b}].leaving_cores[{i}]: core_index {} is not below session.n_cores {}",
                    lc.core_index,
                    s.n_cores
                );
            }
            if lc.group_index as usize >= groups {
                bail!(
                    "blocks[{b}].leaving_cores[{i}]: group_index {} is not below the {groups} \
                     session.validator_groups",
                    lc.group_index
                );
            }
        }
    }
    Ok(())
}

pub fn bitfield_from_json<T>(b: &BitfieldJson, field: &str) -> Result<Bitfield<T>> {
    let max = tranche_primitives::constants::MAX_BITFIELD_SIZE;
    if b.len as usize > max as usize {
        bail!(
            "bitfield `{field}`: len {} is above the bound of {max}",
            b.len
        );
    }
    for w in b.ones.windows(2) {
        if w[0] >= w[1] {
            bail!("bitfield `{field}`: `ones` must be strictly ascending");
        }
    }
    if let Some(&last) = b.ones.last() {
        if last >= b.len {
            bail!(
                "bitfield `{field}`: index {last} is not below len {}",
                b.len
            );
        }
    }
    Ok(Bitfield::with_len(b.len as usize, b.ones.iter().copied()))
}

pub fn bitfield_to_json<T>(b: &Bitfield<T>) -> BitfieldJson {
    BitfieldJson {
        len: b.len() as u32,
        ones: b.iter_ones().collect(),
    }
}

fn vrf_from_json(pre: &Hex, proof: &Hex) -> Result<VrfSignature> {
    Ok(VrfSignature {
        pre_output: pre.array("vrf_pre_output")?,
        proof: proof.array("vrf_proof")?,
    })
}

pub fn cert_from_json(c: &CertJson) -> Result<AssignmentCert> {
    Ok(match c {
        CertJson::RelayVRFModuloCompact {
            core_bitfield,
            vrf_pre_output,
            vrf_proof,
        } => AssignmentCert {
            kind: AssignmentCertKind::RelayVRFModuloCompact {
                core_bitfield: bitfield_from_json(core_bitfield, "core_bitfield")?,
            },
            vrf: vrf_from_json(vrf_pre_output, vrf_proof)?,
        },
        CertJson::RelayVRFDelay {
            core_index,
            vrf_pre_output,
            vrf_proof,
        } => AssignmentCert {
            kind: AssignmentCertKind::RelayVRFDelay {
                core_index: CoreIndex(*core_index),
            },
            vrf: vrf_from_json(vrf_pre_output, vrf_proof)?,
        },
        CertJson::RelayVRFModulo {
            sample,
            vrf_pre_output,
            vrf_proof,
        } => AssignmentCert {
            kind: AssignmentCertKind::RelayVRFModulo { sample: *sample },
            vrf: vrf_from_json(vrf_pre_output, vrf_proof)?,
        },
    })
}

pub fn cert_to_json(c: &AssignmentCert) -> CertJson {
    let vrf_pre_output = Hex::from(c.vrf.pre_output);
    let vrf_proof = Hex::from(c.vrf.proof);
    match &c.kind {
        AssignmentCertKind::RelayVRFModuloCompact { core_bitfield } => {
            CertJson::RelayVRFModuloCompact {
                core_bitfield: bitfield_to_json(core_bitfield),
                vrf_pre_output,
                vrf_proof,
            }
        }
        AssignmentCertKind::RelayVRFDelay { core_index } => CertJson::RelayVRFDelay {
            core_index: core_index.0,
            vrf_pre_output,
            vrf_proof,
        },
        AssignmentCertKind::RelayVRFModulo { sample } => CertJson::RelayVRFModulo {
            sample: *sample,
            vrf_pre_output,
            vrf_proof,
        },
    }
}

pub fn message_from_json(m: &MessageJson) -> Result<ApprovalDistributionMessage> {
    Ok(match m {
        MessageJson::Assignments { assignments } => {
            let mut items = Vec::with_capacity(assignments.len());
            for a in assignments {
                items.push(AssignmentItem {
                    cert: IndirectAssignmentCert {
                        block_hash: Hash(a.block_hash.array("block_hash")?),
                        validator: ValidatorIndex(a.validator),
                        cert: cert_from_json(&a.cert)?,
                    },
                    claimed: bitfield_from_json(&a.candidate_bitfield, "candidate_bitfield")?,
                });
            }
            ApprovalDistributionMessage::assignments(items)
        }
        MessageJson::Approvals { approvals } => {
            let mut items = Vec::with_capacity(approvals.len());
            for a in approvals {
                items.push(IndirectSignedApprovalVote {
                    block_hash: Hash(a.block_hash.array("block_hash")?),
                    candidate_indices: bitfield_from_json(
                        &a.candidate_bitfield,
                        "candidate_bitfield",
                    )?,
                    validator: ValidatorIndex(a.validator),
                    signature: ValidatorSignature(a.signature.array("signature")?),
                });
            }
            ApprovalDistributionMessage::approvals(items)
        }
    })
}

/// The inputs of a file, parsed into protocol types.
pub struct Inputs {
    pub pairs: Vec<ValidatorPair>,
    pub session: Session,
    pub blocks: Vec<BlockInputs>,
}

pub struct BlockInputs {
    pub hash: Hash,
    pub story: RelayVrfStory,
    /// The block's leaving cores, in file order.
    pub leaving: Vec<Candidate>,
}

impl Inputs {
    pub fn parse(file: &ConformanceFile) -> Result<Inputs> {
        let mut pairs = Vec::with_capacity(file.validators.len());
        for (i, v) in file.validators.iter().enumerate() {
            if v.index as usize != i {
                bail!("validators[{i}] has index {}, expected {i}", v.index);
            }
            pairs.push(ValidatorPair::from_seed(&v.seed.array("seed")?));
        }
        let keys: Vec<ValidatorId> = pairs.iter().map(|p| p.id()).collect();
        let s = &file.session;
        let info = SessionInfo {
            session_index: s.session_index,
            n_cores: s.n_cores,
            needed_approvals: 0,
            relay_vrf_modulo_samples: s.relay_vrf_modulo_samples,
            n_delay_tranches: s.n_delay_tranches,
            zeroth_delay_tranche_width: s.zeroth_delay_tranche_width,
            no_show_slots: 0,
            validator_groups: s
                .validator_groups
                .iter()
                .map(|g| g.iter().map(|v| ValidatorIndex(*v)).collect())
                .collect(),
            assignment_keys: keys.clone(),
            validators: keys,
            // The conformance format describes current Polkadot: v2 assignments.
            assignments_v2: true,
            max_approval_coalesce_count: 1,
        };
        let mut blocks = Vec::with_capacity(file.blocks.len());
        for (b, block) in file.blocks.iter().enumerate() {
            let mut leaving = Vec::new();
            for lc in &block.leaving_cores {
                leaving.push(Candidate {
                    hash: CandidateHash(Hash(lc.candidate_hash.array("candidate_hash")?)),
                    core: CoreIndex(lc.core_index),
                    group: GroupIndex(lc.group_index),
                });
            }
            blocks.push(BlockInputs {
                hash: Hash(block.block_hash.array("block_hash")?),
                story: RelayVrfStory(block.relay_vrf_story.array("relay_vrf_story")?),
                leaving,
            });
            let _ = b;
        }
        Ok(Inputs {
            pairs,
            session: Session::new(info),
            blocks,
        })
    }
}

/// A signature that must not verify: `sig` with one bit of its first byte
/// flipped (never the last byte, which holds schnorrkel's marker bit).
pub fn corrupt(sig: &ValidatorSignature) -> ValidatorSignature {
    let mut bad = *sig;
    bad.0[0] ^= 0x01;
    bad
}

fn hashes_of(list: &[Hex]) -> Result<Vec<CandidateHash>> {
    list.iter()
        .map(|h| Ok(CandidateHash(Hash(h.array("candidate_hashes")?))))
        .collect()
}

/// Compute every output field of `input` with our own code.
pub fn compute(input: &ConformanceFile) -> Result<ConformanceFile> {
    let inputs = Inputs::parse(input)?;
    let mut out = input.clone();
    out.reference = None;
    for (v, pair) in out.validators.iter_mut().zip(&inputs.pairs) {
        v.public_key = Some(Hex::from(pair.id().0));
    }
    for (block, bi) in out.blocks.iter_mut().zip(&inputs.blocks) {
        let mut per_validator = Vec::with_capacity(inputs.pairs.len());
        for (i, pair) in inputs.pairs.iter().enumerate() {
            let v = ValidatorIndex(i as u32);
            let (ours, trace) =
                compute_assignments_traced(pair, v, &bi.story, &inputs.session.info, &bi.leaving);
            let assignments = ours
                .iter()
                .map(|(core, a)| {
                    let claimed = match &a.cert.kind {
                        AssignmentCertKind::RelayVRFModuloCompact { core_bitfield } => {
                            core_bitfield.clone()
                        }
                        _ => CoreBitfield::from_index(core.0),
                    };
                    AssignmentJson {
                        core_index: core.0,
                        tranche: a.tranche,
                        cert_kind: a.cert.kind.name().to_owned(),
                        claimed_cores: bitfield_to_json(&claimed),
                        cert: Hex(a.cert.encode()),
                        vrf_pre_output: Hex::from(a.cert.vrf.pre_output),
                    }
                })
                .collect();
            per_validator.push(ValidatorAssignmentsJson {
                validator_index: v.0,
                modulo: trace.modulo.map(|m| ModuloJson {
                    vrf_pre_output: Hex::from(m.vrf_pre_output),
                    core_randomness: Hex::from(m.core_randomness),
                    sampled_cores: m.sampled_cores.iter().map(|c| c.0).collect(),
                    assigned_cores: m.assigned_cores.iter().map(|c| c.0).collect(),
                }),
                delay: Some(
                    trace
                        .delay
                        .iter()
                        .map(|d| DelayJson {
                            core_index: d.core.0,
                            vrf_pre_output: Hex::from(d.vrf_pre_output),
                            tranche_randomness: Hex::from(d.tranche_randomness),
                            tranche: d.tranche,
                        })
                        .collect(),
                ),
                assignments,
            });
        }
        block.assignments = Some(per_validator);
    }
    for (k, approval) in out.approvals.iter_mut().enumerate() {
        let pair = inputs
            .pairs
            .get(approval.validator_index as usize)
            .ok_or_else(|| {
                anyhow!(
                    "approvals[{k}]: validator {} does not exist",
                    approval.validator_index
                )
            })?;
        let hashes = hashes_of(&approval.candidate_hashes)?;
        let session = approval.session_index;
        approval.single = Some(
            hashes
                .iter()
                .map(|h| {
                    let sig = sign_approval(pair, std::slice::from_ref(h), session);
                    SingleVoteJson {
                        candidate_hash: Hex::from(h.0 .0),
                        payload: Hex(approval_payload(std::slice::from_ref(h), session)),
                        signature: Hex::from(sig.0),
                        corrupted_signature: Hex::from(corrupt(&sig).0),
                    }
                })
                .collect(),
        );
        let sig = sign_approval(pair, &hashes, session);
        approval.multiple = Some(MultipleVoteJson {
            payload: Hex(approval_payload(&hashes, session)),
            signature: Hex::from(sig.0),
            corrupted_signature: Hex::from(corrupt(&sig).0),
        });
    }
    for w in out.wire.iter_mut() {
        let msg = message_from_json(&w.message).with_context(|| format!("wire `{}`", w.id))?;
        w.encoded = Some(Hex(msg.encode()));
        w.validation_protocol_encoded =
            Some(Hex(ValidationProtocol::ApprovalDistribution(msg).encode()));
    }
    Ok(out)
}

pub mod check;
