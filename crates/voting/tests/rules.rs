//! One test per approval rule, driving the state machine through its public
//! inputs in virtual time.

mod common;

use common::*;
use tranche_primitives::{Tick, ValidatorIndex};
use tranche_voting::{
    Action, ApprovalCheckError, ApprovalCheckResult, ApprovalVoting, AssignmentCheckError,
    AssignmentCheckResult, Config, LocalKeys, MemoryStore, RequiredTranches,
};

fn driver() -> Driver<MemoryStore> {
    Driver::new(
        ApprovalVoting::new(Config::default(), None),
        MemoryStore::new(),
    )
}

const BT: Tick = 120; // slot 10

#[test]
fn tranche_zero_enough_approves_at_last_approval() {
    let s = session(SessionSpec::default());
    let mut d = driver();
    d.at(BT).block(block("A", 1, "genesis", 10, &s, 1));
    for v in [5, 6, 7] {
        assert_eq!(
            d.assign(assignment("A", v, &[0], 0)).assignment_result(),
            Some(&AssignmentCheckResult::Accepted)
        );
    }
    d.at(122).approve(approval("A", 5, &[0]));
    d.at(123).approve(approval("A", 6, &[0]));
    assert_eq!(d.candidate_approved_at("A", 0), None);
    d.at(124).approve(approval("A", 7, &[0]));
    assert_eq!(d.candidate_approved_at("A", 0), Some(124));
    assert_eq!(d.block_approved_at("A"), Some(124));
}

#[test]
fn approval_delay_waits_for_assignments_two_ticks_old() {
    let s = session(SessionSpec::default());
    let mut d = driver();
    d.at(BT).block(block("A", 1, "genesis", 10, &s, 1));
    d.at(130);
    for v in [5, 6, 7] {
        d.assign(assignment("A", v, &[0], 0));
        d.approve(approval("A", v, &[0]));
    }
    assert_eq!(d.candidate_approved_at("A", 0), None);
    assert_eq!(d.m.next_wakeup(), Some(132));
    d.advance_to(140);
    assert_eq!(d.candidate_approved_at("A", 0), Some(132));
}

#[test]
fn no_show_at_exact_tick_boundary_and_late_approval() {
    let s = session(SessionSpec::default());
    let mut d = driver();
    d.at(BT).block(block("A", 1, "genesis", 10, &s, 1));
    for v in [5, 6, 7] {
        d.assign(assignment("A", v, &[0], 0));
    }
    d.at(121).approve(approval("A", 5, &[0]));
    d.approve(approval("A", 6, &[0]));
    d.advance_to(143);
    let no_shows = |d: &Driver<MemoryStore>| {
        d.log
            .iter()
            .filter(|(_, a)| matches!(a, Action::NoShowObserved { .. }))
            .count()
    };
    assert_eq!(
        no_shows(&d),
        0,
        "validator 7 is not a no-show one tick early"
    );
    let st = d.m.candidate_status(143, &hash("A"), 0).unwrap();
    assert!(matches!(
        st.required,
        RequiredTranches::Exact {
            needed: 0,
            next_no_show: Some(144),
            ..
        }
    ));
    // At 144 = 120 + 24 the wakeup runs before any message of that tick.
    d.advance_to(144);
    assert_eq!(no_shows(&d), 1);
    assert!(d.log.iter().any(|(t, a)| *t == 144
        && matches!(a, Action::NoShowObserved { validators, .. } if validators == &vec![ValidatorIndex(7)])));
    let st = d.m.candidate_status(144, &hash("A"), 0).unwrap();
    assert!(matches!(
        st.required,
        RequiredTranches::Pending {
            clock_drift: 24,
            ..
        }
    ));
    // The no-show's late approval still counts.
    d.approve(approval("A", 7, &[0]));
    assert_eq!(d.candidate_approved_at("A", 0), Some(144));
}

