//! The terminal table of one step's runs, laid out as upstream's
//! (`polkadot/node/subsystem-bench/src/lib/display.rs`, `.../usage.rs`):
//! every figure as the run's total and per block (the total ÷ the run's
//! blocks, one meaning everywhere), side by side for each layout, and with
//! two runs a ratio column (second ÷ first, e.g. "parallel ÷ classic") on
//! every row the two runs share. Each row's label carries its unit; the
//! column says its basis (run total, per block, or ratio). One section per
//! concern: approval times (and the candidates that stalled), network, CPU
//! (the node's total first), the node's CPU ÷ the crypto floor (the ratio
//! to read marked), messages, the run itself, the `--repeat` spread; a
//! legend under the table says what `other`, `test-environment`, the crypto
//! floor, per block and the ratios are, and what noise the figures carry.

use super::{Counts, RunReport};
use std::fmt::Write as _;

/// Width of the label column.
const LABEL: usize = 48;
/// Width of a figure column.
const CELL: usize = 13;
/// Width of the ratio column.
const RATIO: usize = 20;

/// One message count of a run.
type CountOf = fn(&Counts) -> u64;

/// Which columns a row fills.
#[derive(Clone, Copy, PartialEq)]
enum Basis {
    /// A run total, and the same divided by the run's blocks.
    Both,
    /// A figure of one block (approval times): the per-block column only.
    PerBlock,
    /// A figure of the whole run (wall time, memory, a ratio): the total
    /// column only.
    Total,
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

    /// A section's header with the two columns of each run named `bases`.
    fn header_with(&mut self, title: &str, bases: [&str; 2]) {
        self.out.push('\n');
        let layouts: Vec<String> = self
            .runs
            .iter()
            .flat_map(|r| [r.layout(), String::new()])
            .collect();
        let r = self.ratio.clone();
        self.line(title, &layouts, r.as_deref());
        let bases: Vec<String> = self
            .runs
            .iter()
            .flat_map(|_| bases.map(str::to_owned))
            .collect();
        self.line("", &bases, None);
    }

    /// One row: `values[i]` is run `i`'s figure (its total for
    /// [`Basis::Both`]), `None` where the run has no such figure.
    fn row(&mut self, label: &str, basis: Basis, values: &[Option<f64>], show: fn(f64) -> String) {
        let mut cells = Vec::new();
        let mut compared = Vec::new();
        for (run, v) in self.runs.iter().zip(values) {
            let blocks = f64::from(run.num_blocks.max(1));
            let (total, per_block) = match (basis, v) {
                (Basis::Both, Some(v)) => (Some(*v), Some(v / blocks)),
                (Basis::PerBlock, v) => (None, *v),
                (Basis::Total, v) => (*v, None),
                (Basis::Both, None) => (None, None),
            };
            let blank = |x: Option<f64>, applies: bool| match x {
                Some(x) => show(x),
                None if applies => "-".into(),
                None => String::new(),
            };
            cells.push(blank(total, basis != Basis::PerBlock));
            cells.push(blank(per_block, basis != Basis::Total));
            compared.push(per_block.or(total));
        }
        let r = self.ratio.as_ref().map(|_| match compared.as_slice() {
            [Some(a), Some(b)] => ratio(*a, *b),
            _ => "-".into(),
        });
        self.line(label, &cells, r.as_deref());
    }

    fn per_run(&self, f: impl Fn(&RunReport) -> f64) -> Vec<Option<f64>> {
        self.runs.iter().map(|r| Some(f(r))).collect()
    }

    fn approval(&mut self) {
        self.header("Approval");
        let first = &self.runs[0];
        for (i, b) in first.blocks.iter().enumerate() {
            let vals: Vec<Option<f64>> = self
                .runs
                .iter()
                .map(|r| {
                    r.blocks
                        .get(i)
                        .and_then(|x| x.approved_after_ms)
                        .map(|m| m as f64)
                })
                .collect();
            let label = format!("block {} approved, ms after slot start", b.number);
            // A block never approved reads so, not as a blank.
            let mut cells = Vec::new();
            for v in &vals {
                cells.push(String::new());
                cells.push(v.map_or_else(|| "never".to_owned(), |m| format!("{m:.0}")));
            }
            let r = self.ratio.as_ref().map(|_| match vals.as_slice() {
                [Some(a), Some(b)] => ratio(*a, *b),
                _ => "-".into(),
            });
            self.line(&label, &cells, r.as_deref());
        }
        for r in self.runs {
            for st in &r.stalls {
                let _ = writeln!(self.out, "stalled ({}): {}", r.layout(), st.describe());
            }
        }
    }

