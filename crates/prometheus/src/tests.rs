//! Tests of the `/metrics` endpoint: slow clients, every run's series,
//! the run in progress and a finished run's floor, upstream's CPU histogram,
//! paths and methods.

use super::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};
use tranche_metrics::NodeMetrics;

/// One request on a connection of its own, and the whole answer (read
/// until the endpoint closes, at most 10 s).
fn ask(addr: std::net::SocketAddr, request: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

#[test]
fn idle_and_slow_clients_do_not_delay_another_scraper() {
    let ex = Exporter::start("127.0.0.1:0").unwrap();
    let addr = ex.addr();
    // Ten clients connected and silent, one with half a request, four
    // that asked and never read: a one-at-a-time server with a 5 s read
    // timeout would keep the next scraper waiting for over 50 s.
    let idle: Vec<TcpStream> = (0..10).map(|_| TcpStream::connect(addr).unwrap()).collect();
    let mut half = TcpStream::connect(addr).unwrap();
    half.write_all(b"GET /metr").unwrap();
    let unread: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut s = TcpStream::connect(addr).unwrap();
            s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
                .unwrap();
            s
        })
        .collect();
    let start = Instant::now();
    let out = ask(
        addr,
        "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    assert!(out.contains("metrics at /metrics"), "{out}");
    assert!(start.elapsed() < Duration::from_secs(10));
    drop((idle, half, unread));
}

