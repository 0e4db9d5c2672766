//! The `tranche` binary's library: the benchmark driver (`run`, `run_cli`:
//! one run of a test-sequence step against the node under test; `sequence`:
//! the test sequence found and resolved), the crypto
//! floor (`floor`), the profile (`profile`), the `--help` examples (`help`), the shipped examples
//! (`examples`), `tranche sweep run` (`sweep`), and the command lines of
//! the whole-network simulation (`network_cli`, `sweep_network`),
//! `tranche calibrate` (`calibrate`), `tranche compare` (`compare_cli`)
//! and `tranche history` (`history_cli`). The
//! workload and the objectives live in `tranche-workload`, the reports,
//! the output files and the progress display in `tranche-report`, the
//! simulation's engine in `tranche-simulation`, the reference checks in
//! `tranche-conformance`.

pub mod calibrate;
pub mod compare_cli;
pub mod examples;
pub mod floor;
pub mod help;
pub mod history_cli;
pub mod input_kind;
pub mod network_cli;
pub mod profile;
pub mod run;
pub mod run_cli;
pub mod sequence;
pub mod small;
pub mod sweep;
pub mod sweep_network;