    fn network(&mut self) {
        self.header("Network (SCALE-encoded messages, no framing)");
        let kib = |v: f64| format!("{:.1}", v / 1024.0);
        let rx = self.per_run(|r| r.network.received_bytes as f64);
        self.row("received from peers, KiB", Basis::Both, &rx, kib);
        let tx = self.per_run(|r| r.network.sent_bytes as f64);
        self.row("sent to peers, KiB", Basis::Both, &tx, kib);
        let total = self.per_run(|r| (r.network.received_bytes + r.network.sent_bytes) as f64);
        self.row("received + sent, KiB", Basis::Both, &total, kib);
    }

    fn cpu(&mut self) {
        self.header("CPU (thread CPU time)");
        let s = |v: f64| format!("{v:.4}");
        // The headline first: the node, then the floors it is judged by.
        let node = self.per_run(|r| r.node_cpu_s);
        self.row(
            "node total (all but test-environment), CPU s",
            Basis::Both,
            &node,
            s,
        );
        let floor = self.per_run(|r| r.crypto_floor.cpu_s);
        self.row(
            "crypto floor, one-by-one signatures, CPU s",
            Basis::Both,
            &floor,
            s,
        );
        let batched = self.per_run(|r| r.crypto_floor.batched_cpu_s);
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

    /// The node's CPU ÷ each floor, in a column of ratios, the one each
    /// layout is judged by marked `*`.
    fn floor_ratios(&mut self) {
        self.header_with("Node CPU ÷ crypto floor (* read this one)", ["", "ratio"]);
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
            let mut cells = Vec::new();
            let mut vals = Vec::new();
            for r in self.runs {
                let v = of(r);
                let mark = if r.batches_signatures() == batched {
                    "*"
                } else {
                    " "
                };
                cells.push(String::new());
                cells.push(format!("{v:.2}{mark}"));
                vals.push(v);
            }
            let ratio_cell = self.ratio.as_ref().map(|_| match vals.as_slice() {
                [a, b] => ratio(*a, *b),
                _ => "-".into(),
            });
            self.line(label, &cells, ratio_cell.as_deref());
        }
    }

