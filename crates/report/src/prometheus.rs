//! `tranche run --prometheus ADDR`: a `/metrics` endpoint for the whole
//! invocation, in the OpenMetrics text format, written with
//! `prometheus-client` by a custom collector that reads the node's atomics
//! and the driver's live figures at scrape time (nothing is pushed, so the
//! run pays nothing for an endpoint nobody scrapes).
//!
//! Upstream names where a figure has an upstream twin (upstream
//! `polkadot/node/core/approval-voting/src/lib.rs` `Metrics`,
//! `polkadot/node/network/approval-distribution/src/metrics.rs`,
//! `polkadot/node/core/approval-voting-parallel/src/metrics.rs`,
//! `polkadot/node/subsystem-bench/src/lib/network.rs`), `tranche_*` for
//! ours; CPU per node thread also as upstream's task-manager histogram
//! `substrate_tasks_polling_duration` (`substrate/client/service/src/
//! task_manager/mod.rs`, labels `task_name`, `task_group`, `kind`), which
//! upstream's subsystem-bench and Grafana CPU panels read.
//!
//! Every run of the invocation keeps its series after it ends, told apart
//! by the `step` and `architecture` labels (`--architecture both
//! --prometheus-hold`: the classic run's final figures stay beside the
//! parallel run's); a family appears once, with every run's series.
//! `tranche_run_info` reads 1 for the run in progress only, 0 for those
//! that ended; once a run ended (`Exporter::finish_run`) its crypto floor
//! and the node's CPU ÷ that floor are served too (the floor is measured
//! after the run).
//! The HTTP side is hyper on a single-threaded tokio runtime of its own
//! thread: one endpoint, `GET` only, every connection its own task with a
//! deadline for its headers and one for the whole exchange, so an idle or
//! slow scraper cannot delay another.

use crate::prometheus_upstream as upstream;
use crate::thread_group;
use anyhow::{Context, Result};
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, MetricEncoder};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;
use std::borrow::Cow;
use std::fmt;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tranche_metrics::HistogramSnapshot;
use tranche_metrics::NodeMetrics;

/// The figures of the run in progress that the driver publishes (the node's
/// own counters are read directly from its atomics).
pub struct LiveRun {
    pub step: String,
    pub architecture: String,
    pub clock: String,
    pub n_validators: u32,
    pub n_cores: u32,
    pub node: NodeMetrics,
    pub(crate) current_block: AtomicU64,
    /// Seconds since the run's start (`f64` bits), as the samples' `t_s`.
    run_seconds: AtomicU64,
    env_cpu_nanos: AtomicU64,
    node_received: AtomicU64,
    node_sent: AtomicU64,
    /// Per emulated peer (validator `i + 1`): bytes it sent, bytes it
    /// received. Written once per sample by the driver.
    pub(crate) peers: Mutex<Vec<(u64, u64)>>,
    /// Per block: number, approval time in ms after its slot start.
    blocks: Mutex<Vec<(u32, Option<u64>)>>,
    /// Whether the run ended (a later run started, or `finish_run`).
    finished: AtomicBool,
    /// Once it ended: its floor and node CPU ÷ floor (`finish_run`).
    floor: Mutex<Option<FloorFigures>>,
}

/// A finished run's crypto floor per block, both ways, and the node's CPU
/// ÷ the floor its layout is judged by (`RunReport::floor_ratio`).
#[derive(Debug, Clone, PartialEq)]
struct FloorFigures {
    one_by_one_per_block_s: f64,
    batched_per_block_s: f64,
    /// `one-by-one` or `batched`: the floor the layout is judged by.
    judged_by: &'static str,
    node_ratio: f64,
}

