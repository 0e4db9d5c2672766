//! The `tranche` binary's library: the benchmark driver (`run`, `run_cli`:
//! one run of a test-sequence step against the node under test), the crypto
//! floor (`floor`), the profile (`profile`), where files are written
//! (`outputs`), the shipped examples (`examples`) and `tranche sweep run`
//! (`sweep`). The workload lives in
//! `tranche-workload`, the reports in `tranche-report`, the reference
//! checks in `tranche-conformance`.

pub mod examples;
pub mod floor;
pub mod outputs;
pub mod profile;
pub mod run;
pub mod run_cli;
pub mod sweep;
