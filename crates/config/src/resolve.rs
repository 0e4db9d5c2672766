//! A `tranche run` command line's configuration, resolved in one call:
//! the test sequence's text with the size flags (`--validators`, `--cores`,
//! `--blocks`) and the small mode's cut applied, parsed and checked, each
//! step's generation parameters, emulated network and estimate, and what
//! was refused and why (a vacuous step; a step too large for the memory
//! available; the steps of other objectives, skipped). The command line
//! gathers the text and the flags, calls [`resolve`], and runs what it
//! returns (`crates/bench/src/run_cli.rs`); nothing of a run's
//! configuration is worked out anywhere else.

use crate::estimate::{self, RunEstimate};
use crate::generation::GenerationParams;
use crate::resize::{resized, ResizeError};
use crate::{check_not_vacuous, parse, BenchConfig, BenchStep, ConfigError, ConfigErrorKind};
use tranche_links::NetworkConfig;

/// Validators of a step cut by the small mode (`TRANCHE_SMALL=1`): enough
/// outside a backing group for the default `needed_approvals` (30).
pub const SMALL_VALIDATORS: u32 = 40;
/// Cores of a step cut by the small mode (40 validators form 8 backing
/// groups).
pub const SMALL_CORES: u32 = 8;
/// Blocks of a step cut by the small mode.
pub const SMALL_BLOCKS: u32 = 3;

/// What a command line asks of a test sequence.
#[derive(Debug, Clone, Copy)]
pub struct Ask<'a> {
    /// The test sequence's YAML and where it came from (a path, the
    /// embedded default or an embedded example), as errors name it.
    pub text: &'a str,
    pub source: &'a str,
    /// `--validators`, `--cores`, `--blocks`: every step takes them.
    pub validators: Option<u32>,
    pub cores: Option<u32>,
    pub blocks: Option<u32>,
    /// The small mode (`TRANCHE_SMALL=1`): a step of more than 100
    /// validators gets [`SMALL_VALIDATORS`] and [`SMALL_CORES`], at most
    /// [`SMALL_BLOCKS`] blocks.
    pub small: bool,
    /// `--allow-vacuous`: a step whose every candidate is approved at
    /// import is run anyway.
    pub allow_vacuous: bool,
    /// The run's seed: generation and the emulated network draw from it.
    pub seed: u64,
}

/// What one step runs on: its messages' parameters, its emulated network
/// and what it is estimated to take (virtual clock).
#[derive(Debug, Clone)]
pub struct Plan {
    pub generation: GenerationParams,
    pub network: NetworkConfig,
    pub estimate: RunEstimate,
}

impl Plan {
    /// The plan of `step` under `seed` (also for the commands that make
    /// their steps themselves: the sweep's grid points, calibrate).
    pub fn of(step: &BenchStep, seed: u64) -> Plan {
        Plan {
            generation: step.generation_params(seed),
            network: step.network_config(seed),
            estimate: estimate::of_step(step),
        }
    }
}

/// A resolved configuration: the steps after the sizes, each with its
/// plan (in step order), the skipped steps in `config.skipped`.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub config: BenchConfig,
    pub plans: Vec<Plan>,
}

/// Why a command line's configuration could not be resolved.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// The file, or the file resized, breaks a configuration rule (or a
    /// step is vacuous).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The sizes could not be written into the file.
    #[error(transparent)]
    Resize(#[from] ResizeError),
}

impl Resolved {
    /// Each step with its plan.
    pub fn steps(&self) -> impl Iterator<Item = (&BenchStep, &Plan)> {
        self.config.steps.iter().zip(&self.plans)
    }

    /// The refusal of a step whose memory estimate exceeds `available`
    /// bytes (the first such step; none when `available` is `None`).
    pub fn too_large(&self, available: Option<u64>) -> Option<ConfigError> {
        let avail = available?;
        let (step, plan) = self.steps().find(|(_, p)| p.estimate.bytes > avail)?;
        Some(ConfigError::new(
            &self.config.source,
            Some(step.step),
            ConfigErrorKind::TooCostly {
                sizes: format!(
                    "n_validators {} × {} candidates per block × num_blocks {}",
                    step.n_validators,
                    step.candidates_per_block(),
                    step.num_blocks
                ),
                estimate: plan.estimate.describe(),
                available_mib: avail >> 20,
            },
        ))
    }
}

