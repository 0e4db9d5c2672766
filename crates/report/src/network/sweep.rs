//! The rows, table and page of `tranche sweep network` (the grid itself is
//! run by the `tranche` binary, `crates/bench/src/sweep_network.rs`).

use super::SimulationReport;
use crate::html::{escape, meta_table, page as frame};
use crate::html_chart::{group_lines, line_chart_legend, sweep_series, Line, LineChart};
use serde::{Deserialize, Serialize};
use tranche_config::approval_network::NetworkSpec;

mod notes;

/// One run of a sweep, summarised.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    pub n_validators: u32,
    pub n_cores: u32,
    pub no_show_fraction: f64,
    pub slow_fraction: f64,
    pub all_approved: bool,
    /// Over the blocks: the median of the per-block p50 approval times,
    /// and the largest per-block p99 and max.
    pub p50_ms: Option<u64>,
    pub p99_ms: Option<u64>,
    pub max_ms: Option<u64>,
    /// Candidates claimed by triggered assignments, per block on average.
    pub assignments_per_block: f64,
    pub max_tranche: u32,
    pub no_shows_max: u32,
    /// Median bytes one validator sent.
    pub bytes_out_p50: u64,
    pub wall_s: f64,
    pub cpu_s: f64,
    /// When the honest validators, and the slow ones, sent their last
    /// approval of a block: the median over validators and blocks, ms
    /// after the slot start (`None`: no such validator, or older files).
    /// Slow validators' checks show here first: a block's approval times
    /// move only where their approvals are the ones it waits for.
    #[serde(default)]
    pub sent_p50_ms: Option<u64>,
    #[serde(default)]
    pub slow_sent_p50_ms: Option<u64>,
    /// How long the run went on after the last block's slot
    /// (`run_after_last_block_secs`; `None` in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_after_last_block_secs: Option<u64>,
}

/// The median time validators of `behaviour` sent their last approval of
/// a block, over validators and blocks.
pub(crate) fn sent_p50(r: &SimulationReport, behaviour: super::Behaviour) -> Option<u64> {
    let mut v: Vec<u64> = r
        .validators
        .iter()
        .filter(|n| n.behaviour == behaviour)
        .flat_map(|n| n.blocks.iter().filter_map(|b| b.last_approval_after_ms))
        .collect();
    v.sort_unstable();
    super::percentile(&v, 50.0)
}

impl SweepRow {
    pub fn of(spec: &NetworkSpec, r: &SimulationReport) -> SweepRow {
        let mut p50: Vec<u64> = r.blocks.iter().filter_map(|b| b.p50_ms).collect();
        p50.sort_unstable();
        SweepRow {
            n_validators: spec.n_validators,
            n_cores: spec.n_cores,
            no_show_fraction: spec.no_show_fraction,
            slow_fraction: spec.slow_fraction,
            all_approved: r.all_approved,
            p50_ms: p50.get(p50.len() / 2).copied(),
            p99_ms: r.blocks.iter().filter_map(|b| b.p99_ms).max(),
            max_ms: r.blocks.iter().filter_map(|b| b.max_ms).max(),
            assignments_per_block: r.blocks.iter().map(|b| b.assignments).sum::<u64>() as f64
                / r.blocks.len().max(1) as f64,
            max_tranche: r.blocks.iter().map(|b| b.max_tranche).max().unwrap_or(0),
            no_shows_max: r.blocks.iter().map(|b| b.no_shows_max).max().unwrap_or(0),
            bytes_out_p50: r.bytes_out.p50,
            wall_s: r.cost.wall_s,
            cpu_s: r.cost.cpu_s,
            sent_p50_ms: sent_p50(r, super::Behaviour::Honest),
            slow_sent_p50_ms: sent_p50(r, super::Behaviour::Slow),
            run_after_last_block_secs: Some(spec.run_after_last_block_secs),
        }
    }
}

/// The sweep's table.
pub fn table(rows: &[SweepRow]) -> String {
    let ms = |v: Option<u64>| v.map_or("-".to_owned(), |v| v.to_string());
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.n_validators.to_string(),
                r.n_cores.to_string(),
                r.no_show_fraction.to_string(),
                r.slow_fraction.to_string(),
                (if r.all_approved { "all" } else { "NOT all" }).to_owned(),
                ms(r.p50_ms),
                ms(r.p99_ms),
                ms(r.max_ms),
                format!("{:.1}", r.assignments_per_block),
                r.max_tranche.to_string(),
                r.no_shows_max.to_string(),
                ms(r.sent_p50_ms),
                ms(r.slow_sent_p50_ms),
                format!("{:.0}", r.bytes_out_p50 as f64 / 1024.0),
                format!("{:.1}", r.wall_s),
            ]
        })
        .collect();
    crate::columns(
        &[
            "vals",
            "cores",
            "no-show",
            "slow",
            "approved",
            "p50 ms",
            "p99 ms",
            "max ms",
            "assign/b",
            "max tr",
            "no-shows",
            "sent ms",
            "slow sent ms",
            "KiB out",
            "wall s",
        ],
        &cells,
    )
}

