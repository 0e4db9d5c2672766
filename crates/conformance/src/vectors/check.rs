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
    ApprovalDistributionMessage, AssignmentCert, AssignmentCertKind, CoreBitfield, GroupIndex,
    ValidationProtocol, ValidatorIndex,
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

/// Compare `ours` with `reference`.
pub fn compare(reference: &ConformanceFile, ours: &ConformanceFile) -> Result<Report> {
    let inputs = Inputs::parse(reference)?;
    let mut r = Report::default();

    compare_validators(&mut r, reference, ours);
    compare_assignments(&mut r, &inputs, reference, ours);
    compare_approvals(&mut r, &inputs, reference, ours)?;
    compare_wire(&mut r, &inputs, reference, ours)?;
    Ok(r)
}

/// Public keys, and the validator and block counts.
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
    r.item(reference.blocks.len() == ours.blocks.len(), || {
        "block count differs".into()
    });
}

/// Per block and validator: the assignments, their intermediates and
/// certificates, and that every certificate checks.
fn compare_assignments(
    r: &mut Report,
    inputs: &Inputs,
    reference: &ConformanceFile,
    ours: &ConformanceFile,
) {
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
                r.item(
                    re.cert_kind == oe.cert_kind
                        && re.claimed_cores == oe.claimed_cores
                        && re.vrf_pre_output == oe.vrf_pre_output
                        && re.cert.0.len() == oe.cert.0.len()
                        && re.cert.0[..re.cert.0.len().saturating_sub(64)]
                            == oe.cert.0[..oe.cert.0.len().saturating_sub(64)],
                    || {
                        format!(
                            "block {:?} validator {v} core {}: cert differs from reference",
                            bi.hash, re.core_index
                        )
                    },
                );
                check_entry(r, inputs, bi, v, re, "reference");
                check_entry(r, inputs, bi, v, oe, "ours");
            }
        }
    }
}

/// Approval payloads and signatures, single and multiple.
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
        let Some(key) = inputs
            .session
            .validator_key(ValidatorIndex(ra.validator_index))
            .flatten()
        else {
            r.item(false, || format!("approvals[{k}]: unknown validator"));
            continue;
        };
        let sig = |h: &Hex| h.array::<64>("signature").map(ValidatorSignature).ok();
        let verifies = |payload: &Hex, s: &Hex| {
            sig(s).is_some_and(|s| verify_payload(key, &payload.0, &s).is_ok())
        };
        let mut votes: Vec<(String, &Hex, &Hex, &Hex, &Hex, &Hex)> = Vec::new();
        if let (Some(rs), Some(os)) = (&ra.single, &oa.single) {
            r.item(rs.len() == os.len(), || {
                format!("approvals[{k}]: single count differs")
            });
            for (j, (x, y)) in rs.iter().zip(os).enumerate() {
                votes.push((
                    format!("approvals[{k}].single[{j}]"),
                    &x.payload,
                    &y.payload,
                    &x.signature,
                    &y.signature,
                    &x.corrupted_signature,
                ));
                r.item(!verifies(&y.payload, &y.corrupted_signature), || {
                    format!("approvals[{k}].single[{j}]: our corrupted signature verifies")
                });
            }
        } else {
            r.item(false, || format!("approvals[{k}]: single missing"));
        }
        if let (Some(x), Some(y)) = (&ra.multiple, &oa.multiple) {
            votes.push((
                format!("approvals[{k}].multiple"),
                &x.payload,
                &y.payload,
                &x.signature,
                &y.signature,
                &x.corrupted_signature,
            ));
            r.item(!verifies(&y.payload, &y.corrupted_signature), || {
                format!("approvals[{k}].multiple: our corrupted signature verifies")
            });
        } else {
            r.item(false, || format!("approvals[{k}]: multiple missing"));
        }
        for (name, rp, op, rs, os, rc) in votes {
            r.item(rp == op, || format!("{name}: payload differs"));
            r.item(verifies(rp, rs), || {
                format!("{name}: reference signature does not verify")
            });
            r.item(verifies(op, os), || {
                format!("{name}: our signature does not verify")
            });
            r.item(!verifies(rp, rc), || {
                format!("{name}: reference corrupted signature verifies")
            });
        }
        let hashes = hashes_of(&ra.candidate_hashes)?;
        r.item(!hashes.is_empty(), || {
            format!("approvals[{k}]: no candidates")
        });
    }
    Ok(())
}

/// Wire encodings, and that they decode back to their messages.
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
    }
    Ok(())
}

/// The messages are valid in the file's context: certificates pass the
/// check for the cores of the candidates they claim; votes verify over the
/// payload of the candidates they name.
fn check_wire_content(r: &mut Report, inputs: &Inputs, id: &str, m: &ApprovalDistributionMessage) {
    let block_of = |h| inputs.blocks.iter().find(|b| b.hash == h);
    match m {
        ApprovalDistributionMessage::Assignments(items) => {
            for (a, claimed) in items {
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
