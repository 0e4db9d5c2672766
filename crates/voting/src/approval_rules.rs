//! The approval rules, pure functions of an approval entry's tranches and
//! the candidate's approvals (upstream
//! `polkadot/node/core/approval-voting/src/approval_checking.rs`): how many
//! delay tranches a candidate needs under a block (`tranches_to_approve`,
//! with no-shows, clock drift and coverage of no-shows by later tranches),
//! and whether the approvals gathered so far satisfy them (`check_approval`,
//! with the one-third rule).

use crate::bits::ValidatorSet;
use crate::tranches::{Assignees, Tranches};
use tranche_primitives::{DelayTranche, Tick, ValidatorIndex};

/// Assignments counted towards approval must be at least this many ticks old.
pub const APPROVAL_DELAY: Tick = 2;

/// How many tranches of assignments a candidate needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequiredTranches {
    /// So many no-shows that every validator is needed: only the one-third
    /// rule can approve.
    All,
    /// More assignments are needed.
    Pending {
        /// The last tranche looked at.
        considered: DelayTranche,
        /// When the next counted assignee would become a no-show.
        next_no_show: Option<Tick>,
        /// The highest tranche from which we would broadcast our own
        /// assignment now.
        maximum_broadcast: DelayTranche,
        /// How far behind our clock is treated as being, in ticks.
        clock_drift: Tick,
    },
    /// Assignments in tranches `0..=needed` suffice; `tolerated_missing` of
    /// them may lack an approval (covered no-shows).
    Exact {
        needed: DelayTranche,
        tolerated_missing: usize,
        next_no_show: Option<Tick>,
        last_assignment_tick: Option<Tick>,
    },
}

/// `RequiredTranches` with the no-shows seen while computing it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TranchesToApprove {
    pub required: RequiredTranches,
    /// Assignees counted as no-shows.
    pub total_no_shows: usize,
    /// Which validators they are, in tranche order.
    pub no_show_validators: Vec<ValidatorIndex>,
}

/// The outcome of `check_approval`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    Unapproved,
    /// Approved with this many tolerated no-shows; the newest counted
    /// assignment arrived at the given tick.
    Approved(usize, Option<Tick>),
    /// More than a third of all validators approved.
    ApprovedOneThird,
}

impl Check {
    /// Whether approved with every counted assignment received no later than
    /// `max_assignment_tick`.
    pub fn is_approved(&self, max_assignment_tick: Tick) -> bool {
        match *self {
            Check::Unapproved => false,
            Check::ApprovedOneThird => true,
            Check::Approved(_, last) => last.is_none_or(|t| t <= max_assignment_tick),
        }
    }

    /// No-shows tolerated by the approval.
    pub fn known_no_shows(&self) -> usize {
        match *self {
            Check::Approved(n, _) => n,
            _ => 0,
        }
    }
}

/// The parameters `tranches_to_approve` reads besides the entry.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    /// Tranche of the block now (`tick_now - block_tick`, saturating).
    pub tranche_now: DelayTranche,
    pub block_tick: Tick,
    pub no_show_duration: Tick,
}

/// The earlier of two optional ticks, either if only one is set (upstream
/// `min_prefer_some` in `polkadot/node/core/approval-voting/src/lib.rs`).
pub(crate) fn min_prefer_some<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(x), Some(y)) => Some(x.min(y)),
    }
}

/// Running state of the tranche walk.
#[derive(Clone, Debug)]
struct Walk {
    assignments: usize,
    depth: usize,
    covered: usize,
    covering: usize,
    uncovered: usize,
    next_no_show: Option<Tick>,
    last_tick: Option<Tick>,
    total_no_shows: usize,
}

impl Walk {
    /// Before tranche 0: `needed_approvals` assignments to find.
    fn start(needed_approvals: usize) -> Self {
        Walk {
            assignments: 0,
            depth: 0,
            covered: 0,
            covering: needed_approvals,
            uncovered: 0,
            next_no_show: None,
            last_tick: None,
            total_no_shows: 0,
        }
    }

    fn drift(&self, no_show_duration: Tick) -> Tick {
        (self.depth as Tick).saturating_mul(no_show_duration)
    }

