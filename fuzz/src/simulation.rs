//! The properties of the fuzz targets of a several-process `tranche
//! network`'s inputs: the hostfile (`tranche_config::hostfile::parse`) and what a
//! process reads from the others (`process_wire`): the hello of the
//! rendezvous, as the listening side reads it byte by byte and judges it
//! (`Hello::read`, `rendezvous::judge`) and as the connecting side reads
//! the answer (`rendezvous::check_answer`), and the cost line process 0
//! gathers at the end (`gather::read_cost_line`). Any bytes may be
//! refused, never with a panic, and a refusal is one line without a
//! control character, of bounded length.
//!
//! Not a module of the fuzz crate's library: the fuzz targets and
//! `crates/simulation/tests/simulation/fuzz_corpus.rs` include this file
//! by `#[path]`.

#![allow(dead_code)]

use std::net::SocketAddr;
use tranche_config::hostfile::parse as parse_hostfile;
use tranche_simulation::gather::read_cost_line;
use tranche_simulation::hello::{Hello, Kind, HELLO_LEN};
use tranche_simulation::rendezvous::{check_answer, judge, Verdict};
use tranche_simulation::MAX_PROCESSES;

/// Target name and check, for the corpus replay.
pub type Target = (&'static str, fn(&[u8]) -> bool);

/// Every target of this file.
pub const TARGETS: &[Target] = &[("hostfile", hostfile), ("process_wire", process_wire)];

/// A refusal: one line, no control character, bounded.
fn one_line(line: &str) {
    assert!(
        !line.chars().any(char::is_control),
        "a control character in {line:?}"
    );
    assert!(line.len() <= 1_000, "{} bytes", line.len());
}

/// Reads `data` (if UTF-8) as a hostfile. An accepted one has 1 to 64
/// distinct `host:port` addresses, each plain text with a port of 1 to
/// 65535. Returns whether it was accepted.
pub fn hostfile(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    match parse_hostfile(text) {
        Ok(hosts) => {
            assert!((1..=MAX_PROCESSES).contains(&hosts.len()));
            for (i, h) in hosts.iter().enumerate() {
                let (host, port) = h.rsplit_once(':').expect("host:port");
                assert!(!host.is_empty(), "{h:?}");
                assert!(port.parse::<u16>().is_ok_and(|p| p > 0), "{h:?}");
                assert!(!h.chars().any(|c| c.is_control() || c.is_whitespace()));
                assert!(!hosts[..i].contains(h), "{h:?} twice");
            }
            true
        }
        Err(e) => {
            one_line(&e);
            false
        }
    }
}

/// The hello this side says: process 1 of 3, two threads.
fn mine(kind: Kind) -> Hello {
    Hello {
        kind,
        index: 1,
        processes: 3,
        threads: 2,
        fingerprint: 0x5eed,
        nonce: 7,
    }
}

/// `data`'s first byte picks what reads the rest: 0, the listening side
/// (the rest arriving a byte at a time; process 2 of `mine` already
/// taken); 1, the connecting side's answer from process 0; 2, the cost
/// line of process 1. Returns whether the bytes were accepted.
pub fn process_wire(data: &[u8]) -> bool {
    let Some((&what, rest)) = data.split_first() else {
        return false;
    };
    match what % 3 {
        0 => door(rest),
        1 => answer(rest),
        _ => cost_line(rest),
    }
}

fn door(bytes: &[u8]) -> bool {
    let mine = mine(Kind::Data);
    let first: SocketAddr = "10.0.0.2:2103".parse().unwrap();
    let taken = [None, None, Some((99, first))];
    // As the bytes come: undecided until refused or whole, then fixed.
    let mut told = None;
    for n in 0..=bytes.len().min(HELLO_LEN) {
        match Hello::read(&bytes[..n]) {
            Ok(None) => assert!(n < HELLO_LEN),
            other => {
                told = Some(other);
                break;
            }
        }
    }
    match told {
        None => false,
        Some(Err(e)) => {
            one_line(&e.to_string());
            assert_eq!(Hello::read(bytes).unwrap_err(), e, "told otherwise later");
            false
        }
        Some(Ok(theirs)) => {
            let theirs = theirs.expect("whole");
            assert_eq!(Hello::parse(&theirs.bytes()), Ok(theirs), "round trip");
            match judge(&mine, &taken, &theirs) {
                Verdict::Take => {
                    assert!(theirs.index > 1 && theirs.index < 3, "{theirs:?} taken");
                    assert_eq!(mine.mismatch(&theirs), None);
                    true
                }
                Verdict::Tell(why) | Verdict::Drop(_, why) => {
                    one_line(&why);
                    false
                }
            }
        }
    }
}

fn answer(bytes: &[u8]) -> bool {
    let Some(got) = bytes.first_chunk::<HELLO_LEN>() else {
        return false;
    };
    match check_answer(&mine(Kind::Control), 0, "10.0.0.0:2101", got) {
        Ok(()) => {
            let theirs = Hello::parse(got).expect("an accepted answer is a hello");
            assert_eq!((theirs.index, theirs.kind), (0, Kind::Control));
            true
        }
        Err(e) => {
            one_line(&e.to_string());
            false
        }
    }
}

fn cost_line(bytes: &[u8]) -> bool {
    // What `gather` reads: at most 4 096 bytes, up to a line break.
    let bytes = &bytes[..bytes.len().min(4096)];
    let end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| i + 1);
    let Ok(line) = std::str::from_utf8(&bytes[..end]) else {
        return false;
    };
    match read_cost_line(1, line) {
        Ok(c) => {
            assert_eq!(c.process, 1);
            assert!(c.cpu_s.is_finite() && c.cpu_s >= 0.0, "{c:?}");
            assert!(c.wall_s.is_finite() && c.wall_s >= 0.0, "{c:?}");
            true
        }
        Err(e) => {
            one_line(&e);
            false
        }
    }
}
