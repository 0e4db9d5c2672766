//! Fuzz target: `AssignmentCert` through parity-scale-codec `Decode`.
//! The checks (no panic, round trip) live in `tranche_fuzz::assignment_cert`, shared
//! with the corpus replay test of tranche-primitives.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tranche_fuzz::assignment_cert(data);
});
