//! The observability outputs end to end, through the `tranche` binary on
//! the CI guard's configuration: the Prometheus endpoint scraped over HTTP
//! while the process runs, the flamegraph (with the `profile` feature), the
//! HTML report, and `tranche compare`'s verdicts and exit codes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tranche_report::ReportFile;

const BIN: &str = env!("CARGO_BIN_EXE_tranche");

fn guard_yaml() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ci/guard.yaml")
}

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("tranche-obs-{}-{name}", std::process::id()))
}

fn load(path: &Path) -> ReportFile {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Parse `text` as XML and count its `<svg>` elements.
fn well_formed_svgs(text: &str) -> usize {
    let mut reader = quick_xml::Reader::from_str(text);
    reader.check_end_names(true);
    let mut svgs = 0;
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Start(e)) if e.name().as_ref() == b"svg" => svgs += 1,
            Ok(quick_xml::events::Event::Eof) => return svgs,
            Ok(_) => {}
            Err(e) => panic!("not well-formed XML at {}: {e}", reader.buffer_position()),
        }
    }
}

/// The value of the first series of `name` whose labels contain `labels`.
fn metric(body: &str, name: &str, labels: &str) -> Option<f64> {
    body.lines().find_map(|l| {
        let rest = l.strip_prefix(name)?;
        let (series, value) = rest.rsplit_once(' ')?;
        // Every series carries `step` and `architecture`; "" matches any.
        let ok = labels.is_empty() || (series.starts_with('{') && series.contains(labels));
        if ok {
            value.parse().ok()
        } else {
            None
        }
    })
}

fn scrape(addr: &str) -> Option<String> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(
        s,
        "GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    let (head, body) = out.split_once("\r\n\r\n")?;
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    assert!(head.contains("application/openmetrics-text"), "{head}");
    Some(body.to_owned())
}

/// Kills the child process however the test ends.
struct Reap(std::process::Child);

