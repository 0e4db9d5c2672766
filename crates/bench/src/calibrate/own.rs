//! The costs of a validator's own work and of the classic layout's hop:
//! computing our assignments (`tranche_primitives::criteria::compute_assignments`,
//! per VRF it evaluates), signing an approval
//! (`tranche_primitives::vote::sign_approval`), and a round trip over
//! crossbeam channels between two threads (the one measurement in process
//! CPU time: both threads' work).

use super::fixture::Fixture;
use super::measure::{median_ns, timed, Effort, Round};
use std::hint::black_box;
use tranche_metrics::process_cpu_time;
use tranche_primitives::criteria::compute_assignments;
use tranche_primitives::vote::sign_approval;
use tranche_primitives::ValidatorIndex;

/// One VRF of our own assignments, ns: `compute_assignments` for the
/// first block by the last validator (in no backing group outside
/// `--quick`, so eligible for every core) divided by the VRFs it
/// evaluates: one for the compact modulo certificate and one delay VRF per
/// core it may check (`crates/model/src/member.rs` counts one per core).
pub fn own_assignment(fx: &Fixture, effort: &Effort) -> f64 {
    let v = fx.sizes.validators - 1;
    let info = &fx.v2.info;
    let block = fx.block();
    let pair = &fx.world.assignment_pairs[v as usize];
    // A delay VRF for each core it may check (every core, outside
    // `--quick`'s small chain where everybody backs one).
    let eligible = block
        .candidates
        .iter()
        .filter(|c| !info.is_in_group(c.group, ValidatorIndex(v)))
        .count();
    let vrfs = 1 + eligible as u64;
    let per_round = effort.items(20, 1) as u64;
    median_ns(effort, || {
        let (spent, ()) = timed(|| {
            for _ in 0..per_round {
                black_box(compute_assignments(
                    pair,
                    ValidatorIndex(v),
                    black_box(&block.relay_vrf_story),
                    info,
                    &block.candidates,
                ));
            }
        });
        Round {
            spent,
            items: per_round * vrfs,
        }
    })
}

/// Signing one approval of one candidate, ns.
pub fn own_approval(fx: &Fixture, effort: &Effort) -> f64 {
    let pair = &fx.world.pairs[0];
    let candidate = [fx.block().candidates[0].hash];
    let session = fx.v2.info.session_index;
    let per_round = effort.items(500, 5);
    median_ns(effort, || {
        let (spent, ()) = timed(|| {
            for _ in 0..per_round {
                black_box(sign_approval(pair, black_box(&candidate), session));
            }
        });
        Round {
            spent,
            items: per_round as u64,
        }
    })
}

/// A round trip: a small message to another thread over a crossbeam
/// channel, and its answer back, ns of both threads' CPU time.
pub fn round_trip(effort: &Effort) -> f64 {
    let (to_tx, to_rx) = crossbeam_channel::bounded::<u64>(1);
    let (back_tx, back_rx) = crossbeam_channel::bounded::<u64>(1);
    let echo = std::thread::spawn(move || {
        while let Ok(x) = to_rx.recv() {
            if back_tx.send(x + 1).is_err() {
                break;
            }
        }
    });
    let per_round = effort.items(5_000, 20);
    let ns = median_ns(effort, || {
        let start = process_cpu_time();
        for i in 0..per_round as u64 {
            to_tx.send(i).expect("the echo thread runs");
            let answer = back_rx.recv().expect("the echo thread answers");
            assert_eq!(answer, i + 1);
        }
        Round {
            spent: process_cpu_time().saturating_sub(start),
            items: per_round as u64,
        }
    });
    drop(to_tx);
    echo.join().expect("the echo thread ends");
    ns
}
