//! The headline figures `history` follows, per kind of result: for a run,
//! per layout, when the blocks were approved (p50 and slowest, ms after
//! the slot), the node's CPU per block and its ratio to the layout's crypto
//! floor, the bytes per block; for a network run, the approval p50 and
//! p99 and the simulator's CPU per delivery, and the bytes a validator
//! sent; for a sweep, each grid point's own. And the sweeps' steps judged
//! by `compare`'s rule (their rows hold no more than these figures).

use super::Figures;
use crate::compare::{cpu_row, valued_row, Comparison, CpuFigure, CpuPolicy, Judged, Verdict};
use crate::meta::kind;
use crate::network::sweep::SweepRow;
use crate::results::{ResultFile, SweepFile};
use crate::sweep_run::RunSweepRow;
use tranche_cli::text::counted;

const RUN: &[(&str, usize)] = &[
    ("approval p50, ms", 0),
    ("approval max, ms", 0),
    ("node CPU s per block", 4),
    ("node ÷ floor", 2),
    ("KiB per block", 1),
];
const NETWORK: &[(&str, usize)] = &[
    ("approval p50, ms", 0),
    ("approval p99, ms", 0),
    ("CPU µs per delivery", 2),
    ("KiB out p50", 1),
];
const SWEEP_RUN: &[(&str, usize)] = &[
    ("slowest approval, ms", 0),
    ("node CPU s per block", 4),
    ("node ÷ floor", 2),
];
const SWEEP_NETWORK: &[(&str, usize)] = &[
    ("approval p50, ms", 0),
    ("approval p99, ms", 0),
    ("KiB out p50", 1),
];

/// The figures of a kind: (name, decimals shown).
pub(super) fn names(k: &str) -> &'static [(&'static str, usize)] {
    match k {
        kind::RUN => RUN,
        kind::NETWORK => NETWORK,
        kind::SWEEP_RUN => SWEEP_RUN,
        _ => SWEEP_NETWORK,
    }
}

/// A path's file name (a step's name starts with its file's path).
fn file_name(path: &str) -> String {
    std::path::Path::new(path)
        .file_name()
        .map_or_else(|| path.to_owned(), |f| f.to_string_lossy().into_owned())
}

/// What a result ran, for the series' heading.
pub(super) fn name(r: &ResultFile) -> String {
    match r {
        ResultFile::Run(f) => {
            let mut steps: Vec<String> = Vec::new();
            for run in &f.runs {
                let step = match run.name.rsplit_once(" #") {
                    Some((path, rest)) => format!("{} #{rest}", file_name(path)),
                    None => run.name.clone(),
                };
                if !steps.contains(&step) {
                    steps.push(step);
                }
            }
            steps.join(", ")
        }
        ResultFile::Network(n) => file_name(&n.report.source),
        ResultFile::SweepRun(s) => format!("sweep run, {}", counted(s.rows.len(), "point")),
        ResultFile::SweepNetwork(s) => {
            format!("sweep network, {}", counted(s.rows.len(), "point"))
        }
    }
}

fn median(mut v: Vec<u64>) -> Option<u64> {
    v.sort_unstable();
    v.get(v.len().saturating_sub(1) / 2).copied()
}

fn ms(v: Option<u64>) -> Option<f64> {
    v.map(|v| v as f64)
}

fn run_label(r: &RunSweepRow) -> String {
    format!(
        "{} vals {} cores {} {}",
        r.n_validators, r.n_cores, r.layout, r.schedule
    )
}

fn network_label(r: &SweepRow) -> String {
    format!(
        "{} vals {} cores no-show {} slow {}",
        r.n_validators, r.n_cores, r.no_show_fraction, r.slow_fraction
    )
}

/// The node's CPU ÷ its layout's floor, where the run measured a floor
/// (not with `--floor off`, nor where the floor's CPU is 0): a ratio the
/// run did not produce is no figure ("-"), never 0.
fn floor_ratio(run: &crate::RunReport) -> Option<f64> {
    let f = &run.crypto_floor;
    let floor = if run.batches_signatures() {
        f.batched_cpu_s
    } else {
        f.cpu_s
    };
    let ratio = run.floor_ratio();
    (f.mode != "off" && floor > 0.0 && ratio > 0.0).then_some(ratio)
}