impl fmt::Debug for LiveRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveRun")
            .field("step", &self.step)
            .field("architecture", &self.architecture)
            .finish_non_exhaustive()
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl LiveRun {
    pub fn new(
        step: &str,
        architecture: &str,
        clock: &str,
        n_validators: u32,
        n_cores: u32,
        node: NodeMetrics,
    ) -> Arc<Self> {
        Arc::new(LiveRun {
            step: step.into(),
            architecture: architecture.into(),
            clock: clock.into(),
            n_validators,
            n_cores,
            node,
            current_block: AtomicU64::new(0),
            run_seconds: AtomicU64::new(0),
            env_cpu_nanos: AtomicU64::new(0),
            node_received: AtomicU64::new(0),
            node_sent: AtomicU64::new(0),
            peers: Mutex::new(Vec::new()),
            blocks: Mutex::new(Vec::new()),
            finished: AtomicBool::new(false),
            floor: Mutex::new(None),
        })
    }

    /// The run ended with `report`: no longer the run in progress, and
    /// its floor and node CPU ÷ floor are known.
    pub fn finish(&self, report: &crate::RunReport) {
        let f = &report.crypto_floor;
        *lock(&self.floor) = Some(FloorFigures {
            one_by_one_per_block_s: f.per_block_s,
            batched_per_block_s: f.batched_per_block_s,
            judged_by: if report.batches_signatures() {
                "batched"
            } else {
                "one-by-one"
            },
            node_ratio: report.floor_ratio(),
        });
        self.finished.store(true, Ordering::Relaxed);
    }

    /// The driver's figures at one sample, `t_s` seconds after the run's
    /// start.
    #[allow(clippy::too_many_arguments)]
    pub fn publish(
        &self,
        t_s: f64,
        current_block: u64,
        env_cpu: Duration,
        node_received: u64,
        node_sent: u64,
        peers: impl Iterator<Item = (u64, u64)>,
        blocks: impl Iterator<Item = (u32, Option<u64>)>,
    ) {
        self.run_seconds.store(t_s.to_bits(), Ordering::Relaxed);
        self.current_block.store(current_block, Ordering::Relaxed);
        self.env_cpu_nanos
            .store(env_cpu.as_nanos() as u64, Ordering::Relaxed);
        self.node_received.store(node_received, Ordering::Relaxed);
        self.node_sent.store(node_sent, Ordering::Relaxed);
        {
            let mut p = lock(&self.peers);
            p.clear();
            p.extend(peers);
        }
        let mut b = lock(&self.blocks);
        b.clear();
        b.extend(blocks);
    }
}

/// What the collectors read: every run of the invocation, the one in
/// progress last.
#[derive(Debug, Default)]
struct Shared {
    runs: Mutex<Vec<Arc<LiveRun>>>,
}

/// A running `/metrics` endpoint. Cloning shares it.
#[derive(Debug, Clone)]
pub struct Exporter {
    shared: Arc<Shared>,
    addr: SocketAddr,
}

impl Exporter {
    /// Bind `addr` (port 0 picks a free port) and serve `/metrics` on a
    /// background thread until the process exits.
    pub fn start(addr: &str) -> Result<Exporter> {
        let listener = std::net::TcpListener::bind(addr)
            .with_context(|| format!("cannot listen on {addr} for --prometheus"))?;
        listener
            .set_nonblocking(true)
            .with_context(|| format!("cannot listen on {addr} for --prometheus"))?;
        let bound = listener
            .local_addr()
            .with_context(|| format!("cannot read the address bound for {addr}"))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start the prometheus runtime")?;
        let shared = Arc::new(Shared::default());
        let served = shared.clone();
        std::thread::Builder::new()
            .name("prometheus".into())
            .spawn(move || runtime.block_on(serve(listener, served)))
            .context("cannot start the prometheus thread")?;
        Ok(Exporter {
            shared,
            addr: bound,
        })
    }

    /// The address actually bound.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// From now on, export this run too, the run in progress; it replaces
    /// an earlier run of the same step and layout (a `--repeat` run), the
    /// others stay, ended.
    pub fn set_run(&self, run: Arc<LiveRun>) {
        let mut runs = lock(&self.shared.runs);
        runs.retain(|r| (&r.step, &r.architecture) != (&run.step, &run.architecture));
        for r in runs.iter() {
            r.finished.store(true, Ordering::Relaxed);
        }
        runs.push(run);
    }

    /// The run of `report`'s step and layout ended with these figures
    /// (after its floor was measured; with `--repeat`, the medians).
    pub fn finish_run(&self, report: &crate::RunReport) {
        let layout = report.layout();
        for r in lock(&self.shared.runs).iter() {
            if r.step == report.name && r.architecture == layout {
                r.finish(report);
            }
        }
    }

    /// The exposition text a scrape gets now.
    pub fn render(&self) -> String {
        render(&self.shared)
    }
}

