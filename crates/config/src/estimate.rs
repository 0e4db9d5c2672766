//! The run's estimate, before work: how many messages a step generates, and about how much
//! memory and time its run takes, from the configuration alone, so that a
//! step this machine cannot hold is refused before generation starts
//! instead of after minutes of silence or an out-of-memory kill.
//!
//! # The model
//!
//! Every emulated validator (all but the node under test) is assigned to
//! about every candidate of every block (generation keeps every tranche up
//! to `n_delay_tranches`; see `crates/workload/src/generate/bundles.rs`),
//! and its approvals are coalesced `coalesce` candidates at a time:
//!
//! ```text
//! messages ≈ (n_validators − 1) × candidates_per_block × num_blocks × (1 + 1 / coalesce)
//! memory   ≈ BASE_BYTES + BYTES_PER_MESSAGE × messages
//! time     ≈ SECONDS_PER_MESSAGE × messages
//! ```
//!
//! `coalesce` is `max(1, coalesce_mean)` (G2/G3) or the mean of
//! `min_coalesce..=max_coalesce` (G1). It is an upper bound on messages:
//! compact v2 assignments and G1's tranche limit only lower it.
//!
//! # Calibration
//!
//! Measured with the release binary, `--clock virtual --architecture
//! classic` (parallel peaks within 5 %), `stop_when_approved: false`, on
//! the 2-core development machine under load ~2 (peak RSS by
//! `/usr/bin/time -f %M`, messages from the report's `unique_messages`):
//!
//! | validators × cores × blocks | model | unique messages | peak RSS | wall |
//! |---|---:|---:|---:|---:|
//! | 100 × 20 × 3 | 11 880 | 10 015 | 45 MiB | 2.9 s |
//! | 300 × 60 × 3 | 107 640 | 91 531 | 159 MiB | 22.9 s |
//! | 100 × 20 × 27 | 106 920 | 90 119 | 149 MiB | 22.6 s |
//!
//! That is about 1 430 bytes and 245 µs per generated message over a
//! 32 MiB base, linear in messages whatever the validator count. The model
//! counts about 18 % more messages than are generated (at mean 1, sd 1,
//! `max(1, round(Normal))` coalesces 1.3 candidates on average), and the
//! constants round up again: the estimate errs on the side of refusing.

use super::{BenchConfig, BenchStep, Coalescing, ConfigError, ConfigErrorKind};
use std::path::Path;

/// Memory of a run before its first message (binary, session, keys).
pub const BASE_BYTES: u64 = 32 << 20;
/// Peak memory per generated message: the message, its bundle, and what
/// distribution and voting keep of it during the run.
pub const BYTES_PER_MESSAGE: u64 = 1_536;
/// Wall time per generated message (release build, virtual clock).
pub const SECONDS_PER_MESSAGE: f64 = 250e-6;

/// The estimate of one step's run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunEstimate {
    /// Messages generated (an upper bound).
    pub messages: u64,
    /// Peak memory, bytes.
    pub bytes: u64,
    /// Wall time of the run, seconds (indicative: release build).
    pub seconds: f64,
}

impl RunEstimate {
    /// One line: `about N messages, M MiB, S s`.
    pub fn describe(&self) -> String {
        format!(
            "about {} messages, {} MiB and {:.0} s (release build)",
            self.messages,
            self.bytes >> 20,
            self.seconds
        )
    }
}

/// The estimate of `step`'s run (see the module documentation).
pub fn of_step(step: &BenchStep) -> RunEstimate {
    let coalesce = match step.coalescing {
        Coalescing::Normal { mean, .. } => f64::from(mean).max(1.0),
        Coalescing::Uniform { min, max } => ((f64::from(min) + f64::from(max)) / 2.0).max(1.0),
    };
    let assignments = u64::from(step.n_validators - 1)
        * u64::from(step.candidates_per_block())
        * u64::from(step.num_blocks);
    // The bounds keep `assignments` below 2^40: no overflow, exact in f64.
    let messages = assignments + (assignments as f64 / coalesce).ceil() as u64;
    RunEstimate {
        messages,
        bytes: BASE_BYTES.saturating_add(messages.saturating_mul(BYTES_PER_MESSAGE)),
        seconds: messages as f64 * SECONDS_PER_MESSAGE,
    }
}

