//! The terminal table of a whole-network run: a row per block, the bytes,
//! the CPU model's threads (with `node`: `cpu`), a summary of who never
//! approved which blocks and how far finality came, and a legend for
//! every column with the notes that apply to this run only, so it can be
//! read without the docs.

use super::SimulationReport;
use crate::network::cpu::CpuTable;
use crate::network::table::honest::HonestNotes;
use crate::network::table::late::LateNotes;
use crate::network::Described;
use std::fmt::Write as _;
use tranche_cli::text::counted;
use tranche_primitives::time::DEFAULT_SLOT_DURATION_MILLIS as SLOT_MS;

/// What every column and count of the table means.
pub const COLUMNS: &str = "\
legend: approved = validators that approved the block / those expected to (honest and slow);
  min/p50/p99/max ms = when they approved, ms after the block's slot start; last = the last
  expected validator to approve (or the first that never did); assign = candidates claimed by
  the assignments triggered network-wide; approv = approval signatures sent network-wide (each
  may cover several candidates); max tr = the highest tranche of an assignment any validator
  imported; tranches = tranches that held any assignment; no-shows = the most no-shows one
  validator saw; final ms = median time of finality after the slot start (`finality: true`);
  enough ms = median time the validators had enough assignments for every candidate (only
  approvals missing), after the slot start.
  crypto: verified = certificates and signatures checked for real; reused = checks answered by
  the verdict already computed where the message was made (`--verify every`: no reuse).
";

