//! Fuzz target: `CandidateBitfield::decode_from` with the wire limits, and `Decode` compared with parity-scale-codec's own `BitVec` decoding.
//! The checks (no panic, round trip) live in `tranche_fuzz::candidate_bitfield`, shared
//! with the corpus replay test of tranche-primitives.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tranche_fuzz::candidate_bitfield(data);
});
