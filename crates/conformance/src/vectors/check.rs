//! Compare a computed conformance file with a reference file, item by item,
//! as Polkadot's checker does: deterministic outputs byte for byte, proofs
//! and signatures by verification (they are randomised).

use super::schema::*;
use super::{bitfield_from_json, hashes_of, message_from_json, BlockInputs, Inputs};
use anyhow::Result;
use parity_scale_codec::{Decode, Encode};
use tranche_primitives::criteria::check_assignment_cert;
use tranche_primitives::vote::{verify_payload, ValidatorSignature};
use tranche_primitives::{
    ApprovalDistributionMessage, AssignmentCert, AssignmentCertKind, AssignmentItem, CoreBitfield,
    GroupIndex, ValidationProtocol, ValidatorIndex,
};

/// Outcome of a comparison: a count of passed items and one line per failure.
#[derive(Debug, Default)]
pub struct Report {
    pub passed: usize,
    pub failures: Vec<String>,
}

impl Report {
    fn item(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if ok {
            self.passed += 1;
        } else {
            self.failures.push(what());
        }
    }

    pub fn summary(&self) -> String {
        format!("{} passed, {} failed", self.passed, self.failures.len())
    }
}

fn groups_of_cores(block: &BlockInputs, cores: &CoreBitfield) -> Option<Vec<GroupIndex>> {
    cores
        .iter_ones()
        .map(|c| {
            block
                .leaving
                .iter()
                .find(|lc| lc.core.0 == c)
                .map(|lc| lc.group)
        })
        .collect()
}

/// Check one assignment entry on its own: decodes and re-encodes, agrees
/// with its kind, claim and pre-output, and passes the certificate check
/// with exactly its tranche.
fn check_entry(
    report: &mut Report,
    inputs: &Inputs,
    block: &BlockInputs,
    v: u32,
    e: &AssignmentJson,
    who: &str,
) {
    let ctx = || {
        format!(
            "{who}: block {:?} validator {v} core {}",
            block.hash, e.core_index
        )
    };
    let cert = match AssignmentCert::decode(&mut &e.cert.0[..]) {
        Ok(c) if c.encode() == e.cert.0 => c,
        _ => {
            report.item(false, || {
                format!("{}: cert does not decode and re-encode", ctx())
            });
            return;
        }
    };
    report.item(cert.kind.name() == e.cert_kind, || {
        format!("{}: cert kind differs from cert_kind", ctx())
    });
    report.item(e.vrf_pre_output.0 == cert.vrf.pre_output, || {
        format!("{}: vrf_pre_output differs from the cert's", ctx())
    });
    let claimed: CoreBitfield = match bitfield_from_json(&e.claimed_cores, "claimed_cores") {
        Ok(b) => b,
        Err(err) => {
            report.item(false, || format!("{}: {err}", ctx()));
            return;
        }
    };
    let expected_claim = match &cert.kind {
        AssignmentCertKind::RelayVRFModuloCompact { core_bitfield } => core_bitfield.clone(),
        _ => CoreBitfield::from_index(e.core_index),
    };
    report.item(
        claimed == expected_claim && claimed.bit_at(e.core_index),
        || format!("{}: claimed_cores do not match the cert", ctx()),
    );
    let Some(groups) = groups_of_cores(block, &claimed) else {
        report.item(false, || {
            format!("{}: claimed core without a leaving candidate", ctx())
        });
        return;
    };
    let got = check_assignment_cert(
        &claimed,
        ValidatorIndex(v),
        &inputs.session,
        &block.story,
        &cert,
        &groups,
    );
    report.item(got == Ok(e.tranche), || {
        format!(
            "{}: certificate check gave {got:?}, expected tranche {}",
            ctx(),
            e.tranche
        )
    });
}

/// Compare `ours` with `reference`, section by section: validators, blocks
/// (assignments), approvals, wire messages.
pub fn compare(reference: &ConformanceFile, ours: &ConformanceFile) -> Result<Report> {
    let inputs = Inputs::parse(reference)?;
    let mut r = Report::default();
    compare_validators(&mut r, reference, ours);
    compare_blocks(&mut r, &inputs, reference, ours);
    compare_approvals(&mut r, &inputs, reference, ours)?;
    compare_wire(&mut r, &inputs, reference, ours)?;
    Ok(r)
}

