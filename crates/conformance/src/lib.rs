//! tranche's checks against answers recorded from Polkadot's own code: the
//! conformance vectors (`vectors`: keys, assignments, certificates, vote
//! payloads and signatures, wire encodings, recomputed and compared) and the
//! approval-decision scenarios (`scenario`: timed schedules run through the
//! voting state machine and compared field by field with what Polkadot's
//! approval-voting worker decided).
//!
//! It depends on the protocol crates and plain data crates only, so the
//! reference checks build without the benchmark's outputs.

pub mod scenario;
pub mod vectors;
