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
//! and its approvals are coalesced `coalesce` candidates at a time; of
//! those messages the peers send all with `stop_when_approved: false`, and
//! with `true` about what approval needs (half again the
//! `needed_approvals` assignments per candidate, and their approvals, out
//! of the `n_validators − 1` generated):
//!
//! ```text
//! messages ≈ (n_validators − 1) × candidates_per_block × num_blocks × (1 + 1 / coalesce)
//! sent     ≈ messages × min(1, 1.5 × (needed_approvals + no-shows) / (n_validators − 1))
//!            (all of them with stop_when_approved: false)
//! memory   ≈ BASE_BYTES + BYTES_PER_GENERATED × messages + BYTES_PER_SENT × sent
//! time     ≈ GENERATION_SECONDS × messages + RUN_SECONDS × sent
//! ```
//!
//! Generation holds every message (and its encoding) in memory and signs
//! each (VRFs and signatures, on all cores); the run costs what the node
//! does with what is sent. `coalesce` is `max(1, coalesce_mean)` (G2/G3)
//! or the mean of `min_coalesce..=max_coalesce` (G1). `messages` is an
//! upper bound: compact v2 assignments and G1's tranche limit only lower
//! it.
//!
//! # Calibration
//!
//! Measured with the release binary, `--clock virtual --architecture
//! classic` (parallel peaks within 5 %), on the 2-core development machine
//! under load ~2 (peak RSS by `/usr/bin/time -f %M`, messages from the
//! report's `unique_messages`; generation and run time from the report):
//!
//! | validators × cores × blocks | stop when approved | model | unique messages | peak RSS | wall |
//! |---|---|---:|---:|---:|---:|
//! | 100 × 20 × 3 | false | 11 880 | 10 015 | 45 MiB | 2.9 s |
//! | 300 × 60 × 3 | false | 107 640 | 91 531 | 159 MiB | 22.9 s |
//! | 100 × 20 × 27 | false | 106 920 | 90 119 | 149 MiB | 22.6 s |
//! | 200 × 40 × 4 (best case, coalesce 3) | true | 42 453 | 5 434 sent | 63 MiB | 6.1 s (4.8 generating) |
//! | 500 × 100 × 10 (`approvals_throughput_best_case.yaml`) | true | 665 334 | - | ~510 MiB | 72 s generating |
//!
//! That is about 110 µs of generation and 140 µs of run per message sent,
//! and about 770 bytes per message generated plus as much per message sent,
//! over a 32 MiB base: `approvals_throughput_best_case.yaml` is estimated
//! at 82 s and 563 MiB (it took 72 s and ~510 MiB), where one constant of
//! 250 µs and 1 536 bytes per generated message said 166 s and 1 006 MiB.
//! Every row is within 2 × of its estimate (a test keeps it so); memory
//! errs on the side of refusing.

use super::{BenchStep, Coalescing};
use std::path::Path;

/// Memory of a run before its first message (binary, session, keys).
pub const BASE_BYTES: u64 = 32 << 20;
/// Memory per generated message: the message, its bundle, its encoding.
pub const BYTES_PER_GENERATED: u64 = 768;
/// Memory per message sent: what distribution and voting keep of it.
pub const BYTES_PER_SENT: u64 = 768;
/// Generation's wall time per message (release build, 2 cores).
pub const GENERATION_SECONDS: f64 = 110e-6;
/// The run's wall time per message sent (release build, virtual clock).
pub const RUN_SECONDS: f64 = 140e-6;

/// The estimate of one step's run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunEstimate {
    /// Messages generated (an upper bound).
    pub messages: u64,
    /// Of those, the messages the peers send.
    pub sent: u64,
    /// Peak memory, bytes.
    pub bytes: u64,
    /// Wall time of generation and run under the virtual clock, seconds
    /// (indicative: release build).
    pub seconds: f64,
    /// Under the real clock: the least and the most wall time, seconds
    /// ([`RunEstimate::on_real_clock`]); `None` under the virtual clock.
    pub real_clock: Option<(f64, f64)>,
}