    fn messages(&mut self) {
        self.header("Messages (count)");
        let rows: [(&str, CountOf); 6] = [
            ("unique messages from peers", |c| c.unique_messages),
            ("deliveries to the node", |c| c.deliveries),
            ("lost by the network", |c| c.lost),
            ("withheld approvals (no-shows)", |c| c.withheld_approvals),
            ("notifications sent by the node", |c| c.messages_from_node),
            ("signature and certificate checks", |c| c.verifications),
        ];
        let count = |v: f64| {
            if v.fract() == 0.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.1}")
            }
        };
        for (name, f) in rows {
            let vals = self.per_run(|r| f(&r.counts) as f64);
            self.row(name, Basis::Both, &vals, count);
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
            self.row(&format!("reputation: {kind}"), Basis::Both, &vals, count);
        }
    }

    /// The database's own share and where the checks ran
    /// (docs/durability.md; `checks` in the JSON).
    fn database_and_checks(&mut self) {
        self.header("Database and checks");
        let commits = self.per_run(|r| r.database.commits as f64);
        self.row("database commits", Basis::Both, &commits, |v| {
            format!("{v:.1}")
        });
        let cpu = self.per_run(|r| r.database.cpu_s);
        self.row(
            "database, CPU s (part of the voting thread's)",
            Basis::Both,
            &cpu,
            |v| format!("{v:.4}"),
        );
        let floor = self.per_run(|r| {
            let f = r.crypto_floor.cpu_s;
            if f > 0.0 {
                r.database.cpu_s / f
            } else {
                0.0
            }
        });
        self.row("database ÷ crypto floor", Basis::Total, &floor, |v| {
            format!("{v:.3}")
        });
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
                |v| format!("{v:.1}"),
            );
        }
        let ahead: Vec<Option<f64>> = self
            .runs
            .iter()
            .map(|r| (r.checks.checked_ahead > 0).then_some(r.checks.checked_ahead as f64))
            .collect();
        if ahead.iter().any(Option::is_some) {
            self.row(
                "certificates checked back to back",
                Basis::Both,
                &ahead,
                |v| format!("{v:.0}"),
            );
        }
    }

    fn run(&mut self) {
        self.header("Run");
        let wall = self.per_run(|r| r.wall_time_s);
        self.row("wall time, s", Basis::Total, &wall, |v| format!("{v:.2}"));
        let peak = self.per_run(|r| r.peak_memory_bytes as f64);
        self.row(
            "peak resident memory during the run, MiB",
            Basis::Total,
            &peak,
            |b| format!("{:.1}", b / 1048576.0),
        );
        for r in self.runs {
            if let Some(x) = &r.schedule {
                let _ = writeln!(
                    self.out,
                    "useful-first ({}): {} messages taken ahead (receipt to handling p50 {:.1} ms, p99 {:.1} ms), {} in arrival order (p50 {:.1} ms, p99 {:.1} ms); longest backlog {}",
                    r.layout(),
                    x.ahead_messages,
                    x.ahead_p50_ms,
                    x.ahead_p99_ms,
                    x.rest_messages,
                    x.rest_p50_ms,
                    x.rest_p99_ms,
                    x.backlog_peak
                );
            }
            if let Some(x) = &r.restart {
                let _ = writeln!(
                    self.out,
                    "restart ({}): crashed at the start of block {}'s slot ({} s into the run), back in {:.0} ms, {} own items re-sent",
                    r.layout(),
                    x.block,
                    // The run starts at block 1's slot; a slot is 6 s.
                    u64::from(x.block.saturating_sub(1)) * 6,
                    x.recover_ms,
                    x.resent_items
                );
            }
        }
    }

    fn legend(&mut self) {
        let floor = &self.runs[0].crypto_floor;
        let how = match floor.mode.as_str() {
            "sample" => format!(
                "estimated from a seeded\n  sample of {} of the {} unique messages (95 % interval {:.4}..{:.4} s:\n  \
                 the sampling error of the estimate only)",
                floor.sampled_messages(),
                floor.population_messages(),
                floor.interval_s.0,
                floor.interval_s.1
            ),
            "off" => "not measured (--floor off)".into(),
            _ => "measured on every unique message".into(),
        };
        let _ = write!(
            self.out,
            "\nother: the process's CPU outside the node's named threads and the driver\n  \
             (allocator, runtimes, short-lived threads); counted in the node total.\n\
             test-environment: the driver thread (emulated peers and network); not in the\n  \
             node total.\n\
             crypto floor: the CPU one thread needs to verify the run's unique assignments\n  \
             and approvals once, after the run; {how}.\n\
             per block: the run's total ÷ its blocks, here, in --json and in compare; the\n  \
             run's tail (after the last block's slot) is in the total, and the HTML\n  \
             page's bars show each block's slot and the tail apart.\n\
             ÷ floor (*): read node ÷ batched floor for a layout that verifies approval\n  \
             signatures in batches (parallel, by default), node ÷ one-by-one floor for one\n  \
             that checks each alone (classic, as Polkadot): each layout against the least\n  \
             its own way of checking could cost.\n\
             database: commits of the approval database (once per tick, and before each\n  \
             announcement) and the voting thread's time in it (writes, commits, fsyncs).\n\
             round trip: classic, what one check's trip to the voting thread and back cost\n  \
             distribution beyond the check itself (the architecture's price).\n\
             peak resident memory: the process's peak RSS from the run's start (VmHWM reset\n  \
             per run), so it includes what the process held before the run.\n"
        );
        let g = &self.runs[0].generation;
        let _ = writeln!(
            self.out,
            "messages: {} ({}, {:.2} s, {:.1} cores busy, {:.1} MiB)",
            g.cache_file,
            if g.cache_hit {
                "cache hit"
            } else {
                "generated"
            },
            g.time_s,
            if g.time_s > 0.0 {
                g.cpu_s / g.time_s
            } else {
                0.0
            },
            g.cache_bytes as f64 / 1048576.0
        );
        if self.runs.iter().all(|r| r.repeats.is_none()) {
            let _ = writeln!(
                self.out,
                "noise: one run of each layout, so run-to-run noise is not included in these\n  \
                 figures (CPU and wall time vary between runs); --repeat N reports the median\n  \
                 and range of N runs, and compare judges against that range."
            );
        }
    }
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
        "{} — {} validators, {} cores, {} blocks, clock {}, seed {}",
        first.name, first.n_validators, first.n_cores, first.num_blocks, first.clock, first.seed
    );
    t.approval();
    t.network();
    t.cpu();
    t.messages();
    t.database_and_checks();
    t.run();
    let spread = crate::repeat::render_spread(runs);
    if !spread.is_empty() {
        t.out.push_str("\nSpread over the repeats\n");
        t.out.push_str(&spread);
    }
    t.legend();
    t.out
}

