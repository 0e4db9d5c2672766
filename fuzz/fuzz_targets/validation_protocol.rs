//! Fuzz target: `ValidationProtocol::decode_wire` (a whole notification, wire limits).
//! The checks (no panic, round trip) live in `tranche_fuzz::validation_protocol`, shared
//! with the corpus replay test of tranche-primitives.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tranche_fuzz::validation_protocol(data);
});
