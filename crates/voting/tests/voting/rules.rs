//! Rule tests that the plain-text cases of `crates/voting/testdata` cannot
//! express: our own assignments with real keys (triggering, checking,
//! coalescing, the signature), and the writes an import produces. The
//! timeline rules themselves are cases in `testdata/*.txt`, run by
//! `tests/voting/rule_cases.rs`.

use crate::common;

use common::*;
use tranche_primitives::Tick;
use tranche_voting::{Action, ApprovalVoting, Config, MemoryStore};

fn driver() -> Driver<MemoryStore> {
    Driver::new(
        ApprovalVoting::new(Config::default(), None),
        MemoryStore::new(),
    )
}

const BT: Tick = 120; // slot 10

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
    let keys = local_keys(9);
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
    // Our certificates verify against our assignment key, as peers check
    // them (the validator key is another).
    for (_, a) in &d.log {
        if let Action::DistributeAssignment { cert, claimed } = a {
            let cores: Vec<u32> = claimed.iter_ones().collect();
            let claimed_cores = tranche_primitives::CoreBitfield::from_indices(&cores).unwrap();
            let story = tranche_primitives::RelayVrfStory(hash("A").0);
            let checked = tranche_primitives::criteria::check_assignment_cert(
                &claimed_cores,
                cert.validator,
                &s,
                &story,
                &cert.cert,
                &cores
                    .iter()
                    .map(|c| tranche_primitives::GroupIndex(*c))
                    .collect::<Vec<_>>(),
            );
            assert!(checked.is_ok(), "{checked:?}");
        }
    }
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
    let keys = local_keys(9);
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

/// The too-far-in-the-future rule voting applies before importing in the
/// classic layout (upstream `check_and_import_assignment` before
/// polkadot-sdk#4928), at the same boundary as distribution's: a tranche
/// `TICK_TOO_FAR_IN_FUTURE` (20) or more ahead of the block's current one.
#[test]
fn too_far_in_the_future_at_the_distribution_boundary() {
    let s = session(SessionSpec::default());
    let mut d = Driver::new(
        ApprovalVoting::new(Config::default(), None),
        MemoryStore::new(),
    );
    d.at(120).block(block("A", 1, "genesis", 10, &s, 1));
    let a = hash("A");
    assert!(!d.m.is_too_far_in_future(120, &a, 19));
    assert!(d.m.is_too_far_in_future(120, &a, 20));
    assert!(!d.m.is_too_far_in_future(125, &a, 24));
    assert!(d.m.is_too_far_in_future(125, &a, 25));
    assert!(!d.m.is_too_far_in_future(125, &hash("unknown"), 1_000));
}

/// `tick_one` runs one due timer at a time and says whether another is
/// due, so a real-clock runtime can take messages between wakeups (as
/// upstream's main loop takes one wakeup per iteration); together they do
/// what one `tick` does.
#[test]
fn tick_one_runs_due_timers_one_at_a_time() {
    let s = session(SessionSpec::default());
    let mut a = Driver::new(
        ApprovalVoting::new(Config::default(), None),
        MemoryStore::new(),
    );
    a.at(BT).block(block("A", 1, "genesis", 10, &s, 2));
    for c in [0, 1] {
        a.assign(assignment("A", 5, &[c], 0));
    }
    let due = a.m.next_wakeup().expect("no-show wakeups are due later");
    let (_, more) = a.m.tick_one(due);
    assert!(more, "the other candidate's wakeup is due too");
    let (_, more) = a.m.tick_one(due);
    assert!(!more);
    assert!(a.m.next_wakeup().is_none_or(|t| t > due));
}

/// Candidates claimed by our `DistributeAssignment`s up to `until`, for
/// validator `me`, with another validator approving both candidates at
/// once (needed 1) and `trigger_all` as given.
fn claimed_by_us(me: u32, other: u32, trigger_all: bool, until: Tick) -> Vec<u32> {
    let s = session(SessionSpec {
        n_validators: 10,
        n_cores: 2,
        needed: 1,
        n_delay_tranches: 40,
        real_keys: true,
        samples: 1,
        ..Default::default()
    });
    let config = Config {
        trigger_all_tranches: trigger_all,
        ..Config::default()
    };
    let mut d = Driver::new(
        ApprovalVoting::new(config, Some(local_keys(me))),
        MemoryStore::new(),
    );
    d.at(BT).block(block("A", 1, "genesis", 10, &s, 2));
    d.assign(assignment("A", other, &[0, 1], 0));
    d.approve(approval("A", other, &[0, 1]));
    d.poll();
    d.advance_to(until);
    let mut claimed: Vec<u32> = d
        .log
        .iter()
        .filter_map(|(_, a)| match a {
            Action::DistributeAssignment { claimed, .. } => {
                Some(claimed.iter_ones().collect::<Vec<_>>())
            }
            _ => None,
        })
        .flatten()
        .collect();
    claimed.sort_unstable();
    claimed.dedup();
    claimed
}

