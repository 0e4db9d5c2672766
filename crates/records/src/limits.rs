//! Upper bounds on the protocol's sizes that a file or a flag may ask of
//! the tool. The bounds admit every real configuration — Polkadot runs
//! about 1 000 validators and 100 cores, upstream's largest benchmark
//! 1 000 × 200 — with room to spare, and refuse what would only exhaust
//! the machine before any output. How user files are read (and how big
//! they may be) is `tranche-cli`'s (`crates/cli/src/input.rs`).
//! Plain constants in `tranche_records`, re-exported as
//! `tranche_primitives::limits`, so the configuration checks them without
//! the protocol's crypto.

/// Most validators of a session.
pub const MAX_VALIDATORS: u32 = 20_000;
/// The most processes of one simulation run (each a line of its hostfile).
pub const MAX_PROCESSES: usize = 64;
/// Most availability cores of a session.
pub const MAX_CORES: u32 = 2_000;
/// Most relay blocks of one run or scenario.
pub const MAX_BLOCKS: u32 = 10_000;
/// Most delay tranches (Polkadot: 89).
pub const MAX_DELAY_TRANCHES: u32 = 10_000;
/// Most no-show slots (Polkadot: 3).
pub const MAX_NO_SHOW_SLOTS: u32 = 1_000;
