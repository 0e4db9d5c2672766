//! `tranche run --repeat N [--warmup K]`: N measured runs of one layout
//! (after K unmeasured warm-up runs on the same prepared messages) folded
//! into one report. CPU, the crypto floor (measured again after every run)
//! and the node's CPU ÷ floor ratios become the medians of the N runs with
//! their spread (min–max), recorded in `RunReport::repeats`; the
//! deterministic figures
//! (those `compare` judges exactly, `spread::exact_figures`) must be equal
//! in every repeat under the virtual clock, or the runs are refused.

use crate::spread::exact_figures;
pub use crate::spread::{render_spread, Spread};
use crate::RunReport;
use anyhow::{bail, Result};

use std::collections::BTreeMap;

pub use tranche_results::spread::Repeats;

/// The 95 % interval of the median floor: that of the run whose floor is
/// the median (of an even count, the mean of the two middle runs' bounds,
/// as the median is the mean of their floors), so that it holds the
/// median it stands beside; each run's interval holds its own estimate.
fn median_interval(runs: &[RunReport]) -> (f64, f64) {
    let mut order: Vec<&RunReport> = runs.iter().collect();
    order.sort_by(|a, b| a.crypto_floor.cpu_s.total_cmp(&b.crypto_floor.cpu_s));
    let n = order.len();
    let middle: &[&RunReport] = if n % 2 == 1 {
        &order[n / 2..=n / 2]
    } else {
        &order[n / 2 - 1..=n / 2]
    };
    let k = middle.len() as f64;
    (
        middle
            .iter()
            .map(|r| r.crypto_floor.interval_s.0)
            .sum::<f64>()
            / k,
        middle
            .iter()
            .map(|r| r.crypto_floor.interval_s.1)
            .sum::<f64>()
            / k,
    )
}

