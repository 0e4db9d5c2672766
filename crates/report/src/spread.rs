//! The spread and unit vocabulary every renderer of a run shares, at the
//! bottom of the report: how a figure is printed ([`Unit`], one rule per
//! unit), a figure's median and range over `--repeat` runs ([`Spread`])
//! and the table lines of them ([`render_spread`]), and the run's
//! deterministic figures by name ([`exact_figures`]: what the repeats of a
//! run must agree on and `compare` judges exactly). The terminal table,
//! the HTML page, `compare`, `history`, the sweeps and `repeat` each take
//! these from here, none from another.

use crate::network::{BlockSummary, SimulationReport};
use crate::RunReport;

use std::fmt::Write as _;

/// How a figure is printed: one rule per unit, in every row.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) enum Unit {
    Count,
    Ms,
    KiB,
    MiB,
    Micros,
    Seconds,
    Ratio,
}

impl Unit {
    /// Decimals of a figure (`per_block`: a run total ÷ its blocks).
    fn digits(self, per_block: bool) -> usize {
        match self {
            Unit::Count => usize::from(per_block),
            Unit::Ms => 0,
            Unit::KiB | Unit::MiB | Unit::Micros => 1,
            Unit::Seconds => 4,
            Unit::Ratio => 2,
        }
    }

    pub(crate) fn show(self, v: f64, per_block: bool) -> String {
        format!("{v:.*}", self.digits(per_block))
    }
}

pub use tranche_results::spread::Spread;

/// The lines of the table of a step run with `--repeat`: for each layout
/// one line per figure, its median, min and max over the measured runs
/// (per block for CPU) in columns of their own, apart from the labels;
/// empty for single runs.
pub fn render_spread(runs: &[RunReport]) -> String {
    let mut s = String::new();
    for r in runs {
        let Some(rep) = &r.repeats else { continue };
        let blocks = f64::from(r.num_blocks.max(1));
        let _ = writeln!(
            s,
            "{} over {} (after {} warm-up), median and range:",
            r.layout(),
            tranche_cli::text::counted(rep.runs, "run"),
            rep.warmup
        );
        let (read, other) = if r.batches_signatures() {
            (
                ("batched", rep.node_ratio_batched),
                ("one-by-one", rep.node_ratio),
            )
        } else {
            (
                ("one-by-one", rep.node_ratio),
                ("batched", rep.node_ratio_batched),
            )
        };
        let read_label = format!("node ÷ {} floor (read this)", read.0);
        let other_label = format!("node ÷ {} floor", other.0);
        let lines: [(&str, Spread, Unit); 6] = [
            (
                "node CPU per block, s",
                rep.node_cpu_s.per(blocks),
                Unit::Seconds,
            ),
            (
                "crypto floor per block, s",
                rep.floor_cpu_s.per(blocks),
                Unit::Seconds,
            ),
            (
                "crypto floor, batched signatures, per block, s",
                rep.batched_floor_cpu_s.per(blocks),
                Unit::Seconds,
            ),
            (&read_label, read.1, Unit::Ratio),
            (&other_label, other.1, Unit::Ratio),
            ("wall time, s", rep.wall_time_s, Unit::Seconds),
        ];
        // The labels in a column of their own, as wide as the widest.
        let width = lines.iter().map(|l| l.0.chars().count()).max().unwrap_or(0) + 2;
        let _ = writeln!(
            s,
            "  {:<width$}{:>10}{:>10}{:>10}",
            "figure", "median", "min", "max"
        );
        for (what, x, unit) in lines {
            // Without a floor (`--floor off`) its rows and ratios are `-`.
            let shown = |v: f64| {
                if !r.has_floor() && what.contains("floor") {
                    "-".to_owned()
                } else {
                    unit.show(v, false)
                }
            };
            let _ = writeln!(
                s,
                "  {what:<width$}{:>10}{:>10}{:>10}",
                shown(x.median),
                shown(x.min),
                shown(x.max)
            );
        }
    }
    s
}

/// A report whose deterministic figures are listed by name: a run of the
/// node under test, a simulation.
pub(crate) trait Exact {
    fn exact_figures(&self) -> Vec<(String, String)>;
}

/// Every deterministic figure of a report, by name: what the repeats of a
/// run must agree on and `compare` judges exactly.
pub(crate) fn exact_figures(r: &impl Exact) -> Vec<(String, String)> {
    r.exact_figures()
}

