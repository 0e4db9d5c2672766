//! What the benchmark's emulated peers send to the node under test: every
//! emulated validator's real assignments and approvals with who delivers
//! them and in what order, cached on disk (`generate`, from the
//! parameters `tranche_config` reads out of a test sequence), and the
//! producer that decides, tick by tick, what to deliver (`producer`).
//!
//! Upstream counterpart: `polkadot/node/subsystem-bench/src/lib/approval/`
//! (`message_generator.rs`, `test_message.rs`, `mod.rs`).

pub mod generate;
pub mod producer;