/// A table of right-aligned columns, each as wide as its widest cell,
/// two spaces apart (the sweeps' tables): `headers`, then one line per row.
pub fn columns(headers: &[&str], rows: &[Vec<String>]) -> String {
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
    for r in rows {
        out += &line(r.iter().map(String::as_str).collect());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;

    fn both() -> Vec<RunReport> {
        let mut classic = fixture::run();
        classic.architecture = "classic".into();
        classic.workers = 1;
        let parallel = fixture::run();
        vec![classic, parallel]
    }

    fn line<'a>(text: &'a str, label: &str) -> &'a str {
        text.lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no row {label:?} in\n{text}"))
    }

    #[test]
    fn totals_and_per_block_side_by_side_with_units_in_labels() {
        let text = render(&both());
        let heads = text.lines().find(|l| l.contains("per block")).unwrap();
        assert_eq!(heads.matches("total").count(), 2, "{text}");
        assert_eq!(heads.matches("per block").count(), 2, "{text}");
        // 1000 + 2000 bytes over 2 blocks.
        let net = line(&text, "received + sent, KiB");
        let cells: Vec<&str> = net.split_whitespace().rev().take(5).collect();
        assert_eq!(cells, ["1.00", "1.5", "2.9", "1.5", "2.9"], "{net}");
        // Counts are run totals with their per-block share.
        let unique = line(&text, "unique messages from peers");
        assert!(unique.contains("10") && unique.contains('5'), "{unique}");
        assert!(line(&text, "approval-voting-parallel-db, CPU s").contains("0.5000"));
        assert!(text.contains("block 1 approved, ms after slot start"));
        assert!(text.contains("peak resident memory during the run, MiB"));
    }

    #[test]
    fn reputation_changes_that_happened_get_a_row_per_kind() {
        let mut runs = both();
        let rep = |n| {
            [
                ("Peer sent identical messages".to_owned(), n),
                ("The vote was bad".to_owned(), 0),
            ]
            .into_iter()
            .collect()
        };
        runs[0].protocol.reputation_changes = rep(4);
        runs[1].protocol.reputation_changes = rep(2);
        let text = render(&runs);
        let row = line(&text, "reputation: Peer sent identical messages");
        assert!(row.contains('4') && row.ends_with("0.50"), "{row}");
        assert!(
            !text.contains("The vote was bad"),
            "kinds that never happened: no row\n{text}"
        );
    }

    #[test]
    fn two_runs_have_a_labelled_ratio_on_every_comparable_row() {
        let mut runs = both();
        runs[1].blocks[0].approved_after_ms = Some(2500);
        runs[1].node_cpu_s = 1.0;
        let text = render(&runs);
        assert!(
            line(&text, "Approval").ends_with("parallel ÷ classic"),
            "{text}"
        );
        assert!(line(&text, "block 1 approved").ends_with("0.50"), "{text}");
        assert!(line(&text, "node total").ends_with("0.50"), "{text}");
        assert!(
            line(&text, "lost by the network").ends_with("1.00"),
            "{text}"
        );
        assert!(line(&text, "wall time, s").ends_with("1.00"), "{text}");
        // One run: no ratio column.
        let one = render(&runs[..1]);
        assert!(!line(&one, "Approval").contains('÷'), "{one}");
    }

    #[test]
    fn a_legend_explains_other_test_environment_and_the_floor() {
        let text = render(&both());
        let missing: Vec<&str> = [
            "other",
            "test-environment",
            "crypto floor",
            "peak resident memory",
        ]
        .into_iter()
        .filter(|t| !text.contains(&format!("\n{t}:")))
        .collect();
        assert!(missing.is_empty(), "{missing:?} missing in\n{text}");
        assert!(text.contains("sample of"), "{text}");
    }

    #[test]
    fn the_database_and_the_checks_have_their_rows() {
        let mut runs = both();
        runs[0].database.commits = 40;
        runs[0].database.cpu_s = 0.5;
        runs[0].crypto_floor.cpu_s = 10.0;
        runs[0].checks.round_trips = 100;
        runs[0].checks.round_trip_us = 12.5;
        runs[1].database.commits = 20;
        runs[1].checks.checked_ahead = 30;
        let text = render(&runs);
        for (label, want) in [
            ("database commits", "40.0"),
            ("database, CPU s", "0.5000"),
            ("database ÷ crypto floor", "0.050"),
            ("round trip to voting per check, µs", "12.5"),
            ("certificates checked back to back", "30"),
        ] {
            let row = text
                .lines()
                .find(|l| l.starts_with(label))
                .unwrap_or_else(|| panic!("no row {label} in\n{text}"));
            assert!(row.contains(want), "{label}: {row}");
        }
        assert!(text.contains("\nround trip:"), "{text}");
    }

    #[test]
    fn a_restart_is_told_in_seconds_not_ticks() {
        let mut run = fixture::run();
        run.restart = Some(crate::RestartReport {
            block: 3,
            tick: 12012,
            recover_ms: 40.0,
            resent_items: 2,
        });
        let text = render(&[run]);
        assert!(
            text.contains("crashed at the start of block 3's slot (12 s into the run)"),
            "{text}"
        );
        assert!(!text.contains("(tick "), "{text}");
    }

    #[test]
    fn columns_are_as_wide_as_their_cells_and_apart() {
        let t = columns(
            &["a", "floor CPU-s/b", "÷ floor"],
            &[vec!["1".into(), "0.5".into(), "12.25".into()]],
        );
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "a  floor CPU-s/b  ÷ floor");
        assert_eq!(lines[1], "1            0.5    12.25");
    }
}