#[test]
fn later_tranche_covers_a_no_show_after_the_drift() {
    let s = session(SessionSpec {
        n_validators: 20,
        needed: 2,
        ..Default::default()
    });
    let mut d = driver();
    d.at(BT).block(block("A", 1, "genesis", 10, &s, 1));
    d.assign(assignment("A", 2, &[0], 0));
    d.assign(assignment("A", 3, &[0], 0));
    d.at(121).assign(assignment("A", 4, &[0], 1));
    d.approve(approval("A", 2, &[0]));
    d.at(130).approve(approval("A", 4, &[0]));
    d.advance_to(144);
    assert_eq!(
        d.candidate_approved_at("A", 0),
        None,
        "validator 3 is a no-show, not yet covered"
    );
    // Tranche 1 counts once the drifted clock (now - 24) reaches it.
    d.advance_to(150);
    assert_eq!(d.candidate_approved_at("A", 0), Some(145));
    assert!(d.log.iter().any(|(_, a)| matches!(
        a,
        Action::CandidateApproved {
            tolerated_no_shows: 1,
            one_third: false,
            ..
        }
    )));
}

#[test]
fn several_no_shows_need_one_non_empty_tranche_each() {
    let s = session(SessionSpec {
        n_validators: 30,
        needed: 2,
        ..Default::default()
    });
    let mut d = driver();
    d.at(BT).block(block("A", 1, "genesis", 10, &s, 1));
    d.assign(assignment("A", 10, &[0], 0));
    d.assign(assignment("A", 11, &[0], 0));
    // Two covering tranches (2 and 5), two validators in tranche 2 cover once.
    d.at(122).assign(assignment("A", 12, &[0], 2));
    d.assign(assignment("A", 13, &[0], 2));
    d.at(125).assign(assignment("A", 14, &[0], 5));
    for v in [12, 13, 14] {
        d.approve(approval("A", v, &[0]));
    }
    d.advance_to(200);
    // No-shows at 144; tranche 2 counts from 144 + 2 = 146, tranche 5 from 149.
    assert_eq!(d.candidate_approved_at("A", 0), Some(149));
}

#[test]
fn all_tranches_one_third_rule() {
    let s = session(SessionSpec {
        n_validators: 10,
        needed: 8,
        ..Default::default()
    });
    let mut d = driver();
    d.at(BT).block(block("A", 1, "genesis", 10, &s, 1));
    for v in 2..10 {
        d.assign(assignment("A", v, &[0], 0));
    }
    d.at(125);
    for v in [2, 3, 4] {
        d.approve(approval("A", v, &[0]));
    }
    assert_eq!(
        d.candidate_approved_at("A", 0),
        None,
        "3 of 10 is not more than a third"
    );
    d.approve(approval("A", 5, &[0]));
    assert_eq!(d.candidate_approved_at("A", 0), Some(125));
    assert!(d.log.iter().any(|(_, a)| matches!(
        a,
        Action::CandidateApproved {
            one_third: true,
            ..
        }
    )));
}

#[test]
fn duplicate_imports() {
    let s = session(SessionSpec::default());
    let mut d = driver();
    d.at(BT).block(block("A", 1, "genesis", 10, &s, 2));
    assert_eq!(
        d.assign(assignment("A", 5, &[0], 0)).assignment_result(),
        Some(&AssignmentCheckResult::Accepted)
    );
    assert_eq!(
        d.assign(assignment("A", 5, &[0], 0)).assignment_result(),
        Some(&AssignmentCheckResult::AcceptedDuplicate)
    );
    assert_eq!(
        d.assign(assignment("A", 5, &[0], 3)).assignment_result(),
        Some(&AssignmentCheckResult::AcceptedDuplicate)
    );
    // A multi-candidate assignment is a duplicate only if every candidate is.
    assert_eq!(
        d.assign(assignment("A", 5, &[0, 1], 0)).assignment_result(),
        Some(&AssignmentCheckResult::Accepted)
    );
    assert_eq!(
        d.approve(approval("A", 5, &[0])).approval_result(),
        Some(&ApprovalCheckResult::Accepted)
    );
    assert_eq!(
        d.approve(approval("A", 5, &[0])).approval_result(),
        Some(&ApprovalCheckResult::Accepted)
    );
}

