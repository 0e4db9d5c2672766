//! What the benchmark's emulated peers send to the node under test: the
//! upstream `subsystem-bench` test sequences (`config`), every emulated
//! validator's real assignments and approvals with who delivers them and in
//! what order, cached on disk (`generate`), and the producer that decides,
//! tick by tick, what to deliver (`producer`).
//!
//! Upstream counterpart: `polkadot/node/subsystem-bench/src/lib/approval/`
//! (`message_generator.rs`, `test_message.rs`, `mod.rs`) and
//! `polkadot/node/subsystem-bench/src/lib/configuration.rs`.

pub mod config;
pub mod generate;
pub mod producer;