impl Drop for Reap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn prometheus_endpoint_serves_live_figures_during_the_run() {
    let cache = tmp("prom-cache");
    let json = tmp("prom.json");
    let _ = std::fs::remove_file(&json);
    let mut child = Reap(
        Command::new(BIN)
            .arg("run")
            .arg(guard_yaml())
            .args([
                "--clock",
                "virtual",
                "--architecture",
                "parallel",
                "--quiet",
            ])
            .arg("--cache-dir")
            .arg(&cache)
            .arg("--json")
            .arg(&json)
            .args(["--prometheus", "127.0.0.1:0", "--prometheus-hold", "120"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let (tx, rx) = std::sync::mpsc::channel();
    let stderr = child.0.stderr.take().unwrap();
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
    assert!(!addr.ends_with(":0"), "the bound port is printed: {addr}");

    // Scrape until the run has finished (its JSON is written before the
    // endpoint's hold time), then check the final figures.
    let deadline = Instant::now() + Duration::from_secs(180);
    let mut scrapes_while_running = 0;
    let body = loop {
        assert!(Instant::now() < deadline, "the run did not finish in time");
        let finished = json.exists();
        let body = scrape(&addr).expect("the endpoint answers during the run");
        if !finished {
            scrapes_while_running += 1;
        }
        if finished && metric(&body, "tranche_blocks_approved_total", "") == Some(3.0) {
            break body;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    drop(child);
    // The first scrape comes while the messages are still being generated
    // (a fresh cache directory), long before the run ends.
    assert!(scrapes_while_running >= 1);
    assert!(body.trim_end().ends_with("# EOF"));
    // Every series names its step and layout; time is seconds since the
    // run's start, not the absolute tick.
    for l in body.lines().filter(|l| !l.starts_with('#')) {
        assert!(
            l.contains("architecture=\"parallel/4\"") && l.contains("step=\""),
            "{l}"
        );
    }
    let t = metric(&body, "tranche_run_seconds", "").expect("tranche_run_seconds");
    assert!((0.0..1000.0).contains(&t), "{t}");
    let report = load(&json);
    let run = &report.runs[0];

    // Per-thread CPU: every node thread has used some, none absurdly much.
    let threads: Vec<&str> = body
        .lines()
        .filter(|l| l.starts_with("tranche_thread_cpu_seconds_total{"))
        .collect();
    assert_eq!(
        threads.len(),
        6,
        "router, voting and 4 workers: {threads:?}"
    );
    for l in &threads {
        let v: f64 = l.rsplit_once(' ').unwrap().1.parse().unwrap();
        assert!(v > 0.0 && v < 600.0, "{l}");
    }
    assert!(
        metric(
            &body,
            "tranche_thread_cpu_seconds_total",
            "thread=\"approval-voting-parallel-db\""
        )
        .unwrap()
            > 0.0
    );

    // Bytes: the node's totals equal the report's; the peers' per-peer
    // counters add up to at least what the node received (some are lost).
    let rx_bytes = metric(
        &body,
        "tranche_node_network_bytes_total",
        "direction=\"received\"",
    )
    .unwrap();
    let tx_bytes = metric(
        &body,
        "tranche_node_network_bytes_total",
        "direction=\"sent\"",
    )
    .unwrap();
    assert_eq!(rx_bytes, run.network.received_bytes as f64);
    assert_eq!(tx_bytes, run.network.sent_bytes as f64);
    assert!(rx_bytes > 0.0 && tx_bytes > 0.0);

    // Reputation changes by kind: the endpoint's counters equal the
    // report's, and honest peers earned benefits.
    let reputation = &run.protocol.reputation_changes;
    assert_eq!(reputation.len(), 7, "every kind is listed: {reputation:?}");
    for (kind, n) in reputation {
        let served = metric(
            &body,
            "tranche_reputation_changes_total",
            &format!("kind=\"{kind}\""),
        );
        assert_eq!(served, Some(*n as f64), "{kind}");
    }
    assert!(reputation["Valid message with new information"] > 0);
    let peers_sent: f64 = body
        .lines()
        .filter(|l| l.starts_with("subsystem_benchmark_network_peer_total_bytes_sent{"))
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<f64>().unwrap())
        .sum();
    assert!(peers_sent >= rx_bytes, "{peers_sent} < {rx_bytes}");

    // Approvals, under upstream's names.
    assert_eq!(
        metric(&body, "subsystem_benchmark_n_validators", ""),
        Some(60.0)
    );
    assert_eq!(metric(&body, "subsystem_benchmark_n_cores", ""), Some(12.0));
    assert_eq!(
        metric(&body, "polkadot_parachain_imported_candidates_total", ""),
        Some(36.0)
    );
    // Nothing is finalized during a run: the unapproved candidates of the
    // unfinalized chain are the imported ones not yet approved.
    assert_eq!(
        metric(
            &body,
            "polkadot_parachain_approval_unapproved_candidates_in_unfinalized_chain",
            ""
        ),
        Some((36 - run.protocol.candidates_approved) as f64)
    );
    let approvals = metric(&body, "polkadot_parachain_approvals_imported_total", "").unwrap();
    assert!(approvals > 0.0);
    assert_eq!(approvals, run.protocol.approvals_imported as f64);
    assert!(
        metric(
            &body,
            "polkadot_parachain_assignments_imported_total",
            "kind=\"VRF Modulo Compact\""
        )
        .unwrap()
            > 0.0
    );
    assert_eq!(
        metric(
            &body,
            "polkadot_parachain_approvals_blockapproval_time_ticks_count",
            ""
        ),
        Some(3.0)
    );
    assert_eq!(
        metric(
            &body,
            "polkadot_parachain_approvals_candidate_approval_time_ticks_count",
            ""
        ),
        Some(36.0)
    );
    for b in &run.blocks {
        let shown = metric(
            &body,
            "tranche_block_approval_seconds",
            &format!("block=\"{}\"", b.number),
        )
        .unwrap();
        assert_eq!(shown, b.approved_after_ms.unwrap() as f64 / 1e3);
    }
    assert!(body.contains("polkadot_approval_voting_parallel_worker_bounded_tof_bucket"));

    // The run ended: no longer the run in progress, and its floor and
    // the node's CPU ÷ the floor its layout is judged by are served.
    assert_eq!(metric(&body, "tranche_run_info", ""), Some(0.0), "{body}");
    // (The encoding writes a float to 17 significant digits.)
    let close = |served: Option<f64>, want: f64| {
        served.is_some_and(|v| (v - want).abs() <= 1e-12 * want.abs().max(1.0))
    };
    let ratio = metric(&body, "tranche_node_floor_ratio", "signatures=\"batched\"");
    assert!(close(ratio, run.floor_ratio()), "{ratio:?}");
    let floor = metric(
        &body,
        "tranche_crypto_floor_seconds_per_block",
        "signatures=\"one-by-one\"",
    );
    assert!(close(floor, run.crypto_floor.per_block_s), "{floor:?}");

    // Every metric the Grafana dashboard queries is served.
    let dashboard = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/grafana/tranche.json");
    let dashboard: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dashboard).unwrap()).unwrap();
    let mut queried = 0;
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().into_iter().flatten() {
            let expr = target["expr"].as_str().unwrap();
            for word in expr.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                if ["polkadot_", "subsystem_", "substrate_", "tranche_"]
                    .iter()
                    .any(|p| word.starts_with(p))
                {
                    queried += 1;
                    assert!(
                        body.lines().any(|l| l.starts_with(word)),
                        "the dashboard queries {word}, which is not served"
                    );
                }
            }
        }
    }
    assert!(queried > 20);
    // Step and architecture are variables; every query filters by them
    // and every legend names the architecture (`--architecture both`
    // gives two series of each).
    let vars: Vec<&str> = dashboard["templating"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert!(
        vars.contains(&"step") && vars.contains(&"architecture"),
        "{vars:?}"
    );
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().into_iter().flatten() {
            let expr = target["expr"].as_str().unwrap();
            let legend = target["legendFormat"].as_str().unwrap();
            assert!(
                expr.contains("architecture=~\"$architecture\"")
                    && expr.contains("step=~\"$step\""),
                "{expr}"
            );
            assert!(legend.contains("{{architecture}}"), "{legend}");
        }
    }
    for floor in [
        "tranche_crypto_floor_seconds_per_block",
        "tranche_node_floor_ratio",
    ] {
        assert!(dashboard.to_string().contains(floor), "no panel of {floor}");
    }
    std::fs::remove_dir_all(&cache).ok();
    std::fs::remove_file(&json).ok();
}