/// Public keys, derived from the seeds, byte for byte.
fn compare_validators(r: &mut Report, reference: &ConformanceFile, ours: &ConformanceFile) {
    for (a, b) in reference.validators.iter().zip(&ours.validators) {
        r.item(
            a.public_key.is_some() && a.public_key == b.public_key,
            || format!("validator {}: public key differs", a.index),
        );
    }
    r.item(reference.validators.len() == ours.validators.len(), || {
        "validator count differs".into()
    });
}

/// Each block's assignments, validator by validator.
fn compare_blocks(
    r: &mut Report,
    inputs: &Inputs,
    reference: &ConformanceFile,
    ours: &ConformanceFile,
) {
    r.item(reference.blocks.len() == ours.blocks.len(), || {
        "block count differs".into()
    });
    for ((rb, ob), bi) in reference
        .blocks
        .iter()
        .zip(&ours.blocks)
        .zip(&inputs.blocks)
    {
        let (Some(ra), Some(oa)) = (&rb.assignments, &ob.assignments) else {
            r.item(false, || {
                format!("block {:?}: assignments missing", bi.hash)
            });
            continue;
        };
        r.item(ra.len() == oa.len(), || {
            format!("block {:?}: validator count differs", bi.hash)
        });
        for (rv, ov) in ra.iter().zip(oa) {
            compare_validator_assignments(r, inputs, bi, rv, ov);
        }
    }
}

/// One validator's assignments under a block: the (core, tranche) set and
/// the VRF intermediates exactly, each certificate up to its randomised
/// proof, and every entry checked on its own on both sides.
fn compare_validator_assignments(
    r: &mut Report,
    inputs: &Inputs,
    bi: &BlockInputs,
    rv: &ValidatorAssignmentsJson,
    ov: &ValidatorAssignmentsJson,
) {
    let v = rv.validator_index;
    let pairs = |x: &ValidatorAssignmentsJson| -> Vec<(u32, u32)> {
        x.assignments
            .iter()
            .map(|e| (e.core_index, e.tranche))
            .collect()
    };
    r.item(ov.validator_index == v && pairs(rv) == pairs(ov), || {
        format!(
            "block {:?} validator {v}: (core, tranche) set {:?}, expected {:?}",
            bi.hash,
            pairs(ov),
            pairs(rv)
        )
    });
    if let (Some(rm), Some(om)) = (&rv.modulo, &ov.modulo) {
        r.item(rm == om, || {
            format!(
                "block {:?} validator {v}: modulo intermediates differ",
                bi.hash
            )
        });
    }
    if let (Some(rd), Some(od)) = (&rv.delay, &ov.delay) {
        r.item(rd == od, || {
            format!(
                "block {:?} validator {v}: delay intermediates differ",
                bi.hash
            )
        });
    }
    for (re, oe) in rv.assignments.iter().zip(&ov.assignments) {
        r.item(same_but_proof(re, oe), || {
            format!(
                "block {:?} validator {v} core {}: cert differs from reference",
                bi.hash, re.core_index
            )
        });
        check_entry(r, inputs, bi, v, re, "reference");
        check_entry(r, inputs, bi, v, oe, "ours");
    }
}

/// Two assignment entries agree in kind, claim, pre-output and
/// certificate bytes, all but the certificate's last 64 bytes (its
/// randomised VRF proof).
fn same_but_proof(re: &AssignmentJson, oe: &AssignmentJson) -> bool {
    re.cert_kind == oe.cert_kind
        && re.claimed_cores == oe.claimed_cores
        && re.vrf_pre_output == oe.vrf_pre_output
        && re.cert.0.len() == oe.cert.0.len()
        && re.cert.0[..re.cert.0.len().saturating_sub(64)]
            == oe.cert.0[..oe.cert.0.len().saturating_sub(64)]
}

/// Each approval entry: payloads byte for byte, signatures by
/// verification, corrupted signatures by failing to verify.
fn compare_approvals(
    r: &mut Report,
    inputs: &Inputs,
    reference: &ConformanceFile,
    ours: &ConformanceFile,
) -> Result<()> {
    r.item(reference.approvals.len() == ours.approvals.len(), || {
        "approval count differs".into()
    });
    for (k, (ra, oa)) in reference.approvals.iter().zip(&ours.approvals).enumerate() {
        compare_approval(r, inputs, k, ra, oa)?;
    }
    Ok(())
}