/// Issue 43: at the connection limit, the connection silent longest gives
/// way to a new one at once, so a scraper behind many idle connections is
/// answered without waiting for their deadline.
#[test]
fn at_the_limit_idle_connections_give_way_to_a_scraper() {
    let ex = Exporter::start_with_limit("127.0.0.1:0", 4).unwrap();
    let addr = ex.addr();
    let idle: Vec<TcpStream> = (0..60).map(|_| TcpStream::connect(addr).unwrap()).collect();
    let start = Instant::now();
    let out = ask(
        addr,
        "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    // Well under the 2 s an idle connection may otherwise stay.
    assert!(start.elapsed() < IDLE_DEADLINE / 2, "{:?}", start.elapsed());
    drop(idle);
    assert!((4..=64).contains(&connection_limit()));
}

fn live(architecture: &str, threads: &[&str]) -> Arc<LiveRun> {
    let node = NodeMetrics {
        workers: threads
            .iter()
            .map(|t| tranche_metrics::WorkerStats::new(*t))
            .collect(),
        ..Default::default()
    };
    LiveRun::new(
        "ci/guard.yaml #1 ApprovalVoting",
        architecture,
        "virtual",
        60,
        12,
        node,
    )
}

#[test]
fn every_layouts_final_series_stay_and_each_family_appears_once() {
    let ex = Exporter::start("127.0.0.1:0").unwrap();
    ex.set_run(live(
        "classic",
        &["approval-voting", "approval-distribution"],
    ));
    ex.set_run(live("parallel/4", &["approval-voting-parallel-0"]));
    let body = ex.render();
    for arch in ["classic", "parallel/4"] {
        let label = format!("architecture=\"{arch}\"");
        assert!(
            body.lines()
                .any(|l| l.starts_with("tranche_run_seconds{") && l.contains(&label)),
            "{arch} in\n{body}"
        );
    }
    for l in body.lines().filter(|l| l.starts_with("# TYPE ")) {
        assert_eq!(body.matches(&format!("{l}\n")).count(), 1, "{l} twice");
    }
    assert_eq!(body.matches("# EOF").count(), 1);
    assert!(body.trim_end().ends_with("# EOF"));
    // A repeat of the same layout replaces its earlier run.
    ex.set_run(live("classic", &["approval-voting"]));
    let body = ex.render();
    let classic_runs = body
        .lines()
        .filter(|l| l.starts_with("tranche_run_seconds{") && l.contains("\"classic\""))
        .count();
    assert_eq!(classic_runs, 1, "{body}");
}

/// The value of the series of `name` whose labels contain `labels`.
fn value(body: &str, name: &str, labels: &[&str]) -> Option<f64> {
    body.lines()
        .filter(|l| l.starts_with(&format!("{name}{{")))
        .find(|l| labels.iter().all(|x| l.contains(x)))
        .and_then(|l| l.rsplit_once(' ')?.1.parse().ok())
}

#[test]
fn run_info_is_one_for_the_run_in_progress_only_and_a_finished_run_has_its_floor() {
    let ex = Exporter::start("127.0.0.1:0").unwrap();
    let classic = live("classic", &["approval-voting"]);
    ex.set_run(classic.clone());
    let info = |body: &str, arch: &str| {
        value(
            body,
            "tranche_run_info",
            &[&format!("architecture=\"{arch}\"")],
        )
    };
    let body = ex.render();
    assert_eq!(info(&body, "classic"), Some(1.0), "{body}");
    assert!(!body.contains("tranche_node_floor_ratio"), "no floor yet");
    // The classic run ends with its floor; the parallel one starts.
    let mut report = tranche_results::fixture::run();
    report.name = classic.step.clone();
    report.architecture = "classic".into();
    report.workers = 1;
    report.crypto_floor.per_block_s = 0.02;
    report.crypto_floor.batched_per_block_s = 0.015;
    report.crypto_floor.node_ratio = 2.5;
    report.crypto_floor.node_ratio_batched = 3.25;
    ex.finish_run(&report);
    ex.set_run(live("parallel/4", &["approval-voting-parallel-0"]));
    let body = ex.render();
    assert_eq!(info(&body, "classic"), Some(0.0), "{body}");
    assert_eq!(info(&body, "parallel/4"), Some(1.0), "{body}");
    let floor = |s: &str| {
        value(
            &body,
            "tranche_crypto_floor_seconds_per_block",
            &["architecture=\"classic\"", &format!("signatures=\"{s}\"")],
        )
    };
    assert_eq!(
        (floor("one-by-one"), floor("batched")),
        (Some(0.02), Some(0.015))
    );
    assert_eq!(
        value(
            &body,
            "tranche_node_floor_ratio",
            &["architecture=\"classic\"", "signatures=\"one-by-one\""]
        ),
        Some(2.5),
        "classic is judged by the one-by-one floor\n{body}"
    );
    assert!(
        !body
            .lines()
            .any(|l| l.starts_with("tranche_node_floor_ratio{") && l.contains("parallel/4")),
        "the parallel run has not ended"
    );
    // Issue 41: a run without a floor (`--floor off`) serves none, not 0.
    let mut off = report.clone();
    off.crypto_floor.mode = "off".into();
    ex.set_run(live("classic", &["approval-voting"]));
    ex.finish_run(&off);
    let body = ex.render();
    assert!(
        !body
            .lines()
            .any(|l| (l.starts_with("tranche_node_floor_ratio{")
                || l.starts_with("tranche_crypto_floor_seconds_per_block{"))
                && l.contains("\"classic\"")),
        "{body}"
    );
}

#[test]
fn cpu_is_served_as_upstreams_tasks_polling_duration() {
    let ex = Exporter::start("127.0.0.1:0").unwrap();
    ex.set_run(live(
        "classic",
        &["approval-voting", "approval-distribution"],
    ));
    let body = ex.render();
    assert!(
        body.contains("# TYPE substrate_tasks_polling_duration histogram"),
        "{body}"
    );
    let sums: Vec<&str> = body
        .lines()
        .filter(|l| l.starts_with("substrate_tasks_polling_duration_sum{"))
        .collect();
    assert_eq!(sums.len(), 2, "{body}");
    assert!(sums
        .iter()
        .any(|l| l.contains("task_name=\"approval-voting\"")
            && l.contains("task_group=\"approval-voting\"")
            && l.contains("kind=\"blocking\"")));
}

#[test]
fn unknown_paths_and_methods_get_their_status() {
    let ex = Exporter::start("127.0.0.1:0").unwrap();
    let ask = |req: &str| ask(ex.addr(), req);
    let r = ask("GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert!(r.starts_with("HTTP/1.1 404"), "{r}");
    let r =
        ask("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    assert!(r.starts_with("HTTP/1.1 405"), "{r}");
    let r = ask("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert!(r.starts_with("HTTP/1.1 200"), "{r}");
    assert!(r.contains("application/openmetrics-text"), "{r}");
}