#[test]
fn approval_before_its_assignment_is_refused() {
    let s = session(SessionSpec::default());
    let mut d = driver();
    d.at(BT).block(block("A", 1, "genesis", 10, &s, 1));
    assert_eq!(
        d.approve(approval("A", 7, &[0])).approval_result(),
        Some(&ApprovalCheckResult::Bad(ApprovalCheckError::NoAssignment(
            ValidatorIndex(7)
        )))
    );
    d.assign(assignment("A", 7, &[0], 0));
    assert_eq!(
        d.approve(approval("A", 7, &[0])).approval_result(),
        Some(&ApprovalCheckResult::Accepted)
    );
}

#[test]
fn bad_messages_get_upstream_reasons() {
    let s = session(SessionSpec::default());
    let mut d = driver();
    d.at(BT).block(block("A", 1, "genesis", 10, &s, 1));
    let bad = |r: Option<&AssignmentCheckResult>| match r {
        Some(AssignmentCheckResult::Bad(e)) => e.clone(),
        other => panic!("expected Bad, got {other:?}"),
    };
    assert!(matches!(
        bad(d.assign(assignment("B", 5, &[0], 0)).assignment_result()),
        AssignmentCheckError::UnknownBlock(_)
    ));
    assert!(matches!(
        bad(d.assign(assignment("A", 5, &[1], 0)).assignment_result()),
        AssignmentCheckError::InvalidCandidateIndex(1)
    ));
    assert!(matches!(
        bad(d.assign(assignment("A", 5, &[2], 0)).assignment_result()),
        AssignmentCheckError::InvalidBitfield(3)
    ));
    assert!(matches!(
        bad(d.assign(assignment("A", 50, &[0], 0)).assignment_result()),
        AssignmentCheckError::InvalidCert(..)
    ));
    assert_eq!(
        d.approve(approval("A", 5, &[1])).approval_result(),
        Some(&ApprovalCheckResult::Bad(
            ApprovalCheckError::InvalidCandidateIndex(1)
        ))
    );
}

#[test]
fn insta_approval_when_too_few_validators_outside_the_backing_group() {
    let s = session(SessionSpec {
        n_validators: 4,
        needed: 3,
        ..Default::default()
    });
    let mut d = driver();
    let out = d.at(BT).block(block("A", 1, "genesis", 10, &s, 1));
    assert!(out
        .actions
        .iter()
        .any(|a| matches!(a, Action::BlockApproved { .. })));
    assert_eq!(d.m.is_block_approved(&hash("A")), Some(true));
}

#[test]
fn finality_prunes_below_at_and_forks_and_ancestor_walk() {
    let s = session(SessionSpec::default());
    let mut d = driver();
    d.at(BT).block(block("A", 1, "genesis", 10, &s, 1));
    d.at(132).block(block("B", 2, "A", 11, &s, 1));
    d.block(block("C", 2, "A", 11, &s, 1));
    d.at(144).block(block("D", 3, "C", 12, &s, 1));
    d.block(block("E", 3, "B", 12, &s, 0));
    // E has no candidates: approved at import; but its parent B is not.
    assert_eq!(d.m.approved_ancestor(&hash("E"), 0), None);
    for v in [5, 6, 7] {
        d.assign(assignment("A", v, &[0], 0));
        d.approve(approval("A", v, &[0]));
        d.assign(assignment("B", v, &[0], 0));
        d.approve(approval("B", v, &[0]));
    }
    d.advance_to(147);
    assert_eq!(d.m.approved_ancestor(&hash("E"), 0), Some((hash("E"), 3)));
    assert_eq!(d.m.approved_ancestor(&hash("D"), 0), Some((hash("A"), 1)));
    d.finalize("B", 2);
    for b in ["A", "B", "C", "D"] {
        assert!(!d.m.has_block(&hash(b)), "{b} pruned");
    }
    assert!(d.m.has_block(&hash("E")));
    assert!(matches!(
        d.assign(assignment("A", 5, &[0], 0)).assignment_result(),
        Some(AssignmentCheckResult::Bad(
            AssignmentCheckError::UnknownBlock(_)
        ))
    ));
    // Nothing at or below the finalized height is imported again.
    d.block(block("A", 1, "genesis", 10, &s, 1));
    assert!(!d.m.has_block(&hash("A")));
}