impl Exact for RunReport {
    fn exact_figures(&self) -> Vec<(String, String)> {
        run_figures(self)
    }
}

impl Exact for SimulationReport {
    fn exact_figures(&self) -> Vec<(String, String)> {
        network_figures(self)
    }
}

/// Every deterministic figure of a run, by name.
fn run_figures(r: &RunReport) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = Vec::new();
    let mut put = |name: &str, value: String| v.push((name.to_owned(), value));
    put("seed", r.seed.to_string());
    put("validators", r.n_validators.to_string());
    put("cores", r.n_cores.to_string());
    put("blocks", r.num_blocks.to_string());
    for b in &r.blocks {
        put(
            &format!("block {} approved, ms after slot start", b.number),
            b.approved_after_ms
                .map_or_else(|| "never".to_owned(), |t| t.to_string()),
        );
    }
    put("bytes received", r.network.received_bytes.to_string());
    put("bytes sent", r.network.sent_bytes.to_string());
    let c = &r.counts;
    put("unique messages from peers", c.unique_messages.to_string());
    put("deliveries to the node", c.deliveries.to_string());
    put("lost by the network", c.lost.to_string());
    put("withheld approvals", c.withheld_approvals.to_string());
    put(
        "notifications sent by the node",
        c.messages_from_node.to_string(),
    );
    put(
        "signature and certificate checks",
        c.verifications.to_string(),
    );
    put(
        "crypto floor assignments",
        r.crypto_floor.assignments.to_string(),
    );
    put(
        "crypto floor approvals",
        r.crypto_floor.approvals.to_string(),
    );
    let f = &r.crypto_floor;
    put("crypto floor mode", f.mode.clone());
    put(
        "crypto floor messages verified",
        format!("{} of {}", f.sampled_messages(), f.population_messages()),
    );
    let p = &r.protocol;
    put("imported candidates", p.imported_candidates.to_string());
    for (kind, n) in &p.assignments_imported {
        put(&format!("assignments imported ({kind})"), n.to_string());
    }
    put("approvals imported", p.approvals_imported.to_string());
    put("candidates approved", p.candidates_approved.to_string());
    put("approved by one third", p.approved_by_one_third.to_string());
    put("no-shows tolerated", p.no_shows.to_string());
    put("no-shows observed", p.observed_no_shows.to_string());
    for (kind, n) in &p.reputation_changes {
        put(&format!("reputation changes ({kind})"), n.to_string());
    }
    v
}
/// Every exact figure of one block, by name.
fn block_figures(b: &BlockSummary) -> Vec<(String, String)> {
    let ms = |v: Option<u64>| v.map_or_else(|| "never".to_owned(), |v| v.to_string());
    let n = b.number;
    vec![
        (
            format!("block {n} approved by"),
            format!("{} of {}", b.approved, b.expected),
        ),
        (format!("block {n} approval min, ms"), ms(b.min_ms)),
        (format!("block {n} approval p50, ms"), ms(b.p50_ms)),
        (format!("block {n} approval p99, ms"), ms(b.p99_ms)),
        (format!("block {n} approval max, ms"), ms(b.max_ms)),
        (
            format!("block {n} assignments triggered"),
            b.assignments.to_string(),
        ),
        (format!("block {n} approvals sent"), b.approvals.to_string()),
        (
            format!("block {n} highest tranche"),
            b.max_tranche.to_string(),
        ),
        (
            format!("block {n} no-shows seen"),
            b.no_shows_sum.to_string(),
        ),
        (
            format!("block {n} finalized by"),
            b.finalized
                .map_or_else(|| "-".to_owned(), |f| f.to_string()),
        ),
    ]
}

/// Every exact figure of a simulation's report, by name.
fn network_figures(r: &SimulationReport) -> Vec<(String, String)> {
    let mut v = vec![
        ("validators".to_owned(), r.n_validators.to_string()),
        ("cores".to_owned(), r.n_cores.to_string()),
        ("blocks".to_owned(), r.blocks.len().to_string()),
    ];
    v.extend(r.blocks.iter().flat_map(block_figures));
    v.extend([
        ("bytes out, total".to_owned(), r.bytes_out.total.to_string()),
        ("bytes in, total".to_owned(), r.bytes_in.total.to_string()),
        ("bytes out, p50".to_owned(), r.bytes_out.p50.to_string()),
        (
            "aggression events".to_owned(),
            r.aggression_events.to_string(),
        ),
        ("all approved".to_owned(), r.all_approved.to_string()),
    ]);
    v
}