#[test]
fn html_flamegraph_and_compare_from_one_invocation() {
    let cache = tmp("out-cache");
    let json = tmp("out.json");
    let html = tmp("out.html");
    let svg = tmp("out.svg");
    let mut cmd = Command::new(BIN);
    cmd.arg("run")
        .arg(guard_yaml())
        .args(["--clock", "virtual", "--architecture", "both", "--quiet"])
        .arg("--cache-dir")
        .arg(&cache)
        .arg("--json")
        .arg(&json)
        .arg("--html")
        .arg(&html);
    if cfg!(feature = "profile") {
        cmd.arg("--profile").arg(&svg);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // HTML: one page, every plot an inline well-formed SVG, nothing
    // fetched from anywhere (not even the SVG namespace is named).
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    for forbidden in [
        "<script", "src=", "href=", "<link", "@import", "http://", "https://",
    ] {
        assert!(!page.contains(forbidden), "{forbidden} in the page");
    }
    let mut plots = 0;
    for part in page.split("<svg").skip(1) {
        let end = part.find("</svg>").expect("closed svg") + "</svg>".len();
        plots += well_formed_svgs(&format!("<svg{}", &part[..end]));
    }
    assert_eq!(plots, page.matches("<figure id=\"plot-").count());
    for title in [
        "Approval time per block",
        "Node CPU by block slot against the crypto floor",
        "CPU by slot: approval-voting",
        "CPU by slot: approval-voting-parallel-workers",
        "CPU by slot: worker approval-voting-parallel-0",
        "CPU by slot: other",
        "Bytes in (received) by slot",
        "Bytes out (sent) by slot",
        "Deepest approval-voting channel by slot",
        "<th>config hash</th>",
    ] {
        assert!(page.contains(title), "{title}");
    }
    // Both layouts in the legends.
    assert!(page.contains("\nparallel/4\n</text>") && page.contains("\nclassic\n</text>"));
    // The run's tail is a bar of its own.
    assert!(page.contains("\ntail\n</text>"));

    // Samples made it into the JSON, over the run's ticks.
    let report = load(&json);
    for r in &report.runs {
        assert!(r.samples.len() > 10, "{} samples", r.samples.len());
        let last = r.samples.last().unwrap();
        assert_eq!(last.received_bytes, r.network.received_bytes);
        assert!(last.cpu_s.contains_key("test-environment"));
        assert!(r.samples.windows(2).all(|w| w[0].t_s <= w[1].t_s));
    }

    if cfg!(feature = "profile") {
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(well_formed_svgs(&text) >= 1, "an SVG document");
        for f in ["DistributionWorker", "VotingWorker"] {
            assert!(text.contains(f), "{f} not in the flamegraph");
        }
    }

    // compare: identical passes, a changed byte count fails, a bad file is
    // a one-line error naming it.
    let same = Command::new(BIN)
        .arg("compare")
        .arg(&json)
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(same.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&same.stdout).contains("PASS"));
    let mut changed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let bytes = changed["runs"][1]["network"]["received_bytes"]
        .as_u64()
        .unwrap();
    changed["runs"][1]["network"]["received_bytes"] = (bytes + 8).into();
    let changed_path = tmp("changed.json");
    std::fs::write(&changed_path, changed.to_string()).unwrap();
    let fail = Command::new(BIN)
        .arg("compare")
        .arg(&json)
        .arg(&changed_path)
        .output()
        .unwrap();
    assert_eq!(fail.status.code(), Some(1));
    let text = String::from_utf8_lossy(&fail.stdout);
    assert!(
        text.contains("bytes received") && text.contains("+8") && text.contains("REGRESSION"),
        "{text}"
    );
    std::fs::write(&changed_path, "[1, 2").unwrap();
    let bad = Command::new(BIN)
        .arg("compare")
        .arg(&json)
        .arg(&changed_path)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("changed.json"), "{err}");

    for p in [&json, &html, &svg, &changed_path] {
        std::fs::remove_file(p).ok();
    }
    std::fs::remove_dir_all(&cache).ok();
}
