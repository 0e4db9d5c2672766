//! Which blocks the node under test approved, and when: the tick voting
//! gave, the wall-clock instant the driver heard it, and which are new
//! since the progress line last heard.

use std::time::Instant;
use tranche_primitives::Tick;

pub(super) struct Approvals {
    ticks: Vec<Option<Tick>>,
    at: Vec<Option<Instant>>,
    newly: Vec<usize>,
}

impl Approvals {
    pub fn new(n_blocks: usize) -> Approvals {
        Approvals {
            ticks: vec![None; n_blocks],
            at: vec![None; n_blocks],
            newly: Vec::new(),
        }
    }

    /// Block `b` was approved at `tick`: say whether that is news.
    pub fn record(&mut self, b: usize, tick: Tick) -> bool {
        if self.ticks[b].is_some() {
            return false;
        }
        self.ticks[b] = Some(tick);
        self.at[b] = Some(Instant::now());
        self.newly.push(b);
        true
    }

    pub fn ticks(&self) -> &[Option<Tick>] {
        &self.ticks
    }

    pub fn at(&self, b: usize) -> Option<Instant> {
        self.at[b]
    }

    pub fn count(&self) -> usize {
        self.ticks.iter().filter(|a| a.is_some()).count()
    }

    pub fn all(&self) -> bool {
        self.ticks.iter().all(Option::is_some)
    }

    /// The blocks approved since the last call.
    pub fn take_new(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.newly)
    }
}
