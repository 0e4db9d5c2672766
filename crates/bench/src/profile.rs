//! `tranche run --profile FILE.svg`: a CPU flamegraph of the whole
//! invocation, sampled in process by `pprof` (SIGPROF, about 1 kHz, every
//! thread; frames are grouped under the thread's name, so the node's
//! workers show up as `approval-voting-parallel-0`, … with their
//! `DistributionWorker`/`VotingWorker` frames). Behind the cargo feature
//! `profile` (on by default); without it the flag is a clear error.

use anyhow::Result;
use std::path::Path;

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
        let report = self
            .guard
            .report()
            .build()
            .context("cannot build the CPU profile")?;
        drop(self.guard);
        let mut svg = Vec::new();
        let mut options = pprof::flamegraph::Options::default();
        options.title = "tranche run: CPU".into();
        report
            .flamegraph_with_options(&mut svg, &mut options)
            .with_context(|| format!("cannot draw the flamegraph for {}", path.display()))?;
        crate::outputs::write_atomic(path, &svg)
    }

    /// Stop and write the flamegraph SVG to `path`.
    #[cfg(not(feature = "profile"))]
    pub fn finish(self, _path: &Path) -> Result<()> {
        Ok(())
    }
}
