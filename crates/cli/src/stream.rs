//! stdout and stderr of every command, one rule for all of them:
//!
//! - **stdout closed** (`tranche run | head -2`): the command stops at
//!   its next write, prints nothing more and exits with status 141
//!   ([`EXIT_CLOSED`]), what a shell reports for a Unix tool ended by
//!   SIGPIPE (128 + 13). Rust ignores SIGPIPE, so the write fails with
//!   `EPIPE` instead of ending the process; [`out`] turns that into an
//!   error the command returns.
//! - **stdout fails otherwise** (`> /dev/full`): the command stops and
//!   prints one line, `error: cannot write to stdout: No space left on
//!   device (os error 28)`; status 74 ([`EXIT_WRITE`], `EX_IOERR` of
//!   sysexits.h): a status of its own, never one a command gives a verdict
//!   with (`compare`'s 1 is a regression, `scenario`'s a difference).
//! - **stderr fails** (`2> /dev/full`, a closed pipe): progress, notes and
//!   warnings cannot be shown; the command does its work without them and
//!   ends with status 74 (141 for a closed pipe), as GNU tools that check
//!   their streams at exit end with a failure. An error line it could not
//!   write is lost with the stream.
//!
//! Never a panic or a backtrace: every write of the commands goes through
//! [`out`] and [`err_line`] (or [`errln!`](crate::errln)), which remember
//! the first failure for `main` to read ([`failure`]). Code that still
//! uses `print!` (the conformance and scenario commands) is covered by
//! [`install_panic_net`].

use std::io::{self, Write};
use std::sync::OnceLock;

/// Exit status of a command whose stdout (or stderr) was closed.
pub const EXIT_CLOSED: u8 = 141;

/// Exit status of a command whose stdout (or stderr) could not be written
/// otherwise (a full disk, an I/O error): `EX_IOERR` of sysexits.h, apart
/// from every verdict a command gives (1, 2, 3).
pub const EXIT_WRITE: u8 = 74;

/// A write to stdout or stderr that failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// The reader went away (`EPIPE`).
    #[error("{stream} was closed")]
    Closed { stream: &'static str },
    /// Any other failure (a full disk, an I/O error).
    #[error("cannot write to {stream}: {message}")]
    Failed {
        stream: &'static str,
        message: String,
    },
}

impl StreamError {
    fn of(stream: &'static str, e: &io::Error) -> StreamError {
        if e.kind() == io::ErrorKind::BrokenPipe {
            StreamError::Closed { stream }
        } else {
            StreamError::Failed {
                stream,
                message: e.to_string(),
            }
        }
    }

    /// The exit status the failure gives.
    pub fn exit_status(&self) -> u8 {
        match self {
            StreamError::Closed { .. } => EXIT_CLOSED,
            StreamError::Failed { .. } => EXIT_WRITE,
        }
    }
}

/// The first stream failure of this process.
static FAILURE: OnceLock<StreamError> = OnceLock::new();

fn record(e: StreamError) -> StreamError {
    let _ = FAILURE.set(e.clone());
    e
}

/// The first write to stdout or stderr that failed, if any.
pub fn failure() -> Option<&'static StreamError> {
    FAILURE.get()
}

/// Write `text` to stdout and flush it. A failure is remembered
/// ([`failure`]) and returned: the command stops.
pub fn out(text: &str) -> Result<(), StreamError> {
    if let Some(StreamError::Closed { stream: "stdout" }) = failure() {
        return Err(StreamError::Closed { stream: "stdout" });
    }
    let mut o = io::stdout().lock();
    o.write_all(text.as_bytes())
        .and_then(|()| o.flush())
        .map_err(|e| record(StreamError::of("stdout", &e)))
}

/// Write `line` and a newline to stderr. A failure is remembered
/// ([`failure`]); the command goes on without its stderr.
pub fn err_line(line: &str) {
    if matches!(
        failure(),
        Some(
            StreamError::Closed { stream: "stderr" }
                | StreamError::Failed {
                    stream: "stderr",
                    ..
                }
        )
    ) {
        return;
    }
    let mut e = io::stderr().lock();
    let written = e
        .write_all(line.as_bytes())
        .and_then(|()| e.write_all(b"\n"))
        .and_then(|()| e.flush());
    if let Err(err) = written {
        record(StreamError::of("stderr", &err));
    }
}

/// `eprintln!` that never panics: [`err_line`] of the formatted line.
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::stream::err_line(&format!($($arg)*))
    };
}

/// The status a command ends with, given the one it would give: a stream
/// failure wins (141 for a closed stream, [`EXIT_WRITE`] otherwise), and a failed
/// stdout's error line is printed here, once.
pub fn exit_status(status: u8) -> u8 {
    match failure() {
        None => status,
        Some(
            f @ StreamError::Failed {
                stream: "stdout", ..
            },
        ) => {
            err_line(&format!("error: {f}"));
            EXIT_WRITE
        }
        Some(f) => f.exit_status(),
    }
}

/// A panic hook in front of the default one: a panic of `print!` or
/// `eprint!` on a failed stream (their message is "failed printing to
/// stdout: …") ends the process with the status [`exit_status`] gives,
/// without the panic's message; any other panic is left to the hook
/// installed before.
pub fn install_panic_net() {
    let before = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        for stream in ["stdout", "stderr"] {
            if let Some(rest) = message.strip_prefix(&format!("failed printing to {stream}: ")) {
                let error = if rest.starts_with("Broken pipe") {
                    StreamError::Closed { stream }
                } else {
                    StreamError::Failed {
                        stream,
                        message: rest.to_owned(),
                    }
                };
                record(error);
                std::process::exit(i32::from(exit_status(1)));
            }
        }
        before(info)
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_pipe_and_a_full_disk_are_told_apart() {
        let pipe = io::Error::from(io::ErrorKind::BrokenPipe);
        assert_eq!(
            StreamError::of("stdout", &pipe),
            StreamError::Closed { stream: "stdout" }
        );
        assert_eq!(StreamError::of("stdout", &pipe).exit_status(), 141);
        let full = io::Error::from_raw_os_error(28);
        let e = StreamError::of("stdout", &full);
        assert_eq!(e.exit_status(), EXIT_WRITE);
        assert!(
            e.to_string()
                .starts_with("cannot write to stdout: No space left on device"),
            "{e}"
        );
    }
}