#[test]
fn own_assignments_trigger_check_and_coalesce_until_the_deadline() {
    // Our validator 9 is in no backing group; one delay tranche makes every
    // assignment of ours tranche 0.
    let spec = SessionSpec {
        n_validators: 10,
        n_cores: 4,
        coalesce: 3,
        n_delay_tranches: 1,
        real_keys: true,
        ..Default::default()
    };
    let s = session(spec);
    let keys = LocalKeys {
        pair: pair(9),
        index: ValidatorIndex(9),
    };
    let config = Config {
        check_delay_ticks: 2,
        ..Config::default()
    };
    let mut d = Driver::new(ApprovalVoting::new(config, Some(keys)), MemoryStore::new());
    let out = d.at(BT).block(block("A", 1, "genesis", 10, &s, 2));
    assert_eq!(
        out.next_wakeup,
        Some(BT),
        "our tranche-0 assignments are due at the block tick"
    );
    d.poll();
    let assignments = d
        .log
        .iter()
        .filter(|(_, a)| matches!(a, Action::DistributeAssignment { .. }))
        .count();
    assert!(assignments >= 1);
    // Checks finish at 122; 2 < 3 pending, so signing waits for the deadline
    // min(122 + 12, 120 + 0 + 24 / 2) = 132.
    d.advance_to(131);
    assert!(!d
        .log
        .iter()
        .any(|(_, a)| matches!(a, Action::DistributeApproval(_))));
    assert_eq!(d.m.next_wakeup(), Some(132));
    d.advance_to(132);
    let votes: Vec<_> = d
        .log
        .iter()
        .filter_map(|(t, a)| match a {
            Action::DistributeApproval(v) => Some((*t, v.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(votes.len(), 1);
    let (t, vote) = &votes[0];
    assert_eq!(*t, 132);
    assert_eq!(vote.candidate_indices, bits(&[0, 1]));
    let hashes = [cand("A", 0), cand("A", 1)];
    assert_eq!(
        tranche_primitives::vote::verify_approval(pair(9).public(), &hashes, 1, &vote.signature),
        Ok(())
    );
}

#[test]
fn coalescing_signs_at_once_when_the_count_is_reached() {
    let spec = SessionSpec {
        n_validators: 10,
        n_cores: 4,
        coalesce: 2,
        n_delay_tranches: 1,
        real_keys: true,
        ..Default::default()
    };
    let s = session(spec);
    let keys = LocalKeys {
        pair: pair(9),
        index: ValidatorIndex(9),
    };
    let mut d = Driver::new(
        ApprovalVoting::new(Config::default(), Some(keys)),
        MemoryStore::new(),
    );
    d.at(BT).block(block("A", 1, "genesis", 10, &s, 2));
    d.poll();
    let votes: Vec<_> = d
        .log
        .iter()
        .filter(|(_, a)| matches!(a, Action::DistributeApproval(_)))
        .collect();
    assert_eq!(
        votes.len(),
        1,
        "two candidates reach the coalesce count of two at once"
    );
    assert_eq!(votes[0].0, BT);
}

/// Polkadot's rules are not order-free within a tick: a tranche-0 assignment
/// imported before another validator's approval lowers the required tranches
/// to 0 and leaves that approval (tranche 3) out; imported after it, the
/// candidate is approved at once. Both orders approve in the end.
#[test]
fn same_tick_order_can_move_the_approval_tick() {
    let run = |assignment_first: bool| {
        let s = session(SessionSpec {
            n_validators: 13,
            needed: 2,
            no_show_slots: 1,
            ..Default::default()
        });
        let mut d = driver();
        d.at(BT).block(block("A", 1, "genesis", 10, &s, 1));
        d.assign(assignment("A", 0, &[0], 0));
        d.approve(approval("A", 0, &[0]));
        d.at(142).assign(assignment("A", 2, &[0], 3));
        d.at(144);
        if assignment_first {
            d.assign(assignment("A", 1, &[0], 0));
            d.approve(approval("A", 2, &[0]));
        } else {
            d.approve(approval("A", 2, &[0]));
            d.assign(assignment("A", 1, &[0], 0));
        }
        d.advance_to(200);
        d.candidate_approved_at("A", 0)
    };
    assert_eq!(run(false), Some(144));
    // Validator 1 becomes a no-show at 156 and tranche 3 covers it.
    assert_eq!(run(true), Some(156));
}

/// Importing a message writes a bounded amount however many assignments the
/// candidate already holds: one appended record, no re-encoded entry.
#[test]
fn import_cost_in_writes_does_not_grow_with_held_assignments() {
    let s = session(SessionSpec {
        n_validators: 500,
        n_cores: 1,
        needed: 30,
        ..Default::default()
    });
    let mut d = driver();
    d.at(BT).block(block("A", 1, "genesis", 10, &s, 1));
    let mut sizes = Vec::new();
    for v in 2..500 {
        let out = d.assign(assignment("A", v, &[0], v % 40));
        sizes.push(out.writes.ops.len());
        assert!(out.writes.ops.iter().all(|op| matches!(
            op,
            tranche_voting::WriteOp::PutAssignment(..) | tranche_voting::WriteOp::PutWakeup(..)
        )));
    }
    assert!(sizes.iter().all(|n| *n <= 2), "{sizes:?}");
}

/// Approvals belong to the candidate, in every block that includes it; a
/// fork learns of a vote imported under another block at its own next
/// wakeup (here the no-show check at 144), or at the next tick when it has
/// none pending.
#[test]
fn approvals_are_shared_across_forks_at_the_next_wakeup() {
    let s = session(SessionSpec {
        needed: 1,
        ..Default::default()
    });
    let mut d = driver();
    let shared = |name: &str| {
        let mut b = block(name, 1, "genesis", 10, &s, 1);
        b.candidates[0].hash = cand("shared", 0);
        b
    };
    d.at(BT).block(shared("B"));
    d.block(shared("C"));
    d.assign(assignment("B", 5, &[0], 0));
    d.assign(assignment("C", 5, &[0], 0));
    d.at(125).approve(approval("B", 5, &[0]));
    assert_eq!(d.candidate_approved_at("B", 0), Some(125));
    d.advance_to(200);
    assert_eq!(d.candidate_approved_at("C", 0), Some(144));

    // Without a pending wakeup under C (its only assignee is a no-show and
    // nothing can cover it), the vote wakes C at the next tick.
    let mut d = driver();
    d.at(BT).block(shared("B"));
    d.block(shared("C"));
    d.assign(assignment("C", 5, &[0], 0));
    d.at(140).assign(assignment("B", 5, &[0], 0));
    d.advance_to(149);
    assert_eq!(
        d.m.next_wakeup(),
        Some(164),
        "only B's no-show check is pending"
    );
    d.at(150).approve(approval("B", 5, &[0]));
    assert_eq!(d.candidate_approved_at("B", 0), Some(150));
    assert_eq!(d.m.next_wakeup(), Some(151));
    d.advance_to(200);
    assert_eq!(d.candidate_approved_at("C", 0), Some(151));
}

/// Upstream `approval_checking::count_no_shows` subtracts the clock drift of
/// the depth being covered from the assignment tick as well as from now, so
/// a covering assignee that has itself waited `no_show_duration` real ticks
/// is a no-show the moment its tranche is counted, and the walk goes one
/// depth deeper (drift 48) before a later tranche covers it.
#[test]
fn covering_assignee_that_is_itself_a_no_show_needs_a_deeper_tranche() {
    let s = session(SessionSpec {
        n_validators: 30,
        needed: 2,
        ..Default::default()
    });
    let mut d = driver();
    d.at(BT).block(block("A", 1, "genesis", 10, &s, 1));
    d.assign(assignment("A", 10, &[0], 0));
    d.assign(assignment("A", 11, &[0], 0));
    d.at(121).approve(approval("A", 10, &[0]));
    d.assign(assignment("A", 12, &[0], 1));
    d.at(123).assign(assignment("A", 13, &[0], 3));
    d.at(124).approve(approval("A", 13, &[0]));
    d.advance_to(145);
    let st = d.m.candidate_status(145, &hash("A"), 0).unwrap();
    assert!(
        matches!(
            st.required,
            RequiredTranches::Pending {
                considered: 1,
                maximum_broadcast: 2,
                clock_drift: 48,
                ..
            }
        ),
        "{:?}",
        st.required
    );
    // Tranche 3 counts once now - 48 reaches it: 120 + 3 + 48.
    assert_eq!(d.m.next_wakeup(), Some(171));
    d.advance_to(170);
    assert_eq!(d.candidate_approved_at("A", 0), None);
    d.advance_to(171);
    assert_eq!(d.candidate_approved_at("A", 0), Some(171));
    assert!(d.log.iter().any(|(_, a)| matches!(
        a,
        Action::CandidateApproved {
            tolerated_no_shows: 2,
            ..
        }
    )));
}

/// Voting takes any checked tranche: an assignment claiming a tranche far
/// beyond now is held, ignored by the walk until the clock reaches it, and
/// the pending wakeup is that tranche's tick (upstream
/// `schedule_wakeup_action`, next announced tranche after `considered`).
#[test]
fn far_future_tranche_counts_when_its_tranche_arrives() {
    let s = session(SessionSpec {
        needed: 1,
        ..Default::default()
    });
    let mut d = driver();
    d.at(BT).block(block("A", 1, "genesis", 10, &s, 1));
    assert_eq!(
        d.assign(assignment("A", 5, &[0], 50)).assignment_result(),
        Some(&AssignmentCheckResult::Accepted)
    );
    d.at(121).approve(approval("A", 5, &[0]));
    assert_eq!(d.m.next_wakeup(), Some(BT + 50));
    d.advance_to(BT + 49);
    assert_eq!(d.candidate_approved_at("A", 0), None);
    d.advance_to(BT + 50);
    assert_eq!(d.candidate_approved_at("A", 0), Some(BT + 50));
}

/// Upstream `advance_approval_state` (polkadot/node/core/approval-voting/
/// src/lib.rs) returns early for a remote vote on a candidate already
/// approved under the block, dropping the candidate entry it had marked: the
/// vote is answered `Accepted` but not recorded.
#[test]
fn vote_after_its_candidate_is_approved_under_the_block_is_not_recorded() {
    let s = session(SessionSpec::default());
    let mut d = driver();
    d.at(BT).block(block("A", 1, "genesis", 10, &s, 1));
    for v in [5, 6, 7] {
        d.assign(assignment("A", v, &[0], 0));
    }
    d.at(124);
    for v in [5, 6, 7] {
        d.approve(approval("A", v, &[0]));
    }
    assert_eq!(d.candidate_approved_at("A", 0), Some(124));
    d.at(130).assign(assignment("A", 8, &[0], 10));
    assert_eq!(
        d.approve(approval("A", 8, &[0])).approval_result(),
        Some(&ApprovalCheckResult::Accepted)
    );
    let st = d.m.candidate_status(130, &hash("A"), 0).unwrap();
    assert_eq!(st.approvals, 3, "validator 8's vote is not recorded");
}

/// Upstream `import_approval` (lib.rs) walks a coalesced vote's candidates
/// in order and answers early on the first that fails: the earlier
/// candidates' state changes stay (the database overlay is written), their
/// actions are dropped.
#[test]
fn coalesced_vote_failing_on_a_later_candidate_keeps_the_earlier_state() {
    let s = session(SessionSpec::default());
    let mut d = driver();
    d.at(BT).block(block("A", 1, "genesis", 10, &s, 2));
    d.assign(assignment("A", 5, &[0], 0));
    let out = d.at(124).approve(approval("A", 5, &[0, 1]));
    assert_eq!(
        out.approval_result(),
        Some(&ApprovalCheckResult::Bad(ApprovalCheckError::NoAssignment(
            ValidatorIndex(5)
        )))
    );
    assert_eq!(
        d.m.candidate_status(124, &hash("A"), 0).unwrap().approvals,
        1
    );
    assert_eq!(
        d.m.candidate_status(124, &hash("A"), 1).unwrap().approvals,
        0
    );
}
