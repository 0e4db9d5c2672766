//! The costs of what a validator receives, measured through distribution
//! (`tranche_distribution::State`) as the node runs it: a first-seen
//! certificate or vote is decoded, handled (phase 1), checked with the
//! real crypto (`AssignmentCheck::check`, `ApprovalCheck::check`) and
//! reported back (phase 2); a duplicate is decoded and handled; the
//! parallel router skims a notification (`tranche_primitives::wire_skim`,
//! as `crates/node/src/parallel.rs` does).

use super::fixture::{handle, Fixture, Wire, COALESCED};
use super::measure::{median_ns, timed, Effort, Round};
use std::hint::black_box;
use tranche_distribution::PeerId;
use tranche_primitives::wire_skim::skim_wire;
use tranche_primitives::{ApprovalDistributionMessage, CandidateBitfield};

/// A first-seen assignment of `kind` (`AssignmentCertKind::name`), ns.
pub fn assignment(fx: &Fixture, effort: &Effort, kind: &str) -> f64 {
    let wires = fx.assignments(kind, effort.items(120, 3));
    let session = if kind == "RelayVRFModulo" {
        &fx.v1
    } else {
        &fx.v2
    };
    let now = fx.now();
    let mut out = Vec::new();
    median_ns(effort, || {
        let mut s = fx.distribution(session);
        let (spent, checks) = timed(|| {
            wires
                .iter()
                .map(|w| handle(&mut s, now, w.peer, &w.bytes, true, &mut out))
                .sum::<usize>()
        });
        assert_eq!(checks, wires.len(), "every assignment is new and checked");
        Round {
            spent,
            items: wires.len() as u64,
        }
    })
}

/// A first-seen approval covering the first `candidates` candidates of
/// the block, from validators whose assignment is known, ns.
pub fn approval(fx: &Fixture, effort: &Effort, candidates: usize) -> f64 {
    let n = effort.items(200, 3).min(fx.sizes.validators as usize - 1);
    let indices: Vec<u32> = (0..candidates as u32).collect();
    let claimed = CandidateBitfield::from_indices(&indices).expect("candidates");
    let senders: Vec<u32> = (1..=n as u32).collect();
    let assignments: Vec<Vec<u8>> = senders
        .iter()
        .map(|&v| fx.unchecked_assignment(v, claimed.clone()))
        .collect();
    let votes: Vec<Vec<u8>> = senders
        .iter()
        .map(|&v| {
            let vote = fx.approval(v, candidates);
            super::fixture::encode(ApprovalDistributionMessage::approvals([vote]))
        })
        .collect();
    let now = fx.now();
    let mut out = Vec::new();
    median_ns(effort, || {
        let mut s = fx.distribution(&fx.v2);
        for (v, a) in senders.iter().zip(&assignments) {
            handle(&mut s, now, PeerId(*v), a, false, &mut out);
        }
        let (spent, checks) = timed(|| {
            senders
                .iter()
                .zip(&votes)
                .map(|(v, b)| handle(&mut s, now, PeerId(*v), b, true, &mut out))
                .sum::<usize>()
        });
        assert_eq!(checks, votes.len(), "every approval is new and checked");
        Round {
            spent,
            items: votes.len() as u64,
        }
    })
}

/// A first-seen approval of one candidate whose signature is verified in
/// a batch with the others a parallel worker drained (`--signatures
/// batched`, at most the node's 256 at once), ns.
pub fn approval_batched(fx: &Fixture, effort: &Effort) -> f64 {
    let n = effort.items(200, 3).min(fx.sizes.validators as usize - 1);
    let claimed = CandidateBitfield::from_index(0);
    let senders: Vec<u32> = (1..=n as u32).collect();
    let assignments: Vec<Vec<u8>> = senders
        .iter()
        .map(|&v| fx.unchecked_assignment(v, claimed.clone()))
        .collect();
    let votes: Vec<Vec<u8>> = senders
        .iter()
        .map(|&v| {
            super::fixture::encode(ApprovalDistributionMessage::approvals([fx.approval(v, 1)]))
        })
        .collect();
    let now = fx.now();
    let mut out = Vec::new();
    median_ns(effort, || {
        let mut s = fx.distribution(&fx.v2);
        for (v, a) in senders.iter().zip(&assignments) {
            handle(&mut s, now, PeerId(*v), a, false, &mut out);
        }
        let messages: Vec<(PeerId, &[u8])> = senders
            .iter()
            .zip(&votes)
            .map(|(v, b)| (PeerId(*v), b.as_slice()))
            .collect();
        let (spent, checks) =
            timed(|| super::fixture::handle_batched(&mut s, now, &messages, 256, &mut out));
        assert_eq!(checks, votes.len(), "every approval is new and checked");
        Round {
            spent,
            items: votes.len() as u64,
        }
    })
}

