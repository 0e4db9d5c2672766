//! Fuzz target: `IndirectSignedApprovalVote` through parity-scale-codec `Decode`.
//! The checks (no panic, round trip) live in `tranche_fuzz::indirect_approval_vote`, shared
//! with the corpus replay test of tranche-primitives.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tranche_fuzz::indirect_approval_vote(data);
});
