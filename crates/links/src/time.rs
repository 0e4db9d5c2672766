//! Time arithmetic on [`SimTime`] that saturates instead of panicking.
//!
//! `SimTime` is a [`Duration`] measured from the start of the run; adding
//! latencies and limiter waits must never overflow, whatever the
//! configuration, so every sum saturates at [`Duration::MAX`].

use std::time::Duration;

use crate::SimTime;

/// `a + b`, or [`Duration::MAX`] on overflow.
pub fn add_sat(a: SimTime, b: Duration) -> SimTime {
    a.checked_add(b).unwrap_or(Duration::MAX)
}

/// A duration of `nanos` nanoseconds, saturating at [`Duration::MAX`].
pub fn from_nanos_sat(nanos: u128) -> Duration {
    const NANOS_PER_SEC: u128 = 1_000_000_000;
    let secs = nanos / NANOS_PER_SEC;
    match u64::try_from(secs) {
        Ok(secs) => Duration::new(secs, (nanos % NANOS_PER_SEC) as u32),
        Err(_) => Duration::MAX,
    }
}
