//! What message generation depends on, and nothing else: two runs whose
//! `GenerationParams` are equal produce the same messages, so the cache is
//! keyed by a hash of these fields (plus the file format version). Plain
//! data that the readers build and the generator
//! (`crates/workload/src/generate/`) consumes.

use crate::session::SessionParams;
use crate::Coalescing;
use parity_scale_codec::Encode;
use tranche_records::time::Slot;

/// The slot of the first block; any fixed value works in virtual time.
pub const INITIAL_SLOT: Slot = 1_000;

/// Parameters of one message generation.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerationParams {
    pub n_validators: u32,
    pub n_cores: u32,
    /// Candidates included per block (G1 `n_included_candidates`; G2/G3 keep
    /// every core).
    pub n_included_candidates: u32,
    pub num_blocks: u32,
    /// The session's approval parameters.
    pub session: SessionParams,
    /// Backing-group size (G1: groups of one validator).
    pub max_validators_per_core: u32,
    pub coalesce: Coalescing,
    pub coalesce_tranche_diff: u32,
    pub enable_assignments_v2: bool,
    /// G1 only: assignments above this tranche are not generated.
    pub generation_tranche_limit: Option<u32>,
    /// A new session every this many blocks (`None`: one session).
    pub blocks_per_session: Option<u32>,
    /// Seeds every random choice of generation.
    pub seed: u64,
}

impl GenerationParams {
    /// A canonical byte string of every field, for the cache key.
    pub fn fingerprint(&self) -> Vec<u8> {
        let mut out = Vec::new();
        (
            self.n_validators,
            self.n_cores,
            self.n_included_candidates,
            self.num_blocks,
            self.session.needed_approvals,
            self.session.zeroth_delay_tranche_width,
            self.session.relay_vrf_modulo_samples,
            self.session.n_delay_tranches,
            self.session.no_show_slots,
            self.max_validators_per_core,
        )
            .encode_to(&mut out);
        match self.coalesce {
            Coalescing::Normal { mean, std_dev } => {
                (0u8, mean.to_bits(), std_dev.to_bits()).encode_to(&mut out)
            }
            Coalescing::Uniform { min, max } => (1u8, min, max).encode_to(&mut out),
        }
        (
            self.coalesce_tranche_diff,
            self.enable_assignments_v2,
            self.generation_tranche_limit,
            self.seed,
        )
            .encode_to(&mut out);
        // Only when set, so that one-session runs keep their cache keys.
        if let Some(n) = self.blocks_per_session {
            (2u8, n).encode_to(&mut out);
        }
        out
    }
}