    fn advance(&mut self, new: usize, no_shows: usize, next: Option<Tick>, last: Option<Tick>) {
        let newly_covered = if self.depth == 0 { new } else { new.min(1) };
        self.assignments += new;
        let covering = self.covering.saturating_sub(newly_covered);
        if self.depth != 0 {
            self.covered += newly_covered;
        }
        let uncovered = self.uncovered + no_shows;
        self.next_no_show = min_prefer_some(self.next_no_show, next);
        self.last_tick = self.last_tick.max(last);
        self.total_no_shows += no_shows;
        if covering == 0 && uncovered != 0 {
            self.depth += 1;
            self.covering = uncovered;
            self.uncovered = 0;
        } else {
            self.covering = covering;
            self.uncovered = uncovered;
        }
    }

    /// `Some` for a final answer (Exact or All).
    fn finished(
        &self,
        tranche: DelayTranche,
        needed: usize,
        n_validators: usize,
    ) -> Option<RequiredTranches> {
        let covering = if self.depth == 0 { 0 } else { self.covering };
        if self.depth != 0 && self.assignments + covering + self.uncovered >= n_validators {
            return Some(RequiredTranches::All);
        }
        if self.assignments >= needed && covering + self.uncovered == 0 {
            return Some(RequiredTranches::Exact {
                needed: tranche,
                tolerated_missing: self.covered,
                next_no_show: self.next_no_show,
                last_assignment_tick: self.last_tick,
            });
        }
        None
    }

    fn pending(&self, considered: DelayTranche, no_show_duration: Tick) -> RequiredTranches {
        let covering = if self.depth == 0 { 0 } else { self.covering };
        let maximum_broadcast = if self.depth == 0 {
            DelayTranche::MAX
        } else {
            considered.saturating_add((covering + self.uncovered) as DelayTranche)
        };
        RequiredTranches::Pending {
            considered,
            next_no_show: self.next_no_show,
            maximum_broadcast,
            clock_drift: self.drift(no_show_duration),
        }
    }
}

/// Count the no-shows among one tranche's assignments and the earliest
/// local tick at which one of the others would become a no-show.
fn count_no_shows(
    assignments: &Assignees<'_>,
    approvals: &ValidatorSet,
    drift: Tick,
    clock: &Clock,
    drifted_now: Tick,
    no_show_validators: &mut Vec<ValidatorIndex>,
) -> (usize, Option<Tick>) {
    let mut next = None;
    let mut n = 0;
    for (v, tick) in assignments.iter() {
        if v.0 as usize >= approvals.len() {
            continue;
        }
        let due = tick
            .max(clock.block_tick)
            .saturating_sub(drift)
            .saturating_add(clock.no_show_duration);
        if approvals.contains_validator(v) {
            continue;
        }
        if due <= drifted_now {
            n += 1;
            no_show_validators.push(v);
        } else {
            next = min_prefer_some(next, Some(due.saturating_add(drift)));
        }
    }
    (n, next)
}

