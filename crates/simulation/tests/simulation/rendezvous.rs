//! The rendezvous of a several-process run against strangers, in one test
//! process on 127.0.0.1 (`rendezvous::connect` on threads): idle
//! connections, garbage, forged hellos and a second instance of a process
//! are dropped and the real processes still connect; a stranger's bytes
//! get nothing back, a process started otherwise gets the reason; the
//! deadline is kept whatever holds a port. Wall-time behaviour, so each
//! wait polls with a generous deadline.

use crate::common;

use common::free_port;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};
use tranche_simulation::hello::{Hello, Kind, HELLO_LEN};
use tranche_simulation::rendezvous::{connect, Streams};
use tranche_simulation::{ClusterOptions, EngineConfig, EngineError};

const PRINT: u64 = 0x5eed;

fn hosts(n: usize) -> Vec<String> {
    (0..n)
        .map(|_| format!("127.0.0.1:{}", free_port()))
        .collect()
}

fn engine(hosts: &[String], process: usize) -> EngineConfig {
    EngineConfig {
        threads: 1,
        processes: hosts.len(),
        process,
        hosts: hosts.to_vec(),
    }
}

fn within(secs: u64) -> ClusterOptions {
    ClusterOptions {
        connect_timeout: Duration::from_secs(secs),
        tell_waiting: false,
    }
}

/// `connect` of `process` on a thread of its own.
fn start(
    hosts: &[String],
    process: usize,
    secs: u64,
    print: u64,
) -> std::thread::JoinHandle<Result<Streams, EngineError>> {
    let e = engine(hosts, process);
    std::thread::spawn(move || connect(&e, &within(secs), print))
}