/// The note on coalescing, where approvals came later than `tranche
/// run`'s default with coalescing on and nothing else in the run's
/// figures explains it (`late::causes`).
const COALESCING: &str = "  \
later than `tranche run`'s default (7-8.5 s there): each validator's voting holds its approval
  up to 12 ticks (6 s, upstream's MAX_APPROVAL_COALESCE_WAIT_TICKS) to coalesce it with others
  (up to max_approval_coalesce_count); `run`'s generated peers send theirs with their
  assignments. With `max_approval_coalesce_count: 1` the default approves at 6.5-8 s.
";

mod honest;
mod late;

/// The note on the CPU model's lines.
const CPU: &str = "  \
CPU model: busy = a thread's modelled CPU per block ÷ the slot (6 s), the median and the largest
  over the validators; at 100 % or more a thread cannot keep up with a block per slot
  (saturated, its queue grows); `all ÷ N cores` is every thread together ÷ the cores.
";

/// Above this median approval time (ms) the coalescing note applies.
const RUN_DEFAULT_MS: u64 = 8_500;

/// A network report's table, legend and summary line, for the terminal.
pub trait NetworkTable {
    /// Whether no validator was expected to approve anything (every one a
    /// no-show or offline): then "every block approved" would be vacuous.
    fn no_expected_validator(&self) -> bool;
    /// The legend: the columns, then each note that applies to this run.
    fn legend(&self) -> String;
    /// Peak memory and what it comes to per validator-block (the peak of
    /// every process over validators × blocks); none where the report
    /// has no peak (older files).
    fn memory_line(&self) -> Option<String>;
    /// Who never approved which blocks, and how far finality came.
    fn summary(&self) -> String;
    /// The terminal table.
    fn table(&self) -> String;
}

impl NetworkTable for SimulationReport {
    /// Whether no validator was expected to approve anything (every one a
    /// no-show or offline): then "every block approved" would be vacuous.
    fn no_expected_validator(&self) -> bool {
        self.blocks.iter().all(|b| b.expected == 0)
    }

    /// The legend: the columns, then each note that applies to this run.
    fn legend(&self) -> String {
        let mut s = COLUMNS.to_owned();
        s.push_str(&self.late_note());
        s.push_str(&self.honest_note());
        if self.cpu.is_some() {
            s.push_str(CPU);
        }
        s
    }

    /// Peak memory and what it comes to per validator-block (the peak of
    /// every process over validators × blocks); none where the report
    /// has no peak (older files).
    fn memory_line(&self) -> Option<String> {
        let c = &self.cost;
        let all = c.peak_rss_all();
        if all == 0 {
            return None;
        }
        let mib = |b: u64| b as f64 / f64::from(1 << 20);
        let vb = u64::from(self.n_validators) * self.blocks.len().max(1) as u64;
        let per = all as f64 / vb.max(1) as f64 / 1024.0;
        let whose = if c.per_process.len() > 1 {
            format!(
                "{:.0} MiB in process 0, {:.0} MiB over all {} processes",
                mib(c.peak_rss_bytes),
                mib(all),
                c.per_process.len()
            )
        } else {
            format!("{:.0} MiB", mib(all))
        };
        Some(format!(
            "memory: peak {whose}; {per:.1} KiB per validator-block ({} x {})\n",
            counted(self.n_validators, "validator"),
            counted(self.blocks.len(), "block")
        ))
    }

    /// Who never approved which blocks, and how far finality came.
    fn summary(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        // Consecutive blocks missed by as many validators, together.
        let mut runs: Vec<(u32, u32, u32, u32)> = Vec::new();
        for b in &self.blocks {
            let missing = b.expected - b.approved;
            match runs.last_mut() {
                Some(r) if r.1 + 1 == b.number && r.2 == missing && r.3 == b.expected => {
                    r.1 = b.number
                }
                _ => runs.push((b.number, b.number, missing, b.expected)),
            }
        }
        let missed: Vec<String> = runs
            .iter()
            .filter(|r| r.2 > 0)
            .map(|&(from, to, missing, expected)| {
                let blocks = if from == to {
                    format!("block {from}")
                } else {
                    format!("blocks {from}-{to}")
                };
                format!("{blocks}: {missing} of {expected}")
            })
            .collect();
        if missed.is_empty() {
            parts.push("every expected validator approved every block".to_owned());
        } else {
            parts.push(format!(
                "expected validators that never approved: {}",
                missed.join("; ")
            ));
        }
        parts.push(if !self.spec.finality {
            "finality not simulated (`finality: false`)".to_owned()
        } else {
            let n = self.blocks.len();
            let finalized = |i: usize| self.blocks[i].finalized.unwrap_or(0);
            match (0..n).rposition(|i| finalized(i) > 0) {
                None if n == 1 => "finality never advanced (the block was not finalized)".to_owned(),
                None => format!("finality never advanced (none of the {n} blocks finalized)"),
                Some(i) if i + 1 == n => format!(
                    "finality advanced through every block (block {} finalized by {} of {} validators)",
                    self.blocks[i].number,
                    finalized(i),
                    self.n_validators
                ),
                Some(i) => {
                    let first = self.blocks[i].number + 1;
                    let never = if i + 2 == n {
                        format!("block {first} never finalized")
                    } else {
                        format!("blocks {first}-{n} never finalized")
                    };
                    // Approved everywhere yet unfinalized, each with less
                    // of the run left after its slot than the two slots
                    // (and a vote's trip) GRANDPA's voting rule waits for.
                    let tail_ms = self.spec.run_after_last_block_secs * 1000;
                    let too_late = (i + 1..n).all(|j| {
                        let left_ms = (n - 1 - j) as u64 * SLOT_MS + tail_ms;
                        let b = &self.blocks[j];
                        b.approved == b.expected && left_ms < 2 * SLOT_MS + 1000
                    });
                    let why = if too_late {
                        format!(
                            " (approved: GRANDPA votes two blocks behind the best, so a block \
                             is finalized once the chain is two slots past it; the run ended \
                             {} s after the last block's slot)",
                            self.spec.run_after_last_block_secs
                        )
                    } else {
                        String::new()
                    };
                    format!(
                        "finality stopped at block {} of {n} (finalized by {} of {} validators); {never}{why}",
                        self.blocks[i].number,
                        finalized(i),
                        self.n_validators,
                    )
                }
            }
        });
        crate::table::wrap(&parts.join("; "))
    }

    /// The terminal table.
    fn table(&self) -> String {
        let ms = |v: Option<u64>| v.map_or("-".to_owned(), |v| format!("{v}"));
        let mut s = String::new();
        let _ = writeln!(
            s,
            "tranche network: {} ({}), {}, {}, seed {}",
            counted(self.n_validators, "validator"),
            self.behaviours(),
            counted(self.n_cores, "core"),
            counted(self.blocks.len(), "block"),
            self.seed
        );
        let _ = writeln!(
            s,
            "{:>5} {:>9} {:>8} {:>8} {:>8} {:>8} {:>6} {:>7} {:>7} {:>7} {:>8} {:>8} {:>8} {:>9}",
            "block",
            "approved",
            "min ms",
            "p50 ms",
            "p99 ms",
            "max ms",
            "last",
            "assign",
            "approv",
            "max tr",
            "tranches",
            "no-shows",
            "final ms",
            "enough ms"
        );
        for b in &self.blocks {
            let _ = writeln!(
                s,
                "{:>5} {:>9} {:>8} {:>8} {:>8} {:>8} {:>6} {:>7} {:>7} {:>7} {:>8} {:>8} {:>8} {:>9}",
                b.number,
                format!("{}/{}", b.approved, b.expected),
                ms(b.min_ms),
                ms(b.p50_ms),
                ms(b.p99_ms),
                ms(b.max_ms),
                b.last.map_or("-".to_owned(), |v| format!("v{v}")),
                b.assignments,
                b.approvals,
                b.max_tranche,
                b.tranches_triggered,
                b.no_shows_max,
                ms(b.finalized_p50_ms),
                ms(b.enough_p50_ms)
            );
        }
        s.push_str(&self.summary());
        let kib = |b: u64| b as f64 / 1024.0;
        let _ = writeln!(
            s,
            "bytes per validator (distribution): out min {:.0} / p50 {:.0} / max {:.0} KiB, in min {:.0} / p50 {:.0} / max {:.0} KiB",
            kib(self.bytes_out.min),
            kib(self.bytes_out.p50),
            kib(self.bytes_out.max),
            kib(self.bytes_in.min),
            kib(self.bytes_in.p50),
            kib(self.bytes_in.max)
        );
        s.push_str(&self.cpu_table());
        let c = &self.cost;
        let _ = writeln!(
            s,
            "aggression events {}; {}; crypto: {} (process 0)",
            self.aggression_events,
            counted(c.deliveries, "delivery"),
            // `--verify model` checks nothing: its verdicts are assumed,
            // not reused.
            if self.verify() == Some("model") {
                format!(
                    "none verified, {} assumed valid (`--verify model`)",
                    counted(c.reused, "check")
                )
            } else {
                format!("{} verified, {} reused", c.verified, c.reused)
            }
        );
        s.push_str(&self.legend());
        let vb = f64::from(self.n_validators) * self.blocks.len() as f64;
        let _ = writeln!(
            s,
            "cost: {:.1} s wall, {:.1} s CPU of process 0, on {} x {}: {:.0} validator-blocks/s, {:.2} CPU s per block",
            c.wall_s,
            c.cpu_s,
            counted(c.threads, "thread"),
            counted(c.processes, "process"),
            vb / c.wall_s.max(1e-9),
            c.cpu_s / (self.blocks.len().max(1) as f64)
        );
        if let Some(line) = self.memory_line() {
            s.push_str(&line);
        }
        if c.per_process.len() > 1 {
            let each: Vec<String> = c
                .per_process
                .iter()
                .map(|p| {
                    format!(
                        "process {} {:.1} s CPU, {:.1} s wall, {} verified",
                        p.process, p.cpu_s, p.wall_s, p.verified
                    )
                })
                .collect();
            let _ = writeln!(
                s,
                "cost of all {} processes: {:.1} s CPU, {} verified, {} reused ({})",
                c.per_process.len(),
                c.total.cpu_s,
                c.total.verified,
                c.total.reused,
                each.join("; ")
            );
        }
        let _ = writeln!(
            s,
            "{}",
            if self.no_expected_validator() {
                "no expected validator: every one is a no-show or offline, so no block could be \
                 approved"
            } else if self.all_approved {
                "every block approved by every honest validator"
            } else {
                "NOT every block was approved by every honest validator"
            }
        );
        s
    }
}

#[cfg(test)]
pub(crate) mod tests;
