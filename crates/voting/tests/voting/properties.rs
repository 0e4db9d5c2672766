//! Property tests over random schedules of assignments, approvals and
//! no-shows (which bring clock drift):
//! (a) a candidate is never approved with fewer than `needed_approvals`
//!     approvals from validators assigned in the required tranches, unless
//!     more than a third of all validators approved;
//! (c) permuting the messages of one tick, keeping every approval after its
//!     own assignment, does not change the final approval state: which
//!     candidates and blocks are approved, and at which tick. Under
//!     Polkadot's rules this holds when each approval also stays after the
//!     same tick's assignments *for its candidate*, and one candidate's
//!     approvals of a tick keep their order (any other reordering is free:
//!     assignments among themselves, messages of different candidates).
//!     It does not hold without those: an assignment landing first can
//!     lower the required tranches and leave a same-tick approval out of
//!     them, which moves or even prevents approval, and so can a no-show's
//!     late approval taken before another approval of its candidate
//!     (`testdata/ordering.txt`: `same_tick_order_can_move_the_approval_tick_*`,
//!     `two_approvals_in_a_tick_*`).
//! (b), that every no-show extends the required tranches, is a property of
//! `tranches_to_approve` and is tested beside it.

use crate::common;

use common::*;
use proptest::prelude::*;
use std::collections::{BTreeMap, HashSet};
use tranche_primitives::Tick;
use tranche_voting::{
    Action, ApprovalCheckResult, ApprovalVoting, AssignmentCheckResult, Config, MemoryStore,
    RequiredTranches,
};

/// Long enough for every no-show and its coverage to play out.
const END: Tick = 400;

#[derive(Clone, Debug)]
struct Plan {
    n_validators: u32,
    needed: u32,
    no_show_slots: u32,
    n_candidates: u32,
    /// Per (validator, candidate): tranche, assignment tick offset, approval delay.
    duties: Vec<(u32, u32, u32, u64, Option<u64>)>,
}

fn plan() -> impl Strategy<Value = Plan> {
    (6u32..=24, 1u32..=5, 1u32..=2, 1u32..=2).prop_flat_map(|(n, needed, ns, nc)| {
        let duty = (
            0..n,
            0..nc,
            0u32..8,
            0u64..30,
            proptest::option::weighted(0.7, 0u64..40),
        );
        proptest::collection::vec(duty, 0..40).prop_map(move |d| {
            let mut seen = HashSet::new();
            let duties = d
                .into_iter()
                .filter(|(v, c, ..)| seen.insert((*v, *c)))
                .collect();
            Plan {
                n_validators: n,
                needed: needed.min(n - 2),
                no_show_slots: ns,
                n_candidates: nc,
                duties,
            }
        })
    })
}

#[derive(Clone, Debug)]
enum Msg {
    Assign(u32, u32, u32),
    Approve(u32, u32),
}

/// Messages by tick, in a default order within the tick.
fn messages(p: &Plan) -> BTreeMap<Tick, Vec<Msg>> {
    let mut out: BTreeMap<Tick, Vec<Msg>> = BTreeMap::new();
    for &(v, c, tranche, at, approve) in &p.duties {
        let t = 120 + at;
        out.entry(t).or_default().push(Msg::Assign(v, c, tranche));
        if let Some(d) = approve {
            out.entry(t + d).or_default().push(Msg::Approve(v, c));
        }
    }
    out
}

struct Outcome {
    approved: Vec<Option<Tick>>,
    block: Option<Tick>,
    /// At the end: (approved, assignments, approvals) per candidate. The
    /// approvals held may differ: a vote arriving once its candidate is
    /// approved under the block is not recorded, as upstream.
    end: Vec<(Option<bool>, usize, usize)>,
    block_end: Option<bool>,
}

