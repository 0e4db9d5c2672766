//! Assignment criteria (upstream `polkadot/node/core/approval-voting/src/criteria.rs`): computing our own assignments for a block
//! and checking the certificates of others. Transcripts, context strings and
//! the core-sampling shuffle are Polkadot's, byte for byte.

use crate::bitfield::CoreBitfield;
use crate::block::{Candidate, RelayVrfStory};
use crate::cert::{AssignmentCert, AssignmentCertKind, VrfSignature};
use crate::constants::MAX_MODULO_SAMPLES;
use crate::ids::{CoreIndex, DelayTranche, GroupIndex, ValidatorIndex};
use crate::keys::ValidatorPair;
use crate::session::{Session, SessionInfo};
use merlin::Transcript;
use parity_scale_codec::Encode;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use schnorrkel::vrf::{VRFInOut, VRFPreOut, VRFProof};
use schnorrkel::PublicKey;
use std::collections::BTreeMap;

const RELAY_VRF_MODULO_CONTEXT_V1: &[u8] = b"A&V MOD";
const RELAY_VRF_MODULO_CONTEXT_V2: &[u8] = b"A&V MOD v2";
const RELAY_VRF_DELAY_CONTEXT: &[u8] = b"A&V DELAY";
const ASSIGNED_CORE_CONTEXT_V1: &[u8] = b"A&V ASSIGNED";
const ASSIGNED_CORE_CONTEXT_V2: &[u8] = b"A&V ASSIGNED v2";
const CORE_RANDOMNESS_CONTEXT_V1: &[u8] = b"A&V CORE";
const CORE_RANDOMNESS_CONTEXT_V2: &[u8] = b"A&V CORE v2";
const TRANCHE_RANDOMNESS_CONTEXT: &[u8] = b"A&V TRANCHE";
/// schnorrkel's "Kusama VRF" proof mode, which Polkadot uses.
const KUSAMA_VRF: bool = true;

/// One of our assignments: the certificate and the tranche it starts in.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct OurAssignment {
    pub cert: AssignmentCert,
    pub tranche: DelayTranche,
    pub validator_index: ValidatorIndex,
}

/// Intermediate values of the tranche-0 VRF, for conformance reports.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ModuloTrace {
    pub vrf_pre_output: [u8; 32],
    /// The ChaCha20 seed (v2 only; zero for v1).
    pub core_randomness: [u8; 32],
    /// Cores drawn, in sample order.
    pub sampled_cores: Vec<CoreIndex>,
    /// The sampled cores that are eligible leaving cores, in sample order.
    pub assigned_cores: Vec<CoreIndex>,
}

/// Intermediate values of one delay VRF, for conformance reports.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DelayTrace {
    pub core: CoreIndex,
    pub vrf_pre_output: [u8; 32],
    pub tranche_randomness: [u8; 4],
    pub tranche: DelayTranche,
}

/// Everything `compute_assignments_traced` worked out.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct AssignmentTrace {
    pub modulo: Option<ModuloTrace>,
    pub delay: Vec<DelayTrace>,
}

/// Why a certificate was rejected, in the order the checks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum InvalidAssignmentReason {
    #[error("validator index out of bounds")]
    ValidatorIndexOutOfBounds,
    #[error("modulo sample out of bounds")]
    SampleOutOfBounds,
    #[error("claimed core index out of bounds")]
    CoreIndexOutOfBounds,
    #[error("assignment key does not parse")]
    InvalidAssignmentKey,
    #[error("validator is in the backing group of a claimed core")]
    IsInBackingGroup,
    #[error("modulo certificate does not cover the claimed cores")]
    VRFModuloCoreIndexMismatch,
    #[error("modulo VRF does not verify")]
    VRFModuloOutputMismatch,
    #[error("delay certificate core differs from the claimed core")]
    VRFDelayCoreIndexMismatch,
    #[error("delay VRF does not verify")]
    VRFDelayOutputMismatch,
    #[error("claimed cores and backing groups do not fit the certificate")]
    InvalidArguments,
    #[error("assignment claims no candidate")]
    NullAssignment,
    /// Ours, not upstream's: a v1 `RelayVRFModulo` certificate (kind index 2)
    /// in a session that runs v2 assignments. Current Polkadot no longer
    /// produces or accepts it; we accept it only in sessions that explicitly
    /// run v1 assignments (`SessionInfo::assignments_v2 == false`, the
    /// benchmark's "no optimisations" scenarios).
    #[error("v1 modulo certificate in a session that runs v2 assignments")]
    V1ModuloNotEnabled,
}

