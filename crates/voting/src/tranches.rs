//! The assignments of one approval entry by delay tranche (upstream
//! `ApprovalEntry::tranches` in
//! `polkadot/node/core/approval-voting/src/persisted_entries.rs`): which
//! tranches were announced and, for each, the validators recorded in it
//! with the tick their assignment was received, in arrival order.
//!
//! Kept in two flat vectors — the tranches with where their assignments
//! start, and every assignment grouped by tranche in tranche order — so a
//! candidate costs two allocations, not one per tranche: at 1 000
//! validators an entry holds about eleven assignments per tranche, and a
//! vector each (plus its header and the allocator's) doubled what they
//! take.

use tranche_primitives::{grow, DelayTranche, Tick, ValidatorIndex};

/// One recorded assignment: the validator and the tick it was received.
pub type Assignee = (ValidatorIndex, Tick);

/// The tranches of one approval entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tranches {
    /// Announced tranches, ascending, each with the index in `assignees`
    /// of its first assignment.
    marks: Vec<(DelayTranche, u32)>,
    /// Every recorded assignment, grouped by tranche in `marks` order.
    assignees: Vec<Assignee>,
}

impl Tranches {
    pub fn new() -> Self {
        Self::default()
    }

    /// Note `tranche` as announced (an empty entry if it was not) and, if
    /// given, record `assignee` last in it.
    pub fn push(&mut self, tranche: DelayTranche, assignee: Option<Assignee>) {
        let pos = self.marks.partition_point(|(t, _)| *t < tranche);
        if pos == self.marks.len() || self.marks[pos].0 != tranche {
            let start = self.start_of(pos);
            self.marks.insert(pos, (tranche, start as u32));
        }
        let Some(a) = assignee else { return };
        let end = self.start_of(pos + 1);
        grow::insert(&mut self.assignees, end, a);
        for m in &mut self.marks[pos + 1..] {
            m.1 += 1;
        }
    }

    /// Where the assignments of the `i`-th tranche start (the end for `i`
    /// past the last).
    fn start_of(&self, i: usize) -> usize {
        self.marks
            .get(i)
            .map_or(self.assignees.len(), |(_, s)| *s as usize)
    }

    /// Each announced tranche with its assignments, ascending.
    pub fn iter(&self) -> impl Iterator<Item = (DelayTranche, &[Assignee])> + '_ {
        (0..self.marks.len()).map(move |i| {
            let (start, end) = (self.start_of(i), self.start_of(i + 1));
            (self.marks[i].0, &self.assignees[start..end])
        })
    }

    /// The announced tranches, ascending.
    pub fn tranche_numbers(&self) -> impl Iterator<Item = DelayTranche> + '_ {
        self.marks.iter().map(|(t, _)| *t)
    }

    /// Every recorded assignment.
    pub fn n_assignments(&self) -> usize {
        self.assignees.len()
    }
}

impl FromIterator<(DelayTranche, Option<Assignee>)> for Tranches {
    fn from_iter<I: IntoIterator<Item = (DelayTranche, Option<Assignee>)>>(iter: I) -> Self {
        let mut t = Tranches::new();
        for (tranche, a) in iter {
            t.push(tranche, a);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn tranches_keep_their_order_and_their_arrivals() {
        let v = |i| Some((ValidatorIndex(i), Tick::from(i) + 100));
        let t: Tranches = [
            (3, v(1)),
            (0, v(2)),
            (3, v(3)),
            (5, None),
            (1, v(4)),
            (0, v(5)),
        ]
        .into_iter()
        .collect();
        let got: Vec<(DelayTranche, Vec<u32>)> = t
            .iter()
            .map(|(tr, a)| (tr, a.iter().map(|(v, _)| v.0).collect()))
            .collect();
        assert_eq!(
            got,
            vec![(0, vec![2, 5]), (1, vec![4]), (3, vec![1, 3]), (5, vec![])]
        );
        assert_eq!(t.tranche_numbers().collect::<Vec<_>>(), vec![0, 1, 3, 5]);
        assert_eq!(t.n_assignments(), 5);
    }

    proptest! {
        /// The flat form lists what one vector per tranche would.
        #[test]
        fn the_flat_form_equals_a_vector_per_tranche(
            pushes in proptest::collection::vec((0u32..12, proptest::option::of(0u32..50)), 0..80)
        ) {
            let mut flat = Tranches::new();
            let mut each: Vec<(DelayTranche, Vec<Assignee>)> = Vec::new();
            for (tranche, v) in pushes {
                let a = v.map(|v| (ValidatorIndex(v), Tick::from(v)));
                flat.push(tranche, a);
                let pos = each.partition_point(|(t, _)| *t < tranche);
                if pos == each.len() || each[pos].0 != tranche {
                    each.insert(pos, (tranche, Vec::new()));
                }
                each[pos].1.extend(a);
            }
            let got: Vec<(DelayTranche, Vec<Assignee>)> =
                flat.iter().map(|(t, a)| (t, a.to_vec())).collect();
            prop_assert_eq!(got, each);
        }
    }
}
