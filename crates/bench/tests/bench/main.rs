//! Every integration test of the `tranche` binary in one test binary (one
//! link instead of one per file: most of a cold `cargo test` is building
//! and linking). Each module is one concern, as its own doc says.

mod calibrate;
mod cli;
mod common;
mod comparable;
mod databases;
mod db_ownership;
mod documented;
mod documented_figures;
mod estimates;
mod help_examples;
mod history;
mod hostile;
mod hostile_results;
mod html_browser;
mod inputs;
mod meta_compare;
mod model_guard;
mod model_node;
mod network_beside;
mod network_cli;
mod network_default_run;
mod network_processes;
mod network_strangers;
mod network_sweep;
mod observability;
mod outputs;
mod progress;
mod prometheus_bounds;
mod readme_sample;
mod real_clock_progress;
mod repeat;
mod report_notes;
mod restart;
mod run;
mod safe_text;
mod scenario_command;
mod stalls;
mod streams;
mod sweep_run;