fn modulo_transcript_v1(story: &RelayVrfStory, sample: u32) -> Transcript {
    let mut t = Transcript::new(RELAY_VRF_MODULO_CONTEXT_V1);
    t.append_message(b"RC-VRF", &story.0);
    t.append_message(b"sample", &sample.to_le_bytes());
    t
}

fn modulo_transcript_v2(story: &RelayVrfStory) -> Transcript {
    let mut t = Transcript::new(RELAY_VRF_MODULO_CONTEXT_V2);
    t.append_message(b"RC-VRF", &story.0);
    t
}

fn delay_transcript(story: &RelayVrfStory, core: CoreIndex) -> Transcript {
    let mut t = Transcript::new(RELAY_VRF_DELAY_CONTEXT);
    t.append_message(b"RC-VRF", &story.0);
    t.append_message(b"core", &core.0.to_le_bytes());
    t
}

fn assigned_core_transcript_v1(core: CoreIndex) -> Transcript {
    let mut t = Transcript::new(ASSIGNED_CORE_CONTEXT_V1);
    t.append_message(b"core", &core.0.to_le_bytes());
    t
}

fn assigned_cores_transcript_v2(cores: &CoreBitfield) -> Transcript {
    let mut t = Transcript::new(ASSIGNED_CORE_CONTEXT_V2);
    t.append_message(b"cores", &cores.encode());
    t
}

fn modulo_core_v1(io: &VRFInOut, n_cores: u32) -> CoreIndex {
    let bytes: [u8; 4] = io.make_bytes(CORE_RANDOMNESS_CONTEXT_V1);
    CoreIndex(u32::from_le_bytes(bytes) % n_cores)
}

fn core_randomness_v2(io: &VRFInOut) -> [u8; 32] {
    io.make_bytes(CORE_RANDOMNESS_CONTEXT_V2)
}

/// The tranche of a delay VRF output. A session whose tranche count and
/// zeroth width are both zero has only tranche 0 (upstream would divide by
/// zero).
fn delay_tranche(io: &VRFInOut, info: &SessionInfo) -> ([u8; 4], DelayTranche) {
    let bytes: [u8; 4] = io.make_bytes(TRANCHE_RANDOMNESS_CONTEXT);
    let width = info.zeroth_delay_tranche_width;
    let modulus = info.n_delay_tranches.wrapping_add(width);
    let tranche = if modulus == 0 {
        0
    } else {
        (u32::from_le_bytes(bytes) % modulus).saturating_sub(width)
    };
    (bytes, tranche)
}

/// The cores a compact modulo VRF samples: a partial Fisher–Yates shuffle
/// of `0..max_cores` driven by ChaCha20 seeded with the VRF's core
/// randomness (rand 0.8 `partial_shuffle`, rand_chacha 0.3). Upstream pins
/// this algorithm; changing it would split the validator set.
pub fn generate_samples(seed: [u8; 32], num_samples: u32, max_cores: u32) -> Vec<CoreIndex> {
    let mut rng = ChaCha20Rng::from_seed(seed);
    let amount = MAX_MODULO_SAMPLES.min(num_samples).min(max_cores) as usize;
    let mut cores: Vec<CoreIndex> = (0..max_cores).map(CoreIndex).collect();
    let (sample, _) = cores.partial_shuffle(&mut rng, amount);
    sample.to_vec()
}

