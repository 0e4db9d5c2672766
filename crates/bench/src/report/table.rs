//! The terminal table of one step's runs: with `--architecture both` the
//! two layouts side by side with ratios. One section per concern:
//! approval times, network, CPU, messages, the run itself.

use super::{Counts, RunReport};
use std::fmt::Write as _;

const W: usize = 44;

/// One message count of a run.
type CountOf = fn(&Counts) -> u64;

fn ms(v: Option<u64>) -> String {
    v.map(|m| format!("{m}"))
        .unwrap_or_else(|| "not approved".into())
}

/// The text being built and the runs it shows.
struct Table<'a> {
    runs: &'a [RunReport],
    heads: Vec<String>,
    /// Two runs: a ratio column (second ÷ first).
    ratio: bool,
    out: String,
}

impl Table<'_> {
    fn row(&mut self, name: &str, vals: Vec<String>, r: Option<String>) {
        let _ = write!(self.out, "{name:<W$}");
        for v in vals {
            let _ = write!(self.out, "{v:>16}");
        }
        if let Some(r) = r {
            let _ = write!(self.out, "{r:>10}");
        }
        self.out.push('\n');
    }

    fn header(&mut self, title: &str) {
        self.out.push('\n');
        let heads = self.heads.clone();
        let ratio = self.ratio.then(|| "ratio".to_owned());
        self.row(title, heads, ratio);
    }

    /// The ratio of the last run's figure to the first's, with two runs.
    fn ratio_of(&self, values: &[f64]) -> Option<String> {
        let (a, b) = (values[0], *values.last().expect("at least one run"));
        self.ratio.then(|| {
            if a > 0.0 {
                format!("{:.2}", b / a)
            } else {
                "-".into()
            }
        })
    }

    /// One row of a figure per run, formatted by `show`, with its ratio.
    fn figure(&mut self, name: &str, values: Vec<f64>, show: fn(f64) -> String, ratio: bool) {
        let r = if ratio { self.ratio_of(&values) } else { None };
        self.row(name, values.into_iter().map(show).collect(), r);
    }

    fn approval(&mut self) {
        self.header("Approval, ms after slot start");
        let first = &self.runs[0];
        for (i, b) in first.blocks.iter().enumerate() {
            let vals = self
                .runs
                .iter()
                .map(|r| ms(r.blocks.get(i).and_then(|x| x.approved_after_ms)))
                .collect();
            self.row(&format!("block {}", b.number), vals, None);
        }
    }

    fn network(&mut self) {
        self.header("Network, KiB per block");
        let kib = |v: f64| format!("{v:.2}");
        let rx = self.per_run(|r| r.network.received_kib_per_block);
        self.figure("received from peers", rx, kib, true);
        let tx = self.per_run(|r| r.network.sent_kib_per_block);
        self.figure("sent to peers", tx, kib, true);
        let total = self.per_run(|r| (r.network.received_bytes + r.network.sent_bytes) as f64);
        self.figure(
            "total KiB in + out",
            total,
            |b| format!("{:.1}", b / 1024.0),
            false,
        );
    }

    fn cpu(&mut self) {
        self.header("CPU, seconds per block");
        let mut names: Vec<String> = Vec::new();
        for r in self.runs {
            for c in &r.cpu {
                if !names.contains(&c.name) {
                    names.push(c.name.clone());
                }
            }
        }
        for name in &names {
            let shown = self
                .runs
                .iter()
                .map(|r| {
                    r.cpu
                        .iter()
                        .find(|c| &c.name == name)
                        .map(|c| format!("{:.4}", c.per_block_s))
                        .unwrap_or_else(|| "-".into())
                })
                .collect();
            self.row(name, shown, None);
        }
        let node = self.per_run(|r| r.node_cpu_s / f64::from(r.num_blocks.max(1)));
        self.figure("node total", node, |v| format!("{v:.4}"), true);
        let floor = self.per_run(|r| r.crypto_floor.per_block_s);
        self.figure(
            "crypto floor (1 thread, after the run)",
            floor,
            |v| format!("{v:.4}"),
            false,
        );
        let ratio = self.per_run(|r| r.crypto_floor.node_ratio);
        self.figure(
            "node total / crypto floor",
            ratio,
            |v| format!("{v:.2}"),
            false,
        );
    }

    fn messages(&mut self) {
        self.header("Messages");
        let rows: [(&str, CountOf); 6] = [
            ("unique messages from peers", |c| c.unique_messages),
            ("deliveries to the node", |c| c.deliveries),
            ("lost by the network", |c| c.lost),
            ("withheld approvals (no-shows)", |c| c.withheld_approvals),
            ("notifications sent by the node", |c| c.messages_from_node),
            ("signature and certificate checks", |c| c.verifications),
        ];
        for (name, f) in rows {
            let vals = self.runs.iter().map(|r| f(&r.counts).to_string()).collect();
            self.row(name, vals, None);
        }
    }

    fn run(&mut self) {
        self.header("Run");
        let wall = self.per_run(|r| r.wall_time_s);
        self.figure("wall time, s", wall, |v| format!("{v:.2}"), false);
        let peak = self.per_run(|r| r.peak_memory_bytes as f64);
        self.figure(
            "peak memory, MiB",
            peak,
            |b| format!("{:.1}", b / 1048576.0),
            false,
        );
        let g = &self.runs[0].generation;
        let _ = writeln!(
            self.out,
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
    }

    fn per_run(&self, f: impl Fn(&RunReport) -> f64) -> Vec<f64> {
        self.runs.iter().map(f).collect()
    }
}

/// Render one or more runs as text; with two runs, a ratio column.
pub fn render(runs: &[RunReport]) -> String {
    let Some(first) = runs.first() else {
        return String::new();
    };
    let mut t = Table {
        runs,
        heads: runs.iter().map(RunReport::layout).collect(),
        ratio: runs.len() == 2,
        out: String::new(),
    };
    let _ = writeln!(
        t.out,
        "{} — {} validators, {} cores, {} blocks, clock {}, seed {}",
        first.name, first.n_validators, first.n_cores, first.num_blocks, first.clock, first.seed
    );
    t.approval();
    t.network();
    t.cpu();
    t.messages();
    t.run();
    t.out
}