/// What every column of the sweep's table means.
pub const COLUMNS: &str = "\
legend: vals = validators; cores = availability cores; no-show = no_show_fraction (validators that
  never approve); slow = slow_fraction (validators whose checks take slow_factor times longer);
  approved = every honest and slow validator approved every block (all) or not; p50 ms = the
  median over the blocks of each block's median approval, ms after its slot start; p99 ms / max
  ms = the largest over the blocks; assign/b = candidates claimed by triggered assignments per
  block; max tr = the highest tranche of an assignment; no-shows = the most no-shows one validator
  saw for a block; sent ms / slow sent ms = when the honest / the slow validators sent their last
  approval of a block (median, ms after the slot start; - where there are none); KiB out = the
  median validator's bytes sent; wall s = the run's wall time.
";

/// The legend under the sweep's table: the columns, then each note its
/// rows' figures call for (`notes`).
pub fn legend(rows: &[SweepRow]) -> String {
    let mut s = COLUMNS.to_owned();
    for note in notes::of(rows) {
        s.push_str("  ");
        s.push_str(&crate::table::wrap(&note.text()));
    }
    s
}

/// Each row's parameters besides validators (the plots' x axis).
fn params(r: &SweepRow) -> Vec<(&'static str, String)> {
    vec![
        ("cores", tranche_config::text::counted(r.n_cores, "core")),
        ("no-show", format!("no-show {}", r.no_show_fraction)),
        ("slow", format!("slow {}", r.slow_fraction)),
    ]
}

/// The lines of a plot: one per combination of the parameters that vary
/// (cores, no-show, slow), points by validators, each its own colour.
fn series(rows: &[SweepRow], y: impl Fn(&SweepRow) -> Option<u64>) -> Vec<Line> {
    let (names, _) = sweep_series(&rows.iter().map(params).collect::<Vec<_>>());
    group_lines(rows.iter().zip(names).filter_map(|(r, name)| {
        let point = (f64::from(r.n_validators), y(r)? as f64 / 1000.0);
        Some((name.clone(), name, point))
    }))
}

/// The page: how it was made, the median and the slowest approval
/// against validators (the report crate's plotters charts, each y axis
/// from the data), then the table; the frame and style of every page.
pub fn page(rows: &[SweepRow], seed: u64, commit: &str, command: &str) -> anyhow::Result<String> {
    let chart = |title, y_desc| LineChart {
        title,
        x_desc: "validators",
        y_desc,
        y_from_data: true,
    };
    let (_, heading) = sweep_series(&rows.iter().map(params).collect::<Vec<_>>());
    let p50 = line_chart_legend(
        &chart(
            "Median approval against validators",
            "s after slot start (median over blocks of the p50)",
        ),
        &series(rows, |r| r.p50_ms),
        &[],
        Some(&heading),
    )?;
    let max = line_chart_legend(
        &chart(
            "Slowest approval against validators",
            "s after slot start (max over blocks)",
        ),
        &series(rows, |r| r.max_ms),
        &[],
        Some(&heading),
    )?;
    let meta = meta_table(&[
        ("commit", commit.to_owned()),
        ("seed", seed.to_string()),
        ("command", command.to_owned()),
    ]);
    // The rows the plots leave out, said under them.
    let left_out: String = notes::of(rows)
        .iter()
        .filter(|n| matches!(n, notes::Note::NotPlotted { .. }))
        .map(|n| format!("<p>{}</p>\n", escape(&n.text())))
        .collect();
    let body = format!(
        "{meta}<div class=\"plots\">\n<figure id=\"plot-1\">{p50}</figure>\n\
         <figure id=\"plot-2\">{max}</figure>\n</div>\n{left_out}<pre>{}{}</pre>\n",
        escape(&table(rows)),
        escape(&legend(rows))
    );
    Ok(frame("tranche sweep network", &body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_has_a_line_per_setting_and_how_it_was_made() {
        let row = |n, cores| SweepRow {
            n_validators: n,
            n_cores: cores,
            no_show_fraction: 0.0,
            slow_fraction: 0.0,
            all_approved: true,
            p50_ms: Some(11_000),
            p99_ms: Some(12_000),
            max_ms: Some(12_500),
            assignments_per_block: 1.0,
            max_tranche: 3,
            no_shows_max: 0,
            bytes_out_p50: 1024,
            wall_s: 1.0,
            cpu_s: 1.0,
            sent_p50_ms: Some(4_000),
            slow_sent_p50_ms: None,
            run_after_last_block_secs: Some(60),
        };
        let rows = [row(100, 20), row(200, 20), row(100, 40)];
        assert_eq!(series(&rows, |r| r.p50_ms).len(), 2);
        let page = page(&rows, 3, "abc", "tranche sweep network").unwrap();
        assert_eq!(page.matches("<svg").count(), 2);
        assert!(page.contains("<th>seed</th><td>3</td>") && page.contains("<td>abc</td>"));
        assert!(
            page.find("<svg").unwrap() < page.find("<pre>").unwrap(),
            "plots first"
        );
        // The legend of the columns (the notes: `notes::tests`).
        assert!(legend(&rows).contains("slow sent ms ="));
        // Validators on the x axis as integers, not 100.0.
        assert!(page.contains(">\n100\n</text>") && !page.contains(">\n100.0\n</text>"));
    }
}