fn vrf_signature(io: &VRFInOut, proof: [u8; 64]) -> VrfSignature {
    VrfSignature {
        pre_output: io.to_preout().to_bytes(),
        proof,
    }
}

/// Whether our certificates carry their VRF proofs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Proofs {
    /// Every certificate proven, as upstream.
    #[default]
    Made,
    /// The VRF outputs computed (so the cores and tranches are exactly
    /// those of `Made`) but no DLEQ proof: the proof bytes are zero, and no
    /// honest check accepts the certificate. Only for runs in which nobody
    /// checks certificates (the simulation's `--verify model`), where the
    /// proofs are most of a validator's own crypto and nobody reads them.
    Skipped,
}

/// Our assignments for a block (Polkadot's `compute_assignments`): the
/// tranche-0 modulo criterion (v2 compact or v1 per `info.assignments_v2`)
/// and one delay certificate per eligible core; a core keeps the earliest.
pub fn compute_assignments(
    pair: &ValidatorPair,
    validator_index: ValidatorIndex,
    story: &RelayVrfStory,
    info: &SessionInfo,
    leaving_cores: &[Candidate],
) -> BTreeMap<CoreIndex, OurAssignment> {
    compute_assignments_traced(pair, validator_index, story, info, leaving_cores).0
}

/// `compute_assignments`, also returning the VRFs' intermediate values.
pub fn compute_assignments_traced(
    pair: &ValidatorPair,
    validator_index: ValidatorIndex,
    story: &RelayVrfStory,
    info: &SessionInfo,
    leaving_cores: &[Candidate],
) -> (BTreeMap<CoreIndex, OurAssignment>, AssignmentTrace) {
    compute_assignments_with(
        pair,
        validator_index,
        story,
        info,
        leaving_cores,
        Proofs::Made,
    )
}

/// `compute_assignments_traced` with or without the certificates' proofs.
pub fn compute_assignments_with(
    pair: &ValidatorPair,
    validator_index: ValidatorIndex,
    story: &RelayVrfStory,
    info: &SessionInfo,
    leaving_cores: &[Candidate],
    proofs: Proofs,
) -> (BTreeMap<CoreIndex, OurAssignment>, AssignmentTrace) {
    // The DLEQ proof of `io` under `transcript`, or zeros.
    let prove = |transcript: Transcript, io: &VRFInOut| -> [u8; 64] {
        match proofs {
            Proofs::Made => pair
                .keypair()
                .dleq_proove(transcript, io, KUSAMA_VRF)
                .0
                .to_bytes(),
            Proofs::Skipped => [0; 64],
        }
    };
    let mut out = BTreeMap::new();
    let mut trace = AssignmentTrace::default();
    if info.n_cores == 0 || info.assignment_keys.is_empty() || info.validator_groups.is_empty() {
        return (out, trace);
    }
    // A validator never checks a candidate its own group backed.
    let eligible: Vec<Candidate> = leaving_cores
        .iter()
        .filter(|lc| !info.is_in_group(lc.group, validator_index))
        .copied()
        .collect();
    let keypair = pair.keypair();

    if info.assignments_v2 {
        let t = modulo_transcript_v2(story);
        let io = keypair.vrf_create_hash(t);
        let seed = core_randomness_v2(&io);
        let sampled = generate_samples(seed, info.relay_vrf_modulo_samples, info.n_cores);
        let assigned: Vec<CoreIndex> = sampled
            .iter()
            .filter(|c| eligible.iter().any(|lc| lc.core == **c))
            .copied()
            .collect();
        if !assigned.is_empty() {
            let indices: Vec<u32> = assigned.iter().map(|c| c.0).collect();
            let bitfield = CoreBitfield::from_indices(&indices).expect("non-empty");
            let proof = prove(assigned_cores_transcript_v2(&bitfield), &io);
            let cert = AssignmentCert {
                kind: AssignmentCertKind::RelayVRFModuloCompact {
                    core_bitfield: bitfield,
                },
                vrf: vrf_signature(&io, proof),
            };
            for core in &assigned {
                out.insert(
                    *core,
                    OurAssignment {
                        cert: cert.clone(),
                        tranche: 0,
                        validator_index,
                    },
                );
            }
        }
        trace.modulo = Some(ModuloTrace {
            vrf_pre_output: io.to_preout().to_bytes(),
            core_randomness: seed,
            sampled_cores: sampled,
            assigned_cores: assigned,
        });
    } else {
        for sample in 0..info.relay_vrf_modulo_samples {
            let io = keypair.vrf_create_hash(modulo_transcript_v1(story, sample));
            let core = modulo_core_v1(&io, info.n_cores);
            if !eligible.iter().any(|lc| lc.core == core) || out.contains_key(&core) {
                // An earlier sample already claimed this core, or it is not
                // ours to check: no proof is made.
                continue;
            }
            let proof = prove(assigned_core_transcript_v1(core), &io);
            out.insert(
                core,
                OurAssignment {
                    cert: AssignmentCert {
                        kind: AssignmentCertKind::RelayVRFModulo { sample },
                        vrf: vrf_signature(&io, proof),
                    },
                    tranche: 0,
                    validator_index,
                },
            );
        }
    }

    for lc in &eligible {
        // `vrf_sign` is `vrf_create_hash`, then the proof under the
        // extra transcript "VRF" (schnorrkel's `vrf_sign_extra`).
        let io = keypair.vrf_create_hash(delay_transcript(story, lc.core));
        let proof = prove(Transcript::new(b"VRF"), &io);
        let (randomness, tranche) = delay_tranche(&io, info);
        trace.delay.push(DelayTrace {
            core: lc.core,
            vrf_pre_output: io.to_preout().to_bytes(),
            tranche_randomness: randomness,
            tranche,
        });
        let replace = out.get(&lc.core).is_none_or(|a| a.tranche > tranche);
        if replace {
            out.insert(
                lc.core,
                OurAssignment {
                    cert: AssignmentCert {
                        kind: AssignmentCertKind::RelayVRFDelay {
                            core_index: lc.core,
                        },
                        vrf: vrf_signature(&io, proof),
                    },
                    tranche,
                    validator_index,
                },
            );
        }
    }
    (out, trace)
}

