//! The outputs of a benchmark run. The report: one layout for every run (these types,
//! written as JSON with `--json`), printed as a table (`table`), drawn as
//! an HTML page (`html`) and judged against a baseline (`compare`); the
//! live Prometheus endpoint is the `tranche-prometheus` crate's. Shared by every command: where
//! files are written and how (`outputs`), progress on stderr
//! (`progress`), writes to stdout and stderr that never panic (`stream`),
//! the figures that vary with thread timing (`timing`).

pub mod compare;
pub mod history;
pub mod html;
pub mod html_chart;
pub mod meta;
pub mod network;
pub mod repeat;
pub mod spread;
pub mod sweep_run;
mod table;

pub use meta::Meta;
pub use table::{columns, render};

/// What a result is (the data of every `--json`), `tranche-results`'
/// types under the names the renderers have always used.
pub use tranche_results::*;

/// Result files read back (`compare`, `history`, `beside`):
/// `tranche-result-files`, under the name the renderers have always used.
pub use tranche_result_files as results;

/// One line saying which candidate of a block never approved stalled and
/// why.
pub fn describe_stall(stall: &Stall) -> String {
    format!(
        "block {} candidate {}: {} never covered: once needed_approvals + 1 \
             assignments were out, upstream's rule sent only tranches up to {} (the highest \
             counted, {}, + {}), which held none for it, and held back its \
             assignment in tranche {}; too few approvals for the one-third rule \
             (docs/quirks.md)",
        stall.block,
        stall.candidate,
        tranche_cli::text::counted(stall.no_shows, "no-show"),
        stall.window,
        stall.max_tranche,
        tranche_cli::text::counted(stall.no_shows, "no-show"),
        stall.next_tranche
    )
}