/// Every series carries the run's `step` and `architecture` (the layout,
/// `classic` or `parallel/N`), so that the runs of one invocation
/// (`--architecture both`) stay apart in Prometheus: each run is encoded
/// with its labels, then the families are merged so that each appears
/// once.
fn render(shared: &Arc<Shared>) -> String {
    let runs = lock(&shared.runs).clone();
    let texts: Vec<String> = runs
        .into_iter()
        .map(|run| {
            let labels = [
                (Cow::Borrowed("step"), Cow::Owned(run.step.clone())),
                (
                    Cow::Borrowed("architecture"),
                    Cow::Owned(run.architecture.clone()),
                ),
            ];
            let mut registry = Registry::with_labels(labels.into_iter());
            registry.register_collector(Box::new(Collector(run)));
            let mut out = String::new();
            // Writing into a String cannot fail.
            let _ = prometheus_client::encoding::text::encode(&mut out, &registry);
            out
        })
        .collect();
    merge_families(&texts)
}

/// OpenMetrics texts merged into one: each family (from its `# HELP`
/// line) once, in first-seen order, with the samples of every text; one
/// `# EOF`.
fn merge_families(texts: &[String]) -> String {
    let mut order: Vec<String> = Vec::new();
    let mut families: std::collections::HashMap<String, (String, String)> =
        std::collections::HashMap::new();
    for text in texts {
        let mut name = String::new();
        for line in text.lines() {
            if line == "# EOF" {
                continue;
            }
            if let Some(rest) = line.strip_prefix("# HELP ") {
                name = rest.split(' ').next().unwrap_or_default().to_owned();
                if !families.contains_key(&name) {
                    order.push(name.clone());
                    families.insert(name.clone(), (String::new(), String::new()));
                }
                let (head, samples) = families.get_mut(&name).expect("inserted");
                if samples.is_empty() && head.is_empty() {
                    head.push_str(line);
                    head.push('\n');
                }
                continue;
            }
            let Some((head, samples)) = families.get_mut(&name) else {
                continue;
            };
            if line.starts_with('#') {
                // TYPE and UNIT of the family: kept from the first text.
                if !head.contains(line) {
                    head.push_str(line);
                    head.push('\n');
                }
            } else {
                samples.push_str(line);
                samples.push('\n');
            }
        }
    }
    let mut out = String::new();
    for name in order {
        let (head, samples) = &families[&name];
        out.push_str(head);
        out.push_str(samples);
    }
    out.push_str("# EOF\n");
    out
}

/// How long a client may take to send its request's headers.
const HEADER_DEADLINE: Duration = Duration::from_secs(5);
/// How long one connection may last in all (a scraper that never reads
/// its answer is dropped then).
const CONNECTION_DEADLINE: Duration = Duration::from_secs(30);

/// Every connection is its own task with its own deadlines, so an idle or
/// slow client holds only itself.
async fn serve(listener: std::net::TcpListener, shared: Arc<Shared>) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let shared = shared.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let answer = answer(req.method(), req.uri().path(), &shared);
                async move { Ok::<_, std::convert::Infallible>(answer) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_DEADLINE)
                .keep_alive(false)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            // A broken or slow client only loses its own answer.
            let _ = tokio::time::timeout(CONNECTION_DEADLINE, connection).await;
        });
    }
}

type Answer = hyper::Response<http_body_util::Full<hyper::body::Bytes>>;

fn text(status: u16, body: &'static str) -> Answer {
    with_type(status, body.into(), "text/plain; charset=utf-8")
}

fn with_type(status: u16, body: String, kind: &'static str) -> Answer {
    let mut r = hyper::Response::new(http_body_util::Full::new(body.into()));
    *r.status_mut() = hyper::StatusCode::from_u16(status).expect("a valid status");
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static(kind),
    );
    r
}

fn answer(method: &hyper::Method, path: &str, shared: &Arc<Shared>) -> Answer {
    match (method, path) {
        (&hyper::Method::GET, "/metrics") => with_type(
            200,
            render(shared),
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        ),
        (&hyper::Method::GET, "/") => text(200, "tranche benchmark: metrics at /metrics\n"),
        (&hyper::Method::GET, _) => text(404, "not found: try /metrics\n"),
        _ => text(405, "only GET\n"),
    }
}

#[derive(Debug)]
struct Collector(Arc<LiveRun>);