fn drive(
    p: &Plan,
    msgs: &BTreeMap<Tick, Vec<Msg>>,
    check_a: bool,
) -> Result<Outcome, TestCaseError> {
    let s = session(SessionSpec {
        n_validators: p.n_validators,
        n_cores: p.n_candidates,
        needed: p.needed,
        no_show_slots: p.no_show_slots,
        ..Default::default()
    });
    let mut d = Driver::new(
        ApprovalVoting::new(Config::default(), None),
        MemoryStore::new(),
    );
    d.now = 119;
    // Model: accepted assignments (candidate, validator) -> tranche, approvals.
    let mut assigned: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    let mut approved: HashSet<(u32, u32)> = HashSet::new();
    for t in 120..=END {
        d.at(t);
        if t == 120 {
            d.block(block("A", 1, "genesis", 10, &s, p.n_candidates));
        }
        let mut outs = Vec::new();
        for m in msgs.get(&t).cloned().unwrap_or_default() {
            match m {
                Msg::Assign(v, c, tr) => {
                    let out = d.assign(assignment("A", v, &[c], tr));
                    if matches!(
                        out.assignment_result(),
                        Some(AssignmentCheckResult::Accepted)
                    ) {
                        assigned.insert((c, v), tr);
                    }
                    outs.push(out);
                }
                Msg::Approve(v, c) => {
                    let out = d.approve(approval("A", v, &[c]));
                    if matches!(out.approval_result(), Some(ApprovalCheckResult::Accepted)) {
                        approved.insert((c, v));
                    }
                    outs.push(out);
                }
            }
        }
        if !check_a {
            continue;
        }
        for a in d.log.iter().filter(|(at, _)| *at == t).map(|(_, a)| a) {
            if let Action::CandidateApproved {
                candidate_index: c,
                one_third,
                required,
                ..
            } = a
            {
                let n_approved = approved.iter().filter(|(ac, _)| ac == c).count();
                if *one_third {
                    prop_assert!(3 * n_approved > p.n_validators as usize);
                    continue;
                }
                let Some(RequiredTranches::Exact { needed, .. }) = required else {
                    return Err(TestCaseError::fail(format!(
                        "approved without Exact: {required:?}"
                    )));
                };
                let counted = assigned
                    .iter()
                    .filter(|((ac, v), tr)| {
                        ac == c && **tr <= *needed && approved.contains(&(*c, *v))
                    })
                    .count();
                prop_assert!(
                    counted >= p.needed as usize,
                    "candidate {} approved at {} with {} approvals from tranches 0..={} (needed {})",
                    c, t, counted, needed, p.needed
                );
            }
        }
    }
    Ok(Outcome {
        approved: (0..p.n_candidates)
            .map(|c| d.candidate_approved_at("A", c))
            .collect(),
        block: d.block_approved_at("A"),
        end: (0..p.n_candidates)
            .map(|c| {
                let st = d.m.candidate_status(END, &hash("A"), c).unwrap();
                (
                    d.m.is_candidate_approved(&hash("A"), c),
                    st.assignments,
                    st.approvals,
                )
            })
            .collect(),
        block_end: d.m.is_block_approved(&hash("A")),
    })
}

/// Reorder each tick's messages by `keys`, keeping every approval after the
/// same tick's assignments for its candidate (its own among them) and
/// after the approvals of its candidate that came before it.
fn permute(msgs: &BTreeMap<Tick, Vec<Msg>>, keys: &[u32]) -> BTreeMap<Tick, Vec<Msg>> {
    let mut k = keys.iter().cycle();
    msgs.iter()
        .map(|(t, list)| {
            let mut keyed: Vec<(u32, u8, Msg)> = list
                .iter()
                .map(|m| (*k.next().unwrap(), 0, m.clone()))
                .collect();
            for i in 0..keyed.len() {
                if let Msg::Approve(_, c) = keyed[i].2 {
                    let last_assign = keyed
                        .iter()
                        .filter_map(|(key, _, m)| match m {
                            Msg::Assign(_, ac, _) if *ac == c => Some(*key),
                            _ => None,
                        })
                        .max();
                    // The approvals of `c` before this one, already placed
                    // (the sort is stable: equal keys keep their order).
                    let last_approval = keyed[..i]
                        .iter()
                        .filter_map(|(key, _, m)| match m {
                            Msg::Approve(_, ac) if *ac == c => Some(*key),
                            _ => None,
                        })
                        .max();
                    let floor = last_assign.into_iter().chain(last_approval).max();
                    if let Some(floor) = floor {
                        keyed[i].0 = keyed[i].0.max(floor);
                    }
                    keyed[i].1 = 1;
                }
            }
            keyed.sort_by_key(|(key, after, _)| (*key, *after));
            (*t, keyed.into_iter().map(|(_, _, m)| m).collect())
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn never_approved_with_too_few_counted_approvals(p in plan()) {
        drive(&p, &messages(&p), true)?;
    }

    #[test]
    fn order_within_a_tick_does_not_change_the_outcome(
        p in plan(),
        keys in proptest::collection::vec(0u32..1000, 1..64),
    ) {
        let msgs = messages(&p);
        // Baseline: each tick's assignments first, then its approvals.
        let a = drive(&p, &permute(&msgs, &[0]), false)?;
        let b = drive(&p, &permute(&msgs, &keys), false)?;
        prop_assert_eq!(&a.approved, &b.approved);
        prop_assert_eq!(a.block, b.block);
        prop_assert_eq!(a.block_end, b.block_end);
        let flags = |o: &Outcome| o.end.iter().map(|e| (e.0, e.1)).collect::<Vec<_>>();
        prop_assert_eq!(flags(&a), flags(&b));
    }
}