/// The sizes the small mode cuts `config` to (none where it is small
/// already).
fn small_sizes(config: &BenchConfig) -> Vec<(&'static str, u32)> {
    let mut sizes = Vec::new();
    if config.steps.iter().any(|s| s.n_validators > 100) {
        sizes.extend([("n_validators", SMALL_VALIDATORS), ("n_cores", SMALL_CORES)]);
    }
    if config.steps.iter().any(|s| s.num_blocks > SMALL_BLOCKS) {
        sizes.push(("num_blocks", SMALL_BLOCKS));
    }
    sizes
}

/// `config` with `sizes` written into every step, parsed and checked again.
fn with_sizes(
    config: BenchConfig,
    text: &str,
    sizes: &[(&'static str, u32)],
) -> Result<(BenchConfig, Option<String>), ResolveError> {
    if sizes.is_empty() {
        return Ok((config, None));
    }
    let text = resized(text, &config.source, sizes)?;
    Ok((parse(&text, &config.source)?, Some(text)))
}

/// The one call from what a command line asks to what it runs: the file
/// as given is parsed and checked first (so an error names the file as
/// written), then the size flags and the small mode's cut are applied and
/// the result checked again, a vacuous step refused unless allowed, and
/// each step planned.
pub fn resolve(ask: &Ask) -> Result<Resolved, ResolveError> {
    let config = parse(ask.text, ask.source)?;
    let sizes = crate::resize::sizes(ask.validators, ask.cores, ask.blocks);
    let (config, resized) = with_sizes(config, ask.text, &sizes)?;
    let config = if ask.small {
        let cut = small_sizes(&config);
        with_sizes(config, resized.as_deref().unwrap_or(ask.text), &cut)?.0
    } else {
        config
    };
    if !ask.allow_vacuous {
        check_not_vacuous(&config)?;
    }
    let plans = config.steps.iter().map(|s| Plan::of(s, ask.seed)).collect();
    Ok(Resolved { config, plans })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(text: &str) -> Ask<'_> {
        Ask {
            text,
            source: "f.yaml",
            validators: None,
            cores: None,
            blocks: None,
            small: false,
            allow_vacuous: false,
            seed: 7,
        }
    }

    #[test]
    fn the_sizes_reach_every_step_and_its_plan() {
        let r = resolve(&Ask {
            validators: Some(60),
            cores: Some(12),
            blocks: Some(2),
            ..ask(crate::DEFAULT_YAML)
        })
        .unwrap();
        for (step, plan) in r.steps() {
            assert_eq!(
                (step.n_validators, step.n_cores, step.num_blocks),
                (60, 12, 2)
            );
            assert_eq!(plan.generation.n_validators, 60);
            assert_eq!(plan.generation.seed, 7);
            assert_eq!(plan.network.n_peers, 59);
            assert_eq!(plan.network.seed, 7);
            assert_eq!(plan.estimate, estimate::of_step(step));
        }
    }

    #[test]
    fn the_small_mode_cuts_after_the_flags() {
        let r = resolve(&Ask {
            validators: Some(500),
            cores: Some(100),
            blocks: Some(10),
            small: true,
            ..ask(crate::DEFAULT_YAML)
        })
        .unwrap();
        let s = &r.config.steps[0];
        assert_eq!(
            (s.n_validators, s.n_cores, s.num_blocks),
            (SMALL_VALIDATORS, SMALL_CORES, SMALL_BLOCKS)
        );
        let plain = resolve(&Ask {
            small: true,
            ..ask(crate::DEFAULT_YAML)
        })
        .unwrap();
        let given = crate::embedded_default().unwrap().steps[0].n_validators;
        let expected = if given > 100 { SMALL_VALIDATORS } else { given };
        assert_eq!(plain.config.steps[0].n_validators, expected);
    }

    #[test]
    fn what_is_refused_says_why() {
        // A size the rules refuse names the key and the bound.
        let e = resolve(&Ask {
            cores: Some(40),
            validators: Some(60),
            ..ask(crate::DEFAULT_YAML)
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("at most 12 cores"), "{e}");
        // A file that is no test sequence is refused as written, before
        // any resize.
        let e = resolve(&Ask {
            validators: Some(6),
            ..ask("!ApprovalNetwork\nn_validators: 3\n")
        })
        .unwrap_err();
        assert!(matches!(e, ResolveError::Config(_)), "{e}");
        // Too large for the memory available: the first step, named.
        let r = resolve(&ask(crate::DEFAULT_YAML)).unwrap();
        assert!(r.too_large(None).is_none());
        let e = r.too_large(Some(1)).unwrap().to_string();
        assert!(e.contains("f.yaml") && e.contains("MiB"), "{e}");
        assert!(r.too_large(Some(u64::MAX)).is_none());
    }
}