/// Fold the measured runs of one layout into one report: the first run's
/// figures, with CPU and wall time the medians of all and their spread in
/// `repeats`.
pub fn combine(mut runs: Vec<RunReport>, warmup: usize) -> Result<RunReport> {
    if runs.is_empty() {
        bail!("no measured run to report");
    }
    let first = exact_figures(&runs[0]);
    for (i, r) in runs.iter().enumerate().skip(1) {
        if r.clock != "virtual" {
            continue;
        }
        for ((name, a), (_, b)) in first.iter().zip(exact_figures(r)) {
            if *a != b {
                bail!(
                    "{} ({}): repeat {} differs from repeat 1 in {name} ({b} against {a}) \
                     under the virtual clock, which must reproduce it exactly",
                    r.name,
                    r.layout(),
                    i + 1
                );
            }
        }
    }
    let spread =
        |f: &dyn Fn(&RunReport) -> f64| Spread::of(&runs.iter().map(f).collect::<Vec<_>>());
    let mut cpu_s = BTreeMap::new();
    for row in &runs[0].cpu {
        let s = spread(&|r: &RunReport| {
            r.cpu
                .iter()
                .find(|c| c.name == row.name)
                .map_or(0.0, |c| c.total_s)
        });
        cpu_s.insert(row.name.clone(), s);
    }
    let repeats = Repeats {
        runs: runs.len(),
        warmup,
        node_cpu_s: spread(&|r| r.node_cpu_s),
        cpu_s,
        wall_time_s: spread(&|r| r.wall_time_s),
        floor_cpu_s: spread(&|r| r.crypto_floor.cpu_s),
        batched_floor_cpu_s: spread(&|r| r.crypto_floor.batched_cpu_s),
        node_ratio: spread(&|r| r.crypto_floor.node_ratio),
        node_ratio_batched: spread(&|r| r.crypto_floor.node_ratio_batched),
    };
    let interval = median_interval(&runs);
    let peak = runs.iter().map(|r| r.peak_memory_bytes).max().unwrap_or(0);
    let mut out = runs.swap_remove(0);
    let blocks = f64::from(out.num_blocks.max(1));
    for row in &mut out.cpu {
        row.total_s = repeats.cpu_s[&row.name].median;
        row.per_block_s = row.total_s / blocks;
    }
    out.node_cpu_s = repeats.node_cpu_s.median;
    let f = &mut out.crypto_floor;
    f.cpu_s = repeats.floor_cpu_s.median;
    f.interval_s = interval;
    f.per_block_s = f.cpu_s / blocks;
    f.batched_cpu_s = repeats.batched_floor_cpu_s.median;
    f.batched_per_block_s = f.batched_cpu_s / blocks;
    f.node_ratio = repeats.node_ratio.median;
    f.node_ratio_batched = repeats.node_ratio_batched.median;
    out.wall_time_s = repeats.wall_time_s.median;
    out.peak_memory_bytes = peak;
    out.repeats = Some(repeats);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{compare, CpuPolicy, Verdict};
    use crate::{fixture, ReportFile};

    #[test]
    fn spread_is_median_min_and_max() {
        let s = Spread::of(&[3.0, 1.0, 2.0]);
        assert_eq!((s.median, s.min, s.max), (2.0, 1.0, 3.0));
        assert_eq!(Spread::of(&[1.0, 4.0]).median, 2.5);
    }

    #[test]
    fn cpu_is_the_median_with_its_spread() {
        let runs: Vec<RunReport> = [2.0, 1.0, 3.0]
            .iter()
            .map(|cpu| {
                let mut r = fixture::run();
                r.node_cpu_s = *cpu;
                r.cpu[0].total_s = cpu / 2.0;
                r
            })
            .collect();
        let r = combine(runs, 1).unwrap();
        assert_eq!(r.node_cpu_s, 2.0);
        assert_eq!(r.cpu[0].total_s, 1.0);
        assert_eq!(r.cpu[0].per_block_s, 0.5);
        let rep = r.repeats.unwrap();
        assert_eq!((rep.runs, rep.warmup), (3, 1));
        assert_eq!((rep.node_cpu_s.min, rep.node_cpu_s.max), (1.0, 3.0));
        assert_eq!(rep.cpu_s["approval-voting-parallel-db"].max, 1.5);
    }

    #[test]
    fn the_spread_keeps_its_labels_apart_from_the_values() {
        let runs = [1.8, 2.0, 2.4]
            .iter()
            .map(|cpu| RunReport {
                node_cpu_s: *cpu,
                ..fixture::run()
            })
            .collect();
        let text = render_spread(&[combine(runs, 0).unwrap()]);
        for label in [
            "crypto floor, batched signatures, per block, s",
            "node CPU per block, s",
        ] {
            let line = text
                .lines()
                .find(|l| l.trim_start().starts_with(label))
                .unwrap_or_else(|| panic!("{label} in\n{text}"));
            let rest = &line[line.find(label).unwrap() + label.len()..];
            assert!(rest.starts_with("  "), "{line}");
        }
        // The values line up under their column heads.
        let head = text.lines().nth(1).unwrap();
        let row = text.lines().nth(2).unwrap();
        assert_eq!(
            head.find("median").unwrap() + 6,
            row.find("1.0000").unwrap() + 6
        );
        assert!(row.ends_with("0.9000    1.2000"), "{row}");
    }

    #[test]
    fn the_median_floor_lies_in_its_interval() {
        // Each run's floor inside its own interval; the first run's (the
        // one the report starts from) is not the median.
        let floors = [
            (0.18, (0.17, 0.19)),
            (0.14, (0.13, 0.15)),
            (0.15, (0.14, 0.16)),
        ];
        let runs: Vec<RunReport> = floors
            .iter()
            .map(|&(cpu, interval)| {
                let mut r = fixture::run();
                r.crypto_floor.cpu_s = cpu;
                r.crypto_floor.interval_s = interval;
                r
            })
            .collect();
        let f = combine(runs.clone(), 0).unwrap().crypto_floor;
        assert_eq!(f.cpu_s, 0.15);
        assert_eq!(f.interval_s, (0.14, 0.16));
        let even = combine(runs[..2].to_vec(), 0).unwrap().crypto_floor;
        assert!(even.interval_s.0 <= even.cpu_s && even.cpu_s <= even.interval_s.1);
    }

    #[test]
    fn without_a_floor_the_spreads_floor_rows_are_dashes() {
        let runs = (0..3)
            .map(|_| {
                let mut r = fixture::run();
                r.crypto_floor.mode = "off".into();
                r
            })
            .collect();
        let text = render_spread(&[combine(runs, 0).unwrap()]);
        let floor_rows: Vec<&str> = text.lines().filter(|l| l.contains("floor")).collect();
        assert_eq!(floor_rows.len(), 4, "{text}");
        for row in floor_rows {
            assert!(row.ends_with("-         -         -"), "{row}");
        }
        let node = text
            .lines()
            .find(|l| l.contains("node CPU per block"))
            .unwrap();
        assert!(!node.contains(" - "), "{node}");
    }

    #[test]
    fn a_repeated_table_says_its_figures_are_medians() {
        let runs = (0..3).map(|_| fixture::run()).collect();
        let text = crate::render(&[combine(runs, 1).unwrap()]);
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("are the medians of 3 measured runs (after 1 warm-up)"),
            "{text}"
        );
        assert!(!crate::render(&[fixture::run()]).contains("medians of"));
    }

    #[test]
    fn a_deterministic_figure_that_moves_under_the_virtual_clock_is_an_error() {
        let mut other = fixture::run();
        other.network.sent_bytes += 1;
        let err = combine(vec![fixture::run(), other.clone()], 0).unwrap_err();
        assert!(err.to_string().contains("bytes sent"), "{err}");
        // Under the real clock those figures vary: no error.
        let mut a = fixture::run();
        a.clock = "real".into();
        other.clock = "real".into();
        assert!(combine(vec![a, other], 0).is_ok());
    }

    fn node_total_verdict(baseline: RunReport, current: RunReport) -> Verdict {
        let c = compare(
            &ReportFile::new(vec![baseline]),
            &ReportFile::new(vec![current]),
            &CpuPolicy::default(),
        );
        c.rows
            .iter()
            .find(|r| r.figure.starts_with("node total"))
            .unwrap()
            .verdict
    }

    fn repeated(cpus: [f64; 3]) -> RunReport {
        let runs = cpus
            .iter()
            .map(|cpu| RunReport {
                node_cpu_s: *cpu,
                ..fixture::run()
            })
            .collect();
        combine(runs, 0).unwrap()
    }

    #[test]
    fn compare_judges_a_slowdown_beyond_the_baselines_spread_plus_the_tolerance() {
        // Baseline median 2.0 in 1.6..2.8; tolerance 25 %: up to 3.5 passes.
        let base = repeated([1.6, 2.0, 2.8]);
        assert_eq!(
            node_total_verdict(base.clone(), repeated([3.2, 3.3, 3.4])),
            Verdict::Within
        );
        assert_eq!(
            node_total_verdict(base.clone(), repeated([3.6, 3.7, 3.8])),
            Verdict::Regression
        );
        // Without the current file's spread the median is judged alone.
        let mut single = fixture::run();
        single.node_cpu_s = 3.2;
        assert_eq!(node_total_verdict(base, single), Verdict::Regression);
    }
}
