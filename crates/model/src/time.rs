//! The simulated validator's clocks: the engine's milliseconds, the links
//! crate's `SimTime` (a `Duration`), the CPU model's nanoseconds and the
//! protocol's 500 ms ticks, and the conversions between them — one place,
//! below every other module of the crate.

use std::time::Duration;
use tranche_primitives::time::{DEFAULT_SLOT_DURATION_MILLIS, TICK_DURATION_MILLIS};
use tranche_primitives::{Block, Tick};

/// Nanoseconds of the CPU model's virtual time per millisecond of the
/// engine's clock.
pub(crate) const NS_PER_MS: u64 = 1_000_000;

/// Milliseconds of virtual time as the links crate's `SimTime`.
pub(crate) fn sim(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

/// A `SimTime` rounded up to whole milliseconds.
pub(crate) fn ms_ceil(t: Duration) -> u64 {
    t.as_micros().div_ceil(1000).min(u128::from(u64::MAX)) as u64
}

/// The protocol tick of a moment.
pub fn tick_of(ms: u64) -> Tick {
    ms / TICK_DURATION_MILLIS
}

/// The first moment of a tick, milliseconds.
pub(crate) fn tick_start_ms(tick: Tick) -> u64 {
    tick.saturating_mul(TICK_DURATION_MILLIS)
}

/// A duration in milliseconds as whole ticks, rounded up.
pub(crate) fn ticks_ceil(ms: u64) -> Tick {
    ms.div_ceil(TICK_DURATION_MILLIS)
}

/// The start of a block's slot, milliseconds.
pub fn slot_ms(block: &Block) -> u64 {
    block.slot * DEFAULT_SLOT_DURATION_MILLIS
}
