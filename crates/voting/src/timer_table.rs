//! `TimerTable`: every timer the state machine keeps, in one place. Three
//! kinds, each keyed by what it belongs to:
//!
//! * a candidate wakeup per (block, candidate index): when the pair next
//!   needs looking at. Scheduling a later tick than the pending one is a
//!   no-op, an earlier one replaces it (upstream `Wakeups::schedule` in
//!   `polkadot/node/core/approval-voting/src/lib.rs`);
//! * the completion of our own check of a candidate;
//! * the signing (coalescing) deadline of our pending approvals under a
//!   block (upstream `DelayedApprovalTimer` in
//!   `polkadot/node/primitives/src/approval/time.rs`); a pending deadline
//!   is kept until it fires.
//!
//! The table answers the next timeout, pops due timers one kind at a time
//! (most recently scheduled first within a tick), and drops a pruned
//! block's timers. Which kind is drained first is the caller's order
//! (`TimerKind::PROCESSING_ORDER`), and it matters: it decides what a tick
//! does first.

use crate::maps::Map;
use std::collections::BTreeMap;
use std::hash::Hash as StdHash;
use tranche_primitives::{CandidateHash, CandidateIndex, Hash, Tick};

/// A (block, candidate index) pair.
pub type Pair = (Hash, CandidateIndex);

/// The kinds of timer, in the order `tick` drains them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    Wakeup,
    CheckDone,
    Signing,
}

impl TimerKind {
    /// Within one pass of a tick: every due wakeup, then every due check,
    /// then every due signing deadline.
    pub const PROCESSING_ORDER: [TimerKind; 3] =
        [TimerKind::Wakeup, TimerKind::CheckDone, TimerKind::Signing];
}

/// A timer that came due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Look at a (block, candidate) pair again.
    Wakeup(Pair),
    /// Our check of a candidate has finished.
    CheckDone(CandidateHash),
    /// Sign our pending approvals under a block.
    Signing(Hash),
}

/// One pending tick per key, ordered by tick.
#[derive(Clone, Debug)]
struct Queue<K> {
    by_tick: BTreeMap<Tick, Vec<K>>,
    by_key: Map<K, Tick>,
}

impl<K> Default for Queue<K> {
    fn default() -> Self {
        Queue {
            by_tick: BTreeMap::new(),
            by_key: Map::default(),
        }
    }
}

impl<K: Copy + Eq + StdHash> Queue<K> {
    fn insert(&mut self, key: K, tick: Tick) {
        self.by_key.insert(key, tick);
        self.by_tick.entry(tick).or_default().push(key);
    }

    /// Schedule `key` at `tick` unless it is pending at or before `tick`;
    /// returns whether the schedule changed.
    fn schedule_earlier(&mut self, key: K, tick: Tick) -> bool {
        if let Some(&prev) = self.by_key.get(&key) {
            if prev <= tick {
                return false;
            }
            self.unlink(key, prev);
        }
        self.insert(key, tick);
        true
    }

    /// Schedule `key` at `tick` unless it is pending at all.
    fn schedule_if_absent(&mut self, key: K, tick: Tick) {
        if !self.by_key.contains_key(&key) {
            self.insert(key, tick);
        }
    }

    fn unlink(&mut self, key: K, tick: Tick) {
        if let Some(list) = self.by_tick.get_mut(&tick) {
            if let Some(p) = list.iter().position(|x| *x == key) {
                list.remove(p);
            }
            if list.is_empty() {
                self.by_tick.remove(&tick);
            }
        }
    }

    fn remove(&mut self, key: &K) {
        if let Some(t) = self.by_key.remove(key) {
            self.unlink(*key, t);
        }
    }

    fn get(&self, key: &K) -> Option<Tick> {
        self.by_key.get(key).copied()
    }

    fn first(&self) -> Option<Tick> {
        self.by_tick.keys().next().copied()
    }

    /// Take one key due at or before `now`, last scheduled first within a
    /// tick.
    fn pop_due(&mut self, now: Tick) -> Option<K> {
        let mut entry = self.by_tick.first_entry()?;
        if *entry.key() > now {
            return None;
        }
        let key = entry.get_mut().pop()?;
        if entry.get().is_empty() {
            entry.remove();
        }
        self.by_key.remove(&key);
        Some(key)
    }
}

/// Every pending timer of the state machine.
#[derive(Clone, Debug, Default)]
pub struct TimerTable {
    wakeups: Queue<Pair>,
    checks: Queue<CandidateHash>,
    signing: Queue<Hash>,
}

impl TimerTable {
    /// Schedule a pair's wakeup; only an earlier tick than the pending one
    /// replaces it. Returns whether the schedule changed.
    pub fn schedule_wakeup(&mut self, pair: Pair, tick: Tick) -> bool {
        self.wakeups.schedule_earlier(pair, tick)
    }

