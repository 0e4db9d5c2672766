//! The report of a benchmark run: one layout for every run, printed as a
//! table and written as JSON (`--json`). With `--architecture both` the two
//! runs are shown side by side with ratios.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// When a block was approved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockReport {
    pub number: u32,
    /// Tick at which the node reported the block approved.
    pub approved_tick: Option<u64>,
    /// Milliseconds after the block's slot start (500 ms resolution under
    /// the virtual clock, wall-clock under the real one).
    pub approved_after_ms: Option<u64>,
}

/// CPU of one thread group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuRow {
    pub name: String,
    pub total_s: f64,
    pub per_block_s: f64,
    /// Whether the row is part of the node's total.
    pub node: bool,
}

/// Bytes of SCALE-encoded validation-protocol messages, no framing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NetworkReport {
    pub received_bytes: u64,
    pub sent_bytes: u64,
    pub received_kib_per_block: f64,
    pub sent_kib_per_block: f64,
}

/// Message counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    /// Distinct messages the peers sent.
    pub unique_messages: u64,
    /// Copies delivered to the node (duplicates included).
    pub deliveries: u64,
    /// Copies lost by the emulated network.
    pub lost: u64,
    /// Notifications the node sent.
    pub messages_from_node: u64,
    /// Approvals withheld to create no-shows.
    pub withheld_approvals: u64,
    /// Certificate and signature checks the node did.
    pub verifications: u64,
}

/// How the run's messages were obtained.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GenerationReport {
    pub cache_file: String,
    pub cache_hit: bool,
    /// Generation (or cache load) wall time.
    pub time_s: f64,
    pub cache_bytes: u64,
}

/// The crypto floor and the node's CPU relative to it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FloorReport {
    pub assignments: u64,
    pub approvals: u64,
    pub cpu_s: f64,
    pub per_block_s: f64,
    /// Node CPU / floor CPU.
    pub node_ratio: f64,
}

/// What the node's state machines counted (the twins of upstream's
/// approval metrics); all zero in reports written before they existed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProtocolReport {
    /// Candidates imported with new blocks.
    pub imported_candidates: u64,
    /// Assignments accepted (ours and peers'), by certificate kind:
    /// `VRF Delay`, `VRF Modulo`, `VRF Modulo Compact`.
    pub assignments_imported: BTreeMap<String, u64>,
    /// Approval votes accepted (ours and peers').
    pub approvals_imported: u64,
    pub candidates_approved: u64,
    pub approved_by_one_third: u64,
    /// No-shows tolerated when candidates got approved.
    pub no_shows: u64,
    /// No-shows observed at any evaluation.
    pub observed_no_shows: u64,
}

/// The run's state at one moment, for plots over time. Sampled by the
/// driver every virtual tick (virtual clock) or about every 500 ms (real
/// clock).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Sample {
    /// Seconds since the first block's slot started: tick-based under the
    /// virtual clock, wall-clock under the real one.
    pub t_s: f64,
    pub tick: u64,
    /// Cumulative CPU seconds per thread group (the node's groups and
    /// `test-environment`).
    pub cpu_s: BTreeMap<String, f64>,
    /// Cumulative bytes the node received from and sent to peers.
    pub received_bytes: u64,
    pub sent_bytes: u64,
    /// The deepest each of the node's channels got since the previous
    /// sample, summed over its channels.
    pub queue_depth: u64,
    /// Blocks approved so far.
    pub approved_blocks: u32,
}

/// One benchmark run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    pub name: String,
    pub architecture: String,
    pub workers: usize,
    pub clock: String,
    pub seed: u64,
    pub n_validators: u32,
    pub n_cores: u32,
    pub num_blocks: u32,
    pub blocks: Vec<BlockReport>,
    pub network: NetworkReport,
    pub cpu: Vec<CpuRow>,
    pub node_cpu_s: f64,
    pub counts: Counts,
    pub generation: GenerationReport,
    pub crypto_floor: FloorReport,
    pub wall_time_s: f64,
    pub peak_memory_bytes: u64,
    #[serde(default)]
    pub protocol: ProtocolReport,
    /// The run over time (absent in older files).
    #[serde(default)]
    pub samples: Vec<Sample>,
}

impl RunReport {
    /// `parallel/N` or `classic`: how runs are told apart in tables.
    pub fn layout(&self) -> String {
        if self.architecture == "parallel" {
            format!("parallel/{}", self.workers)
        } else {
            self.architecture.clone()
        }
    }
}

/// The thread group a node thread belongs to in plots: the parallel
/// layout's distribution workers together, every other thread alone.
pub fn thread_group(name: &str) -> String {
    match name.strip_prefix("approval-voting-parallel-") {
        Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            "approval-voting-parallel-workers".into()
        }
        _ => name.into(),
    }
}

/// What `--json` writes: every run of the invocation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportFile {
    pub tool: String,
    pub version: String,
    pub runs: Vec<RunReport>,
}

impl ReportFile {
    pub fn new(runs: Vec<RunReport>) -> Self {
        ReportFile {
            tool: "tranche".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            runs,
        }
    }
}

const W: usize = 44;

fn ms(v: Option<u64>) -> String {
    v.map(|m| format!("{m}"))
        .unwrap_or_else(|| "not approved".into())
}

