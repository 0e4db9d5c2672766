//! Crypto microbenchmarks of tranche-primitives (criterion): computing and
//! checking assignment certificates of each kind (compact modulo, delay, v1
//! modulo), and approval votes: sign, verify, batch verify of 64 and 256
//! votes. Run: `cargo bench -p tranche-microbench --bench crypto`.
//!
//! Computing runs the project's `compute_assignments` in sessions made so
//! that each call makes exactly the named certificates: a v1 session with no
//! modulo samples makes only a delay certificate; one core and one sample
//! make a modulo certificate plus the delay certificate every eligible core
//! gets. The cost of a modulo certificate alone is the difference (shown in
//! BENCHMARKS.md).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use tranche_primitives::cert::AssignmentCertKind;
use tranche_primitives::criteria::{check_assignment_cert, compute_assignments};
use tranche_primitives::vote::{
    approval_payload, sign_approval, verify_approval, verify_batch, BatchItem,
};
use tranche_primitives::{
    Candidate, CandidateHash, CoreBitfield, CoreIndex, GroupIndex, OurAssignment, RelayVrfStory,
    Session, SessionInfo, ValidatorIndex, ValidatorPair,
};

const N_VALIDATORS: u32 = 300;

fn pairs(n: u32) -> Vec<ValidatorPair> {
    (0..n)
        .map(|i| ValidatorPair::from_label(&format!("validator-{i}")))
        .collect()
}

/// A session of `pairs.len()` validators. Validator 0 is in no backing group,
/// so it is eligible for every core.
fn session(pairs: &[ValidatorPair], n_cores: u32, samples: u32, v2: bool) -> Session {
    let keys: Vec<_> = pairs.iter().map(|p| p.id()).collect();
    Session::new(SessionInfo {
        session_index: 1,
        n_cores,
        needed_approvals: 30,
        relay_vrf_modulo_samples: samples,
        n_delay_tranches: 89,
        zeroth_delay_tranche_width: 0,
        no_show_slots: 2,
        validator_groups: (0..n_cores)
            .map(|g| vec![ValidatorIndex(1 + g % (pairs.len() as u32 - 1))])
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
            hash: CandidateHash::from([c as u8 ^ 0x5a; 32]),
            core: CoreIndex(c),
            group: GroupIndex(c),
        })
        .collect()
}

fn claimed_cores(a: &OurAssignment, core: CoreIndex) -> CoreBitfield {
    match &a.cert.kind {
        AssignmentCertKind::RelayVRFModuloCompact { core_bitfield } => core_bitfield.clone(),
        _ => CoreBitfield::from_index(core.0),
    }
}

fn bench_assignments(c: &mut Criterion) {
    let ps = pairs(2);
    let story = RelayVrfStory([42; 32]);
    let me = &ps[0];
    let v0 = ValidatorIndex(0);

    let mut g = c.benchmark_group("vrf_compute");
    // (name, v2, samples): one leaving core, which validator 0 may check.
    for (name, v2, samples) in [
        ("delay", false, 0),
        ("v1_modulo+delay", false, 1),
        ("compact_modulo+delay", true, 1),
    ] {
        let s = session(&ps, 1, samples, v2);
        let lc = leaving(1);
        let made = compute_assignments(me, v0, &story, &s.info, &lc);
        assert_eq!(made.len(), 1, "{name}: one core, one assignment kept");
        g.bench_function(name, |b| {
            b.iter(|| compute_assignments(me, v0, black_box(&story), &s.info, &lc))
        });
    }
    g.finish();

    // Checking, in a Polkadot-like session: 100 cores, 6 samples.
    let ps = pairs(N_VALIDATORS);
    let mut g = c.benchmark_group("vrf_check");
    for (name, kind, v2) in [
        ("compact_modulo", "RelayVRFModuloCompact", true),
        ("v1_modulo", "RelayVRFModulo", false),
        ("delay", "RelayVRFDelay", true),
    ] {
        let s = session(&ps, 100, 6, v2);
        let ours = compute_assignments(&ps[0], v0, &story, &s.info, &leaving(100));
        let (core, a) = ours
            .iter()
            .find(|(_, a)| a.cert.kind.name() == kind)
            .expect("validator 0 has a certificate of this kind");
        let claimed = claimed_cores(a, *core);
        let groups: Vec<GroupIndex> = claimed.iter_ones().map(GroupIndex).collect();
        assert_eq!(
            check_assignment_cert(&claimed, v0, &s, &story, &a.cert, &groups),
            Ok(a.tranche)
        );
        g.bench_function(name, |b| {
            b.iter(|| {
                check_assignment_cert(
                    black_box(&claimed),
                    v0,
                    &s,
                    &story,
                    black_box(&a.cert),
                    &groups,
                )
            })
        });
    }
    g.finish();
}

fn bench_votes(c: &mut Criterion) {
    let ps = pairs(256);
    let session_index = 7;
    let candidate = [CandidateHash::from([0x11; 32])];
    let mut g = c.benchmark_group("vote");
    g.bench_function("sign", |b| {
        b.iter(|| sign_approval(&ps[0], black_box(&candidate), session_index))
    });
    let sig = sign_approval(&ps[0], &candidate, session_index);
    g.bench_function("verify", |b| {
        b.iter(|| verify_approval(ps[0].public(), black_box(&candidate), session_index, &sig))
    });
    for n in [64usize, 256] {
        // One vote per validator, each for its own candidate, as a batch of
        // votes from the network looks.
        let items: Vec<BatchItem> = ps[..n]
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let cands = [CandidateHash::from([i as u8; 32])];
                BatchItem {
                    public: p.public(),
                    payload: approval_payload(&cands, session_index),
                    signature: sign_approval(p, &cands, session_index),
                }
            })
            .collect();
        assert!(verify_batch(&items).iter().all(|v| v.is_ok()));
        g.bench_with_input(BenchmarkId::new("verify_batch", n), &items, |b, items| {
            b.iter(|| verify_batch(black_box(items)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_assignments, bench_votes);
criterion_main!(benches);
