//! Message generation (upstream `polkadot/node/subsystem-bench/src/lib/approval/message_generator.rs`): every emulated validator's real
//! assignments and coalesced approvals for every block, who delivers each
//! to the node under test, and the order in which they are sent — computed
//! on all cores with a progress bar, and cached on disk.

pub mod bundles;
pub mod cache;
pub mod sent_by;
pub mod validate;
pub use tranche_world as world;

use bundles::{validator_block_bundles, Bundle};
use cache::{CacheError, GeneratedMessages};
use indicatif::{ProgressBar, ProgressStyle};
use rand::seq::SliceRandom;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;
use sent_by::{random_samplings, SendersTo};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tranche_config::generation::GenerationParams;
use tranche_config::generation::INITIAL_SLOT;
use tranche_primitives::time::{slot_start_tick, DEFAULT_TICKS_PER_SLOT};
use tranche_primitives::{Tick, ValidatorIndex};
use world::{World, NODE_UNDER_TEST};

/// How generation tells its progress.
#[derive(Clone, Copy)]
pub enum Show<'a> {
    Nothing,
    /// A bar on stderr (a terminal).
    Bar,
    /// `tell(done, total)` after each validator's messages, from any of
    /// the generating threads (the caller prints a line now and then).
    Told(&'a (dyn Fn(u64, u64) + Sync)),
}

/// Build the world of `params` and generate every bundle in it, in send
/// order. `progress` draws a bar on stderr.
pub fn generate(params: &GenerationParams, progress: bool) -> (World, GeneratedMessages) {
    let world = World::build(params);
    let show = if progress { Show::Bar } else { Show::Nothing };
    let messages = generate_in(&world, params, show);
    (world, messages)
}

