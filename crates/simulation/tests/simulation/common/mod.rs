//! What the simulation's tests share: a two-process cluster on
//! 127.0.0.1.

#![allow(dead_code)]

use tranche_report::network::SimulationReport;
use tranche_simulation::{simulate, EngineConfig, NetworkSpec, Verify};

/// A port nobody listens on now.
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Runs `spec` on two timely processes over TCP (process 1 on a thread of
/// its own) and returns process 0's report; process 1 must report nothing.
pub fn two_processes(spec: &NetworkSpec, seed: u64, verify: Verify) -> SimulationReport {
    let hosts: Vec<String> = (0..2)
        .map(|_| format!("127.0.0.1:{}", free_port()))
        .collect();
    let cluster = |process: usize| EngineConfig {
        threads: 1,
        processes: 2,
        process,
        hosts: hosts.clone(),
    };
    let (c0, c1) = (cluster(0), cluster(1));
    let theirs = spec.clone();
    let other =
        std::thread::spawn(move || simulate(&theirs, seed, verify, &c1, None).map(|r| r.is_none()));
    let first = simulate(spec, seed, verify, &c0, None)
        .unwrap()
        .expect("process 0 reports");
    assert!(other.join().unwrap().unwrap(), "process 1 prints nothing");
    SimulationReport::of_run("test", spec, seed, first)
}
