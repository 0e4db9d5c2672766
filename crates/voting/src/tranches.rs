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
//! take. An assignment takes 8 bytes: its tick is kept as an offset from
//! the entry's first (`Packed`).

use tranche_primitives::{grow, DelayTranche, Tick, ValidatorIndex};

/// One recorded assignment: the validator and the tick it was received.
pub type Assignee = (ValidatorIndex, Tick);

/// An assignment as stored: the validator and its tick as an offset from
/// the entry's first tick (8 bytes, not 16). Ticks of one candidate lie
/// seconds apart; should two ever lie more than 2³¹ ticks apart, the
/// entry keeps whole ticks from then on (`Store::Wide`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Packed {
    validator: u32,
    offset: i32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Store {
    Packed { base: Tick, v: Vec<Packed> },
    Wide(Vec<Assignee>),
}

impl Default for Store {
    fn default() -> Self {
        Store::Packed {
            base: 0,
            v: Vec::new(),
        }
    }
}

impl Store {
    fn len(&self) -> usize {
        match self {
            Store::Packed { v, .. } => v.len(),
            Store::Wide(v) => v.len(),
        }
    }

    fn insert(&mut self, at: usize, (validator, tick): Assignee) {
        if let Store::Packed { base, v } = self {
            if v.is_empty() {
                *base = tick;
            }
            let offset = i64::try_from(tick).ok().and_then(|t| {
                let b = i64::try_from(*base).ok()?;
                i32::try_from(t.checked_sub(b)?).ok()
            });
            if let Some(offset) = offset {
                let p = Packed {
                    validator: validator.0,
                    offset,
                };
                grow::insert(v, at, p);
                return;
            }
            let wide = Assignees {
                store: self,
                range: 0..self.len(),
            }
            .iter()
            .collect();
            *self = Store::Wide(wide);
        }
        if let Store::Wide(v) = self {
            grow::insert(v, at, (validator, tick));
        }
    }
}

/// The assignments of one tranche, in arrival order.
#[derive(Clone, Debug)]
pub struct Assignees<'a> {
    store: &'a Store,
    range: std::ops::Range<usize>,
}

impl<'a> Assignees<'a> {
    /// No assignments.
    pub fn empty() -> Assignees<'static> {
        static NONE: Store = Store::Wide(Vec::new());
        Assignees {
            store: &NONE,
            range: 0..0,
        }
    }

    pub fn len(&self) -> usize {
        self.range.len()
    }

    pub fn is_empty(&self) -> bool {
        self.range.is_empty()
    }

    /// Each assignment: the validator and the tick it was received.
    pub fn iter(&self) -> impl Iterator<Item = Assignee> + 'a {
        let (store, range) = (self.store, self.range.clone());
        range.map(move |i| match store {
            Store::Packed { base, v } => {
                let p = v[i];
                let tick = (*base as i64 + i64::from(p.offset)) as Tick;
                (ValidatorIndex(p.validator), tick)
            }
            Store::Wide(v) => v[i],
        })
    }
}

/// The tranches of one approval entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tranches {
    /// Announced tranches, ascending, each with the index in `assignees`
    /// of its first assignment.
    marks: Vec<(DelayTranche, u32)>,
    /// Every recorded assignment, grouped by tranche in `marks` order.
    assignees: Store,
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
        self.assignees.insert(end, a);
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
    pub fn iter(&self) -> impl Iterator<Item = (DelayTranche, Assignees<'_>)> + '_ {
        (0..self.marks.len()).map(move |i| {
            let range = self.start_of(i)..self.start_of(i + 1);
            let store = &self.assignees;
            (self.marks[i].0, Assignees { store, range })
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

    /// Ticks near one another, and now and then one far away (every
    /// entry that meets one keeps whole ticks from then on).
    fn tick() -> impl Strategy<Value = Tick> {
        prop_oneof![
            20 => 1_000u64..1_100,
            1 => Just(0u64),
            1 => Just(u64::MAX),
            1 => Just(1u64 << 40),
        ]
    }

    proptest! {
        /// The flat form lists what one vector per tranche would.
        #[test]
        fn the_flat_form_equals_a_vector_per_tranche(
            pushes in proptest::collection::vec(
                (0u32..12, proptest::option::of((0u32..50, tick()))),
                0..80,
            )
        ) {
            let mut flat = Tranches::new();
            let mut each: Vec<(DelayTranche, Vec<Assignee>)> = Vec::new();
            for (tranche, v) in pushes {
                let a = v.map(|(v, t)| (ValidatorIndex(v), t));
                flat.push(tranche, a);
                let pos = each.partition_point(|(t, _)| *t < tranche);
                if pos == each.len() || each[pos].0 != tranche {
                    each.insert(pos, (tranche, Vec::new()));
                }
                each[pos].1.extend(a);
            }
            let got: Vec<(DelayTranche, Vec<Assignee>)> =
                flat.iter().map(|(t, a)| (t, a.iter().collect())).collect();
            prop_assert_eq!(got, each);
        }
    }
}