/// How many tranches a candidate needs under a block (upstream
/// `tranches_to_approve` in
/// `polkadot/node/core/approval-voting/src/approval_checking.rs`).
///
/// `tranches` holds the assignments received in each delay tranche (the
/// machine records a validator once, in the first tranche it claimed; a
/// later claim leaves an empty entry for its tranche, as upstream: see
/// docs/quirks.md). Empty tranches between non-empty ones leave the walk's
/// state unchanged, so only announced tranches (and tranche 0) are
/// visited; the answer equals visiting every tranche.
pub fn tranches_to_approve(
    tranches: &Tranches,
    approvals: &ValidatorSet,
    n_validators: usize,
    clock: Clock,
    needed_approvals: usize,
) -> TranchesToApprove {
    let tick_now = clock.block_tick.saturating_add(clock.tranche_now as Tick);
    let mut walk = Walk::start(needed_approvals);
    let mut no_show_validators = Vec::new();
    let limit = |w: &Walk| -> DelayTranche {
        let drifted = tick_now.saturating_sub(w.drift(clock.no_show_duration));
        drifted.saturating_sub(clock.block_tick) as DelayTranche
    };
    let finish = |required, walk: &Walk, nsv: Vec<ValidatorIndex>| TranchesToApprove {
        required,
        total_no_shows: walk.total_no_shows,
        no_show_validators: nsv,
    };

    let mut rest = tranches.iter().peekable();
    let mut last_visited: DelayTranche = 0;
    // Tranche 0 is always visited, empty or not.
    let first = match rest.next_if(|(t, _)| *t == 0) {
        Some((_, a)) => a,
        None => Assignees::empty(),
    };
    let visit = |walk: &mut Walk,
                 tranche: DelayTranche,
                 entries: Assignees<'_>,
                 nsv: &mut Vec<ValidatorIndex>| {
        let drift = walk.drift(clock.no_show_duration);
        let drifted_now = tick_now.saturating_sub(drift);
        let n_new = entries
            .iter()
            .filter(|(v, _)| (v.0 as usize) < n_validators)
            .count();
        let last = entries.iter().map(|(_, t)| t).max();
        let (no_shows, next) = count_no_shows(&entries, approvals, drift, &clock, drifted_now, nsv);
        walk.advance(n_new, no_shows, next, last);
        walk.finished(tranche, needed_approvals, n_validators)
    };
    if let Some(r) = visit(&mut walk, 0, first, &mut no_show_validators) {
        return finish(r, &walk, no_show_validators);
    }
    for (tranche, assignees) in rest {
        let lim = limit(&walk);
        if tranche > lim {
            break;
        }
        // The empty tranches before this one change nothing.
        last_visited = tranche;
        if let Some(r) = visit(&mut walk, tranche, assignees, &mut no_show_validators) {
            return finish(r, &walk, no_show_validators);
        }
    }
    // The walk then runs through empty tranches up to the drifted limit.
    let considered = last_visited.max(limit(&walk));
    let required = walk.pending(considered, clock.no_show_duration);
    finish(required, &walk, no_show_validators)
}

/// Validators with an assignment in a tranche `<= tranche`, as a set over
/// `n_validators`: upstream's mask, the reference [`assigned_and_approved`]'s
/// count is tested against.
#[cfg(test)]
pub(crate) fn assignments_up_to(
    tranches: &Tranches,
    tranche: DelayTranche,
    n_validators: usize,
) -> ValidatorSet {
    let mut m = ValidatorSet::new(n_validators);
    for (_, assignees) in tranches.iter().take_while(|(t, _)| *t <= tranche) {
        for (v, _) in assignees.iter() {
            m.insert(v.0 as usize);
        }
    }
    m
}

/// Whether the approvals satisfy the required tranches (upstream
/// `check_approval` in
/// `polkadot/node/core/approval-voting/src/approval_checking.rs`).
///
/// The assigned are counted as [`assigned_and_approved`] lists them.
pub fn check_approval(
    tranches: &Tranches,
    approvals: &ValidatorSet,
    n_validators: usize,
    required: RequiredTranches,
) -> Check {
    if 3 * approvals.count() > approvals.len() {
        return Check::ApprovedOneThird;
    }
    match required {
        RequiredTranches::Pending { .. } | RequiredTranches::All => Check::Unapproved,
        RequiredTranches::Exact {
            needed,
            tolerated_missing,
            last_assignment_tick,
            ..
        } => {
            let (n_assigned, n_approved) =
                assigned_and_approved(tranches, approvals, n_validators, needed);
            if n_approved + tolerated_missing >= n_assigned {
                Check::Approved(tolerated_missing, last_assignment_tick)
            } else {
                Check::Unapproved
            }
        }
    }
}

/// How many validators below `n_validators` hold an assignment in a
/// tranche `<= needed`, and how many of them approved. `tranches` lists
/// each validator once, in the first tranche it claimed, as the state
/// machine records them (`ApprovalEntry::push_assignment`): upstream's mask
/// of the assigned is then a count of the listed, taken without building a
/// set per check (a property test compares the two).
fn assigned_and_approved(
    tranches: &Tranches,
    approvals: &ValidatorSet,
    n_validators: usize,
    needed: DelayTranche,
) -> (usize, usize) {
    let (mut n_assigned, mut n_approved) = (0, 0);
    for (_, assignees) in tranches.iter().take_while(|(t, _)| *t <= needed) {
        for (v, _) in assignees.iter() {
            if (v.0 as usize) < n_validators {
                n_assigned += 1;
                n_approved += usize::from(approvals.contains_validator(v));
            }
        }
    }
    (n_assigned, n_approved)
}