/// The signed fields of one vote, single or multiple.
#[derive(Clone, Copy)]
struct SignedVote<'a> {
    payload: &'a Hex,
    signature: &'a Hex,
    corrupted_signature: &'a Hex,
}

impl<'a> From<&'a SingleVoteJson> for SignedVote<'a> {
    fn from(v: &'a SingleVoteJson) -> Self {
        SignedVote {
            payload: &v.payload,
            signature: &v.signature,
            corrupted_signature: &v.corrupted_signature,
        }
    }
}

impl<'a> From<&'a MultipleVoteJson> for SignedVote<'a> {
    fn from(v: &'a MultipleVoteJson) -> Self {
        SignedVote {
            payload: &v.payload,
            signature: &v.signature,
            corrupted_signature: &v.corrupted_signature,
        }
    }
}

/// A vote of the reference file and ours, named as in failures
/// (`approvals[k].single[j]`, `approvals[k].multiple`).
struct VotePair<'a> {
    name: String,
    reference: SignedVote<'a>,
    ours: SignedVote<'a>,
}

/// Whether a signature verifies over a payload with the voter's key.
type Verifies<'k> = dyn Fn(&Hex, &Hex) -> bool + 'k;

impl<'a> VotePair<'a> {
    fn new(
        name: String,
        reference: impl Into<SignedVote<'a>>,
        ours: impl Into<SignedVote<'a>>,
    ) -> Self {
        VotePair {
            name,
            reference: reference.into(),
            ours: ours.into(),
        }
    }

    /// Our corrupted signature must not verify.
    fn check_our_corruption(&self, r: &mut Report, verifies: &Verifies<'_>) {
        let (name, y) = (&self.name, &self.ours);
        r.item(!verifies(y.payload, y.corrupted_signature), || {
            format!("{name}: our corrupted signature verifies")
        });
    }

    /// Same payload; both signatures verify; the reference's corrupted one
    /// does not.
    fn compare(&self, r: &mut Report, verifies: &Verifies<'_>) {
        let (name, x, y) = (&self.name, &self.reference, &self.ours);
        r.item(x.payload == y.payload, || {
            format!("{name}: payload differs")
        });
        r.item(verifies(x.payload, x.signature), || {
            format!("{name}: reference signature does not verify")
        });
        r.item(verifies(y.payload, y.signature), || {
            format!("{name}: our signature does not verify")
        });
        r.item(!verifies(x.payload, x.corrupted_signature), || {
            format!("{name}: reference corrupted signature verifies")
        });
    }
}

/// Approval entry `k`: its single votes and its multiple vote.
fn compare_approval(
    r: &mut Report,
    inputs: &Inputs,
    k: usize,
    ra: &ApprovalJson,
    oa: &ApprovalJson,
) -> Result<()> {
    let Some(key) = inputs
        .session
        .validator_key(ValidatorIndex(ra.validator_index))
        .flatten()
    else {
        r.item(false, || format!("approvals[{k}]: unknown validator"));
        return Ok(());
    };
    let sig = |h: &Hex| h.array::<64>("signature").map(ValidatorSignature).ok();
    let verifies = |payload: &Hex, s: &Hex| {
        sig(s).is_some_and(|s| verify_payload(key, &payload.0, &s).is_ok())
    };
    let mut votes = Vec::new();
    if let (Some(rs), Some(os)) = (&ra.single, &oa.single) {
        r.item(rs.len() == os.len(), || {
            format!("approvals[{k}]: single count differs")
        });
        for (j, (x, y)) in rs.iter().zip(os).enumerate() {
            let vote = VotePair::new(format!("approvals[{k}].single[{j}]"), x, y);
            vote.check_our_corruption(r, &verifies);
            votes.push(vote);
        }
    } else {
        r.item(false, || format!("approvals[{k}]: single missing"));
    }
    if let (Some(x), Some(y)) = (&ra.multiple, &oa.multiple) {
        let vote = VotePair::new(format!("approvals[{k}].multiple"), x, y);
        vote.check_our_corruption(r, &verifies);
        votes.push(vote);
    } else {
        r.item(false, || format!("approvals[{k}]: multiple missing"));
    }
    for vote in &votes {
        vote.compare(r, &verifies);
    }
    let hashes = hashes_of(&ra.candidate_hashes)?;
    r.item(!hashes.is_empty(), || {
        format!("approvals[{k}]: no candidates")
    });
    Ok(())
}