/// `approval` and `approval_per_candidate`, ns: from approvals covering
/// one and [`COALESCED`] candidates, so that one covering one costs what
/// was measured (`CostTable::approval_covering(1)`). The difference is
/// at least 1 ns (a noisy measurement may find none).
pub fn approvals(fx: &Fixture, effort: &Effort) -> (f64, f64) {
    let one = approval(fx, effort, 1);
    let many = approval(fx, effort, COALESCED);
    let each = ((many - one) / (COALESCED - 1) as f64).max(1.0);
    ((one - each).max(1.0), each)
}

/// A message distribution knows already, from another peer: half
/// assignments, half approvals, decoded and handled, ns.
pub fn duplicate(fx: &Fixture, effort: &Effort) -> f64 {
    let n = fx.sizes.validators;
    let senders: Vec<u32> = (1..n).take(effort.items(400, 4)).collect();
    let cores = fx.sizes.cores;
    let firsts: Vec<(u32, Vec<u8>, Vec<u8>)> = senders
        .iter()
        .map(|&v| {
            let c = v % cores;
            let a = fx.unchecked_assignment(v, CandidateBitfield::from_index(c));
            let vote = tranche_primitives::IndirectSignedApprovalVote {
                block_hash: fx.block().hash,
                candidate_indices: CandidateBitfield::from_index(c),
                validator: tranche_primitives::ValidatorIndex(v),
                signature: tranche_primitives::ValidatorSignature([0; 64]),
            };
            let b = super::fixture::encode(ApprovalDistributionMessage::approvals([vote]));
            (v, a, b)
        })
        .collect();
    // A copy comes from a peer that has not sent it.
    let copy_peer = |v: u32| PeerId(if v + 1 < n { v + 1 } else { 1 });
    let now = fx.now();
    let mut out = Vec::new();
    median_ns(effort, || {
        let mut s = fx.distribution(&fx.v2);
        for (v, a, b) in &firsts {
            handle(&mut s, now, PeerId(*v), a, false, &mut out);
            handle(&mut s, now, PeerId(*v), b, false, &mut out);
        }
        let (spent, checks) = timed(|| {
            firsts
                .iter()
                .map(|(v, a, b)| {
                    handle(&mut s, now, copy_peer(*v), a, false, &mut out)
                        + handle(&mut s, now, copy_peer(*v), b, false, &mut out)
                })
                .sum::<usize>()
        });
        assert_eq!(checks, 0, "a duplicate is not checked");
        Round {
            spent,
            items: 2 * firsts.len() as u64,
        }
    })
}

/// Items per notification the router is measured on.
pub const ROUTED_ITEMS: usize = 10;

/// The router's skim of a notification of [`ROUTED_ITEMS`] assignments
/// (real delay certificates of distinct validators), ns per item (the
/// simulation charges `route` per item of a notification).
pub fn route(fx: &Fixture, effort: &Effort) -> f64 {
    let wires: Vec<Wire> = fx.assignments("RelayVRFDelay", ROUTED_ITEMS);
    let items = wires
        .iter()
        .flat_map(|w| match super::fixture::decode(&w.bytes) {
            ApprovalDistributionMessage::Assignments(items) => items,
            ApprovalDistributionMessage::Approvals(_) => unreachable!("assignments"),
        })
        .collect();
    let bytes = super::fixture::encode(ApprovalDistributionMessage::Assignments(items));
    let per_round = effort.items(20_000, 100);
    median_ns(effort, || {
        let (spent, found) = timed(|| {
            (0..per_round)
                .map(|_| {
                    let skim = skim_wire(black_box(&bytes)).expect("our own encoding skims");
                    black_box(skim).items.len()
                })
                .sum::<usize>()
        });
        assert_eq!(found, per_round * wires.len());
        Round {
            spent,
            items: (per_round * ROUTED_ITEMS) as u64,
        }
    })
}
