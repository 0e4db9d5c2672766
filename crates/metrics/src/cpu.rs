//! CPU time of the calling thread and of the whole process, from the
//! kernel's per-thread and per-process CPU clocks; and the process's peak
//! memory, from its resource usage.

use std::time::Duration;

fn clock(id: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock ids used here
    // exist on every Linux kernel this runs on.
    let rc = unsafe { libc::clock_gettime(id, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// CPU time consumed so far by the calling thread.
pub fn thread_cpu_time() -> Duration {
    clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// CPU time consumed so far by every thread of the process.
pub fn process_cpu_time() -> Duration {
    clock(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// The most resident memory the process has held so far (the kernel's
/// `ru_maxrss`, its high-water mark), bytes; 0 where it cannot be read.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peak_covers_memory_touched_and_never_falls() {
        let before = peak_rss_bytes();
        let held = vec![1u8; 64 << 20];
        let during = peak_rss_bytes();
        assert!(held.iter().step_by(4096).all(|b| *b == 1));
        assert!(
            during >= before && during >= 64 << 20,
            "{before} -> {during}"
        );
        drop(held);
        assert!(peak_rss_bytes() >= during);
    }

    #[test]
    fn busy_work_shows_up_in_thread_and_process_time() {
        let t0 = thread_cpu_time();
        let p0 = process_cpu_time();
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        let t = thread_cpu_time() - t0;
        assert!(t > Duration::from_millis(1), "{t:?}");
        assert!(process_cpu_time() - p0 >= t);
    }
}