/// Every bundle of `params` in an already built `world`, in send order.
pub fn generate_in(world: &World, params: &GenerationParams, show: Show) -> GeneratedMessages {
    let n = params.n_validators;
    let grid = SendersTo::identity(n, NODE_UNDER_TEST);
    let samplings = random_samplings(NODE_UNDER_TEST.0, n, 2 * n as usize, params.seed);
    let peers: Vec<u32> = (0..n).filter(|v| *v != NODE_UNDER_TEST.0).collect();
    let done = std::sync::atomic::AtomicU64::new(0);

    let bar = if matches!(show, Show::Bar) {
        let bar = ProgressBar::new(peers.len() as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "generating messages {bar:40} {pos}/{len} validators ({eta} left)",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };

    let per_validator: Vec<Vec<(Tick, Bundle)>> = peers
        .par_iter()
        .map(|&v| {
            let grid_senders = grid.of(v);
            // Upstream draws the random-routing sampling once per validator
            // (its RNG is re-seeded identically for every block).
            let mut key = [0u8; 32];
            key[..4].copy_from_slice(&v.to_be_bytes());
            key[4..12].copy_from_slice(&params.seed.to_le_bytes());
            key[12] = 0x5a;
            let pick = ChaCha20Rng::from_seed(key).next_u32() as usize % samplings.len().max(1);
            let random = samplings.get(pick).map(Vec::as_slice).unwrap_or(&[]);
            let mut out = Vec::new();
            for (b, block) in world.blocks.iter().enumerate() {
                let block_tick = slot_start_tick(block.slot, DEFAULT_TICKS_PER_SLOT);
                for bundle in validator_block_bundles(
                    params,
                    world,
                    b as u32,
                    block,
                    ValidatorIndex(v),
                    &grid_senders,
                    random,
                ) {
                    out.push((block_tick + Tick::from(bundle.tranche_to_send()), bundle));
                }
            }
            bar.inc(1);
            if let Show::Told(tell) = show {
                let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                tell(d, peers.len() as u64);
            }
            out
        })
        .collect();
    bar.finish_and_clear();

    // Deterministic order: bundles grouped by the tick they are due, each
    // tick's bundles in a fixed order, then shuffled with a seeded RNG.
    let mut by_tick: BTreeMap<Tick, Vec<Bundle>> = BTreeMap::new();
    for (tick, bundle) in per_validator.into_iter().flatten() {
        by_tick.entry(tick).or_default().push(bundle);
    }
    let mut key = [0x32u8; 32];
    key[..8].copy_from_slice(&params.seed.to_le_bytes());
    let mut rng = ChaCha20Rng::from_seed(key);
    let mut bundles = Vec::new();
    for (_, mut list) in by_tick {
        list.sort_by_key(|b| (b.block, b.validator, b.min_tranche()));
        list.shuffle(&mut rng);
        bundles.extend(list);
    }
    GeneratedMessages {
        initial_slot: INITIAL_SLOT,
        bundles,
    }
}

/// How the messages of a run were obtained.
#[derive(Debug)]
pub enum CacheOutcome {
    /// Read from a valid cache file.
    Hit { path: PathBuf, load_time: Duration },
    /// Generated (no file, or the file was invalid: `rejected` says why)
    /// and written, unless `not_stored` says why not (the run goes on with
    /// the messages in memory).
    Generated {
        path: PathBuf,
        generation_time: Duration,
        rejected: Option<CacheError>,
        bytes: u64,
        not_stored: Option<String>,
    },
}

/// The world of `params` (built once) and its messages, loaded from this
/// user's folder under `cache_root` or generated and stored there. An
/// invalid cache file is never trusted: it is reported in the outcome and
/// replaced. A cache folder that cannot be used is found before generation
/// and reported; the run then goes on without storing.
pub fn load_or_generate(
    params: &GenerationParams,
    cache_root: &Path,
    show: Show,
) -> anyhow::Result<(World, GeneratedMessages, CacheOutcome)> {
    let key = cache::cache_key(&params.fingerprint());
    let dir = cache::user_cache_dir(cache_root);
    let path = match &dir {
        Ok(d) => cache::cache_path(d, &key),
        Err(_) => cache::cache_path(cache_root, &key),
    };
    let world = World::build(params);
    let start = Instant::now();
    let rejected = match &dir {
        Err(_) => None,
        Ok(_) => match cache::load(&path, &key) {
            Ok(Some(messages)) => match validate::validate(&messages, &world) {
                Ok(()) => {
                    let outcome = CacheOutcome::Hit {
                        path,
                        load_time: start.elapsed(),
                    };
                    return Ok((world, messages, outcome));
                }
                Err(reason) => Some(CacheError::Invalid {
                    path: path.clone(),
                    reason,
                }),
            },
            Ok(None) => None,
            Err(e) => Some(e),
        },
    };
    let start = Instant::now();
    let messages = generate_in(&world, params, show);
    let generation_time = start.elapsed();
    let (bytes, not_stored) = match &dir {
        Err(e) => (0, Some(e.to_string())),
        Ok(_) => match cache::store(&path, &key, &messages) {
            Ok(n) => (n, None),
            Err(e) => (
                0,
                Some(format!(
                    "cannot write message cache {}: {e}",
                    path.display()
                )),
            ),
        },
    };
    Ok((
        world,
        messages,
        CacheOutcome::Generated {
            path,
            generation_time,
            rejected,
            bytes,
            not_stored,
        },
    ))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use tranche_config::Coalescing;
    use tranche_primitives::ApprovalDistributionMessage;

    pub(crate) fn small(seed: u64) -> GenerationParams {
        GenerationParams {
            n_validators: 12,
            n_cores: 3,
            n_included_candidates: 3,
            num_blocks: 2,
            session: tranche_config::session::SessionParams {
                needed_approvals: 3,
                zeroth_delay_tranche_width: 0,
                relay_vrf_modulo_samples: 2,
                n_delay_tranches: 20,
                no_show_slots: 3,
            },
            max_validators_per_core: 2,
            coalesce: Coalescing::Normal {
                mean: 3.0,
                std_dev: 1.0,
            },
            coalesce_tranche_diff: 12,
            enable_assignments_v2: true,
            generation_tranche_limit: None,
            blocks_per_session: None,
            seed,
        }
    }

    /// Everything but VRF proofs and signatures, which schnorrkel
    /// randomises: cores, tranches, claims, senders, order and sizes.
    type Shape = Vec<(u32, u32, Vec<(u32, Vec<u32>, Vec<u32>, usize)>)>;

    fn shape(g: &GeneratedMessages) -> Shape {
        g.bundles
            .iter()
            .map(|b| {
                let msgs = b
                    .assignments
                    .iter()
                    .chain(&b.approvals)
                    .map(|m| {
                        let len = parity_scale_codec::Encode::encode(&m.message).len();
                        (m.tranche, m.sent_by.clone(), m.candidates.clone(), len)
                    })
                    .collect();
                (b.block, b.validator, msgs)
            })
            .collect()
    }

    #[test]
    fn generation_is_deterministic_and_complete() {
        let p = small(5);
        let (world, a) = generate(&p, false);
        assert_eq!(shape(&a), shape(&generate(&p, false).1));
        assert_ne!(shape(&a), shape(&generate(&small(6), false).1));
        // Every non-node validator approves every candidate it is assigned
        // to (outside its own backing group), exactly once per block.
        for (b, block) in world.blocks.iter().enumerate() {
            for v in 1..p.n_validators {
                let mut approved: Vec<u32> = a
                    .bundles
                    .iter()
                    .filter(|x| x.block == b as u32 && x.validator == v)
                    .flat_map(|x| x.approvals.iter().flat_map(|m| m.candidates.clone()))
                    .collect();
                approved.sort_unstable();
                let eligible: Vec<u32> = block
                    .candidates
                    .iter()
                    .enumerate()
                    .filter(|(_, lc)| !world.session.is_in_group(lc.group, ValidatorIndex(v)))
                    .map(|(i, _)| i as u32)
                    .collect();
                assert_eq!(approved, eligible, "block {b} validator {v}");
            }
        }
        // Bundles are in due-tick order, messages are single-item, and
        // approvals cover only candidates of the bundle's assignments.
        let due = |x: &Bundle| {
            slot_start_tick(world.blocks[x.block as usize].slot, DEFAULT_TICKS_PER_SLOT)
                + Tick::from(x.tranche_to_send())
        };
        assert!(a.bundles.windows(2).all(|w| due(&w[0]) <= due(&w[1])));
        for x in &a.bundles {
            let claimed: Vec<u32> = x
                .assignments
                .iter()
                .flat_map(|m| m.candidates.clone())
                .collect();
            for m in x.assignments.iter().chain(&x.approvals) {
                assert_eq!(m.message.len(), 1);
                assert!(!m.sent_by.contains(&0));
            }
            for m in &x.approvals {
                assert!(matches!(
                    m.message,
                    ApprovalDistributionMessage::Approvals(_)
                ));
                assert!(m.candidates.iter().all(|c| claimed.contains(c)));
            }
        }
    }

    #[test]
    fn cache_hit_and_corrupt_file_regenerates() {
        let dir = std::env::temp_dir().join(format!("tranche-gen-test-{}", std::process::id()));
        let p = small(1);
        let (_, first, outcome) = load_or_generate(&p, &dir, Show::Nothing).unwrap();
        let CacheOutcome::Generated {
            path,
            rejected: None,
            ..
        } = outcome
        else {
            panic!("expected a fresh generation, got {outcome:?}");
        };
        let (_, second, outcome) = load_or_generate(&p, &dir, Show::Nothing).unwrap();
        assert!(matches!(outcome, CacheOutcome::Hit { .. }));
        assert_eq!(first, second);
        let mut bytes = std::fs::read(&path).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0xff;
        std::fs::write(&path, bytes).unwrap();
        let (_, third, outcome) = load_or_generate(&p, &dir, Show::Nothing).unwrap();
        assert!(matches!(
            outcome,
            CacheOutcome::Generated {
                rejected: Some(CacheError::Checksum { .. }),
                ..
            }
        ));
        assert_eq!(shape(&third), shape(&first));
        std::fs::remove_dir_all(&dir).ok();
    }
}