    /// The pending wakeup of a pair.
    pub fn wakeup(&self, pair: &Pair) -> Option<Tick> {
        self.wakeups.get(pair)
    }

    /// Arm the completion of our check of a candidate (one per candidate).
    pub fn schedule_check(&mut self, candidate: CandidateHash, due: Tick) {
        self.checks.schedule_if_absent(candidate, due);
    }

    /// When our check of a candidate completes, if one is pending.
    pub fn check_due(&self, candidate: &CandidateHash) -> Option<Tick> {
        self.checks.get(candidate)
    }

    /// Arm a block's signing deadline, unless one is already pending.
    pub fn schedule_signing(&mut self, block: Hash, tick: Tick) {
        self.signing.schedule_if_absent(block, tick);
    }

    /// The earliest pending tick of any kind.
    pub fn next_timeout(&self) -> Option<Tick> {
        [
            self.wakeups.first(),
            self.checks.first(),
            self.signing.first(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Take one timer of `kind` due at or before `now`.
    pub fn pop_due(&mut self, kind: TimerKind, now: Tick) -> Option<Timer> {
        match kind {
            TimerKind::Wakeup => self.wakeups.pop_due(now).map(Timer::Wakeup),
            TimerKind::CheckDone => self.checks.pop_due(now).map(Timer::CheckDone),
            TimerKind::Signing => self.signing.pop_due(now).map(Timer::Signing),
        }
    }

    /// Drop the timers of a pruned block: its candidates' wakeups, its
    /// signing deadline, and the checks of `dropped`, the candidates no
    /// longer included by any known block.
    pub fn remove_block(&mut self, block: &Hash, n_candidates: u32, dropped: &[CandidateHash]) {
        for i in 0..n_candidates {
            self.wakeups.remove(&(*block, i));
        }
        self.signing.remove(block);
        for c in dropped {
            self.checks.remove(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earlier_wakeup_replaces_later_is_ignored() {
        let mut t = TimerTable::default();
        let p = (Hash([1; 32]), 0);
        assert!(t.schedule_wakeup(p, 10));
        assert!(!t.schedule_wakeup(p, 12));
        assert!(!t.schedule_wakeup(p, 10));
        assert!(t.schedule_wakeup(p, 8));
        assert_eq!(t.wakeup(&p), Some(8));
        assert_eq!(t.pop_due(TimerKind::Wakeup, 7), None);
        assert_eq!(t.pop_due(TimerKind::Wakeup, 9), Some(Timer::Wakeup(p)));
        assert_eq!(t.next_timeout(), None);
    }

    #[test]
    fn signing_and_checks_keep_the_first_tick() {
        let mut t = TimerTable::default();
        let b = Hash([2; 32]);
        let c = CandidateHash(Hash([3; 32]));
        t.schedule_signing(b, 20);
        t.schedule_signing(b, 15);
        t.schedule_check(c, 30);
        t.schedule_check(c, 5);
        assert_eq!(t.check_due(&c), Some(30));
        assert_eq!(t.next_timeout(), Some(20));
        assert_eq!(t.pop_due(TimerKind::CheckDone, 29), None);
        assert_eq!(t.pop_due(TimerKind::Signing, 29), Some(Timer::Signing(b)));
        assert_eq!(
            t.pop_due(TimerKind::CheckDone, 30),
            Some(Timer::CheckDone(c))
        );
    }

    #[test]
    fn due_timers_pop_last_scheduled_first_within_a_tick() {
        let mut t = TimerTable::default();
        let (a, b) = ((Hash([1; 32]), 0), (Hash([1; 32]), 1));
        t.schedule_wakeup(a, 5);
        t.schedule_wakeup(b, 5);
        t.schedule_wakeup((Hash([1; 32]), 2), 6);
        assert_eq!(t.pop_due(TimerKind::Wakeup, 6), Some(Timer::Wakeup(b)));
        assert_eq!(t.pop_due(TimerKind::Wakeup, 6), Some(Timer::Wakeup(a)));
    }

    #[test]
    fn pruning_drops_a_blocks_timers() {
        let mut t = TimerTable::default();
        let (b, other) = (Hash([1; 32]), Hash([9; 32]));
        let c = CandidateHash(Hash([3; 32]));
        t.schedule_wakeup((b, 0), 5);
        t.schedule_wakeup((b, 1), 6);
        t.schedule_wakeup((other, 0), 9);
        t.schedule_signing(b, 7);
        t.schedule_check(c, 8);
        t.remove_block(&b, 2, &[c]);
        assert_eq!(t.next_timeout(), Some(9));
    }
}
