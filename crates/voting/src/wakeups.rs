//! `Wakeups`: when each (block, candidate) pair next needs looking at. One
//! pending wakeup per pair; scheduling a later tick than the pending one is
//! a no-op, an earlier one replaces it; due wakeups pop most recently
//! scheduled first within a tick; finality drops the wakeups of pruned
//! blocks.

use std::collections::{BTreeMap, HashMap};
use tranche_primitives::{CandidateIndex, Hash, Tick};

/// A (block, candidate index) pair.
pub type Pair = (Hash, CandidateIndex);

#[derive(Clone, Debug, Default)]
pub struct Wakeups {
    by_tick: BTreeMap<Tick, Vec<Pair>>,
    by_pair: HashMap<Pair, Tick>,
}

impl Wakeups {
    /// Schedule `pair` at `tick`; returns whether the schedule changed.
    pub fn schedule(&mut self, pair: Pair, tick: Tick) -> bool {
        if let Some(&prev) = self.by_pair.get(&pair) {
            if prev <= tick {
                return false;
            }
            self.unlink(pair, prev);
        }
        self.by_pair.insert(pair, tick);
        self.by_tick.entry(tick).or_default().push(pair);
        true
    }

    fn unlink(&mut self, pair: Pair, tick: Tick) {
        if let Some(list) = self.by_tick.get_mut(&tick) {
            if let Some(p) = list.iter().position(|x| *x == pair) {
                list.remove(p);
            }
            if list.is_empty() {
                self.by_tick.remove(&tick);
            }
        }
    }

    /// The pending wakeup of a pair.
    pub fn get(&self, pair: &Pair) -> Option<Tick> {
        self.by_pair.get(pair).copied()
    }

    /// Earliest pending tick.
    pub fn first(&self) -> Option<Tick> {
        self.by_tick.keys().next().copied()
    }

    /// Pop one wakeup due at or before `now`.
    pub fn pop_due(&mut self, now: Tick) -> Option<(Tick, Pair)> {
        let mut entry = self.by_tick.first_entry()?;
        let tick = *entry.key();
        if tick > now {
            return None;
        }
        let pair = entry.get_mut().pop()?;
        if entry.get().is_empty() {
            entry.remove();
        }
        self.by_pair.remove(&pair);
        Some((tick, pair))
    }

    /// Drop every wakeup of a block.
    pub fn remove_block(&mut self, block: &Hash, n_candidates: u32) {
        for i in 0..n_candidates {
            if let Some(t) = self.by_pair.remove(&(*block, i)) {
                self.unlink((*block, i), t);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.by_pair.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_pair.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earlier_replaces_later_is_ignored() {
        let mut w = Wakeups::default();
        let p = (Hash([1; 32]), 0);
        assert!(w.schedule(p, 10));
        assert!(!w.schedule(p, 12));
        assert!(!w.schedule(p, 10));
        assert!(w.schedule(p, 8));
        assert_eq!(w.get(&p), Some(8));
        assert_eq!(w.pop_due(7), None);
        assert_eq!(w.pop_due(9), Some((8, p)));
        assert!(w.is_empty());
    }
}
