//! The terminal table of one step's runs, laid out as upstream's
//! (`polkadot/node/subsystem-bench/src/lib/display.rs`, `.../usage.rs`):
//! the headline first (per layout: approval time p50 and max, node CPU per
//! block, node CPU ÷ the crypto floor the layout is judged by), then every
//! figure as the run's total and per block (the total ÷ the run's blocks,
//! one meaning everywhere), side by side for each layout, and with two
//! runs a ratio column (second ÷ first, e.g. "parallel ÷ classic") on
//! every row the two runs share — on the headline, the two layouts' own
//! ratios. Each row's label carries its unit; the column says its basis
//! (run total, per block, ms after the slot start, count). One section per
//! concern: the headline, approval times (and why blocks were approved
//! when they were, and the candidates that stalled), network, CPU (the
//! node's total first), the node's CPU ÷ the crypto floor, messages, the
//! database and the checks, the run itself, the `--repeat` spread; a
//! legend under the table (`legend`) says what `other`, `test-environment`,
//! the crypto floor (its interval per layout), per block and the ratios
//! are, how figures are rounded, which figures vary with thread timing
//! (`~`, `crate::timing`) and what noise the figures carry.
//!
//! Rounding, one rule per unit (`crate::spread::Unit`): counts and milliseconds as
//! integers (a count per block to one decimal), KiB, MiB and µs to one
//! decimal, seconds to four, ratios to two.

mod legend;
mod small;

pub(crate) use legend::wrap;

use super::{Counts, RunReport};
use crate::network::percentile;
use crate::spread::Unit;
use crate::timing::is_timing_dependent;
use std::fmt::Write as _;
use tranche_cli::text::counted;

/// Width of the label column.
const LABEL: usize = 48;
/// Width of a figure column.
const CELL: usize = 13;
/// Width of the ratio column.
const RATIO: usize = 20;

/// One message count of a run.
type CountOf = fn(&Counts) -> u64;
/// Whether a run produced a figure (`-` in its column where not).
type Produced = fn(&RunReport) -> bool;

/// Which columns a row fills.
#[derive(Clone, Copy, PartialEq)]
enum Basis {
    /// A run total, and the same divided by the run's blocks.
    Both,
    /// A figure of the whole run (wall time, memory, a ratio): the total
    /// column only.
    Total,
}

/// A row's label, marked `~` when its figure (the JSON path `path`) varies
/// with thread timing even under the virtual clock.
fn marked(label: &str, path: &str) -> String {
    if is_timing_dependent(path) {
        format!("{label} ~")
    } else {
        label.to_owned()
    }
}

/// The text being built and the runs it shows.
struct Table<'a> {
    runs: &'a [RunReport],
    /// Two runs: a ratio column (second ÷ first).
    ratio: Option<String>,
    out: String,
}

/// The ratio `b / a` as the table shows it.
fn ratio(a: f64, b: f64) -> String {
    if a == b {
        "1.00".into()
    } else if a > 0.0 {
        format!("{:.2}", b / a)
    } else {
        "-".into()
    }
}

/// Approval times of a run's approved blocks, sorted, and whether some
/// block was never approved.
fn approval_times(r: &RunReport) -> (Vec<u64>, bool) {
    let mut v: Vec<u64> = r
        .blocks
        .iter()
        .filter_map(|b| b.approved_after_ms)
        .collect();
    v.sort_unstable();
    let never = v.len() < r.blocks.len();
    (v, never)
}

