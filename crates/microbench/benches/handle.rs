//! Per-message handling cost of the distribution state machine, crypto
//! excluded (verdicts are injected as if pre-checked): first-seen and
//! duplicate assignments and approvals, at 100, 500 and 1000 validators
//! (all connected, all viewing the block), 100 cores. Each timed message is
//! phase 1 + phase 2 for first-seen ones, phase 1 for copies, including
//! the routing decisions and the emitted actions.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tranche_distribution::*;
use tranche_primitives::*;

const N_CORES: u32 = 100;
const CHUNK: u64 = 5_000;

fn session(n: u32) -> Arc<Session> {
    // Keys are irrelevant (no crypto runs); one key for everybody.
    let key = ValidatorPair::from_label("validator-0").id();
    Arc::new(Session::new(SessionInfo {
        session_index: 1,
        n_cores: N_CORES,
        needed_approvals: 30,
        relay_vrf_modulo_samples: 6,
        n_delay_tranches: 89,
        zeroth_delay_tranche_width: 0,
        no_show_slots: 3,
        validator_groups: (0..N_CORES).map(|g| vec![ValidatorIndex(g)]).collect(),
        assignment_keys: vec![key; n as usize],
        validators: vec![key; n as usize],
        assignments_v2: true,
        max_approval_coalesce_count: 1,
    }))
}

fn meta() -> Block {
    Block {
        hash: Hash([1; 32]),
        number: 1,
        parent: Hash([0; 32]),
        candidates: (0..N_CORES)
            .map(|c| Candidate {
                hash: CandidateHash(Hash([c as u8; 32])),
                core: CoreIndex(c),
                group: GroupIndex(c),
            })
            .collect(),
        slot: 0,
        session: 1,
        relay_vrf_story: RelayVrfStory([2; 32]),
    }
}

/// We are validator 0; everybody else is a connected peer viewing the block.
fn node(n: u32) -> State {
    let mut s = State::new(Config::default());
    s.add_session(session(n));
    let mut out = Vec::new();
    s.new_gossip_topology(
        1,
        SessionGridTopology::from_randomness(&[3; 32], n as usize),
        Some(ValidatorIndex(0)),
        &mut out,
    );
    for v in 1..n {
        s.peer_connected(PeerId(v), Some(ValidatorIndex(v)))
            .unwrap();
    }
    let m = meta();
    s.new_blocks(0, vec![m.clone()], &mut out);
    for v in 1..n {
        s.peer_view_change(
            0,
            PeerId(v),
            View {
                heads: vec![m.hash],
                finalized_number: 0,
            },
            &mut out,
        );
    }
    s
}

/// The i-th distinct (validator, candidate) pair.
fn subject(n: u32, i: u64) -> (u32, u32) {
    let v = 1 + (i % (n as u64 - 1)) as u32;
    let c = ((i / (n as u64 - 1)) % N_CORES as u64) as u32;
    (v, c)
}

fn assignment(v: u32, c: u32) -> ApprovalDistributionMessage {
    ApprovalDistributionMessage::assignments([AssignmentItem {
        cert: IndirectAssignmentCert {
            block_hash: Hash([1; 32]),
            validator: ValidatorIndex(v),
            cert: AssignmentCert {
                kind: AssignmentCertKind::RelayVRFDelay {
                    core_index: CoreIndex(c),
                },
                vrf: VrfSignature {
                    pre_output: [0; 32],
                    proof: [0; 64],
                },
            },
        },
        claimed: CandidateBitfield::from_index(c),
    }])
}

fn approval(v: u32, c: u32) -> ApprovalDistributionMessage {
    ApprovalDistributionMessage::approvals([IndirectSignedApprovalVote {
        block_hash: Hash([1; 32]),
        candidate_indices: CandidateBitfield::from_index(c),
        validator: ValidatorIndex(v),
        signature: ValidatorSignature([0; 64]),
    }])
}

/// Phase 1 and, for check requests, phase 2 with a positive verdict,
/// through distribution's one settle loop.
fn handle(
    s: &mut State,
    peer: u32,
    msg: ApprovalDistributionMessage,
    out: &mut Vec<Action>,
    settled: &mut Settled,
) {
    s.handle_peer_message(0, PeerId(peer), msg, out);
    let mut verifier = AnswerWith::new(|_: &AssignmentCheck| Ok(0), |_: &ApprovalCheck| Ok(()));
    match s.settle(0, out, &mut verifier, settled) {
        Ok(()) => {}
        Err(never) => match never {},
    }
    settled.clear();
}

#[derive(Clone, Copy)]
enum Case {
    FirstAssignment,
    FirstApproval,
    DuplicateAssignment,
    DuplicateApproval,
}

/// Time `iters` messages of `case` in chunks, each chunk on a fresh node
/// prepared outside the timing.
fn run(n: u32, case: Case, iters: u64) -> Duration {
    let mut total = Duration::ZERO;
    let mut done = 0;
    let mut out = Vec::with_capacity(4096);
    let mut settled = Settled::default();
    while done < iters {
        let k = CHUNK.min(iters - done);
        let mut s = node(n);
        let needs_assignments = !matches!(case, Case::FirstAssignment);
        let needs_approvals = matches!(case, Case::DuplicateApproval);
        if needs_assignments {
            for i in 0..k {
                let (v, c) = subject(n, i);
                handle(&mut s, v, assignment(v, c), &mut out, &mut settled);
                if needs_approvals {
                    handle(&mut s, v, approval(v, c), &mut out, &mut settled);
                }
            }
        }
        // Copies come from a peer that has not sent them yet.
        let copy_peer = |v: u32| if v + 1 < n { v + 1 } else { 1 };
        let msgs: Vec<(u32, ApprovalDistributionMessage)> = (0..k)
            .map(|i| {
                let (v, c) = subject(n, i);
                match case {
                    Case::FirstAssignment => (v, assignment(v, c)),
                    Case::FirstApproval => (v, approval(v, c)),
                    Case::DuplicateAssignment => (copy_peer(v), assignment(v, c)),
                    Case::DuplicateApproval => (copy_peer(v), approval(v, c)),
                }
            })
            .collect();
        let start = Instant::now();
        for (peer, msg) in msgs {
            handle(&mut s, peer, msg, &mut out, &mut settled);
        }
        total += start.elapsed();
        done += k;
    }
    total
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("handle");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500));
    for (name, case) in [
        ("first_seen_assignment", Case::FirstAssignment),
        ("first_seen_approval", Case::FirstApproval),
        ("duplicate_assignment", Case::DuplicateAssignment),
        ("duplicate_approval", Case::DuplicateApproval),
    ] {
        for n in [100u32, 500, 1000] {
            g.bench_with_input(BenchmarkId::new(name, n), &n, |b, &n| {
                b.iter_custom(|iters| run(n, case, iters))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
