//! `tranche network --processes 2` among strangers on 127.0.0.1: idle
//! connections opened every 0.5 s, forged hellos, garbage and a second
//! `--process 1` do not stop the run, whose records are a one-process
//! run's; with only strangers, process 0 gives up within
//! `--connect-timeout` + 1 s naming process 1; a peer started with
//! another seed is told why. Wall-time behaviour: every wait polls with a
//! generous deadline.

use crate::network_processes::{drain, lines_of, wait_for, Setup};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A rendezvous hello (docs/network.md: `tranche2`, the kind, then the
/// index, processes, threads, fingerprint and nonce as big-endian words)
/// claiming process `index` of a network nobody runs.
fn forged(index: u64) -> Vec<u8> {
    let mut b = b"tranche2\0".to_vec();
    for w in [index, 2, 1, 0x0bad_f00d, 7] {
        b.extend_from_slice(&u64::to_be_bytes(w));
    }
    b
}

/// Strangers at `host` until stopped: an idle connection every 0.5 s
/// (all kept open), and at the start a forged hello claiming process 1,
/// one claiming process 2^64 - 1, garbage and a hello of the first
/// version (41 bytes). Their local addresses, by
/// kind, as they connect.
struct Strangers {
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Vec<(&'static str, String)>>>,
    thread: Option<std::thread::JoinHandle<Vec<TcpStream>>>,
}

impl Strangers {
    fn start(host: &str) -> Strangers {
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (host, halt, log) = (host.to_owned(), stop.clone(), seen.clone());
        let thread = std::thread::spawn(move || {
            let mut held = Vec::new();
            let mut first = true;
            while !halt.load(Ordering::Relaxed) {
                let mut sent: Vec<(&'static str, Vec<u8>)> = vec![("idle", Vec::new())];
                if first {
                    sent.push(("forged", forged(1)));
                    sent.push(("beyond", forged(u64::MAX)));
                    sent.push(("garbage", vec![b'?'; 49]));
                    // The 41 bytes: a hello of the first version.
                    let mut old = b"tranche1\0".to_vec();
                    for w in [1u64, 2, 1, 12345] {
                        old.extend_from_slice(&w.to_be_bytes());
                    }
                    sent.push(("old", old));
                }
                for (kind, bytes) in sent {
                    let Ok(mut s) = TcpStream::connect(&host) else {
                        continue;
                    };
                    first = false;
                    let _ = s.write_all(&bytes);
                    let me = s.local_addr().unwrap().to_string();
                    log.lock().unwrap().push((kind, me));
                    held.push(s);
                }
                std::thread::sleep(Duration::from_millis(500));
            }
            held
        });
        Strangers {
            stop,
            seen,
            thread: Some(thread),
        }
    }

    /// The addresses of the strangers of `kind` so far.
    fn of(&self, kind: &str) -> Vec<String> {
        let seen = self.seen.lock().unwrap();
        seen.iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, a)| a.clone())
            .collect()
    }

    /// Wait (polled, 30 s at most) until `n` idle connections are open.
    fn wait_idle(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.of("idle").len() < n {
            assert!(Instant::now() < deadline, "no strangers got in");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stop, and the connections held.
    fn stop(mut self) -> Vec<TcpStream> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap()
    }
}

/// What `s` received before it was closed (nothing sent, for a
/// stranger's garbage), within a generous deadline.
fn received(mut s: &TcpStream) -> Vec<u8> {
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut got = Vec::new();
    let _ = s.read_to_end(&mut got);
    got
}

fn stderr_of(c: std::process::Child) -> String {
    String::from_utf8(c.wait_with_output().unwrap().stderr).unwrap()
}

#[test]
fn strangers_and_a_second_process_1_do_not_stop_the_run() {
    let s = Setup::new("strangers", 2);
    let (two, one) = (s.dir.join("two.json"), s.dir.join("one.json"));
    let alone = Command::new(crate::common::BIN)
        .arg("network")
        .arg(&s.file)
        .args(["--quiet", "--json", one.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(alone.status.success());
    let mut zero = s.start(0, &["--json", two.to_str().unwrap()]);
    let strangers = Strangers::start(&s.hosts[0]);
    strangers.wait_idle(2);
    // The real process 1 and a twin, side by side.
    let twins: Vec<_> = (0..2)
        .map(|_| s.start(1, &["--connect-timeout", "8"]))
        .collect();
    let limit = Duration::from_secs(120);
    let status = wait_for(&mut zero, limit).expect("process 0 finishes");
    let err = stderr_of(zero);
    assert!(status.success(), "{err}");
    let mut outcomes = Vec::new();
    for mut t in twins {
        let st = wait_for(&mut t, limit).expect("each process 1 ends");
        outcomes.push((st.success(), stderr_of(t)));
    }
    let held = strangers.stop();
    assert_eq!(
        outcomes.iter().filter(|o| o.0).count(),
        1,
        "one process 1 ran: {outcomes:?}"
    );
    let (_, lost) = outcomes.iter().find(|o| !o.0).unwrap();
    assert_eq!(
        lost.lines().last().unwrap(),
        format!(
            "error: process 0 ({}) did not connect within 8 s",
            s.hosts[0]
        ),
        "{lost}"
    );
    // The records are a one-process run's.
    let json = |p: &std::path::Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let (two, one) = (json(&two), json(&one));
    assert_eq!(two["cost"]["processes"], 2);
    assert_eq!(two["validators"], one["validators"]);
    assert_eq!(two["blocks"], one["blocks"]);
    // Each stranger was named by its address and dropped; none was
    // blamed for anything.
    assert!(!err.contains("error:"), "{err}");
    for kind in ["forged", "beyond", "garbage", "old"] {
        let from = &strangers_addr(&held, kind, &err);
        assert!(
            err.contains(&format!("dropped a connection from {from}")),
            "{kind} {from}: {err}"
        );
    }
}

/// The address of the held stranger connection whose kind it was, found
/// by what process 0 said about it.
fn strangers_addr(held: &[TcpStream], kind: &str, err: &str) -> String {
    let why = match kind {
        "forged" => "claims to be process 1 and simulates another network",
        "beyond" => "claims to be process 18446744073709551615 of 2 processes",
        "old" => "a hello of another tranche version (tranche1)",
        _ => "not a tranche hello",
    };
    let line = err
        .lines()
        .find(|l| l.contains(why))
        .unwrap_or_else(|| panic!("nothing about the {kind} hello: {err}"));
    held.iter()
        .map(|h| h.local_addr().unwrap().to_string())
        .find(|a| line.contains(&format!("from {a}:")))
        .unwrap_or_else(|| panic!("`{line}` names no stranger"))
}

#[test]
fn with_only_strangers_process_0_fails_in_time_naming_process_1() {
    let s = Setup::new("only-strangers", 1);
    let started = Instant::now();
    let mut zero = s.start(0, &["--connect-timeout", "2"]);
    let rx = lines_of(&mut zero);
    let strangers = Strangers::start(&s.hosts[0]);
    let status = wait_for(&mut zero, Duration::from_secs(60)).expect("process 0 gives up");
    let took = started.elapsed();
    let lines = drain(&rx, Duration::from_secs(10));
    let seen = strangers.of("beyond");
    let held = strangers.stop();
    let err = lines.join("\n");
    assert!(!status.success(), "{err}");
    assert!(took < Duration::from_secs(3), "took {took:?}: {err}");
    assert_eq!(
        lines.last().unwrap(),
        &format!(
            "error: process 1 ({}) did not connect within 2 s",
            s.hosts[1]
        )
    );
    assert_eq!(lines.iter().filter(|l| l.starts_with("error:")).count(), 1);
    // Each judged at once (the old version's 41 bytes by its magic, not
    // after its hello deadline, which is the run's here), and named.
    let old = strangers_addr(&held, "old", &err);
    assert!(err.contains(&format!("from {old}: ")), "{err}");
    // A stranger's bytes got nothing back.
    let beyond = held
        .iter()
        .find(|h| seen.contains(&h.local_addr().unwrap().to_string()))
        .expect("the out-of-range hello got in");
    assert_eq!(received(beyond), b"");
}

#[test]
fn a_peer_started_with_another_seed_is_told_why() {
    let s = Setup::new("other-seed", 1);
    let mut zero = s.start(0, &["--connect-timeout", "3"]);
    let mut one = s.start(1, &["--seed", "9"]);
    let limit = Duration::from_secs(60);
    let os = wait_for(&mut one, limit).expect("process 1 stops");
    let zs = wait_for(&mut zero, limit).expect("process 0 gives up");
    let (e0, e1) = (stderr_of(zero), stderr_of(one));
    assert!(!os.success() && !zs.success());
    assert_eq!(
        e1.lines().last().unwrap(),
        format!(
            "error: process 0 ({}) simulates another network (the file, an override, --seed, \
             --verify or --costs differ)",
            s.hosts[0]
        ),
        "{e1}"
    );
    assert!(
        e0.contains("claims to be process 1 and simulates another network"),
        "{e0}"
    );
    assert_eq!(
        e0.lines().last().unwrap(),
        format!(
            "error: process 1 ({}) did not connect within 3 s",
            s.hosts[1]
        )
    );
}
