//! The one reader of the process's memory, Linux's figures, bytes; 0
//! where the kernel does not give them. Two peaks, for two questions:
//!
//! * [`peak_rss_bytes`] — the most resident memory the process has held
//!   since it started (`getrusage`'s `ru_maxrss`), never reset by us: a
//!   `tranche network` process's peak over its simulation (in `tranche
//!   sweep network`, over the runs so far). Linux takes it as the larger
//!   of the high-water mark of the process's memory, which [`RunPeak`]
//!   resets, and of those recorded as its threads exited.
//! * [`RunPeak`] — the most resident memory held since a run started, in
//!   a process that runs several one after another (`tranche run`'s
//!   layouts, repeats and sweeps): the high-water mark `VmHWM` of
//!   `/proc/self/status`, reset at the run's start through
//!   `/proc/self/clear_refs` (Linux 4.0 and later); where the reset is
//!   refused, the largest `VmRSS` sampled during the run instead (a peak
//!   between two samples is missed).

/// The most resident memory the process has held so far (the kernel's
/// `ru_maxrss`, its high-water mark since the process started), bytes.
pub fn peak_rss_bytes() -> u64 {
    // SAFETY: `getrusage` fills the zeroed struct it is given; a failure
    // leaves it zeroed.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut u) != 0 {
            return 0;
        }
        u
    };
    // Linux counts kibibytes.
    (usage.ru_maxrss.max(0) as u64) * 1024
}

/// A figure of `/proc/self/status` in bytes (`VmHWM:`, `VmRSS:`).
fn status_bytes(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The process's resident set size now (`VmRSS`), bytes.
pub fn rss_bytes() -> u64 {
    status_bytes("VmRSS:").unwrap_or(0)
}

/// The peak resident memory of one run, from its start (see the module's
/// comment): [`RunPeak::start`] at the run's start, [`RunPeak::sample`]
/// now and then during it, [`RunPeak::bytes`] at its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunPeak {
    /// `VmHWM` was reset at the run's start (`/proc/self/clear_refs`).
    HighWaterMark,
    /// The reset was refused: the largest `VmRSS` sampled so far.
    Sampled(u64),
}

impl RunPeak {
    /// Starts measuring a run's peak now: resets the process's `VmHWM`
    /// (`echo 5 > /proc/self/clear_refs`), so that it is the peak of the
    /// run that starts now and not of the runs before it.
    pub fn start() -> RunPeak {
        match std::fs::write("/proc/self/clear_refs", "5") {
            Ok(()) => RunPeak::HighWaterMark,
            Err(_) => RunPeak::Sampled(rss_bytes()),
        }
    }

    /// Takes a sample of `VmRSS` where the high-water mark could not be
    /// reset; nothing otherwise.
    pub fn sample(&mut self) {
        if let RunPeak::Sampled(max) = self {
            *max = (*max).max(rss_bytes());
        }
    }

    /// The peak resident set size since [`RunPeak::start`], bytes.
    pub fn bytes(&self) -> u64 {
        match *self {
            RunPeak::HighWaterMark => status_bytes("VmHWM:").unwrap_or(0),
            RunPeak::Sampled(max) => max.max(rss_bytes()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Held by each test: one test's reset of the high-water mark must
    /// not fall between another's two readings.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

    /// Memory touched and held, 64 MiB, each page written.
    fn touch() -> Vec<u8> {
        let held = vec![1u8; 64 << 20];
        assert!(held.iter().step_by(4096).all(|b| *b == 1));
        held
    }

    #[test]
    fn the_process_peak_covers_memory_touched_and_never_falls() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let before = peak_rss_bytes();
        let held = touch();
        let during = peak_rss_bytes();
        assert!(
            during >= before && during >= 64 << 20,
            "{before} -> {during}"
        );
        drop(held);
        assert!(peak_rss_bytes() >= during);
    }

    #[test]
    fn a_run_peak_covers_the_memory_the_run_touched() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let mut peak = RunPeak::start();
        let held = touch();
        peak.sample();
        let during = peak.bytes();
        assert!(during >= 64 << 20, "{during}");
        assert!(rss_bytes() >= 64 << 20);
        drop(held);
        // Freed, the memory is still in the peak (the kernel's counters
        // may settle a few pages lower than the reading while held).
        let after = peak.bytes();
        assert!(after >= 64 << 20, "{during} -> {after}");
    }

    #[test]
    fn a_sampled_peak_keeps_its_largest_sample() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let mut peak = RunPeak::Sampled(u64::MAX / 2);
        peak.sample();
        assert_eq!(peak, RunPeak::Sampled(u64::MAX / 2));
        assert_eq!(peak.bytes(), u64::MAX / 2);
        let mut peak = RunPeak::Sampled(0);
        let held = touch();
        peak.sample();
        drop(held);
        assert!(peak.bytes() >= 64 << 20, "{peak:?}");
    }
}
