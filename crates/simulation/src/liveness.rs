//! What a process does when another one goes away mid-run: one line on
//! stderr naming it, and exit status 1 — not timely's panics.
//!
//! Timely tells a clean end from a death exactly: each process ends
//! every connection with an empty message, and a receive thread that
//! meets the end of a stream (or a read or write error) before that
//! panics with "timely communication error: ..." in the thread
//! `timely:recv-J` or `timely:send-J`, J the other process. The workers
//! would then wait forever for progress from J, or cascade into "Worker
//! panic" and "MergeQueue poisoned". So while a several-process run is
//! watched, a panic hook turns the first such panic into
//! `error: process J (host:port) went away (reading data: socket
//! closed)` and ends the process; panics of other threads that follow it
//! are silenced. Any other panic goes to the hook that was there before.

use std::panic::PanicHookInfo;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once};

/// The addresses of the processes of the runs being watched (a count,
/// for the tests that run two processes in one), or none.
static WATCHED: Mutex<(usize, Vec<String>)> = Mutex::new((0, Vec::new()));
static TOLD: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

/// While alive, a lost connection ends this process with one line.
pub struct Watch(());

impl Drop for Watch {
    fn drop(&mut self) {
        let mut w = WATCHED.lock().unwrap_or_else(|p| p.into_inner());
        w.0 -= 1;
        if w.0 == 0 {
            w.1.clear();
        }
    }
}

/// Watch the connections of a run between `hosts`.
pub fn watch(hosts: &[String]) -> Watch {
    HOOK.call_once(|| {
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if let Some(line) = lost_line(info) {
                if !TOLD.swap(true, Ordering::SeqCst) {
                    eprintln!("error: {line}");
                    std::process::exit(1);
                }
            }
            if TOLD.load(Ordering::SeqCst) && watching() {
                // The process is exiting with its one line: nothing more.
                loop {
                    std::thread::park();
                }
            }
            before(info)
        }));
    });
    let mut w = WATCHED.lock().unwrap_or_else(|p| p.into_inner());
    w.0 += 1;
    w.1 = hosts.to_vec();
    Watch(())
}

fn watching() -> bool {
    WATCHED.lock().map(|w| w.0 > 0).unwrap_or(false)
}

/// The line for a panic of timely's connection to another process, if
/// this is one and a run is watched.
fn lost_line(info: &PanicHookInfo<'_>) -> Option<String> {
    let payload = info.payload();
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())?;
    let thread = std::thread::current();
    let name = thread.name()?;
    let hosts = WATCHED.lock().ok()?.1.clone();
    describe(name, message, &hosts)
}

/// `process J (host:port) went away (cause)` for timely's thread `name`
/// panicking with `message`.
fn describe(name: &str, message: &str, hosts: &[String]) -> Option<String> {
    let cause = message.strip_prefix("timely communication error: ")?;
    let j: usize = name
        .strip_prefix("timely:recv-")
        .or_else(|| name.strip_prefix("timely:send-"))?
        .parse()
        .ok()?;
    let address = hosts.get(j)?;
    Some(format!("process {j} ({address}) went away ({cause})"))
}

#[cfg(test)]
mod tests {
    use super::describe;

    #[test]
    fn timely_connection_panics_name_the_process() {
        let hosts = vec!["10.0.0.1:2101".to_owned(), "10.0.0.2:2102".to_owned()];
        assert_eq!(
            describe(
                "timely:recv-1",
                "timely communication error: reading data: socket closed",
                &hosts
            )
            .as_deref(),
            Some("process 1 (10.0.0.2:2102) went away (reading data: socket closed)")
        );
        assert!(describe(
            "timely:send-0",
            "timely communication error: writing data: Broken pipe",
            &hosts
        )
        .unwrap()
        .starts_with("process 0 (10.0.0.1:2101) went away"));
        // Other panics, other threads, unknown processes: not ours.
        assert_eq!(
            describe("timely:recv-1", "index out of bounds", &hosts),
            None
        );
        assert_eq!(
            describe("main", "timely communication error: x", &hosts),
            None
        );
        assert_eq!(
            describe("timely:recv-5", "timely communication error: x", &hosts),
            None
        );
    }
}
