//! The synthetic chain a benchmark runs on, derived deterministically from
//! the generation parameters: validator keys, the session, and the blocks
//! with their candidates and relay VRF stories. Nothing of it is stored in
//! the cache: it is cheap to rebuild and must agree with what was generated.
//! A crate of its own below the workload (which re-exports it as
//! `tranche_workload::generate::world`) and the model (whose simulated
//! network is built on it), so that the sans-IO model needs none of the
//! generator's threads, progress bars or cache files.
//!
//! Differences from subsystem-bench, on purpose: keys come from
//! `BLAKE2b-256("validator-{i}")` seeds rather than `//Node{i}` derivation;
//! block hashes, candidate hashes and relay VRF stories are BLAKE2b hashes of
//! the seed and block number rather than a BABE VRF over fixed headers (the
//! story only has to be unpredictable and fixed per block).

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use tranche_config::generation::{GenerationParams, INITIAL_SLOT};
use tranche_primitives::{
    Block, Candidate, CandidateHash, CoreIndex, GroupIndex, Hash, RelayVrfStory, SessionInfo, Slot,
    ValidatorId, ValidatorIndex, ValidatorPair,
};

/// The session index every benchmark block belongs to (as upstream).
pub const BENCH_SESSION: u32 = 1;
/// The node under test.
pub const NODE_UNDER_TEST: ValidatorIndex = ValidatorIndex(0);

/// Keys, session and blocks of a run.
pub struct World {
    /// Validator keys (the session's `validators`): approval signatures.
    pub pairs: Vec<ValidatorPair>,
    /// Assignment keys (the session's `assignment_keys`), different from
    /// the validator keys as on a real network: VRF certificates.
    pub assignment_pairs: Vec<ValidatorPair>,
    /// The first session (`BENCH_SESSION`).
    pub session: SessionInfo,
    /// Every session of the run, by index from `BENCH_SESSION` on: with
    /// `blocks_per_session` N, a new one every N blocks, generated like the
    /// first (same validators and keys, groups and parameters; its own
    /// index, so its own votes' payloads).
    pub sessions: Vec<SessionInfo>,
    /// The relay blocks, from `BENCH_SESSION` on; each one's candidates are
    /// in candidate-index (= core) order.
    pub blocks: Vec<Block>,
}

fn hash_of(parts: &[&[u8]]) -> Hash {
    let mut data = Vec::new();
    for p in parts {
        data.extend_from_slice(p);
    }
    Hash::blake2_256(&data)
}

/// Backing groups: consecutive chunks of `max_validators_per_core`
/// validators (G2/G3), one per core; with a chunk size of 1 this is G1's
/// one-validator groups.
pub fn validator_groups(
    n_validators: u32,
    n_cores: u32,
    per_core: u32,
) -> Vec<Vec<ValidatorIndex>> {
    let per_core = per_core.max(1);
    (0..n_cores)
        .map(|g| {
            let start = g.saturating_mul(per_core);
            (start..start.saturating_add(per_core).min(n_validators))
                .map(ValidatorIndex)
                .collect()
        })
        .collect()
}

/// The session of block `b` (1-based).
fn session_of(p: &GenerationParams, b: u32) -> u32 {
    match p.blocks_per_session {
        Some(n) if n > 0 => BENCH_SESSION + (b - 1) / n,
        _ => BENCH_SESSION,
    }
}

impl World {
    /// The session info of `index`.
    pub fn session_info(&self, index: u32) -> Option<&SessionInfo> {
        self.sessions
            .get(index.checked_sub(BENCH_SESSION)? as usize)
    }

    pub fn build(p: &GenerationParams) -> World {
        let pairs: Vec<ValidatorPair> = (0..p.n_validators)
            .map(|i| ValidatorPair::from_label(&format!("validator-{i}")))
            .collect();
        let keys: Vec<ValidatorId> = pairs.iter().map(|k| k.id()).collect();
        let assignment_pairs: Vec<ValidatorPair> = (0..p.n_validators)
            .map(|i| ValidatorPair::from_label(&format!("assignment-{i}")))
            .collect();
        let assignment_keys: Vec<ValidatorId> = assignment_pairs.iter().map(|k| k.id()).collect();
        let session = SessionInfo {
            session_index: BENCH_SESSION,
            n_cores: p.n_cores,
            needed_approvals: p.session.needed_approvals,
            relay_vrf_modulo_samples: p.session.relay_vrf_modulo_samples,
            n_delay_tranches: p.session.n_delay_tranches,
            zeroth_delay_tranche_width: p.session.zeroth_delay_tranche_width,
            no_show_slots: p.session.no_show_slots,
            validator_groups: validator_groups(
                p.n_validators,
                p.n_cores,
                p.max_validators_per_core,
            ),
            assignment_keys,
            validators: keys,
            assignments_v2: p.enable_assignments_v2,
            max_approval_coalesce_count: 1,
        };
        let seed = p.seed.to_le_bytes();
        let mut parent = hash_of(&[b"tranche-genesis", &seed]);
        let mut blocks = Vec::with_capacity(p.num_blocks as usize);
        for b in 1..=p.num_blocks {
            let number = b.to_le_bytes();
            let hash = hash_of(&[b"tranche-block", &seed, &number]);
            let story = RelayVrfStory(hash_of(&[b"tranche-story", &seed, &number]).0);
            // G1 includes a random subset of the cores (sorted by core);
            // G2/G3 include every core.
            let mut cores: Vec<u32> = (0..p.n_cores).collect();
            if p.n_included_candidates < p.n_cores {
                let mut rng = ChaCha20Rng::from_seed([b as u8; 32]);
                let (kept, _) = cores.partial_shuffle(&mut rng, p.n_included_candidates as usize);
                let mut kept = kept.to_vec();
                kept.sort_unstable();
                cores = kept;
            }
            let candidates = cores
                .iter()
                .map(|&c| Candidate {
                    hash: CandidateHash(hash_of(&[
                        b"tranche-candidate",
                        &hash.0,
                        &c.to_le_bytes(),
                    ])),
                    core: CoreIndex(c),
                    group: GroupIndex(c),
                })
                .collect();
            blocks.push(Block {
                hash,
                number: b,
                parent,
                slot: INITIAL_SLOT + Slot::from(b - 1),
                session: session_of(p, b),
                relay_vrf_story: story,
                candidates,
            });
            parent = hash;
        }
        let n_sessions = session_of(p, p.num_blocks.max(1)) - BENCH_SESSION + 1;
        let sessions = (0..n_sessions)
            .map(|k| SessionInfo {
                session_index: BENCH_SESSION + k,
                ..session.clone()
            })
            .collect();
        World {
            pairs,
            assignment_pairs,
            session,
            sessions,
            blocks,
        }
    }
}
