//! `tranche run --profile FILE.svg`: a CPU flamegraph of the whole
//! invocation, sampled in process by `pprof` (SIGPROF, about 1 kHz, every
//! thread). Stacks are rooted at their thread's name. The kernel keeps
//! 15 bytes of a name, so both layouts' node threads read
//! `approval-voting…`: samples taken while a run went are relabelled
//! `LAYOUT: NAME` (`classic: approval-voting`,
//! `parallel/4: approval-voting`) from the run's time window
//! ([`label_window`]). Each run's driver is its own thread,
//! `env classic` / `env parallel/4`; the crypto floor runs after the run
//! on its own thread, `crypto-floor`, outside every run's window. Behind
//! the cargo feature `profile` (on by default); without it the flag is a
//! clear error.

use anyhow::Result;
use std::path::Path;
use std::sync::Mutex;
use std::time::SystemTime;

/// The runs' time windows: `(start, end, layout)`.
static WINDOWS: Mutex<Vec<(SystemTime, SystemTime, String)>> = Mutex::new(Vec::new());

/// Samples between `start` and `end` belong to the run of `layout`.
pub fn label_window(layout: &str, start: SystemTime, end: SystemTime) {
    if let Ok(mut w) = WINDOWS.lock() {
        w.push((start, end, layout.to_owned()));
    }
}

/// `name` as the profile shows a sample taken at `t`: prefixed with the
/// layout whose run window holds `t`, unless the name already says it
/// (the driver's `env LAYOUT`) or is the floor's.
pub fn label(name: &str, t: SystemTime) -> String {
    if name.starts_with("env ") || name == "crypto-floor" {
        return name.to_owned();
    }
    let windows = WINDOWS.lock().map(|w| w.clone()).unwrap_or_default();
    match windows.iter().find(|(a, b, _)| *a <= t && t <= *b) {
        Some((.., layout)) => format!("{layout}: {name}"),
        None => name.to_owned(),
    }
}

/// Samples per second.
pub const FREQUENCY: i32 = 997;

/// A running profiler; [`Profiler::finish`] writes the flamegraph.
pub struct Profiler {
    #[cfg(feature = "profile")]
    guard: pprof::ProfilerGuard<'static>,
}

impl Profiler {
    /// Start sampling every thread of the process.
    #[cfg(feature = "profile")]
    pub fn start() -> Result<Profiler> {
        use anyhow::Context;
        let guard = pprof::ProfilerGuardBuilder::default()
            .frequency(FREQUENCY)
            .blocklist(&["libc", "libgcc", "pthread", "vdso"])
            .build()
            .context("cannot start the CPU profiler")?;
        Ok(Profiler { guard })
    }

    /// Start sampling every thread of the process.
    #[cfg(not(feature = "profile"))]
    pub fn start() -> Result<Profiler> {
        anyhow::bail!(
            "--profile needs the `profile` feature: rebuild with `cargo build --release --features profile`"
        )
    }

    /// Stop and write the flamegraph SVG to `path`.
    #[cfg(feature = "profile")]
    pub fn finish(self, path: &Path) -> Result<()> {
        use anyhow::Context;
        let mut report = self
            .guard
            .report()
            .build()
            .context("cannot build the CPU profile")?;
        drop(self.guard);
        let data = std::mem::take(&mut report.data);
        for (mut frames, n) in data {
            frames.thread_name = label(&frames.thread_name_or_id(), frames.sample_timestamp);
            *report.data.entry(frames).or_insert(0) += n;
        }
        let mut svg = Vec::new();
        let mut options = pprof::flamegraph::Options::default();
        options.title = "tranche run: CPU".into();
        report
            .flamegraph_with_options(&mut svg, &mut options)
            .with_context(|| {
                format!(
                    "cannot draw the flamegraph for {}",
                    tranche_cli::text::path(path)
                )
            })?;
        tranche_cli::outputs::write_atomic(path, &svg)
    }

    /// Stop and write the flamegraph SVG to `path`.
    #[cfg(not(feature = "profile"))]
    pub fn finish(self, _path: &Path) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn samples_are_labelled_with_the_run_they_fell_in() {
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let s = Duration::from_secs(1);
        label_window("classic", t0, t0 + s);
        label_window("parallel/4", t0 + 2 * s, t0 + 3 * s);
        let at = |secs: u64| t0 + Duration::from_millis(secs);
        assert_eq!(
            label("approval-voting", at(500)),
            "classic: approval-voting"
        );
        assert_eq!(
            label("approval-voting", at(2500)),
            "parallel/4: approval-voting"
        );
        assert_eq!(label("approval-voting", at(1500)), "approval-voting");
        assert_eq!(label("env classic", at(500)), "env classic");
        assert_eq!(label("crypto-floor", at(2500)), "crypto-floor");
    }
}
