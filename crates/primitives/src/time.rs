//! Protocol time: ticks of 500 ms, slots, tranches and the constants tied to
//! them (upstream `polkadot/node/primitives/src/approval/time.rs`). The one
//! place that says how long a tick and a default slot are, and how many
//! ticks a slot has (those in `tranche_records::time`, re-exported here,
//! so that the configuration reads them without the protocol's crypto).

use crate::ids::{DelayTranche, Slot, Tick};
pub use tranche_records::time::{
    ticks_per_slot, DEFAULT_SLOT_DURATION_MILLIS, DEFAULT_TICKS_PER_SLOT, TICK_DURATION_MILLIS,
};
/// Assignments claiming a tranche more than this many ticks ahead of now are
/// refused by distribution.
pub const TICK_TOO_FAR_IN_FUTURE: Tick = 20;

/// The tick at which a slot starts.
pub fn slot_start_tick(slot: Slot, ticks_per_slot: Tick) -> Tick {
    slot.saturating_mul(ticks_per_slot)
}

/// The tranche a block is in at `now`: ticks since its slot start, saturating
/// at zero and truncated to 32 bits.
pub fn tranche_now(now: Tick, block_tick: Tick) -> DelayTranche {
    now.saturating_sub(block_tick) as DelayTranche
}

/// The tick at which a tranche of a block starts.
pub fn tranche_start_tick(block_tick: Tick, tranche: DelayTranche) -> Tick {
    block_tick + tranche as Tick
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tranche_arithmetic() {
        assert_eq!(ticks_per_slot(6_000), 12);
        assert_eq!(DEFAULT_TICKS_PER_SLOT, 12);
        assert_eq!(slot_start_tick(10, 12), 120);
        assert_eq!(tranche_now(119, 120), 0);
        assert_eq!(tranche_now(125, 120), 5);
        assert_eq!(tranche_start_tick(120, 5), 125);
    }
}