fn vrf_parts(vrf: &VrfSignature) -> Option<(VRFPreOut, VRFProof)> {
    let pre = VRFPreOut::from_bytes(&vrf.pre_output).ok()?;
    let proof = VRFProof::from_bytes(&vrf.proof).ok()?;
    Some((pre, proof))
}

/// [`check_assignment_cert`] of a certificate claiming the `claimed`
/// candidates of `block`: their cores and backing groups are the block's
/// (claimed indices the block does not have are left out, and a claim
/// whose cores do not form a bitfield is `CoreIndexOutOfBounds`).
pub fn check_assignment_in_block(
    block: &crate::block::Block,
    session: &Session,
    validator: ValidatorIndex,
    cert: &AssignmentCert,
    claimed: &crate::bitfield::CandidateBitfield,
) -> Result<DelayTranche, InvalidAssignmentReason> {
    let cands: Vec<&Candidate> = claimed
        .iter_ones()
        .filter_map(|i| block.candidates.get(i as usize))
        .collect();
    let cores: Vec<u32> = cands.iter().map(|c| c.core.0).collect();
    let groups: Vec<GroupIndex> = cands.iter().map(|c| c.group).collect();
    let cores = CoreBitfield::from_indices(&cores)
        .map_err(|_| InvalidAssignmentReason::CoreIndexOutOfBounds)?;
    check_assignment_cert(
        &cores,
        validator,
        session,
        &block.relay_vrf_story,
        cert,
        &groups,
    )
}

