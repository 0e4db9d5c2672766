//! The `tranche` binary's library: the benchmark driver (`run`, `run_cli`:
//! one run of a test-sequence step against the node under test), the crypto
//! floor (`floor`), and the outputs (`report`: table, JSON, HTML,
//! Prometheus, compare; `profile`; `outputs`: where files are written). The workload lives in
//! `tranche-workload`, the reference checks in `tranche-conformance`.

pub mod examples;
pub mod floor;
pub mod outputs;
pub mod profile;
pub mod report;
pub mod run;
pub mod run_cli;
