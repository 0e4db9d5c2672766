//! The rows, table and page of `tranche sweep network` (the grid itself is
//! run by the `tranche` binary, `crates/bench/src/sweep_network.rs`).

use crate::html::{escape, meta_table, page as frame};
use crate::html_chart::{group_lines, line_chart_legend, sweep_series, Line, LineChart};

mod notes;

pub use tranche_results::sweep::SweepRow;

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
        ("cores", tranche_cli::text::counted(r.n_cores, "core")),
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