/// Render one or more runs as text; with two runs, a ratio column.
pub fn render(runs: &[RunReport]) -> String {
    let mut s = String::new();
    let Some(first) = runs.first() else {
        return s;
    };
    let heads: Vec<String> = runs.iter().map(RunReport::layout).collect();
    let ratio = runs.len() == 2;
    let row = |s: &mut String, name: &str, vals: Vec<String>, r: Option<String>| {
        let _ = write!(s, "{name:<W$}");
        for v in vals {
            let _ = write!(s, "{v:>16}");
        }
        if let Some(r) = r {
            let _ = write!(s, "{r:>10}");
        }
        s.push('\n');
    };
    let header = |s: &mut String, title: &str| {
        s.push('\n');
        row(s, title, heads.clone(), ratio.then(|| "ratio".to_owned()));
    };
    let ratio_of = |a: f64, b: f64| {
        ratio.then(|| {
            if a > 0.0 {
                format!("{:.2}", b / a)
            } else {
                "-".into()
            }
        })
    };

    let _ = writeln!(
        s,
        "{} — {} validators, {} cores, {} blocks, clock {}, seed {}",
        first.name, first.n_validators, first.n_cores, first.num_blocks, first.clock, first.seed
    );
    header(&mut s, "Approval, ms after slot start");
    for (i, b) in first.blocks.iter().enumerate() {
        let vals = runs
            .iter()
            .map(|r| ms(r.blocks.get(i).and_then(|x| x.approved_after_ms)))
            .collect();
        row(&mut s, &format!("block {}", b.number), vals, None);
    }

    header(&mut s, "Network, KiB per block");
    let kib = |v: f64| format!("{v:.2}");
    let rx: Vec<f64> = runs
        .iter()
        .map(|r| r.network.received_kib_per_block)
        .collect();
    let tx: Vec<f64> = runs.iter().map(|r| r.network.sent_kib_per_block).collect();
    row(
        &mut s,
        "received from peers",
        rx.iter().map(|v| kib(*v)).collect(),
        ratio_of(rx[0], *rx.last().unwrap()),
    );
    row(
        &mut s,
        "sent to peers",
        tx.iter().map(|v| kib(*v)).collect(),
        ratio_of(tx[0], *tx.last().unwrap()),
    );
    let totals: Vec<String> = runs
        .iter()
        .map(|r| {
            format!(
                "{:.1}",
                (r.network.received_bytes + r.network.sent_bytes) as f64 / 1024.0
            )
        })
        .collect();
    row(&mut s, "total KiB in + out", totals, None);

    header(&mut s, "CPU, seconds per block");
    let mut names: Vec<String> = Vec::new();
    for r in runs {
        for c in &r.cpu {
            if !names.contains(&c.name) {
                names.push(c.name.clone());
            }
        }
    }
    for name in &names {
        let vals: Vec<Option<f64>> = runs
            .iter()
            .map(|r| {
                r.cpu
                    .iter()
                    .find(|c| &c.name == name)
                    .map(|c| c.per_block_s)
            })
            .collect();
        let shown = vals
            .iter()
            .map(|v| v.map(|x| format!("{x:.4}")).unwrap_or_else(|| "-".into()))
            .collect();
        row(&mut s, name, shown, None);
    }
    let node: Vec<f64> = runs
        .iter()
        .map(|r| r.node_cpu_s / f64::from(r.num_blocks.max(1)))
        .collect();
    row(
        &mut s,
        "node total",
        node.iter().map(|v| format!("{v:.4}")).collect(),
        ratio_of(node[0], *node.last().unwrap()),
    );
    row(
        &mut s,
        "crypto floor (1 thread, after the run)",
        runs.iter()
            .map(|r| format!("{:.4}", r.crypto_floor.per_block_s))
            .collect(),
        None,
    );
    row(
        &mut s,
        "node total / crypto floor",
        runs.iter()
            .map(|r| format!("{:.2}", r.crypto_floor.node_ratio))
            .collect(),
        None,
    );

    header(&mut s, "Messages");
    let count = |f: fn(&Counts) -> u64| {
        runs.iter()
            .map(|r| f(&r.counts).to_string())
            .collect::<Vec<_>>()
    };
    row(
        &mut s,
        "unique messages from peers",
        count(|c| c.unique_messages),
        None,
    );
    row(
        &mut s,
        "deliveries to the node",
        count(|c| c.deliveries),
        None,
    );
    row(&mut s, "lost by the network", count(|c| c.lost), None);
    row(
        &mut s,
        "withheld approvals (no-shows)",
        count(|c| c.withheld_approvals),
        None,
    );
    row(
        &mut s,
        "notifications sent by the node",
        count(|c| c.messages_from_node),
        None,
    );
    row(
        &mut s,
        "signature and certificate checks",
        count(|c| c.verifications),
        None,
    );

    header(&mut s, "Run");
    row(
        &mut s,
        "wall time, s",
        runs.iter()
            .map(|r| format!("{:.2}", r.wall_time_s))
            .collect(),
        None,
    );
    row(
        &mut s,
        "peak memory, MiB",
        runs.iter()
            .map(|r| format!("{:.1}", r.peak_memory_bytes as f64 / 1048576.0))
            .collect(),
        None,
    );
    let g = &first.generation;
    let _ = writeln!(
        s,
        "\nmessages: {} ({}, {:.2} s, {:.1} MiB)",
        g.cache_file,
        if g.cache_hit {
            "cache hit"
        } else {
            "generated"
        },
        g.time_s,
        g.cache_bytes as f64 / 1048576.0
    );
    s
}