/// The literal tranche-by-tranche walk of upstream `tranches_to_approve`,
/// visiting every tranche including empty ones; the reference the fast walk is tested against.
#[cfg(test)]
pub(crate) fn tranches_to_approve_reference(
    tranches: &Tranches,
    approvals: &ValidatorSet,
    n_validators: usize,
    clock: Clock,
    needed_approvals: usize,
) -> RequiredTranches {
    let tick_now = clock.block_tick.saturating_add(clock.tranche_now as Tick);
    let mut walk = Walk::start(needed_approvals);
    let mut out = None;
    let mut sink = Vec::new();
    for tranche in 0u32.. {
        let drift = walk.drift(clock.no_show_duration);
        let drifted_now = tick_now.saturating_sub(drift);
        if tranche > drifted_now.saturating_sub(clock.block_tick) as DelayTranche {
            break;
        }
        let entries = tranches
            .iter()
            .find(|(t, _)| *t == tranche)
            .map_or_else(|| Assignees::empty(), |(_, a)| a);
        let n_new = entries
            .iter()
            .filter(|(v, _)| (v.0 as usize) < n_validators)
            .count();
        let last = entries.iter().map(|(_, t)| t).max();
        let (ns, next) = count_no_shows(&entries, approvals, drift, &clock, drifted_now, &mut sink);
        walk.advance(n_new, ns, next, last);
        if let Some(r) = walk.finished(tranche, needed_approvals, n_validators) {
            return r;
        }
        out = Some(walk.pending(tranche, clock.no_show_duration));
    }
    out.expect("tranche 0 is always visited")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(list: &[(u32, u32, Tick)]) -> Tranches {
        list.iter()
            .map(|&(tranche, v, tick)| (tranche, Some((ValidatorIndex(v), tick))))
            .collect()
    }

    fn set(n: usize, ones: &[usize]) -> ValidatorSet {
        let mut s = ValidatorSet::new(n);
        for &i in ones {
            s.insert(i);
        }
        s
    }

    const BT: Tick = 20;
    const NS: Tick = 10;

    fn clock(tranche_now: DelayTranche) -> Clock {
        Clock {
            tranche_now,
            block_tick: BT,
            no_show_duration: NS,
        }
    }

    #[test]
    fn exact_when_everyone_present() {
        let t = entry(&[
            (0, 0, BT),
            (0, 1, BT),
            (1, 2, BT + 1),
            (1, 3, BT + 1),
            (2, 4, BT + 2),
        ]);
        let r = tranches_to_approve(&t, &set(5, &[0, 1, 2, 3, 4]), 5, clock(2), 4);
        assert_eq!(
            r.required,
            RequiredTranches::Exact {
                needed: 1,
                tolerated_missing: 0,
                next_no_show: None,
                last_assignment_tick: Some(BT + 1)
            }
        );
    }

    #[test]
    fn pending_while_too_few_assignments() {
        let t = entry(&[(0, 0, BT), (1, 2, BT)]);
        let r = tranches_to_approve(&t, &set(10, &[]), 10, clock(2), 4);
        assert_eq!(
            r.required,
            RequiredTranches::Pending {
                considered: 2,
                next_no_show: Some(BT + NS),
                maximum_broadcast: u32::MAX,
                clock_drift: 0
            }
        );
    }

    #[test]
    fn no_show_at_exact_boundary_extends_required_tranches() {
        // Validator 2 assigned at the block tick and never approves: it is a
        // no-show exactly `no_show_duration` ticks later, not a tick before.
        let t = entry(&[(0, 0, BT), (0, 1, BT), (1, 2, BT), (1, 3, BT)]);
        let approvals = set(8, &[0, 1, 3]);
        let before = tranches_to_approve(&t, &approvals, 8, clock(NS as u32 - 1), 4);
        assert_eq!(
            before.required,
            RequiredTranches::Exact {
                needed: 1,
                tolerated_missing: 0,
                next_no_show: Some(BT + NS),
                last_assignment_tick: Some(BT)
            }
        );
        let at = tranches_to_approve(&t, &approvals, 8, clock(NS as u32), 4);
        assert_eq!(at.total_no_shows, 1);
        assert_eq!(at.no_show_validators, vec![ValidatorIndex(2)]);
        assert_eq!(
            at.required,
            RequiredTranches::Pending {
                considered: 1,
                next_no_show: None,
                maximum_broadcast: 2,
                clock_drift: NS
            }
        );
    }

    #[test]
    fn later_tranches_cover_no_shows_one_each() {
        // Two no-shows in the first needed tranches; tranches 2 and 3 (each
        // non-empty) cover one each, but only once the drifted clock reaches
        // them.
        let t = entry(&[
            (0, 0, BT),
            (0, 1, BT),
            (1, 2, BT),
            (1, 3, BT),
            (2, 4, BT + 2),
            (2, 5, BT + 2),
            (3, 6, BT + 3),
        ]);
        let approvals = set(20, &[0, 1, 4, 5, 6]);
        let r = tranches_to_approve(&t, &approvals, 20, clock(NS as u32 + 2), 4);
        // Drifted tranche now = 2: tranche 2 covers one of two no-shows.
        assert_eq!(
            r.required,
            RequiredTranches::Pending {
                considered: 2,
                next_no_show: None,
                maximum_broadcast: 3,
                clock_drift: NS
            }
        );
        let r = tranches_to_approve(&t, &approvals, 20, clock(NS as u32 + 3), 4);
        assert_eq!(
            r.required,
            RequiredTranches::Exact {
                needed: 3,
                tolerated_missing: 2,
                next_no_show: None,
                last_assignment_tick: Some(BT + 3)
            }
        );
        let check = check_approval(&t, &approvals, 20, r.required);
        assert_eq!(check, Check::Approved(2, Some(BT + 3)));
    }

    #[test]
    fn all_when_no_shows_exhaust_the_validators() {
        let t = entry(&[(0, 0, BT), (0, 1, BT), (0, 2, BT)]);
        let r = tranches_to_approve(&t, &set(4, &[]), 4, clock(NS as u32), 3);
        assert_eq!(r.required, RequiredTranches::All);
        assert_eq!(
            check_approval(&t, &set(4, &[]), 4, r.required),
            Check::Unapproved
        );
        // One third of four is not enough; two of four are more than a third.
        assert_eq!(
            check_approval(&t, &set(4, &[3]), 4, r.required),
            Check::Unapproved
        );
        assert_eq!(
            check_approval(&t, &set(4, &[0, 3]), 4, r.required),
            Check::ApprovedOneThird
        );
    }

    #[test]
    fn one_third_rule_is_strict() {
        let t = entry(&[]);
        let pending = tranches_to_approve(&t, &set(9, &[]), 9, clock(0), 3).required;
        assert_eq!(
            check_approval(&t, &set(9, &[0, 1, 2]), 9, pending),
            Check::Unapproved
        );
        assert_eq!(
            check_approval(&t, &set(9, &[0, 1, 2, 3]), 9, pending),
            Check::ApprovedOneThird
        );
    }

    #[test]
    fn exact_counts_only_tranches_up_to_needed() {
        let t = entry(&[(0, 0, BT), (0, 1, BT), (1, 2, BT), (2, 3, BT)]);
        let approvals = set(10, &[0, 1]);
        let exact = |needed, tolerated_missing| RequiredTranches::Exact {
            needed,
            tolerated_missing,
            next_no_show: None,
            last_assignment_tick: Some(BT),
        };
        assert!(check_approval(&t, &approvals, 10, exact(0, 0)).is_approved(BT));
        assert!(!check_approval(&t, &approvals, 10, exact(1, 0)).is_approved(BT));
        let tolerant = exact(1, 1);
        assert!(check_approval(&t, &approvals, 10, tolerant).is_approved(BT));
        // APPROVAL_DELAY: the newest counted assignment must be old enough.
        assert!(!check_approval(&t, &approvals, 10, tolerant).is_approved(BT - 1));
    }

    #[test]
    fn needed_zero_is_exact_at_tranche_zero() {
        let r = tranches_to_approve(&Tranches::new(), &set(5, &[]), 5, clock(7), 0);
        assert_eq!(
            r.required,
            RequiredTranches::Exact {
                needed: 0,
                tolerated_missing: 0,
                next_no_show: None,
                last_assignment_tick: None
            }
        );
    }

    /// Tranche entries as the voting machine builds them: a validator is
    /// recorded once, in the first tranche it claimed, but a duplicate
    /// claim still creates its tranche's (empty) entry.
    fn entries_as_imported(list: &[(u32, u32, Tick)]) -> Tranches {
        let mut seen = std::collections::HashSet::new();
        list.iter()
            .map(|&(tranche, v, tick)| {
                (tranche, seen.insert(v).then_some((ValidatorIndex(v), tick)))
            })
            .collect()
    }

    use proptest::prelude::*;

    proptest! {
        /// Counting the listed assignees equals upstream's mask on entries
        /// as the machine imports them (each validator once), with
        /// validators beyond `n_validators` and approval sets of another
        /// length.
        #[test]
        fn check_approval_counts_as_the_mask_does(
            list in proptest::collection::vec((0u32..20, 0u32..16, 0u64..40), 0..40),
            approved in proptest::collection::vec(0usize..16, 0..16),
            n_validators in 1usize..14,
            approvals_len in 1usize..16,
            needed in 0u32..22,
        ) {
            let t = entries_as_imported(&list);
            let a = set(approvals_len, &approved);
            let mask = assignments_up_to(&t, needed, n_validators);
            prop_assert_eq!(
                assigned_and_approved(&t, &a, n_validators, needed),
                (mask.count(), mask.intersection_count(&a))
            );
        }

        /// The fast walk equals the literal one on entries as the machine
        /// imports them: tranches folded into tranche 0 by a zeroth-tranche
        /// width above 0, duplicate claims (empty entries), assignments
        /// received before the block tick, partial approvals (no-shows and
        /// the clock drift they bring) and out-of-range validators.
        #[test]
        fn fast_walk_equals_reference_with_no_shows_drift_and_width(
            list in proptest::collection::vec((0u32..50, 0u32..14, 0u64..90), 0..40),
            approved in proptest::collection::vec(0usize..12, 0..12),
            width in 0u32..4,
            tranche_now in 0u32..160,
            needed in 0usize..8,
            ns in 1u64..25,
        ) {
            let folded: Vec<(u32, u32, Tick)> = list
                .iter()
                .map(|&(tr, v, tick)| (tr.saturating_sub(width), v, BT - 5 + tick))
                .collect();
            let t = entries_as_imported(&folded);
            let a = set(12, &approved);
            let c = Clock { tranche_now, block_tick: BT, no_show_duration: ns };
            let fast = tranches_to_approve(&t, &a, 12, c, needed);
            let slow = tranches_to_approve_reference(&t, &a, 12, c, needed);
            prop_assert_eq!(fast.required, slow);
            // No-shows are counted only among validators that did not approve.
            for v in &fast.no_show_validators {
                prop_assert!(!a.contains_validator(*v));
            }
        }

        /// (b) Every no-show extends the required tranches: compared with the
        /// same assignments all approved, a walk that saw a no-show needs a
        /// later tranche, or is still pending.
        #[test]
        fn every_no_show_extends_required_tranches(
            list in proptest::collection::vec((0u32..20, 0u32..30, 0u64..60), 0..30),
            approved in proptest::collection::vec(0usize..30, 0..30),
            tranche_now in 0u32..150,
            needed in 1usize..8,
            ns in 1u64..30,
        ) {
            // One assignment per validator, as honest validators send.
            let mut seen = std::collections::HashSet::new();
            let list: Vec<_> = list.into_iter().filter(|(_, v, _)| seen.insert(*v)).collect();
            let t = entry(&list.iter().map(|&(tr, v, tick)| (tr, v, BT + tick)).collect::<Vec<_>>());
            let c = Clock { tranche_now, block_tick: BT, no_show_duration: ns };
            let all = tranches_to_approve(&t, &ValidatorSet::full(30), 30, c, needed);
            let some = tranches_to_approve(&t, &set(30, &approved), 30, c, needed);
            prop_assert_eq!(all.total_no_shows, 0);
            if some.total_no_shows > 0 {
                match (all.required, some.required) {
                    (_, RequiredTranches::Pending { .. } | RequiredTranches::All) => {}
                    (RequiredTranches::Exact { needed: n0, .. }, RequiredTranches::Exact { needed: n1, tolerated_missing, .. }) => {
                        prop_assert!(n1 > n0, "no-shows {} but needed {} -> {}", some.total_no_shows, n0, n1);
                        prop_assert!(tolerated_missing >= 1);
                    }
                    (a, b) => prop_assert!(false, "with no-shows {:?}, without {:?}", b, a),
                }
            }
        }
    }
}
