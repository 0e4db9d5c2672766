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
//! deadline for its first byte, one for its headers and one for the whole
//! exchange, so an idle or slow scraper cannot delay another. At most
//! [`connection_limit`] connections are held at once (a quarter of the
//! process's descriptor limit, so the run's own files and sockets keep the
//! rest); at the limit the connection idle longest gives way to the new
//! one, and a failed `accept` (descriptors run out elsewhere in the
//! process) is retried after a growing pause, never in a tight loop.

mod encode;
mod live;
mod request;
mod upstream;

use anyhow::{Context, Result};
use encode::{counter, gauge, labelled};
use live::lock;
pub use live::LiveRun;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;
pub use request::answer_bytes;
use std::borrow::Cow;
use std::fmt;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tranche_results::thread_group;

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
        Exporter::start_with_limit(addr, connection_limit())
    }

    /// [`Exporter::start`] holding at most `limit` connections at once.
    fn start_with_limit(addr: &str, limit: usize) -> Result<Exporter> {
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
            .spawn(move || runtime.block_on(serve(listener, served, limit)))
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
    pub fn finish_run(&self, report: &tranche_results::RunReport) {
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

/// How long a connection may stay silent before its first byte: a
/// scraper sends its request at once.
const IDLE_DEADLINE: Duration = Duration::from_secs(2);
/// The first and the longest pause after a failed `accept`.
const ACCEPT_PAUSE: (Duration, Duration) = (Duration::from_millis(50), Duration::from_secs(1));

/// The most connections held at once: a quarter of the process's
/// descriptor limit (`RLIMIT_NOFILE`), from 4 to 64.
pub fn connection_limit() -> usize {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given and nothing else.
    let soft = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
        usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX)
    } else {
        256
    };
    (soft / 4).clamp(4, 64)
}

/// The connections that have not sent a byte yet, oldest first: each
/// with the signal that makes it give way.
#[derive(Default)]
struct Idle {
    next: u64,
    waiting: std::collections::VecDeque<(u64, Arc<tokio::sync::Notify>)>,
}

/// Waits for the first byte of `stream`: true when it came (or the peer
/// closed, which hyper then reads), false when the connection stayed idle
/// past [`IDLE_DEADLINE`] or was told to give way.
async fn first_byte(stream: &tokio::net::TcpStream, give_way: &tokio::sync::Notify) -> bool {
    use std::future::Future;
    use std::task::Poll;
    let mut byte = [0u8; 1];
    // `peek`, not `readable`: readiness may be reported before any byte.
    let mut readable = std::pin::pin!(stream.peek(&mut byte));
    let mut evicted = std::pin::pin!(give_way.notified());
    let either = std::future::poll_fn(|cx| {
        if let Poll::Ready(r) = readable.as_mut().poll(cx) {
            return Poll::Ready(r.is_ok());
        }
        if evicted.as_mut().poll(cx).is_ready() {
            return Poll::Ready(false);
        }
        Poll::Pending
    });
    matches!(tokio::time::timeout(IDLE_DEADLINE, either).await, Ok(true))
}

/// Every connection is its own task with its own deadlines, so an idle or
/// slow client holds only itself; see the module's doc for the bounds.
async fn serve(listener: std::net::TcpListener, shared: Arc<Shared>, limit: usize) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    let slots = Arc::new(tokio::sync::Semaphore::new(limit));
    let idle = Arc::new(Mutex::new(Idle::default()));
    let mut pause = ACCEPT_PAUSE.0;
    loop {
        let permit = match slots.clone().try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                // At the limit: the connection silent longest gives way.
                if let Some((_, n)) = lock(&idle).waiting.pop_front() {
                    n.notify_one();
                }
                let Ok(p) = slots.clone().acquire_owned().await else {
                    return;
                };
                p
            }
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => {
                pause = ACCEPT_PAUSE.0;
                stream
            }
            Err(_) => {
                // Out of descriptors (or another passing failure): wait,
                // longer each time, instead of failing again at once.
                drop(permit);
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(ACCEPT_PAUSE.1);
                continue;
            }
        };
        let shared = shared.clone();
        let idle = idle.clone();
        // Known as idle before its task first runs, so that the next
        // accept at the limit can already make it give way.
        let give_way = Arc::new(tokio::sync::Notify::new());
        let id = {
            let mut idle = lock(&idle);
            let id = idle.next;
            idle.next += 1;
            idle.waiting.push_back((id, give_way.clone()));
            id
        };
        tokio::spawn(async move {
            let _slot = permit;
            let spoke = first_byte(&stream, &give_way).await;
            lock(&idle).waiting.retain(|(i, _)| *i != id);
            if !spoke {
                return;
            }
            request::exchange(hyper_util::rt::TokioIo::new(stream), shared).await;
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
mod tests;