/// Check a certificate (Polkadot's `check_assignment_cert`) and return the
/// tranche it proves. `claimed_cores` are the cores of the candidates the
/// message claims; `backing_groups` their backing groups in ascending
/// candidate-index order (which is core order within a block).
pub fn check_assignment_cert(
    claimed_cores: &CoreBitfield,
    validator: ValidatorIndex,
    session: &Session,
    story: &RelayVrfStory,
    cert: &AssignmentCert,
    backing_groups: &[GroupIndex],
) -> Result<DelayTranche, InvalidAssignmentReason> {
    use InvalidAssignmentReason as R;
    let info = &session.info;
    let public: &PublicKey = session
        .assignment_key(validator)
        .ok_or(R::ValidatorIndexOutOfBounds)?
        .ok_or(R::InvalidAssignmentKey)?;
    let claimed = claimed_cores.count_ones();
    if claimed == 0 || claimed != backing_groups.len() {
        return Err(R::InvalidArguments);
    }
    // Bounds and backing-group membership, core by core (interleaved as
    // upstream, so the first failing core decides the error).
    for (core, group) in claimed_cores.iter_ones().zip(backing_groups) {
        if core >= info.n_cores {
            return Err(R::CoreIndexOutOfBounds);
        }
        if info.is_in_group(*group, validator) {
            return Err(R::IsInBackingGroup);
        }
    }
    let first = claimed_cores.first_one().expect("count_ones > 0");

    match &cert.kind {
        AssignmentCertKind::RelayVRFModuloCompact { core_bitfield } => {
            if claimed_cores != core_bitfield {
                return Err(R::VRFModuloCoreIndexMismatch);
            }
            let (pre, proof) = vrf_parts(&cert.vrf).ok_or(R::VRFModuloOutputMismatch)?;
            let (io, _) = public
                .vrf_verify_extra(
                    modulo_transcript_v2(story),
                    &pre,
                    &proof,
                    assigned_cores_transcript_v2(core_bitfield),
                )
                .map_err(|_| R::VRFModuloOutputMismatch)?;
            let sampled = generate_samples(
                core_randomness_v2(&io),
                info.relay_vrf_modulo_samples,
                info.n_cores,
            );
            if claimed_cores
                .iter_ones()
                .all(|c| sampled.contains(&CoreIndex(c)))
            {
                Ok(0)
            } else {
                Err(R::VRFModuloCoreIndexMismatch)
            }
        }
        AssignmentCertKind::RelayVRFModulo { sample } => {
            if info.assignments_v2 {
                return Err(R::V1ModuloNotEnabled);
            }
            if *sample >= info.relay_vrf_modulo_samples {
                return Err(R::SampleOutOfBounds);
            }
            if claimed != 1 {
                return Err(R::InvalidArguments);
            }
            let (pre, proof) = vrf_parts(&cert.vrf).ok_or(R::VRFModuloOutputMismatch)?;
            let (io, _) = public
                .vrf_verify_extra(
                    modulo_transcript_v1(story, *sample),
                    &pre,
                    &proof,
                    assigned_core_transcript_v1(CoreIndex(first)),
                )
                .map_err(|_| R::VRFModuloOutputMismatch)?;
            if modulo_core_v1(&io, info.n_cores) == CoreIndex(first) {
                Ok(0)
            } else {
                Err(R::VRFModuloCoreIndexMismatch)
            }
        }
        AssignmentCertKind::RelayVRFDelay { core_index } => {
            if claimed != 1 {
                return Err(R::InvalidArguments);
            }
            if core_index.0 != first {
                return Err(R::VRFDelayCoreIndexMismatch);
            }
            let (pre, proof) = vrf_parts(&cert.vrf).ok_or(R::VRFDelayOutputMismatch)?;
            let (io, _) = public
                .vrf_verify(delay_transcript(story, *core_index), &pre, &proof)
                .map_err(|_| R::VRFDelayOutputMismatch)?;
            Ok(delay_tranche(&io, info).1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::CandidateHash;
    use crate::keys::ValidatorId;

    const SEED: [u8; 32] = [
        1, 0, 52, 0, 0, 0, 0, 0, 1, 0, 10, 0, 22, 32, 0, 0, 2, 0, 55, 49, 0, 11, 0, 0, 3, 0, 0, 0,
        0, 0, 2, 92,
    ];

    fn cores(v: &[u32]) -> Vec<CoreIndex> {
        v.iter().map(|c| CoreIndex(*c)).collect()
    }

    #[test]
    fn generate_samples_matches_upstream() {
        assert_eq!(
            generate_samples(SEED, 6, 100),
            cores(&[19, 79, 17, 75, 66, 30])
        );
        assert_eq!(generate_samples(SEED, 6, 7), cores(&[0, 3, 6, 5, 4, 2]));
        assert_eq!(generate_samples(SEED, 6, 12), cores(&[2, 4, 7, 5, 11, 3]));
        assert_eq!(generate_samples(SEED, 1, 100), cores(&[30]));
        assert_eq!(generate_samples(SEED, 0, 100), cores(&[]));
        let capped = generate_samples(SEED, 41, 100);
        assert_eq!(capped.len(), 40);
        assert_eq!(&capped[34..], &cores(&[19, 79, 17, 75, 66, 30])[..]);
    }

    pub(crate) fn session(n: u32, n_cores: u32, v2: bool) -> Session {
        let pairs: Vec<ValidatorPair> = (0..n)
            .map(|i| ValidatorPair::from_label(&format!("validator-{i}")))
            .collect();
        let keys: Vec<ValidatorId> = pairs.iter().map(|p| p.id()).collect();
        Session::new(SessionInfo {
            session_index: 1,
            n_cores,
            needed_approvals: 3,
            relay_vrf_modulo_samples: 2,
            n_delay_tranches: 40,
            zeroth_delay_tranche_width: 0,
            no_show_slots: 2,
            validator_groups: (0..n_cores)
                .map(|g| vec![ValidatorIndex(g * 2 % n), ValidatorIndex((g * 2 + 1) % n)])
                .collect(),
            assignment_keys: keys.clone(),
            validators: keys,
            assignments_v2: v2,
            max_approval_coalesce_count: 1,
        })
    }

    fn leaving(n_cores: u32) -> Vec<Candidate> {
        (0..n_cores)
            .map(|c| Candidate {
                hash: CandidateHash::from([c as u8; 32]),
                core: CoreIndex(c),
                group: GroupIndex(c),
            })
            .collect()
    }

    fn claimed_for(a: &OurAssignment, core: CoreIndex) -> CoreBitfield {
        match &a.cert.kind {
            AssignmentCertKind::RelayVRFModuloCompact { core_bitfield } => core_bitfield.clone(),
            _ => CoreBitfield::from_index(core.0),
        }
    }

    #[test]
    fn own_certificates_check_out_v1_and_v2() {
        for v2 in [true, false] {
            let s = session(10, 6, v2);
            let story = RelayVrfStory([42; 32]);
            let lc = leaving(6);
            for v in 0..10 {
                let pair = ValidatorPair::from_label(&format!("validator-{v}"));
                let ours = compute_assignments(&pair, ValidatorIndex(v), &story, &s.info, &lc);
                assert!(!ours.is_empty());
                for (core, a) in &ours {
                    let claimed = claimed_for(a, *core);
                    let groups: Vec<GroupIndex> = claimed.iter_ones().map(GroupIndex).collect();
                    let got = check_assignment_cert(
                        &claimed,
                        ValidatorIndex(v),
                        &s,
                        &story,
                        &a.cert,
                        &groups,
                    );
                    assert_eq!(got, Ok(a.tranche), "v2={v2} validator {v} core {core:?}");
                }
            }
        }
    }

    /// Skipping the proofs changes nothing but the proof bytes: the same
    /// cores, tranches, kinds and VRF outputs; the unproven certificates
    /// (zero proofs) fail the check the proven ones pass.
    #[test]
    fn skipped_proofs_keep_every_choice_and_do_not_check() {
        for v2 in [true, false] {
            let s = session(10, 6, v2);
            let story = RelayVrfStory([7; 32]);
            let lc = leaving(6);
            for v in 0..10 {
                let pair = ValidatorPair::from_label(&format!("validator-{v}"));
                let run = |proofs| {
                    compute_assignments_with(&pair, ValidatorIndex(v), &story, &s.info, &lc, proofs)
                };
                let ((made, made_trace), (bare, bare_trace)) =
                    (run(Proofs::Made), run(Proofs::Skipped));
                assert_eq!(made_trace, bare_trace);
                assert_eq!(
                    made.keys().collect::<Vec<_>>(),
                    bare.keys().collect::<Vec<_>>()
                );
                for ((core, a), b) in made.iter().zip(bare.values()) {
                    assert_eq!(a.tranche, b.tranche);
                    assert_eq!(a.cert.kind, b.cert.kind);
                    assert_eq!(a.cert.vrf.pre_output, b.cert.vrf.pre_output);
                    assert_ne!(a.cert.vrf.proof, [0; 64]);
                    assert_eq!(b.cert.vrf.proof, [0; 64]);
                    let claimed = claimed_for(a, *core);
                    let groups: Vec<GroupIndex> = claimed.iter_ones().map(GroupIndex).collect();
                    let check = |cert| {
                        check_assignment_cert(
                            &claimed,
                            ValidatorIndex(v),
                            &s,
                            &story,
                            cert,
                            &groups,
                        )
                    };
                    assert_eq!(check(&a.cert), Ok(a.tranche));
                    assert!(
                        check(&b.cert).is_err(),
                        "v2={v2} validator {v} core {core:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn rejections() {
        use InvalidAssignmentReason as R;
        let s = session(10, 6, true);
        let story = RelayVrfStory([42; 32]);
        let pair = ValidatorPair::from_label("validator-9");
        let ours = compute_assignments(&pair, ValidatorIndex(9), &story, &s.info, &leaving(6));
        let (core, a) = ours
            .iter()
            .find(|(_, a)| {
                a.tranche > 0 || matches!(a.cert.kind, AssignmentCertKind::RelayVRFDelay { .. })
            })
            .unwrap();
        let claimed = CoreBitfield::from_index(core.0);
        let g = [GroupIndex(core.0)];
        let check = |c: &CoreBitfield, v: u32, cert: &AssignmentCert, groups: &[GroupIndex]| {
            check_assignment_cert(c, ValidatorIndex(v), &s, &story, cert, groups)
        };
        assert_eq!(
            check(&claimed, 10, &a.cert, &g),
            Err(R::ValidatorIndexOutOfBounds)
        );
        assert_eq!(check(&claimed, 9, &a.cert, &[]), Err(R::InvalidArguments));
        assert_eq!(
            check(&CoreBitfield::from_index(7), 9, &a.cert, &g),
            Err(R::CoreIndexOutOfBounds)
        );
        // Validator 9 is in group 4 (validators 8 and 9).
        assert_eq!(
            check(&CoreBitfield::from_index(4), 9, &a.cert, &[GroupIndex(4)]),
            Err(R::IsInBackingGroup)
        );
        let other = CoreBitfield::from_index((core.0 + 1) % 4);
        assert_eq!(
            check(&other, 9, &a.cert, &g),
            Err(R::VRFDelayCoreIndexMismatch)
        );
        assert_eq!(
            check(&claimed, 8, &a.cert, &g),
            Err(R::VRFDelayOutputMismatch)
        );
        let v1 = AssignmentCert {
            kind: AssignmentCertKind::RelayVRFModulo { sample: 0 },
            vrf: a.cert.vrf,
        };
        assert_eq!(check(&claimed, 9, &v1, &g), Err(R::V1ModuloNotEnabled));
        let mut bad_key = s.info.clone();
        bad_key.assignment_keys[9] = ValidatorId([0xff; 32]);
        let s2 = Session::new(bad_key);
        assert_eq!(
            check_assignment_cert(&claimed, ValidatorIndex(9), &s2, &story, &a.cert, &g),
            Err(R::InvalidAssignmentKey)
        );
    }
}