/// A connection to `host` once something listens there (polled).
fn dial(host: &str) -> TcpStream {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(s) = TcpStream::connect(host) {
            return s;
        }
        assert!(Instant::now() < deadline, "nobody listens on {host}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Everything `s` receives until it is closed (within a generous
/// deadline; the test fails if it stays open).
fn until_closed(mut s: TcpStream) -> Vec<u8> {
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut got = Vec::new();
    s.read_to_end(&mut got).expect("closed within 30 s");
    got
}

fn forged(index: u64, fingerprint: u64) -> [u8; HELLO_LEN] {
    Hello {
        kind: Kind::Data,
        index,
        processes: 2,
        threads: 1,
        fingerprint,
        nonce: 42,
    }
    .bytes()
}

#[test]
fn strangers_get_nothing_and_the_processes_still_connect() {
    let hosts = hosts(2);
    let zero = start(&hosts, 0, 30, PRINT);
    let idle = dial(&hosts[0]);
    let mut garbage = dial(&hosts[0]);
    garbage.write_all(&[b'x'; HELLO_LEN]).unwrap();
    let mut old = dial(&hosts[0]);
    old.write_all(b"tranche1\0\0\0\0\0\0\0\0\x01").unwrap();
    let mut beyond = dial(&hosts[0]);
    beyond.write_all(&forged(u64::MAX, PRINT)).unwrap();
    let mut other = dial(&hosts[0]);
    other.write_all(&forged(1, PRINT + 1)).unwrap();
    // Judged and dropped unanswered; the idle one after its hello
    // deadline.
    assert_eq!(until_closed(garbage), b"");
    assert_eq!(until_closed(beyond), b"");
    // The old version's hello, shorter than this one's, is told by its
    // magic (and dropped before its hello deadline: see the binary's
    // warnings in tests/bench/network_strangers.rs).
    assert_eq!(until_closed(old), b"");
    // Another network: told, so a genuine peer can say why.
    let told = until_closed(other);
    let theirs = Hello::parse(&told.try_into().expect("one hello")).unwrap();
    assert_eq!((theirs.index, theirs.fingerprint), (0, PRINT));
    let one = connect(&engine(&hosts, 1), &within(30), PRINT).expect("process 1 connects");
    let zero = zero.join().unwrap().expect("process 0 connects");
    assert!(one.data[0].is_some() && one.control[0].is_some());
    assert!(zero.data[1].is_some() && zero.control[1].is_some());
    assert_eq!(until_closed(idle), b"");
}

#[test]
fn a_second_instance_of_a_process_is_dropped() {
    let hosts = hosts(3);
    let zero = start(&hosts, 0, 8, PRINT);
    let one = start(&hosts, 1, 8, PRINT);
    // Two processes 2, each with its own nonce: both process 0 and
    // process 1 take the same one, or each takes another and the run
    // cannot start; never may both connect.
    let twins: Vec<_> = (0..2).map(|_| start(&hosts, 2, 4, PRINT)).collect();
    // Each keeps its connections until all are done, as a running
    // process would (one that closes them is forgotten, and may be
    // replaced).
    let streams: Vec<_> = twins.into_iter().map(|t| t.join().unwrap()).collect();
    let outcomes: Vec<bool> = streams.iter().map(Result::is_ok).collect();
    let (zero, one) = (zero.join().unwrap(), one.join().unwrap());
    assert!(
        outcomes.iter().filter(|&&ok| ok).count() <= 1,
        "both twins connected"
    );
    if outcomes.contains(&true) {
        assert!(zero.is_ok() && one.is_ok());
    }
}

#[test]
fn a_twin_of_process_1_is_dropped_and_the_other_connects() {
    let hosts = hosts(2);
    let zero = start(&hosts, 0, 30, PRINT);
    let twins: Vec<_> = (0..2).map(|_| start(&hosts, 1, 3, PRINT)).collect();
    let zero = zero.join().unwrap();
    let outcomes: Vec<Result<Streams, EngineError>> =
        twins.into_iter().map(|t| t.join().unwrap()).collect();
    let streams = zero.expect("process 0 connects");
    assert!(streams.data[1].is_some() && streams.control[1].is_some());
    let ok = outcomes.iter().filter(|o| o.is_ok()).count();
    assert_eq!(ok, 1, "exactly one process 1 is taken");
    let lost = outcomes.into_iter().find_map(Result::err).unwrap();
    assert_eq!(
        lost.to_string(),
        format!("process 0 ({}) did not connect within 3 s", hosts[0])
    );
}

#[test]
fn with_only_strangers_process_0_names_the_missing_process_in_time() {
    let hosts = hosts(2);
    let started = Instant::now();
    let zero = start(&hosts, 0, 2, PRINT);
    let mut held = vec![dial(&hosts[0])];
    let mut forged_one = dial(&hosts[0]);
    forged_one.write_all(&forged(1, PRINT + 1)).unwrap();
    while !zero.is_finished() {
        held.extend(TcpStream::connect(&hosts[0]).ok());
        std::thread::sleep(Duration::from_millis(100));
        assert!(started.elapsed() < Duration::from_secs(30));
    }
    let took = started.elapsed();
    let e = zero.join().unwrap().err().expect("no process 1");
    assert_eq!(
        e.to_string(),
        format!("process 1 ({}) did not connect within 2 s", hosts[1])
    );
    assert!(took < Duration::from_secs(3), "took {took:?}");
}

#[test]
fn a_silent_program_on_a_peer_s_port_does_not_stretch_the_deadline() {
    let hosts = hosts(2);
    let silent = std::net::TcpListener::bind(&hosts[0]).unwrap();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let over = done.clone();
    let keep = std::thread::spawn(move || {
        // Accept and hold every connection, saying nothing.
        let mut held = Vec::new();
        silent.set_nonblocking(true).unwrap();
        while !over.load(std::sync::atomic::Ordering::Relaxed) {
            if let Ok((s, _)) = silent.accept() {
                held.push(s);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        held.len()
    });
    let started = Instant::now();
    let e = connect(&engine(&hosts, 1), &within(1), PRINT)
        .err()
        .unwrap();
    let took = started.elapsed();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    assert_eq!(
        e.to_string(),
        format!("process 0 ({}) did not connect within 1 s", hosts[0])
    );
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert!(
        keep.join().unwrap() >= 1,
        "it did connect to the silent one"
    );
}

#[test]
fn a_process_started_otherwise_fails_at_once_with_the_reason() {
    let hosts = hosts(2);
    let zero = start(&hosts, 0, 3, PRINT);
    let started = Instant::now();
    let e = connect(&engine(&hosts, 1), &within(30), PRINT + 1)
        .err()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(
        e,
        EngineError::Mismatch {
            process: 0,
            address: hosts[0].clone(),
            what: "simulates another network (the file, an override, --seed, --verify or \
                   --costs differ)"
                .to_owned(),
        }
    );
    // Process 0 told it and went on waiting for a good process 1.
    let e = zero.join().unwrap().err().unwrap();
    assert_eq!(
        e.to_string(),
        format!("process 1 ({}) did not connect within 3 s", hosts[1])
    );
}
