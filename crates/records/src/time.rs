//! The clock's vocabulary that the configuration shares with the protocol
//! (upstream `polkadot/node/primitives/src/approval/time.rs`): ticks of
//! 500 ms, slots, and how many ticks a default slot has. The protocol's
//! own time (`tranche_primitives::time`, `tranche_primitives::ids`)
//! re-exports them.

/// 500 ms units of time since the Unix epoch.
pub type Tick = u64;
/// A BABE slot number.
pub type Slot = u64;

/// Length of one tick in milliseconds.
pub const TICK_DURATION_MILLIS: u64 = 500;
/// Relay-chain slot length on Polkadot and Kusama.
pub const DEFAULT_SLOT_DURATION_MILLIS: u64 = 6_000;
/// Ticks in one slot of `DEFAULT_SLOT_DURATION_MILLIS` (12).
pub const DEFAULT_TICKS_PER_SLOT: Tick = ticks_per_slot(DEFAULT_SLOT_DURATION_MILLIS);

/// Ticks in one slot of `slot_duration_millis` (must be a multiple of
/// `TICK_DURATION_MILLIS`).
pub const fn ticks_per_slot(slot_duration_millis: u64) -> Tick {
    slot_duration_millis / TICK_DURATION_MILLIS
}