impl Table<'_> {
    fn line(&mut self, label: &str, cells: &[String], r: Option<&str>) {
        let _ = write!(self.out, "{label:<LABEL$}");
        for c in cells {
            let _ = write!(self.out, "{c:>CELL$}");
        }
        if let Some(r) = r {
            let _ = write!(self.out, "{r:>RATIO$}");
        }
        let end = self.out.trim_end_matches(' ').len();
        self.out.truncate(end);
        self.out.push('\n');
    }

    /// A section's title with the columns: each run's layout above its
    /// two columns, then the basis of each column.
    fn header(&mut self, title: &str) {
        self.header_with(title, ["total", "per block"]);
    }

    /// A section's header with the two columns of each run named `bases`
    /// (no second line where both are empty), and the ratio column's.
    fn header_with(&mut self, title: &str, bases: [&str; 2]) {
        let r = self.ratio.clone();
        self.header_of(title, bases, r.as_deref());
    }

    /// A section's header; `ratio`: the ratio column's heading, if any.
    /// A title as wide as the labels or wider has a line of its own, so
    /// the columns stay where they are.
    fn header_of(&mut self, title: &str, bases: [&str; 2], ratio: Option<&str>) {
        self.out.push('\n');
        let layouts: Vec<String> = self
            .runs
            .iter()
            .flat_map(|r| [r.layout(), String::new()])
            .collect();
        if title.chars().count() >= LABEL {
            self.out.push_str(title);
            self.out.push('\n');
            self.line("", &layouts, ratio);
        } else {
            self.line(title, &layouts, ratio);
        }
        if bases.iter().any(|b| !b.is_empty()) {
            let bases: Vec<String> = self
                .runs
                .iter()
                .flat_map(|_| bases.map(str::to_owned))
                .collect();
            self.line("", &bases, None);
        }
    }

    /// The ratio cell of two runs' figures (`None`: `-`).
    fn ratio_of(&self, a: Option<f64>, b: Option<f64>) -> Option<String> {
        self.ratio.as_ref().map(|_| match (a, b) {
            (Some(a), Some(b)) => ratio(a, b),
            _ => "-".into(),
        })
    }

    /// One row: `values[i]` is run `i`'s figure (its total for
    /// [`Basis::Both`]), `None` where the run has no such figure.
    fn row(&mut self, label: &str, basis: Basis, values: &[Option<f64>], unit: Unit) {
        let mut cells = Vec::new();
        let mut compared = Vec::new();
        for (run, v) in self.runs.iter().zip(values) {
            let blocks = f64::from(run.num_blocks.max(1));
            let (total, per_block) = match basis {
                Basis::Both => (*v, v.map(|v| v / blocks)),
                Basis::Total => (*v, None),
            };
            let dash =
                |x: Option<f64>, per: bool| x.map_or_else(|| "-".into(), |x| unit.show(x, per));
            cells.push(dash(total, false));
            cells.push(match basis {
                Basis::Both => dash(per_block, true),
                Basis::Total => String::new(),
            });
            compared.push(per_block.or(total));
        }
        let r = match compared.as_slice() {
            [a, b] => self.ratio_of(*a, *b),
            _ => self.ratio_of(None, None),
        };
        self.line(label, &cells, r.as_deref());
    }

    /// A row of one cell per run in its second column (`cells[i]`), with
    /// the ratio of `values`.
    fn single(&mut self, label: &str, cells: Vec<String>, values: &[Option<f64>]) {
        let cells: Vec<String> = cells.into_iter().flat_map(|c| [String::new(), c]).collect();
        let r = match values {
            [a, b] => self.ratio_of(*a, *b),
            _ => self.ratio_of(None, None),
        };
        self.line(label, &cells, r.as_deref());
    }

    fn per_run(&self, f: impl Fn(&RunReport) -> f64) -> Vec<Option<f64>> {
        self.runs.iter().map(|r| Some(f(r))).collect()
    }

    /// A floor figure per run, `None` where no floor was measured
    /// (`--floor off`).
    fn with_floor(&self, f: impl Fn(&RunReport) -> f64) -> Vec<Option<f64>> {
        self.runs
            .iter()
            .map(|r| r.has_floor().then(|| f(r)))
            .collect()
    }

    /// The figures to read first, per layout: approval time p50 and max
    /// over the blocks, node CPU per block, node CPU ÷ the floor the
    /// layout is judged by; the ratio column compares those.
    fn headline(&mut self) {
        let title = match self.runs.iter().find_map(|r| r.repeats.as_ref()) {
            Some(rep) => format!("Headline (CPU: medians of {} runs)", rep.runs),
            None => "Headline".to_owned(),
        };
        self.header_with(&title, ["", ""]);
        let ms = |v: Option<u64>| v.map_or_else(|| "never".to_owned(), |v| v.to_string());
        let p50: Vec<Option<u64>> = self
            .runs
            .iter()
            .map(|r| percentile(&approval_times(r).0, 50.0))
            .collect();
        let max: Vec<Option<u64>> = self
            .runs
            .iter()
            .map(|r| match approval_times(r) {
                (_, true) => None,
                (v, false) => v.last().copied(),
            })
            .collect();
        let f = |v: &[Option<u64>]| v.iter().map(|x| x.map(|x| x as f64)).collect::<Vec<_>>();
        self.single(
            "approval p50 over blocks, ms after slot start",
            p50.iter().map(|v| ms(*v)).collect(),
            &f(&p50),
        );
        self.single(
            "approval max over blocks, ms after slot start",
            max.iter().map(|v| ms(*v)).collect(),
            &f(&max),
        );
        let cpu: Vec<Option<f64>> = self.per_run(|r| r.node_cpu_s / f64::from(r.num_blocks.max(1)));
        self.single(
            "node CPU per block, s",
            cpu.iter()
                .map(|v| Unit::Seconds.show(v.unwrap_or(0.0), true))
                .collect(),
            &cpu,
        );
        let own: Vec<Option<f64>> = self.runs.iter().map(RunReport::own_floor_ratio).collect();
        self.single(
            "node CPU ÷ its own crypto floor (*)",
            own.iter()
                .map(|v| {
                    v.map_or_else(
                        || "-".into(),
                        |v| format!("{}*", Unit::Ratio.show(v, false)),
                    )
                })
                .collect(),
            &own,
        );
        let kinds: Vec<String> = self
            .runs
            .iter()
            .map(|r| {
                if !r.has_floor() {
                    "-"
                } else if r.batches_signatures() {
                    "batched"
                } else {
                    "one-by-one"
                }
                .to_owned()
            })
            .collect();
        self.single("  its floor: signatures checked", kinds, &[]);
    }

    fn approval(&mut self) {
        self.header_with("Approval", ["", "ms after slot"]);
        let first = &self.runs[0];
        for (i, b) in first.blocks.iter().enumerate() {
            let vals = crate::block_approval_ms(self.runs.iter(), i);
            // A block never approved reads so, not as a blank.
            let cells = vals
                .iter()
                .map(|v| v.map_or_else(|| "never".to_owned(), |m| Unit::Ms.show(m, false)))
                .collect();
            self.single(&format!("block {} approved", b.number), cells, &vals);
        }
        self.why();
        for r in self.runs {
            for st in &r.stalls {
                let _ = writeln!(
                    self.out,
                    "stalled ({}): {}",
                    r.layout(),
                    crate::describe_stall(st)
                );
            }
        }
    }

    /// What approved the run's candidates (the protocol's counters), and
    /// a line per layout where a block was approved early or late.
    fn why(&mut self) {
        self.header_with("Why (the run's candidates)", ["", "count"]);
        type Of = fn(&RunReport) -> u64;
        let rows: [(&str, Of); 4] = [
            ("candidates approved", |r| r.protocol.candidates_approved),
            ("  of those, by the one-third rule", |r| {
                r.protocol.approved_by_one_third
            }),
            ("no-shows observed (at any evaluation)", |r| {
                r.protocol.observed_no_shows
            }),
            ("no-shows tolerated (covered) at approval", |r| {
                r.protocol.no_shows
            }),
        ];
        for (label, of) in rows {
            // The model and Polkadot's node keep no protocol counters: `-`, not 0.
            let vals: Vec<Option<f64>> = self
                .runs
                .iter()
                .map(|r| r.keeps_counters().then(|| of(r) as f64))
                .collect();
            let cells = vals
                .iter()
                .map(|v| v.map_or_else(|| "-".into(), |v| format!("{v:.0}")))
                .collect();
            self.single(label, cells, &vals);
        }
        let lines = legend::why_lines(self.runs);
        self.out.push_str(&lines);
    }

    fn network(&mut self) {
        self.header("Network (SCALE-encoded messages, no framing)");
        let kib = |b: u64| Some(b as f64 / 1024.0);
        let rx: Vec<_> = self
            .runs
            .iter()
            .map(|r| kib(r.network.received_bytes))
            .collect();
        self.row("received from peers, KiB", Basis::Both, &rx, Unit::KiB);
        let tx: Vec<_> = self
            .runs
            .iter()
            .map(|r| kib(r.network.sent_bytes))
            .collect();
        self.row("sent to peers, KiB", Basis::Both, &tx, Unit::KiB);
        let total: Vec<_> = self
            .runs
            .iter()
            .map(|r| kib(r.network.received_bytes + r.network.sent_bytes))
            .collect();
        self.row("received + sent, KiB", Basis::Both, &total, Unit::KiB);
    }

    fn cpu(&mut self) {
        let title = format!("CPU ({}{})", cpu_basis(self.runs), of_repeats(self.runs));
        self.header(&title);
        let s = Unit::Seconds;
        // The node first, then the floors it is judged by.
        let node = self.per_run(|r| r.node_cpu_s);
        self.row(
            "node total (all but test-environment), CPU s",
            Basis::Both,
            &node,
            s,
        );
        let floor = self.with_floor(|r| r.crypto_floor.cpu_s);
        self.row(
            "crypto floor, one-by-one signatures, CPU s",
            Basis::Both,
            &floor,
            s,
        );
        let batched = self.with_floor(|r| r.crypto_floor.batched_cpu_s);
        self.row(
            "crypto floor, batched signatures, CPU s",
            Basis::Both,
            &batched,
            s,
        );
        let mut names: Vec<String> = Vec::new();
        for r in self.runs {
            for c in &r.cpu {
                if !names.contains(&c.name) {
                    names.push(c.name.clone());
                }
            }
        }
        for name in &names {
            let vals: Vec<Option<f64>> = self
                .runs
                .iter()
                .map(|r| r.cpu.iter().find(|c| &c.name == name).map(|c| c.total_s))
                .collect();
            self.row(&format!("{name}, CPU s"), Basis::Both, &vals, s);
        }
        self.floor_ratios();
    }

    /// The node's CPU ÷ each floor, the one each layout is judged by
    /// marked `*`; no ratio column here: the headline compares the two
    /// layouts' own ratios.
    fn floor_ratios(&mut self) {
        // Of repeats, each run's ratio's median: not the medians' ratio.
        let title = match self.runs.iter().find_map(|r| r.repeats.as_ref()) {
            Some(rep) => format!(
                "Node CPU ÷ crypto floor (* its own; median of the {} runs' ratios)",
                rep.runs
            ),
            None => "Node CPU ÷ crypto floor (* its own)".to_owned(),
        };
        self.header_of(&title, ["", "ratio"], None);
        type Of = fn(&RunReport) -> f64;
        let rows: [(&str, Of, bool); 2] = [
            (
                "node total ÷ one-by-one floor",
                |r| r.crypto_floor.node_ratio,
                false,
            ),
            (
                "node total ÷ batched floor",
                |r| r.crypto_floor.node_ratio_batched,
                true,
            ),
        ];
        for (label, of, batched) in rows {
            let cells: Vec<String> = self
                .runs
                .iter()
                .flat_map(|r| {
                    let mark = if r.batches_signatures() == batched {
                        "*"
                    } else {
                        " "
                    };
                    let cell = if r.has_floor() {
                        format!("{}{mark}", Unit::Ratio.show(of(r), false))
                    } else {
                        "- ".into()
                    };
                    [String::new(), cell]
                })
                .collect();
            self.line(label, &cells, None);
        }
    }

    fn messages(&mut self) {
        self.header("Messages (count)");
        // Each count with whether a run produced it (`-` where not).
        let always = |_: &RunReport| true;
        let rows: [(&str, CountOf, Produced); 6] = [
            ("unique messages from peers", |c| c.unique_messages, always),
            ("deliveries to the node", |c| c.deliveries, always),
            ("lost by the network", |c| c.lost, always),
            (
                "withheld approvals (no-shows)",
                |c| c.withheld_approvals,
                always,
            ),
            (
                "notifications sent by the node",
                |c| c.messages_from_node,
                always,
            ),
            (
                "signature and certificate checks",
                |c| c.verifications,
                RunReport::counts_checks,
            ),
        ];
        for (name, f, counted) in rows {
            let vals: Vec<Option<f64>> = self
                .runs
                .iter()
                .map(|r| counted(r).then(|| f(&r.counts) as f64))
                .collect();
            self.row(name, Basis::Both, &vals, Unit::Count);
        }
        // Reputation changes by kind, those that happened in any run.
        let mut kinds: Vec<&String> = Vec::new();
        for r in self.runs {
            for (k, n) in &r.protocol.reputation_changes {
                if *n > 0 && !kinds.contains(&k) {
                    kinds.push(k);
                }
            }
        }
        kinds.sort();
        for kind in kinds {
            let vals = self.per_run(|r| {
                r.protocol
                    .reputation_changes
                    .get(kind)
                    .copied()
                    .unwrap_or(0) as f64
            });
            self.row(
                &format!("reputation: {kind}"),
                Basis::Both,
                &vals,
                Unit::Count,
            );
        }
    }

    /// The database's own share and where the checks ran
    /// (docs/durability.md; `checks` in the JSON).
    fn database_and_checks(&mut self) {
        self.header("Database and checks");
        // The model's node has no database (and Polkadot's none tranche reads): `-`, not 0.
        let db = |f: fn(&RunReport) -> f64| -> Vec<Option<f64>> {
            self.runs
                .iter()
                .map(|r| r.keeps_counters().then(|| f(r)))
                .collect()
        };
        // An in-memory database commits nothing: `-` there too.
        let commits: Vec<Option<f64>> = self
            .runs
            .iter()
            .map(|r| {
                r.database
                    .commits
                    .filter(|_| r.keeps_counters())
                    .map(|c| c as f64)
            })
            .collect();
        self.row(
            &marked("database commits", "database.commits"),
            Basis::Both,
            &commits,
            Unit::Count,
        );
        let cpu = db(|r| r.database.cpu_s);
        self.row(
            "database, CPU s (part of the voting thread's)",
            Basis::Both,
            &cpu,
            Unit::Seconds,
        );
        let floor: Vec<Option<f64>> = self
            .runs
            .iter()
            .map(|r| {
                let f = r.crypto_floor.cpu_s;
                (r.keeps_counters() && r.has_floor() && f > 0.0).then(|| r.database.cpu_s / f)
            })
            .collect();
        self.row("database ÷ crypto floor", Basis::Total, &floor, Unit::Ratio);
        let trip: Vec<Option<f64>> = self
            .runs
            .iter()
            .map(|r| (r.checks.round_trips > 0).then_some(r.checks.round_trip_us))
            .collect();
        if trip.iter().any(Option::is_some) {
            self.row(
                "round trip to voting per check, µs",
                Basis::Total,
                &trip,
                Unit::Micros,
            );
        }
        let ahead: Vec<Option<f64>> = self
            .runs
            .iter()
            .map(|r| (r.checks.checked_ahead > 0).then_some(r.checks.checked_ahead as f64))
            .collect();
        if ahead.iter().any(Option::is_some) {
            self.row(
                &marked("certificates checked back to back", "checks.checked_ahead"),
                Basis::Both,
                &ahead,
                Unit::Count,
            );
        }
    }

    fn run(&mut self) {
        let title = match self.runs.iter().find_map(|r| r.repeats.as_ref()) {
            Some(rep) => format!("Run (wall time: median of {} runs)", rep.runs),
            None => "Run".to_owned(),
        };
        self.header(&title);
        let wall = self.per_run(|r| r.wall_time_s);
        self.row("wall time, s", Basis::Total, &wall, Unit::Seconds);
        let peak = self.per_run(|r| r.peak_memory_bytes as f64 / 1048576.0);
        self.row(
            "peak resident memory during the run, MiB",
            Basis::Total,
            &peak,
            Unit::MiB,
        );
        for r in self.runs {
            if let Some(x) = &r.schedule {
                // A group without messages has no wait to show.
                let wait = |what: &str, p50: Option<f64>, p99: Option<f64>| match (p50, p99) {
                    (Some(p50), Some(p99)) => format!(" ({what}p50 {p50:.1} ms, p99 {p99:.1} ms)"),
                    _ => String::new(),
                };
                let _ = writeln!(
                    self.out,
                    "useful-first ({}) ~: {} taken ahead{}, {} in arrival order{}; longest backlog {}",
                    r.layout(),
                    counted(x.ahead_messages, "message"),
                    wait("receipt to handling ", x.ahead_p50_ms, x.ahead_p99_ms),
                    x.rest_messages,
                    wait("", x.rest_p50_ms, x.rest_p99_ms),
                    x.backlog_peak
                );
            }
            if let Some(x) = &r.restart {
                let _ = writeln!(
                    self.out,
                    "restart ({}): crashed at the start of block {}'s slot ({} s into the run), back in {:.0} ms, {} re-sent",
                    r.layout(),
                    x.block,
                    // The run starts at block 1's slot; a slot is 6 s.
                    u64::from(x.block.saturating_sub(1)) * 6,
                    x.recover_ms,
                    counted(x.resent_items, "own item")
                );
            }
        }
    }
}