/// The headline figures of a result, a line per layout or grid point.
pub(super) fn of(r: &ResultFile) -> Vec<Figures> {
    match r {
        ResultFile::Run(f) => f
            .runs
            .iter()
            .map(|run| {
                let blocks = f64::from(run.num_blocks.max(1));
                let approved = run.blocks.iter().filter_map(|b| b.approved_after_ms);
                let bytes = run.network.received_bytes + run.network.sent_bytes;
                Figures {
                    label: run.layout(),
                    values: vec![
                        ms(median(approved.clone().collect())),
                        ms(approved.max()),
                        Some(run.node_cpu_s / blocks),
                        floor_ratio(run),
                        Some(bytes as f64 / 1024.0 / blocks),
                    ],
                }
            })
            .collect(),
        ResultFile::Network(n) => {
            let n = &n.report;
            vec![Figures {
                label: "network".into(),
                values: vec![
                    ms(median(n.blocks.iter().filter_map(|b| b.p50_ms).collect())),
                    ms(n.blocks.iter().filter_map(|b| b.p99_ms).max()),
                    Some(crate::compare::network::cpu_per_delivery_us(n)),
                    Some(n.bytes_out.p50 as f64 / 1024.0),
                ],
            }]
        }
        ResultFile::SweepRun(s) => s
            .rows
            .iter()
            .map(|r| Figures {
                label: run_label(r),
                values: vec![
                    ms(r.max_approval_ms),
                    Some(r.node_cpu_per_block_s),
                    (r.floor_per_block_s > 0.0 && r.node_ratio > 0.0).then_some(r.node_ratio),
                ],
            })
            .collect(),
        ResultFile::SweepNetwork(s) => s
            .rows
            .iter()
            .map(|r| Figures {
                label: network_label(r),
                values: vec![
                    ms(r.p50_ms),
                    ms(r.p99_ms),
                    Some(r.bytes_out_p50 as f64 / 1024.0),
                ],
            })
            .collect(),
    }
}

/// A figure that must not change, as `compare` judges exact figures.
fn exact(run: &str, figure: &str, b: String, c: String) -> crate::compare::Row {
    let current = [(figure.to_owned(), c)];
    valued_row(run, figure.to_owned(), b, &current, |same| {
        if same {
            Verdict::Same
        } else {
            Verdict::Regression
        }
    })
}

/// The row of a CPU figure `name` of a grid point, judged within the
/// tolerance.
fn cpu(point: &str, name: &str, b: f64, c: f64, policy: &CpuPolicy) -> crate::compare::Row {
    let figure = |value| CpuFigure {
        name: name.to_owned(),
        value,
        spread: None,
        judged: Judged::Node,
        digits: 4,
    };
    cpu_row(point, figure(b), &figure(c), policy)
}

/// An approval time as the rows show it.
fn show(v: Option<u64>) -> String {
    v.map_or_else(|| "never".to_owned(), |v| v.to_string())
}

/// Rows of two sweeps matched by their grid point; a point of one sweep
/// only is listed, not failed, as a run of one file only is to `compare`.
fn matched<R>(
    b: &SweepFile<R>,
    c: &SweepFile<R>,
    label: fn(&R) -> String,
    judge: impl Fn(&str, &R, &R) -> Vec<crate::compare::Row>,
) -> Comparison {
    let mut rows = Vec::new();
    let mut missing_runs = Vec::new();
    for br in &b.rows {
        let point = label(br);
        match c.rows.iter().find(|cr| label(cr) == point) {
            Some(cr) => rows.extend(judge(&point, br, cr)),
            None => missing_runs.push(point),
        }
    }
    let new_runs = c
        .rows
        .iter()
        .map(label)
        .filter(|p| !b.rows.iter().any(|br| label(br) == *p))
        .collect();
    Comparison {
        rows,
        new_runs,
        missing_runs,
    }
}

/// A step of a sweep of runs: the slowest approval exactly (under the
/// virtual clock, the sweep's default), node CPU within the tolerance.
pub(super) fn sweep_run(
    b: &SweepFile<RunSweepRow>,
    c: &SweepFile<RunSweepRow>,
    policy: &CpuPolicy,
) -> Comparison {
    let virtual_clock =
        |f: &SweepFile<RunSweepRow>| f.meta.config.iter().any(|l| l == "clock: virtual");
    let exact_times = virtual_clock(b) && virtual_clock(c);
    matched(b, c, run_label, |point, br, cr| {
        let mut rows = Vec::new();
        if exact_times {
            let (bv, cv) = (show(br.max_approval_ms), show(cr.max_approval_ms));
            rows.push(exact(point, "slowest approval, ms", bv, cv));
        }
        let (bv, cv) = (br.node_cpu_per_block_s, cr.node_cpu_per_block_s);
        rows.push(cpu(point, "node CPU, s per block", bv, cv, policy));
        rows
    })
}

/// A step of a sweep of networks: every figure of a row is exact (the
/// simulation is deterministic for a seed), its CPU within the tolerance.
pub(super) fn sweep_network(
    b: &SweepFile<SweepRow>,
    c: &SweepFile<SweepRow>,
    policy: &CpuPolicy,
) -> Comparison {
    matched(b, c, network_label, |point, br, cr| {
        let mut rows = vec![
            exact(point, "approval p50, ms", show(br.p50_ms), show(cr.p50_ms)),
            exact(point, "approval p99, ms", show(br.p99_ms), show(cr.p99_ms)),
            exact(point, "approval max, ms", show(br.max_ms), show(cr.max_ms)),
            exact(
                point,
                "bytes out p50",
                br.bytes_out_p50.to_string(),
                cr.bytes_out_p50.to_string(),
            ),
        ];
        rows.push(cpu(point, "simulator CPU, s", br.cpu_s, cr.cpu_s, policy));
        rows
    })
}
