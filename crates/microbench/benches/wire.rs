//! Wire codec microbenchmarks of tranche-primitives (criterion): encoding and
//! decoding (`ValidationProtocol::decode_wire`) of whole v3 notifications:
//! one assignment (delay and compact certificates), one approval, a full
//! batch of 193 assignments and a full batch of 266 approvals, the shapes
//! and sizes of upstream `send_assignments_batched` / `send_approvals_batched` in `polkadot/node/network/approval-distribution/src/lib.rs` (a full batch is ~26.8 KB / ~27.1 KB).
//! Run: `cargo bench -p tranche-microbench --bench wire`.

use criterion::{criterion_group, criterion_main, Criterion};
use parity_scale_codec::Encode;
use std::hint::black_box;
use tranche_primitives::cert::{AssignmentCertKind, VrfSignature};
use tranche_primitives::constants::{MAX_APPROVAL_BATCH_SIZE, MAX_ASSIGNMENT_BATCH_SIZE};
use tranche_primitives::{
    ApprovalDistributionMessage, AssignmentCert, AssignmentItem, CandidateBitfield, CoreBitfield,
    CoreIndex, Hash, IndirectAssignmentCert, IndirectSignedApprovalVote, ValidationProtocol,
    ValidatorIndex, ValidatorSignature,
};

/// Deterministic filler bytes, different per `seed`.
fn bytes<const N: usize>(seed: u32) -> [u8; N] {
    let mut out = [0u8; N];
    for (i, b) in out.iter_mut().enumerate() {
        *b = (seed as usize * 131 + i * 29 + 7) as u8;
    }
    out
}

/// A VRF signature whose proof scalars are canonical (top nibble cleared), so
/// that decoding accepts it as it would a real one.
fn vrf(seed: u32) -> VrfSignature {
    let mut proof: [u8; 64] = bytes(seed + 1);
    proof[31] &= 0x0f;
    proof[63] &= 0x0f;
    VrfSignature {
        pre_output: bytes(seed),
        proof,
    }
}

fn delay_assignment(i: u32) -> AssignmentItem {
    let core = i % 100;
    AssignmentItem {
        cert: IndirectAssignmentCert {
            block_hash: Hash([0x11; 32]),
            validator: ValidatorIndex(i),
            cert: AssignmentCert {
                kind: AssignmentCertKind::RelayVRFDelay {
                    core_index: CoreIndex(core),
                },
                vrf: vrf(i),
            },
        },
        claimed: CandidateBitfield::from_index(core),
    }
}

fn compact_assignment(i: u32) -> AssignmentItem {
    let cores = [3, 17, 42];
    AssignmentItem {
        cert: IndirectAssignmentCert {
            block_hash: Hash([0x11; 32]),
            validator: ValidatorIndex(i),
            cert: AssignmentCert {
                kind: AssignmentCertKind::RelayVRFModuloCompact {
                    core_bitfield: CoreBitfield::from_indices(&cores).unwrap(),
                },
                vrf: vrf(i),
            },
        },
        claimed: CandidateBitfield::from_indices(&cores).unwrap(),
    }
}

fn approval(i: u32) -> IndirectSignedApprovalVote {
    IndirectSignedApprovalVote {
        block_hash: Hash([0x11; 32]),
        candidate_indices: CandidateBitfield::from_index(i % 100),
        validator: ValidatorIndex(i),
        signature: ValidatorSignature(bytes(i)),
    }
}

fn notification(m: ApprovalDistributionMessage) -> ValidationProtocol {
    ValidationProtocol::ApprovalDistribution(m)
}

fn bench_wire(c: &mut Criterion) {
    let n_assign = MAX_ASSIGNMENT_BATCH_SIZE as u32;
    let n_appr = MAX_APPROVAL_BATCH_SIZE as u32;
    let messages = [
        (
            "assignment_delay",
            notification(ApprovalDistributionMessage::assignments([
                delay_assignment(1),
            ])),
        ),
        (
            "assignment_compact",
            notification(ApprovalDistributionMessage::assignments([
                compact_assignment(1),
            ])),
        ),
        (
            "approval",
            notification(ApprovalDistributionMessage::approvals([approval(1)])),
        ),
        (
            "assignments_193",
            notification(ApprovalDistributionMessage::assignments(
                (0..n_assign).map(delay_assignment),
            )),
        ),
        (
            "approvals_266",
            notification(ApprovalDistributionMessage::approvals(
                (0..n_appr).map(approval),
            )),
        ),
    ];
    let mut enc_group = c.benchmark_group("wire_encode");
    for (name, msg) in &messages {
        enc_group.bench_function(*name, |b| b.iter(|| black_box(msg).encode()));
    }
    enc_group.finish();
    let mut dec_group = c.benchmark_group("wire_decode");
    for (name, msg) in &messages {
        let enc = msg.encode();
        assert_eq!(ValidationProtocol::decode_wire(&enc).as_ref(), Ok(msg));
        println!("{name}: {} bytes", enc.len());
        dec_group.bench_function(*name, |b| {
            b.iter(|| ValidationProtocol::decode_wire(black_box(&enc)))
        });
    }
    dec_group.finish();
}

criterion_group!(benches, bench_wire);
criterion_main!(benches);