/// The estimate of every step of `config`, in order; an error naming the
/// first step whose memory estimate exceeds `available` bytes (no check
/// when `available` is `None`).
pub fn check_fits(
    config: &BenchConfig,
    available: Option<u64>,
) -> Result<Vec<RunEstimate>, ConfigError> {
    let mut estimates = Vec::new();
    for step in &config.steps {
        let estimate = of_step(step);
        if let Some(avail) = available.filter(|&a| estimate.bytes > a) {
            return Err(ConfigError::new(
                &config.source,
                Some(step.step),
                ConfigErrorKind::TooCostly {
                    sizes: format!(
                        "n_validators {} × {} candidates per block × num_blocks {}",
                        step.n_validators,
                        step.candidates_per_block(),
                        step.num_blocks
                    ),
                    estimate: estimate.describe(),
                    available_mib: avail >> 20,
                },
            ));
        }
        estimates.push(estimate);
    }
    Ok(estimates)
}

/// `MemAvailable` of `/proc/meminfo`, bytes; `None` where unreadable.
pub fn mem_available() -> Option<u64> {
    mem_available_in(Path::new("/proc/meminfo"))
}

fn mem_available_in(path: &Path) -> Option<u64> {
    let text = crate::input::read_text(path, 1 << 16).ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    fn step(validators: u32, cores: u32, blocks: u32) -> BenchConfig {
        let yaml = format!(
            "TestConfiguration:\n- objective: !ApprovalVoting\n    coalesce_tranche_diff: 12\n  \
             n_validators: {validators}\n  n_cores: {cores}\n  num_blocks: {blocks}\n"
        );
        parse(&yaml, "cost.yaml").unwrap()
    }

    #[test]
    fn the_model_matches_its_calibration_and_refuses_what_cannot_fit() {
        // At most 25 % above the measured 10 015 and 91 531 unique
        // messages, never below; and above the measured peak memory.
        for (cfg, measured, rss_mib) in [
            (step(100, 20, 3), 10_015.0, 45),
            (step(300, 60, 3), 91_531.0, 159),
        ] {
            let c = of_step(&cfg.steps[0]);
            let ratio = c.messages as f64 / measured;
            assert!((1.0..1.25).contains(&ratio), "{c:?} vs {measured}");
            assert!(c.bytes >> 20 > rss_mib, "{c:?}");
        }
        let small = step(100, 20, 3);
        assert_eq!(check_fits(&small, Some(1 << 30)).unwrap().len(), 1);
        assert!(check_fits(&small, None).is_ok());
        let huge = step(20_000, 2_000, 10_000);
        let c = of_step(&huge.steps[0]);
        assert!(c.bytes > 1 << 50, "{c:?}");
        let e = check_fits(&huge, Some(16 << 30)).unwrap_err().to_string();
        assert!(!e.contains('\n'), "{e}");
        let missing: Vec<_> = ["cost.yaml: step 1", "n_validators 20000", "16384 MiB"]
            .into_iter()
            .filter(|n| !e.contains(n))
            .collect();
        assert!(missing.is_empty(), "{missing:?} missing: {e}");
    }

    #[test]
    fn mem_available_is_read_or_skipped() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("meminfo");
        std::fs::write(&f, "MemTotal: 8 kB\nMemAvailable:    2048 kB\n").unwrap();
        assert_eq!(mem_available_in(&f), Some(2 << 20));
        std::fs::write(&f, "MemTotal: 8 kB\n").unwrap();
        assert_eq!(mem_available_in(&f), None);
        assert_eq!(mem_available_in(&d.path().join("absent")), None);
    }
}
