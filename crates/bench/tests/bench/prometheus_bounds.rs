//! Issue 43: the `--prometheus` endpoint under descriptor pressure. With
//! `ulimit -n 128` and 240 idle connections held open against it, a real
//! scrape is still answered and the process does not spin (the old accept
//! loop retried `EMFILE` at once: 2 CPU-s every 2 s, scrapes timed out).
//! Only on 127.0.0.1.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// User plus system CPU seconds of process `pid` (`/proc/PID/stat`).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name's closing parenthesis: utime is the
    // 12th, stime the 13th.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: f64 = f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap();
    // USER_HZ: 100 on every Linux this runs on (`getconf CLK_TCK`).
    ticks / 100.0
}

fn scrape(addr: &str) -> Option<String> {
    let mut s = TcpStream::connect_timeout(&addr.parse().ok()?, Duration::from_secs(5)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    out.starts_with("HTTP/1.1 200 OK").then_some(out)
}

struct Reap(std::process::Child);

impl Drop for Reap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_scrape_is_answered_and_nothing_spins_with_240_idle_connections_under_128_descriptors() {
    let cache = tempfile::tempdir().unwrap();
    let mut child = Reap(
        Command::new("sh")
            .args(["-c", "ulimit -n 128 && exec \"$0\" \"$@\""])
            .arg(env!("CARGO_BIN_EXE_tranche"))
            .args(["run", "--clock", "virtual", "--quiet"])
            .args(["--validators", "40", "--cores", "8", "--blocks", "1"])
            .arg("--cache-dir")
            .arg(cache.path())
            .args(["--prometheus", "127.0.0.1:0", "--prometheus-hold", "120"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let pid = child.0.id();
    let stderr = child.0.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let addr = loop {
        let line = rx
            .recv_timeout(Duration::from_secs(120))
            .expect("the address bound is printed");
        if let Some(rest) = line.strip_prefix("prometheus: serving http://") {
            break rest.trim_end_matches("/metrics").to_owned();
        }
    };
    let limit = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    assert!(
        limit
            .lines()
            .any(|l| l.starts_with("Max open files") && l.contains(" 128 ")),
        "{limit}"
    );
    let mut idle = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while idle.len() < 240 {
        assert!(Instant::now() < deadline, "only {} connected", idle.len());
        if let Ok(s) = TcpStream::connect_timeout(&addr.parse().unwrap(), Duration::from_secs(5)) {
            idle.push(s);
        }
    }
    let before = cpu_seconds(pid);
    let start = Instant::now();
    let mut answered = false;
    let deadline = Instant::now() + Duration::from_secs(60);
    while !answered {
        assert!(Instant::now() < deadline, "no scrape answered");
        answered = scrape(&addr).is_some_and(|body| body.contains("tranche_run_info"));
    }
    // The CPU over a window of at least 2 s while the idle connections
    // are held: the rate needs wall time to pass.
    while start.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let used = cpu_seconds(pid) - before;
    let rate = used / start.elapsed().as_secs_f64();
    assert!(
        rate < 0.25,
        "{used:.2} CPU-s in {:?} with idle connections held",
        start.elapsed()
    );
    drop(idle);
}