/// One metric family: its descriptor, then each labelled series.
pub(crate) fn family<'a>(
    enc: &'a mut DescriptorEncoder,
    name: &'a str,
    help: &str,
    kind: MetricType,
) -> Result<MetricEncoder<'a>, fmt::Error> {
    enc.encode_descriptor(name, help, None, kind)
}

pub(crate) fn gauge(enc: &mut DescriptorEncoder, name: &str, help: &str, v: f64) -> fmt::Result {
    let e = family(enc, name, help, MetricType::Gauge)?;
    ConstGauge::new(v).encode(e)
}

pub(crate) fn counter(enc: &mut DescriptorEncoder, name: &str, help: &str, v: u64) -> fmt::Result {
    let e = family(enc, name, help, MetricType::Counter)?;
    ConstCounter::new(v).encode(e)
}

pub(crate) fn labelled<V>(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    kind: MetricType,
    series: &[(Vec<(&str, String)>, V)],
    write: impl Fn(MetricEncoder<'_>, &V) -> fmt::Result,
) -> fmt::Result {
    let mut e = family(enc, name, help, kind)?;
    for (labels, v) in series {
        let labels: Vec<(&str, &str)> = labels.iter().map(|(k, v)| (*k, v.as_str())).collect();
        write(e.encode_family(&labels)?, v)?;
    }
    Ok(())
}

/// Non-cumulative `(bound, count)` pairs ending with `+Inf`, scaled.
fn histogram_buckets(s: &HistogramSnapshot, scale: f64) -> Vec<(f64, u64)> {
    let mut prev = 0;
    let mut out: Vec<(f64, u64)> = s
        .cumulative
        .iter()
        .map(|(b, c)| {
            let n = c - prev;
            prev = *c;
            (*b as f64 * scale, n)
        })
        .collect();
    out.push((f64::INFINITY, s.count.saturating_sub(prev)));
    out
}

pub(crate) fn encode_histogram(
    e: MetricEncoder<'_>,
    s: &HistogramSnapshot,
    scale: f64,
) -> fmt::Result {
    let mut e = e;
    e.encode_histogram::<prometheus_client::encoding::NoLabelSet>(
        s.sum as f64 * scale,
        s.count,
        &histogram_buckets(s, scale),
        None,
    )
}

impl prometheus_client::collector::Collector for Collector {
    fn encode(&self, mut enc: DescriptorEncoder) -> fmt::Result {
        let run = &self.0;
        upstream::encode_subsystem_bench(&mut enc, run)?;
        upstream::encode_approval_voting(&mut enc, run)?;
        upstream::encode_approval_distribution(&mut enc, run)?;
        upstream::encode_parallel_channels(&mut enc, run)?;
        upstream::encode_tasks_polling(&mut enc, run)?;
        encode_threads(&mut enc, run)?;
        encode_channels_network_blocks(&mut enc, run)
    }
}

/// Ours: the run, the clock, and CPU and work per node thread.
fn encode_threads(enc: &mut DescriptorEncoder, run: &LiveRun) -> fmt::Result {
    // `step` and `architecture` are on every series (`render`).
    let in_progress = i64::from(!run.finished.load(Ordering::Relaxed));
    let info = vec![(vec![("clock", run.clock.clone())], in_progress)];
    labelled(
        enc,
        "tranche_run_info",
        "1 for the run in progress, 0 for a run of the invocation that ended",
        MetricType::Gauge,
        &info,
        |e, v| ConstGauge::new(*v).encode(e),
    )?;
    if let Some(f) = lock(&run.floor).clone() {
        let floors = vec![
            (
                vec![("signatures", "one-by-one".to_owned())],
                f.one_by_one_per_block_s,
            ),
            (
                vec![("signatures", "batched".to_owned())],
                f.batched_per_block_s,
            ),
        ];
        labelled(
            enc,
            "tranche_crypto_floor_seconds_per_block",
            "The crypto floor per block, signatures checked one by one or in batches (once the run ended)",
            MetricType::Gauge,
            &floors,
            |e, v| ConstGauge::new(*v).encode(e),
        )?;
        let ratio = vec![(vec![("signatures", f.judged_by.to_owned())], f.node_ratio)];
        labelled(
            enc,
            "tranche_node_floor_ratio",
            "The node's CPU ÷ the crypto floor its layout is judged by (once the run ended)",
            MetricType::Gauge,
            &ratio,
            |e, v| ConstGauge::new(*v).encode(e),
        )?;
    }
    gauge(
        enc,
        "tranche_run_seconds",
        "Seconds since the run's first slot started (virtual time under the virtual clock)",
        f64::from_bits(run.run_seconds.load(Ordering::Relaxed)),
    )?;
    let workers: Vec<_> = run
        .node
        .workers
        .iter()
        .map(|w| {
            (
                vec![("thread", w.name.clone()), ("group", thread_group(&w.name))],
                w.clone(),
            )
        })
        .collect();
    labelled(
        enc,
        "tranche_thread_cpu_seconds",
        "CPU time of each node thread (sampled every few hundred messages and when idle)",
        MetricType::Counter,
        &workers,
        |e, w| ConstCounter::new(w.cpu_seconds()).encode(e),
    )?;
    labelled(
        enc,
        "tranche_thread_messages_handled",
        "Messages each node thread handled",
        MetricType::Counter,
        &workers,
        |e, w| ConstCounter::new(w.handled()).encode(e),
    )?;
    labelled(
        enc,
        "tranche_thread_verifications",
        "Signature and certificate checks each node thread did",
        MetricType::Counter,
        &workers,
        |e, w| ConstCounter::new(w.verifications()).encode(e),
    )?;
    let env = vec![(
        vec![("thread", "test-environment".to_owned())],
        run.env_cpu_nanos.load(Ordering::Relaxed) as f64 / 1e9,
    )];
    labelled(
        enc,
        "tranche_environment_cpu_seconds",
        "CPU time of the benchmark driver (emulated peers and network)",
        MetricType::Counter,
        &env,
        |e, v| ConstCounter::new(*v).encode(e),
    )?;
    Ok(())
}

/// Ours: node channels, node network bytes, approvals per block.
fn encode_channels_network_blocks(enc: &mut DescriptorEncoder, run: &LiveRun) -> fmt::Result {
    let p = &run.node.protocol;
    let chans = &run.node.channels;
    let channels: Vec<_> = chans
        .iter()
        .map(|c| (vec![("channel", c.name.clone())], c.clone()))
        .collect();
    labelled(
        enc,
        "tranche_channel_depth",
        "Messages waiting in each node channel now",
        MetricType::Gauge,
        &channels,
        |e, c| ConstGauge::new(c.depth() as i64).encode(e),
    )?;
    labelled(
        enc,
        "tranche_channel_time_in_queue_seconds",
        "Total time messages waited in each node channel",
        MetricType::Counter,
        &channels,
        |e, c| ConstCounter::new(c.time_in_queue().as_secs_f64()).encode(e),
    )?;
    let bytes = vec![
        (
            vec![("direction", "received".to_owned())],
            run.node_received.load(Ordering::Relaxed),
        ),
        (
            vec![("direction", "sent".to_owned())],
            run.node_sent.load(Ordering::Relaxed),
        ),
    ];
    labelled(
        enc,
        "tranche_node_network_bytes",
        "Bytes the node under test received from and sent to peers",
        MetricType::Counter,
        &bytes,
        |e, v| ConstCounter::new(*v).encode(e),
    )?;
    let reputation: Vec<_> = p
        .reputation_changes()
        .into_iter()
        .map(|(kind, n)| (vec![("kind", kind.to_owned())], n))
        .collect();
    labelled(
        enc,
        "tranche_reputation_changes",
        "Reputation changes distribution gave peers, by kind (upstream's names)",
        MetricType::Counter,
        &reputation,
        |e, v| ConstCounter::new(*v).encode(e),
    )?;
    counter(
        enc,
        "tranche_blocks_approved",
        "Blocks the node approved",
        p.blocks_approved(),
    )?;
    counter(
        enc,
        "tranche_candidates_approved",
        "Candidates the node approved",
        p.candidates_approved(),
    )?;
    let blocks: Vec<_> = lock(&run.blocks)
        .iter()
        .filter_map(|(n, ms)| ms.map(|ms| (vec![("block", n.to_string())], ms as f64 / 1e3)))
        .collect();
    labelled(
        enc,
        "tranche_block_approval_seconds",
        "Seconds after its slot start each block was approved",
        MetricType::Gauge,
        &blocks,
        |e, v| ConstGauge::new(*v).encode(e),
    )?;
    Ok(())
}

#[cfg(test)]
#[path = "prometheus_tests.rs"]
mod tests;
