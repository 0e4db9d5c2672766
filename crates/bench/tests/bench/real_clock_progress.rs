//! A real-clock run is never silent for long (issue 60, point 11): after
//! its last block is approved it waits, up to most of a minute, for the
//! peers' last messages; without a terminal a line says so, and in a
//! terminal the bar is drawn again every second. Each test reads the
//! run's output as it comes and stops it once it has seen enough.

use crate::common::BIN;
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The small real-clock run both tests start: one block, approved in
/// its first ticks, then about 40 s of waiting.
const RUN: &str = "run --validators 40 --cores 8 --blocks 1 --clock real --architecture classic";

/// Read `child`'s stream until `done` holds for what was read, or a
/// generous deadline passes; then stop the child. What was read.
fn read_until(
    mut child: std::process::Child,
    stream: impl Read + Send + 'static,
    done: impl Fn(&str) -> bool,
) -> String {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut stream = stream;
        let mut buf = [0u8; 4096];
        while let Ok(n) = stream.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(bytes) => seen.extend(bytes),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if done(&String::from_utf8_lossy(&seen)) {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    String::from_utf8_lossy(&seen).into_owned()
}

#[test]
fn without_a_terminal_a_line_says_what_the_run_waits_for() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args(RUN.split(' '))
        .arg("--cache-dir")
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = child.stderr.take().unwrap();
    let text = read_until(child, err, |t| t.contains("waiting for the peers"));
    let lines: Vec<&str> = text.lines().collect();
    let approved = lines.iter().position(|l| l.starts_with("block 1 approved"));
    let waiting = lines.iter().position(|l| {
        l.starts_with(
            "run classic: every block approved; waiting for the peers' last messages (due by ",
        )
    });
    assert!(approved.is_some() && waiting > approved, "{text}");
}

#[test]
fn in_a_terminal_the_bar_is_drawn_again_while_the_run_waits() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` to give the run a terminal");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let command = format!("{BIN} {RUN} --cache-dir {}", dir.path().display());
    let mut child = Command::new("script")
        .args(["-qfec", &command, "/dev/null"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    // Once every block is approved nothing moves but the clock: the bar,
    // with what it waits for, is drawn again each second.
    let after = |t: &str| t.find("waiting for the peers").map(|i| t[i..].to_owned());
    let text = read_until(child, out, |t| {
        after(t).is_some_and(|rest| rest.contains("3s elapsed"))
    });
    let rest = after(&text).unwrap_or_else(|| panic!("{text}"));
    assert!(rest.contains("3s elapsed"), "{text}");
}