impl RunEstimate {
    /// The estimate of the same step under the real clock, which waits
    /// for the slots the virtual clock skips: from generation's end, at
    /// least until its last block's slot (`num_blocks − 1` slots after
    /// the first block's), and at most that and the peers' last tranche
    /// (`n_delay_tranches` ticks) after it; never below the run's work.
    pub fn on_real_clock(mut self, step: &BenchStep) -> RunEstimate {
        let generation = self.messages as f64 * GENERATION_SECONDS;
        let work = self.seconds - generation;
        let slots = f64::from(step.num_blocks.saturating_sub(1)) * SLOT_SECONDS;
        let tranches = f64::from(step.session.n_delay_tranches) * TICK_SECONDS;
        self.real_clock = Some((
            generation + work.max(slots),
            generation + work.max(slots + tranches),
        ));
        self
    }

    /// The wall time to announce: the virtual clock's estimate, or the
    /// least the real clock takes.
    pub fn wall_seconds(&self) -> f64 {
        self.real_clock.map_or(self.seconds, |(least, _)| least)
    }

    /// One line, its counts named as the report's rows: `about N unique
    /// messages from peers (of at most M generated), K MiB and S s`.
    pub fn describe(&self) -> String {
        let (time, why) = match self.real_clock {
            None => (format!("{:.0} s", self.seconds), String::new()),
            Some((least, most)) => (
                format!("{least:.0}–{most:.0} s of wall time"),
                format!(
                    "; the real clock waits for the blocks' slots, {SLOT_SECONDS:.0} s apart, \
                     and the peers' tranches"
                ),
            ),
        };
        format!(
            "about {} unique messages from peers (of at most {} generated), {} MiB and {time} \
             (release build, 2 cores{why})",
            tranche_cli::text::grouped(self.sent as usize),
            tranche_cli::text::grouped(self.messages as usize),
            self.bytes >> 20,
        )
    }
}

/// A slot of the benchmark's chain, seconds.
const SLOT_SECONDS: f64 = tranche_records::time::DEFAULT_SLOT_DURATION_MILLIS as f64 / 1e3;
/// A tick, seconds.
const TICK_SECONDS: f64 = tranche_records::time::TICK_DURATION_MILLIS as f64 / 1e3;

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
    let sent = if step.stop_when_approved {
        let needed = f64::from(step.session.needed_approvals + step.num_no_shows_per_candidate);
        let share = (1.5 * needed / f64::from(step.n_validators - 1)).min(1.0);
        (messages as f64 * share).ceil() as u64
    } else {
        messages
    };
    RunEstimate {
        messages,
        sent,
        bytes: BASE_BYTES
            .saturating_add(messages.saturating_mul(BYTES_PER_GENERATED))
            .saturating_add(sent.saturating_mul(BYTES_PER_SENT)),
        seconds: messages as f64 * GENERATION_SECONDS + sent as f64 * RUN_SECONDS,
        real_clock: None,
    }
}

/// `MemAvailable` of `/proc/meminfo`, bytes; `None` where unreadable.
pub fn mem_available() -> Option<u64> {
    mem_available_in(Path::new("/proc/meminfo"))
}

