//! `tranche compare` of two `tranche network --json` reports. The
//! simulation runs in virtual time and gives the same records for a seed
//! whatever the threads or processes, so every record is exact: each
//! block's summary (who approved when, assignments, tranches, no-shows,
//! finality), the bytes, and every validator's own record; any difference
//! fails. The run's cost — the simulator's CPU per block — is judged as
//! `run`'s CPU is: only a slowdown beyond the tolerance fails; wall time
//! and CPU per delivery are shown.

use super::identity::Identity;
use super::{
    cpu_row, shown_row, valued_row, Comparison, CpuFigure, CpuPolicy, Judged, Row, Verdict,
};
use crate::network::SimulationReport;
use crate::results::NetworkResult;
use crate::spread::exact_figures;
use tranche_cli::text::counted;

/// Why two network reports cannot be judged one against the other: what
/// [`super::identity::differences`] names (seed, configuration — the
/// spec, who verifies, the cost table — processes).
pub fn not_comparable(baseline: &NetworkResult, current: &NetworkResult) -> Option<String> {
    super::identity::differences(
        &Identity::of_network(&baseline.report),
        &Identity::of_network(&current.report),
    )
}

/// The row of the validators' own records (kept as digests): how many
/// differ, and the first that does.
fn records_row(run: &str, b: &NetworkResult, c: &NetworkResult) -> Row {
    let differ: Vec<u32> = b
        .records
        .iter()
        .zip(&c.records)
        .filter(|(x, y)| x != y)
        .map(|(x, _)| x.validator)
        .collect();
    let same = differ.is_empty() && b.records.len() == c.records.len();
    let current = match (differ.first(), same) {
        (Some(first), false) => format!("{} differ (first: validator {first})", differ.len()),
        _ => counted(c.records.len(), "record"),
    };
    Row {
        run: run.to_owned(),
        figure: "validators' records".into(),
        baseline: counted(b.records.len(), "record"),
        current,
        difference: if same {
            String::new()
        } else {
            "changed".into()
        },
        verdict: if same {
            Verdict::Same
        } else {
            Verdict::Regression
        },
    }
}

/// The simulator's CPU, all processes, per block.
fn cpu_figure(r: &SimulationReport) -> CpuFigure {
    let cpu = if r.cost.total.cpu_s > 0.0 {
        r.cost.total.cpu_s
    } else {
        r.cost.cpu_s
    };
    CpuFigure {
        name: "simulator CPU, s per block".into(),
        value: cpu / r.blocks.len().max(1) as f64,
        spread: None,
        judged: Judged::Node,
        digits: 4,
    }
}

/// CPU per delivery, µs (all processes' CPU over the deliveries).
pub fn cpu_per_delivery_us(r: &SimulationReport) -> f64 {
    let cpu = if r.cost.total.cpu_s > 0.0 {
        r.cost.total.cpu_s
    } else {
        r.cost.cpu_s
    };
    cpu * 1e6 / r.cost.deliveries.max(1) as f64
}

/// Compare two network reports.
pub fn compare(bn: &NetworkResult, cn: &NetworkResult, policy: &CpuPolicy) -> Comparison {
    let (b, c) = (&bn.report, &cn.report);
    let source = std::path::Path::new(&b.source)
        .file_name()
        .map_or_else(|| b.source.clone(), |f| f.to_string_lossy().into_owned());
    let run = format!("{source} [network]");
    let current = exact_figures(c);
    let mut rows: Vec<Row> = exact_figures(b)
        .into_iter()
        .map(|(name, value)| {
            valued_row(&run, name, value, &current, |same| {
                if same {
                    Verdict::Same
                } else {
                    Verdict::Regression
                }
            })
        })
        .collect();
    rows.push(records_row(&run, bn, cn));
    rows.push(cpu_row(&run, cpu_figure(b), &cpu_figure(c), policy));
    for (name, bv, cv) in [
        (
            "CPU per delivery, µs",
            cpu_per_delivery_us(b),
            cpu_per_delivery_us(c),
        ),
        ("wall time, s", b.cost.wall_s, c.cost.wall_s),
        (
            "peak memory, MiB",
            b.cost.peak_rss_all() as f64 / f64::from(1 << 20),
            c.cost.peak_rss_all() as f64 / f64::from(1 << 20),
        ),
    ] {
        rows.push(shown_row(&run, name, bv, cv));
    }
    Comparison {
        rows,
        new_runs: Vec::new(),
        missing_runs: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> NetworkResult {
        NetworkResult::of(crate::fixture::network())
    }

    #[test]
    fn the_same_records_pass_a_changed_one_fails_naming_the_validator() {
        let policy = CpuPolicy::default();
        let c = compare(&report(), &report(), &policy);
        assert!(c.passed(), "{}", c.render(true));
        let mut cur = crate::fixture::network();
        cur.validators[1].blocks[0].approved_after_ms = Some(9000);
        let c = compare(&report(), &NetworkResult::of(cur), &policy);
        assert!(!c.passed());
        let records = c
            .rows
            .iter()
            .find(|r| r.figure == "validators' records")
            .unwrap();
        assert_eq!(records.current, "1 differ (first: validator 1)");
        assert_eq!(records.verdict, Verdict::Regression);
    }

    #[test]
    fn cost_is_judged_within_the_tolerance() {
        let policy = CpuPolicy {
            floor_s: 0.0,
            ..CpuPolicy::default()
        };
        let mut slower = report();
        slower.report.cost.cpu_s = 1.2;
        assert!(compare(&report(), &slower, &policy).passed());
        slower.report.cost.cpu_s = 2.0;
        let c = compare(&report(), &slower, &policy);
        assert_eq!(c.regressions(), 1, "{}", c.render(false));
        let ignore = CpuPolicy {
            ignore: true,
            ..policy
        };
        assert!(compare(&report(), &slower, &ignore).passed());
    }

    #[test]
    fn another_seed_or_spec_is_not_comparable() {
        assert_eq!(not_comparable(&report(), &report()), None);
        let mut other = report();
        other.report.seed = 3;
        assert!(not_comparable(&report(), &other)
            .unwrap()
            .starts_with("the seed differs"));
        let mut other = report();
        other.report.spec.num_blocks = 9;
        let why = not_comparable(&report(), &other).unwrap();
        assert!(why.contains("num_blocks: baseline 5, current 9"), "{why}");
    }
}
