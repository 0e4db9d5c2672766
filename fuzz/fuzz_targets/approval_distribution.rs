//! Fuzz target: `ApprovalDistributionMessage::decode_wire` (wire limits).
//! The checks (no panic, round trip) live in `tranche_fuzz::approval_distribution`, shared
//! with the corpus replay test of tranche-primitives.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tranche_fuzz::approval_distribution(data);
});