/// What the CPU section's figures are: thread CPU time measured, or the
/// model's modelled time (exact), or both.
fn cpu_basis(runs: &[RunReport]) -> &'static str {
    if runs.iter().all(RunReport::is_model) {
        "modelled by the cost table, exact; the floors measured"
    } else if runs.iter().any(RunReport::is_model) {
        "thread CPU time; the model's modelled"
    } else {
        "thread CPU time"
    }
}

/// `, median of N runs` where the figures are medians of repeats.
fn of_repeats(runs: &[RunReport]) -> String {
    runs.iter()
        .find_map(|r| r.repeats.as_ref())
        .map_or(String::new(), |rep| {
            format!(", median of {} runs", rep.runs)
        })
}

/// Render one or more runs as text; with two runs, a ratio column.
pub fn render(runs: &[RunReport]) -> String {
    let Some(first) = runs.first() else {
        return String::new();
    };
    let ratio = match runs {
        [a, b] => Some(format!("{} ÷ {}", b.architecture, a.architecture)),
        _ => None,
    };
    let mut t = Table {
        runs,
        ratio,
        out: String::new(),
    };
    let _ = writeln!(
        t.out,
        "{} — {}, {}, {}, clock {}, seed {}",
        first.name,
        counted(first.n_validators, "validator"),
        counted(first.n_cores, "core"),
        counted(first.num_blocks, "block"),
        first.clock,
        first.seed
    );
    t.headline();
    t.approval();
    t.network();
    t.cpu();
    t.messages();
    t.database_and_checks();
    t.run();
    let spread = crate::spread::render_spread(runs);
    if !spread.is_empty() {
        t.out.push_str("\nSpread over the repeats\n");
        t.out.push_str(&spread);
    }
    t.out.push_str(&legend::legend(runs));
    t.out
}

/// A table of right-aligned columns, each as wide as its widest cell,
/// two spaces apart (the sweeps' tables): `headers`, then one line per row.
/// Every cell as a terminal may show it (a value from a file: a run's
/// name, a layout): control characters escaped, cut after 80 bytes with
/// its length, so a column is never wider than about 100 characters.
pub fn columns(headers: &[&str], rows: &[Vec<String>]) -> String {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(|c| tranche_cli::text::bare(c)).collect())
        .collect();
    let width = |c: usize| {
        rows.iter()
            .filter_map(|r| r.get(c))
            .map(|v| v.chars().count())
            .chain(std::iter::once(headers[c].chars().count()))
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..headers.len()).map(width).collect();
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:>w$}"))
            .collect();
        padded.join("  ") + "\n"
    };
    let mut out = line(headers.to_vec());
    for r in &rows {
        out += &line(r.iter().map(String::as_str).collect());
    }
    out
}

#[cfg(test)]
mod tests;