fn mem_available_in(path: &Path) -> Option<u64> {
    let text = tranche_cli::input::read_text(path, 1 << 16).ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;
    use crate::BenchConfig;

    /// A step of the calibration's first rows: every message sent.
    fn step(validators: u32, cores: u32, blocks: u32) -> BenchConfig {
        let yaml = format!(
            "TestConfiguration:\n- objective: !ApprovalVoting\n    coalesce_tranche_diff: 12\n    \
             stop_when_approved: false\n  \
             n_validators: {validators}\n  n_cores: {cores}\n  num_blocks: {blocks}\n"
        );
        parse(&yaml, "cost.yaml").unwrap()
    }

    /// `approvals_throughput_best_case.yaml`'s options at another size.
    fn best_case(validators: u32, cores: u32, blocks: u32) -> BenchConfig {
        let yaml = format!(
            "TestConfiguration:\n- objective: !ApprovalVoting\n    coalesce_mean: 3.0\n    \
             coalesce_std_dev: 1.0\n    enable_assignments_v2: true\n    stop_when_approved: true\n    \
             coalesce_tranche_diff: 12\n  n_validators: {validators}\n  n_cores: {cores}\n  \
             num_blocks: {blocks}\n"
        );
        parse(&yaml, "best.yaml").unwrap()
    }

    #[test]
    fn every_measured_run_is_within_two_times_its_estimate() {
        // (step, measured seconds, peak MiB),
        // the module documentation's calibration table.
        let rows = [
            (step(100, 20, 3), 2.9, 45.0),
            (step(300, 60, 3), 22.9, 159.0),
            (step(100, 20, 27), 22.6, 149.0),
            (best_case(200, 40, 4), 6.1, 63.0),
            (best_case(500, 100, 10), 72.0, 510.0),
        ];
        for (cfg, seconds, mib) in rows {
            let c = of_step(&cfg.steps[0]);
            let s = &cfg.steps[0];
            let (t, m) = (c.seconds / seconds, (c.bytes >> 20) as f64 / mib);
            let name = format!("{} x {} x {}", s.n_validators, s.n_cores, s.num_blocks);
            assert!(
                (0.5..=2.0).contains(&t),
                "{name}: {c:?} against {seconds} s"
            );
            assert!((1.0..=2.0).contains(&m), "{name}: {c:?} against {mib} MiB");
        }
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
        let planned = |config: BenchConfig| crate::resolve::Resolved {
            plans: config
                .steps
                .iter()
                .map(|s| crate::resolve::Plan::of(s, 0))
                .collect(),
            config,
        };
        let small = planned(step(100, 20, 3));
        assert!(small.too_large(Some(1 << 30)).is_none());
        assert!(small.too_large(None).is_none());
        let huge = step(20_000, 2_000, 10_000);
        let c = of_step(&huge.steps[0]);
        assert!(c.bytes > 1 << 50, "{c:?}");
        let e = planned(huge).too_large(Some(16 << 30)).unwrap().to_string();
        assert!(!e.contains('\n'), "{e}");
        let missing: Vec<_> = ["cost.yaml: step 1", "n_validators 20000", "16384 MiB"]
            .into_iter()
            .filter(|n| !e.contains(n))
            .collect();
        assert!(missing.is_empty(), "{missing:?} missing: {e}");
    }

    /// Issue 60: the default step under the real clock was estimated at
    /// 1 s (the virtual clock's time) and took 22.5 s; 60 x 12 x 2 at 0 s
    /// and took 31 s. The real clock's estimate holds both.
    #[test]
    fn the_real_clock_waits_for_its_slots() {
        let default = crate::embedded_default().unwrap();
        let small = parse(
            &crate::DEFAULT_YAML
                .replace("n_validators: 100", "n_validators: 60")
                .replace("n_cores: 20", "n_cores: 12")
                .replace("num_blocks: 3", "num_blocks: 2"),
            "d",
        )
        .unwrap();
        for (cfg, measured) in [(default, 22.5), (small, 31.0)] {
            let step = &cfg.steps[0];
            let e = of_step(step);
            assert!(e.seconds < measured / 5.0, "{e:?}");
            let real = e.on_real_clock(step);
            let (least, most) = real.real_clock.unwrap();
            assert!(
                least <= measured && measured <= most,
                "{real:?} against {measured}"
            );
            let slots = f64::from(step.num_blocks - 1) * 6.0;
            assert!(least >= slots && real.wall_seconds() == least, "{real:?}");
            assert!(
                real.describe().contains("s of wall time"),
                "{}",
                real.describe()
            );
        }
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
