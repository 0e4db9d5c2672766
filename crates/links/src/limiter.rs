//! Upstream's bandwidth rate limiter, in virtual time.
//!
//! subsystem-bench (`polkadot/node/subsystem-bench/src/lib/network.rs`, `RateLimit`) limits every endpoint
//! with a token bucket *with debt*, created with a tick rate of 10 per
//! second:
//!
//! * `max_refill = bytes_per_second / 10` (integer division): the bytes
//!   added per 100 ms tick; the bucket starts with `credits = max_refill`
//!   and the last refill at creation time;
//! * `reap(amount)`: `credits -= amount`; if `credits >= 0` the message
//!   passes at once, so any single message may overdraw the bucket;
//!   otherwise, while `credits < 0`: wait until `last + 100 ms` if that is
//!   still in the future, then `credits += max_refill` and `last = now`.
//!   Credits never accumulate while idle: refills happen only to repay a
//!   debt, and the first one after a long idle period is immediate.
//!
//! Upstream runs each limiter inside one task (or behind an async mutex),
//! so a message that must wait holds up the messages behind it: the
//! limiter is a FIFO server. Here that becomes `busy_until`: a message
//! that reaches the limiter at `t` starts at `max(t, busy_until)`. Instead
//! of sleeping tick by tick, the `k` refills a debt needs are computed at
//! once: the first at `max(start, last + 100 ms)`, each later one 100 ms
//! after the previous, and the message leaves at the last of them.

use std::time::Duration;

use crate::time::{add_sat, from_nanos_sat};
use crate::SimTime;

/// Refills per second (upstream's `tick_rate`).
pub const TICK_RATE: u64 = 10;

/// Length of one refill tick: `1000 / TICK_RATE` ms.
pub const TICK: Duration = Duration::from_millis(1000 / TICK_RATE);

/// `n` limiter ticks, saturating.
fn ticks(n: u128) -> Duration {
    from_nanos_sat(n.saturating_mul(TICK.as_nanos()))
}

/// One token bucket with debt (see the module documentation).
#[derive(Clone, Debug)]
pub struct RateLimiter {
    /// Bytes added per refill (`bytes_per_second / 10`), always > 0.
    max_refill: u128,
    /// Current credits; negative while a debt is being repaid.
    credits: i128,
    /// Time of the last refill (creation time before the first).
    last_refill: SimTime,
    /// When the message currently passing leaves; the next one starts no
    /// earlier.
    busy_until: SimTime,
}

impl RateLimiter {
    /// A limiter of `bytes_per_second`, created at time zero. Rates below
    /// [`TICK_RATE`] (rejected by [`crate::NetworkConfig::validate`]) act as
    /// 10 B/s instead of never refilling as upstream would.
    pub fn new(bytes_per_second: u64) -> Self {
        let max_refill = u128::from(bytes_per_second / TICK_RATE).max(1);
        RateLimiter {
            max_refill,
            credits: max_refill as i128,
            last_refill: SimTime::ZERO,
            busy_until: SimTime::ZERO,
        }
    }

    /// Bytes added per refill tick.
    pub fn max_refill(&self) -> u128 {
        self.max_refill
    }

    /// Charges `amount` bytes for a message that reaches the limiter at
    /// `now`; returns when it leaves.
    pub fn reap(&mut self, now: SimTime, amount: u64) -> SimTime {
        let start = now.max(self.busy_until);
        self.credits -= i128::from(amount);
        if self.credits >= 0 {
            self.busy_until = start;
            return start;
        }
        let debt = self.credits.unsigned_abs();
        let refills = debt.div_ceil(self.max_refill);
        let first = start.max(add_sat(self.last_refill, TICK));
        let finish = add_sat(first, ticks(refills - 1));
        // refills × max_refill < debt + max_refill ≤ u64::MAX + 2^64: fits.
        self.credits += (refills * self.max_refill) as i128;
        self.last_refill = finish;
        self.busy_until = finish;
        finish
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        Duration::from_millis(v)
    }

    #[test]
    fn within_the_initial_credit_passes_at_once() {
        let mut l = RateLimiter::new(1000); // 100 bytes per tick
        assert_eq!(l.reap(ms(5), 60), ms(5));
        assert_eq!(l.reap(ms(6), 40), ms(6));
        // Credits are now 0; one more byte needs one refill at last + 100 ms.
        assert_eq!(l.reap(ms(7), 1), ms(100));
    }

    #[test]
    fn a_single_message_may_overdraw_then_waits_whole_ticks() {
        // 100 bytes per tick; 100 - 350 = -250: three refills, at 100, 200
        // and 300 ms.
        let mut l = RateLimiter::new(1000);
        assert_eq!(l.reap(ms(0), 350), ms(300));
        // 50 credits left: a 50-byte message passes at once.
        assert_eq!(l.reap(ms(300), 50), ms(300));
    }

    #[test]
    fn a_waiting_message_holds_up_the_next() {
        let mut l = RateLimiter::new(1000);
        // Credits 100 - 300 = -200, repaid by refills at 100 and 200 ms.
        assert_eq!(l.reap(ms(0), 300), ms(200));
        // Reaches the limiter at 10 ms but starts at 200 ms; 0 - 100: one
        // refill, at 300 ms.
        assert_eq!(l.reap(ms(10), 100), ms(300));
    }

    #[test]
    fn idle_time_does_not_accumulate_credit() {
        let mut l = RateLimiter::new(1000);
        // Credits 0 afterwards.
        assert_eq!(l.reap(ms(0), 100), ms(0));
        // Ten seconds idle: still only one immediate refill, then ticks.
        assert_eq!(l.reap(ms(10_000), 250), ms(10_200));
    }

    #[test]
    fn volume_over_a_second_matches_the_upstream_bound() {
        // Upstream's own test: over `tick_rate` ticks the volume passed lies
        // between budget × seconds and budget × seconds + max_refill.
        let bps = 50_000;
        let mut l = RateLimiter::new(bps);
        let mut passed = 0u64;
        let mut t = ms(0);
        while t < Duration::from_secs(1) {
            t = l.reap(t, 1_000);
            if t < Duration::from_secs(1) {
                passed += 1_000;
            }
        }
        assert!(passed >= bps && passed <= bps + bps / TICK_RATE, "{passed}");
    }

    #[test]
    fn huge_debts_saturate_instead_of_overflowing() {
        let mut l = RateLimiter::new(10);
        let t = l.reap(ms(0), u64::MAX);
        assert!(t > Duration::from_secs(1_000_000));
    }
}