/// Each wire message: both encodings byte for byte, both decode back to
/// the message, and the message is valid in the file's context.
fn compare_wire(
    r: &mut Report,
    inputs: &Inputs,
    reference: &ConformanceFile,
    ours: &ConformanceFile,
) -> Result<()> {
    r.item(reference.wire.len() == ours.wire.len(), || {
        "wire count differs".into()
    });
    for (rw, ow) in reference.wire.iter().zip(&ours.wire) {
        compare_wire_entry(r, inputs, rw, ow)?;
    }
    Ok(())
}

/// One wire message of the reference file and ours.
fn compare_wire_entry(r: &mut Report, inputs: &Inputs, rw: &WireJson, ow: &WireJson) -> Result<()> {
    let id = &rw.id;
    r.item(rw.encoded.is_some() && rw.encoded == ow.encoded, || {
        format!("wire {id}: encoded differs")
    });
    r.item(
        rw.validation_protocol_encoded.is_some()
            && rw.validation_protocol_encoded == ow.validation_protocol_encoded,
        || format!("wire {id}: validation_protocol_encoded differs"),
    );
    let expected = message_from_json(&rw.message)?;
    if let Some(enc) = &rw.encoded {
        let back = ApprovalDistributionMessage::decode_wire(&enc.0);
        r.item(back.as_ref() == Ok(&expected), || {
            format!("wire {id}: encoded does not decode back to message: {back:?}")
        });
    }
    if let Some(enc) = &rw.validation_protocol_encoded {
        let back = ValidationProtocol::decode_wire(&enc.0);
        r.item(
            back == Ok(ValidationProtocol::ApprovalDistribution(expected.clone())),
            || format!("wire {id}: validation_protocol_encoded does not decode back"),
        );
    }
    check_wire_content(r, inputs, id, &expected);
    Ok(())
}

/// The messages are valid in the file's context: certificates pass the
/// check for the cores of the candidates they claim; votes verify over the
/// payload of the candidates they name.
fn check_wire_content(r: &mut Report, inputs: &Inputs, id: &str, m: &ApprovalDistributionMessage) {
    let block_of = |h| inputs.blocks.iter().find(|b| b.hash == h);
    match m {
        ApprovalDistributionMessage::Assignments(items) => {
            for AssignmentItem { cert: a, claimed } in items.iter().map(|i| &**i) {
                let Some(block) = block_of(a.block_hash) else {
                    r.item(false, || format!("wire {id}: unknown block"));
                    continue;
                };
                let cands: Option<Vec<_>> = claimed
                    .iter_ones()
                    .map(|i| block.leaving.get(i as usize))
                    .collect();
                let Some(cands) = cands else {
                    r.item(false, || {
                        format!("wire {id}: claimed candidate out of range")
                    });
                    continue;
                };
                let cores: Vec<u32> = cands.iter().map(|lc| lc.core.0).collect();
                let groups: Vec<GroupIndex> = cands.iter().map(|lc| lc.group).collect();
                let got = CoreBitfield::from_indices(&cores)
                    .map_err(|_| ())
                    .and_then(|cb| {
                        check_assignment_cert(
                            &cb,
                            a.validator,
                            &inputs.session,
                            &block.story,
                            &a.cert,
                            &groups,
                        )
                        .map_err(|_| ())
                    });
                r.item(got.is_ok(), || {
                    format!(
                        "wire {id}: assignment of validator {} does not check",
                        a.validator
                    )
                });
            }
        }
        ApprovalDistributionMessage::Approvals(votes) => {
            for v in votes {
                let ok = block_of(v.block_hash).and_then(|block| {
                    let hashes: Option<Vec<_>> = v
                        .candidate_indices
                        .iter_ones()
                        .map(|i| block.leaving.get(i as usize).map(|lc| lc.hash))
                        .collect();
                    let key = inputs.session.validator_key(v.validator).flatten()?;
                    let payload = tranche_primitives::vote::approval_payload(
                        &hashes?,
                        inputs.session.info.session_index,
                    );
                    Some(verify_payload(key, &payload, &v.signature).is_ok())
                });
                r.item(ok == Some(true), || {
                    format!(
                        "wire {id}: approval of validator {} does not verify",
                        v.validator
                    )
                });
            }
        }
    }
}