#[test]
fn trigger_all_tranches_triggers_the_assignments_no_rule_asks_for() {
    // Validators 4..9 are in no backing group. Find one whose tranche-0
    // assignment leaves a candidate to a delay tranche, which an approved
    // candidate never triggers by the rules.
    let until = BT + 41;
    let me = (4..10)
        .find(|&me| claimed_by_us(me, if me == 4 { 5 } else { 4 }, false, until).len() < 2)
        .expect("some validator's tranche 0 covers one candidate only");
    let other = if me == 4 { 5 } else { 4 };
    assert_eq!(claimed_by_us(me, other, true, until), vec![0, 1]);
}

/// The votes of two blocks: assignments, approvals, a duplicate, a vote
/// for an unknown block (an error result), approving candidates on the way.
fn vote_sequence() -> Vec<Result<tranche_voting::CheckedAssignment, tranche_voting::CheckedApproval>>
{
    let mut votes = Vec::new();
    for v in 0..6 {
        votes.push(Ok(assignment("A", v, &[0, 1], 0)));
        votes.push(Ok(assignment("B", v, &[0], 1)));
    }
    votes.push(Ok(assignment("A", 0, &[0, 1], 0)));
    votes.push(Ok(assignment("C", 1, &[0], 0)));
    for v in 0..6 {
        votes.push(Err(approval("A", v, &[0, 1])));
        votes.push(Err(approval("B", v, &[0])));
    }
    votes.push(Err(approval("C", 2, &[0])));
    votes
}

#[test]
fn importing_into_one_reused_output_gives_each_import_s_own_output() {
    let s = session(SessionSpec {
        n_validators: 12,
        n_cores: 2,
        needed: 3,
        ..Default::default()
    });
    let fresh = || {
        let mut m = ApprovalVoting::new(Config::default(), None);
        for (name, number) in [("A", 1), ("B", 2)] {
            let parent = if number == 1 { "genesis" } else { "A" };
            m.import_block(BT, block(name, number, parent, 10, &s, 2));
        }
        m
    };
    let (mut one, mut reused) = (fresh(), fresh());
    let mut into = tranche_voting::Output::default();
    let mut approved = 0;
    for (i, vote) in vote_sequence().into_iter().enumerate() {
        let now = BT + i as Tick;
        let own = match vote.clone() {
            Ok(a) => one.import_assignment(now, a),
            Err(v) => one.import_approval(now, v),
        };
        match vote {
            Ok(a) => reused.import_assignment_into(now, a, &mut into),
            Err(v) => reused.import_approval_into(now, v, &mut into),
        }
        assert_eq!(format!("{:?}", into.actions), format!("{:?}", own.actions));
        assert_eq!(into.writes, own.writes, "vote {i}");
        assert_eq!(into.next_wakeup, own.next_wakeup, "vote {i}");
        approved += own
            .actions
            .iter()
            .filter(|a| matches!(a, Action::CandidateApproved { .. }))
            .count();
        into.actions.clear();
        into.writes.ops.clear();
    }
    assert!(approved > 0, "the sequence approves candidates");
}

#[test]
fn importing_into_an_output_appends_to_what_it_holds() {
    let s = session(SessionSpec {
        n_validators: 12,
        n_cores: 2,
        ..Default::default()
    });
    let mut m = ApprovalVoting::new(Config::default(), None);
    m.import_block(BT, block("A", 1, "genesis", 10, &s, 2));
    let mut into = tranche_voting::Output::default();
    m.import_assignment_into(BT, assignment("A", 3, &[0], 0), &mut into);
    let first = (into.actions.len(), into.writes.ops.len());
    m.import_assignment_into(BT, assignment("A", 4, &[1], 0), &mut into);
    assert!(first.0 >= 1 && first.1 >= 1);
    assert!(into.actions.len() > first.0 && into.writes.ops.len() > first.1);
    assert!(matches!(
        into.actions[first.0],
        Action::AssignmentImported { validator, .. } if validator.0 == 4
    ));
}
