//! How each cost is measured: rounds (an untimed setup, then a timed run
//! of the project's code over many items), gathered into batches of at
//! least [`Effort::min_batch`] of measured time, the cost being the median
//! over [`Effort::batches`] batches of each batch's time per item. Time is
//! the measuring thread's CPU time (`tranche_metrics::thread_cpu_time`),
//! so that another program on the machine slows the measurement down
//! without inflating its figures.

use std::time::Duration;
use tranche_metrics::thread_cpu_time;

/// How much to measure.
#[derive(Debug, Clone, Copy)]
pub struct Effort {
    /// Batches per cost; the cost is their median.
    pub batches: usize,
    /// Each batch runs rounds until this much time was measured.
    pub min_batch: Duration,
    /// Few items per round (`--quick`).
    pub quick: bool,
}

impl Effort {
    /// 7 batches of at least 50 ms each.
    pub const FULL: Effort = Effort {
        batches: 7,
        min_batch: Duration::from_millis(50),
        quick: false,
    };
    /// 3 batches of one small round each (tests).
    pub const QUICK: Effort = Effort {
        batches: 3,
        min_batch: Duration::ZERO,
        quick: true,
    };

    /// `full` items per round, or `quick` with `--quick`.
    pub fn items(&self, full: usize, quick: usize) -> usize {
        if self.quick {
            quick
        } else {
            full
        }
    }
}

/// The time per item of one round's measured part.
#[derive(Debug, Clone, Copy, Default)]
pub struct Round {
    pub spent: Duration,
    pub items: u64,
}

/// The thread CPU time `f` takes, and what it returns.
pub fn timed<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let start = thread_cpu_time();
    let value = f();
    (thread_cpu_time().saturating_sub(start), value)
}

/// The median over the effort's batches of the time per item, ns; one
/// round is run first and thrown away (caches, allocator, lazy setup).
pub fn median_ns(effort: &Effort, mut round: impl FnMut() -> Round) -> f64 {
    let _ = round();
    let mut per_item: Vec<f64> = (0..effort.batches.max(1))
        .map(|_| {
            let mut total = Round::default();
            loop {
                let r = round();
                total.spent += r.spent;
                total.items += r.items;
                if total.spent >= effort.min_batch && total.items > 0 {
                    break;
                }
            }
            total.spent.as_nanos() as f64 / total.items as f64
        })
        .collect();
    median(&mut per_item)
}

/// The median of `xs` (the mean of the middle two for an even count).
pub fn median(xs: &mut [f64]) -> f64 {
    assert!(!xs.is_empty(), "a median of nothing");
    xs.sort_by(f64::total_cmp);
    let mid = xs.len() / 2;
    if xs.len() % 2 == 1 {
        xs[mid]
    } else {
        (xs[mid - 1] + xs[mid]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_the_middle_value() {
        assert_eq!(median(&mut [5.0, 1.0, 3.0]), 3.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    fn a_batch_gathers_rounds_until_enough_time_was_measured() {
        let effort = Effort {
            batches: 3,
            min_batch: Duration::from_micros(10),
            quick: false,
        };
        let mut rounds = 0;
        let ns = median_ns(&effort, || {
            rounds += 1;
            Round {
                spent: Duration::from_micros(4),
                items: 2,
            }
        });
        assert_eq!(ns, 2_000.0);
        // One thrown away, then three rounds (12 µs ≥ 10) per batch.
        assert_eq!(rounds, 1 + 3 * 3);
    }
}
