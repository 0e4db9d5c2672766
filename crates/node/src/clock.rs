//! The node's notion of now, in ticks. A real clock counts 500 ms ticks
//! from a start instant; a virtual clock is set by whoever drives the node.
//! Workers only read it; the same node code runs on both.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tranche_primitives::time::TICK_DURATION_MILLIS;
use tranche_primitives::Tick;

/// A shared clock.
#[derive(Clone, Debug)]
pub enum Clock {
    /// Tick `start_tick` begins at `start`; one tick per 500 ms after it.
    Real { start: Instant, start_tick: Tick },
    /// Set explicitly by the driver.
    Virtual(Arc<AtomicU64>),
}

impl Clock {
    pub fn real(start_tick: Tick) -> Clock {
        Clock::Real {
            start: Instant::now(),
            start_tick,
        }
    }

    pub fn virtual_at(tick: Tick) -> Clock {
        Clock::Virtual(Arc::new(AtomicU64::new(tick)))
    }

    pub fn is_virtual(&self) -> bool {
        matches!(self, Clock::Virtual(_))
    }

    /// The current tick.
    pub fn now(&self) -> Tick {
        match self {
            Clock::Real { start, start_tick } => {
                start_tick + start.elapsed().as_millis() as u64 / TICK_DURATION_MILLIS
            }
            Clock::Virtual(t) => t.load(Ordering::Acquire),
        }
    }

    /// Set a virtual clock (ignored by a real one).
    pub fn set(&self, tick: Tick) {
        if let Clock::Virtual(t) = self {
            t.store(tick, Ordering::Release);
        }
    }

    /// How long to wait from now until `tick` begins; `None` on a virtual
    /// clock, where time only moves when the driver says so.
    pub fn until(&self, tick: Tick) -> Option<Duration> {
        match self {
            Clock::Real { start, start_tick } => {
                let at =
                    Duration::from_millis(tick.saturating_sub(*start_tick) * TICK_DURATION_MILLIS);
                Some(at.saturating_sub(start.elapsed()))
            }
            Clock::Virtual(_) => None,
        }
    }

    /// The tick `at` fell in (real clocks); a virtual clock's now.
    pub fn tick_at(&self, at: Instant) -> Tick {
        match self {
            Clock::Real { start, start_tick } => {
                let since = at.saturating_duration_since(*start);
                start_tick + since.as_millis() as u64 / TICK_DURATION_MILLIS
            }
            Clock::Virtual(t) => t.load(Ordering::Acquire),
        }
    }

    /// The instant a tick begins (real clocks only).
    pub fn instant_of(&self, tick: Tick) -> Option<Instant> {
        match self {
            Clock::Real { start, start_tick } => Some(
                *start
                    + Duration::from_millis(
                        tick.saturating_sub(*start_tick) * TICK_DURATION_MILLIS,
                    ),
            ),
            Clock::Virtual(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_clock_moves_only_when_set() {
        let c = Clock::virtual_at(100);
        assert_eq!(c.now(), 100);
        c.clone().set(105);
        assert_eq!(c.now(), 105);
        assert_eq!(c.until(200), None);
    }

    #[test]
    fn real_clock_starts_at_its_tick() {
        let c = Clock::real(1_000);
        assert_eq!(c.now(), 1_000);
        let wait = c.until(1_002).unwrap();
        assert!(wait > Duration::from_millis(900) && wait <= Duration::from_millis(1_000));
        assert_eq!(c.until(999), Some(Duration::ZERO));
    }
}
