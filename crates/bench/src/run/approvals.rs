//! Which blocks the node under test approved, and when: the tick voting
//! gave, the milliseconds after the block's slot start, and which are new
//! since the progress line last heard.

use tranche_primitives::Tick;

pub(super) struct Approvals {
    ticks: Vec<Option<Tick>>,
    after_ms: Vec<Option<u64>>,
    newly: Vec<usize>,
}

impl Approvals {
    pub fn new(n_blocks: usize) -> Approvals {
        Approvals {
            ticks: vec![None; n_blocks],
            after_ms: vec![None; n_blocks],
            newly: Vec::new(),
        }
    }

    /// Block `b` was approved at `tick`, `after_ms` after its slot start:
    /// say whether that is news.
    pub fn record(&mut self, b: usize, tick: Tick, after_ms: Option<u64>) -> bool {
        if self.ticks[b].is_some() {
            return false;
        }
        self.ticks[b] = Some(tick);
        self.after_ms[b] = after_ms;
        self.newly.push(b);
        true
    }

    pub fn ticks(&self) -> &[Option<Tick>] {
        &self.ticks
    }

    /// Milliseconds after its slot start block `b` was approved.
    pub fn after_ms(&self, b: usize) -> Option<u64> {
        self.after_ms[b]
    }

    /// [`Approvals::after_ms`] of every block.
    pub fn all_after_ms(&self) -> &[Option<u64>] {
        &self.after_ms
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
