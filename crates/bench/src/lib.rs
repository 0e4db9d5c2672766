//! The `tranche` tool's library: the conformance command today; the
//! benchmark (configuration, message generation, driver, reports) and the
//! scenario runner as their issues land.

pub mod compare;
pub mod config;
pub mod conformance;
pub mod floor;
pub mod generate;
pub mod html;
pub mod producer;
pub mod profile;
pub mod prometheus;
pub mod report;
pub mod run;
pub mod run_cli;
pub mod scenario;
