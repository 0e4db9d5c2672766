//! The row of `tranche sweep run` (one run of the grid, summarised), read
//! back by `history`; the grid, its table and page are the `tranche`
//! binary's (`crates/bench/src/sweep.rs`).

pub use tranche_results::sweep::RunSweepRow;

/// Approved within a block's first tick (500 ms) is early.
const EARLY_MS: u64 = 500;

/// What every column of `tranche sweep run`'s table means.
pub const COLUMNS: &str = "\
legend: vals = validators; cores = availability cores (candidates per block); layout = the node's
  architecture (parallel/N: N distribution workers); schedule = the order the workers check in;
  approved = every block approved (all) or not; slowest ms = the slowest block's approval, ms
  after its slot start; node CPU-s/b = the node's CPU per block, s; floor CPU-s/b = the crypto
  floor per block its layout is judged by (batched signatures for parallel, one-by-one for
  classic; - with --floor off); ÷ floor = node CPU ÷ that floor; wall s = the run's wall time;
  peak MiB = the process's peak resident memory.
";

/// The legend under the sweep's table: the columns, then each note the
/// rows' figures call for.
pub fn legend(rows: &[RunSweepRow]) -> String {
    let mut s = COLUMNS.to_owned();
    let at = |r: &RunSweepRow| format!("{} x {}", r.n_validators, r.n_cores);
    let early: Vec<String> = rows
        .iter()
        .filter(|r| r.max_approval_ms.is_some_and(|ms| ms < EARLY_MS))
        .map(at)
        .collect();
    if !early.is_empty() {
        s.push_str("  ");
        s.push_str(&crate::table::wrap(&format!(
            "slowest ms under 500 (at {}): every block approved within its first tick: at such \
             sizes the peers' first approvals, sent with their assignments, come from more than \
             a third of the validators, so the one-third rule approves each block as it comes \
             in; `tranche run --validators N --cores C` says so per run.",
            dedup(early).join(", ")
        )));
    }
    let never: Vec<String> = rows.iter().filter(|r| !r.all_approved).map(at).collect();
    if !never.is_empty() {
        s.push_str("  ");
        s.push_str(&crate::table::wrap(&format!(
            "NOT all (at {}): a block was never approved; `tranche run` at that size says why \
             (the stalled candidates, the no-shows withheld).",
            dedup(never).join(", ")
        )));
    }
    s
}

/// `v` without repeats, in order.
fn dedup(v: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for x in v {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: u32, ms: Option<u64>) -> RunSweepRow {
        RunSweepRow {
            n_validators: n,
            n_cores: n / 5,
            layout: "classic".into(),
            schedule: "fifo".into(),
            all_approved: ms.is_some(),
            max_approval_ms: ms,
            node_cpu_per_block_s: 0.1,
            floor_per_block_s: 0.05,
            node_ratio: 2.0,
            floor: "one-by-one".into(),
            wall_s: 1.0,
            peak_memory_mib: 10.0,
        }
    }

    #[test]
    fn the_legend_names_every_column_and_notes_only_what_the_rows_show() {
        let flat = |rows: &[RunSweepRow]| {
            legend(rows)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        for column in [
            "vals =",
            "cores =",
            "layout =",
            "schedule =",
            "approved =",
            "slowest ms =",
            "node CPU-s/b =",
            "floor CPU-s/b =",
            "÷ floor =",
            "wall s =",
            "peak MiB =",
        ] {
            assert!(COLUMNS.contains(column), "{column}");
        }
        assert!(COLUMNS.lines().all(|l| l.chars().count() <= 100));
        let usual = flat(&[row(100, Some(4_500))]);
        assert!(!usual.contains("slowest ms under 500") && !usual.contains("NOT all ("));
        let small = flat(&[row(50, Some(0)), row(100, Some(4_500)), row(60, None)]);
        assert!(
            small.contains("slowest ms under 500 (at 50 x 10)"),
            "{small}"
        );
        assert!(small.contains("NOT all (at 60 x 12)"), "{small}");
    }
}
