//! The `tranche` tool's library: the conformance command today; the
//! benchmark (configuration, message generation, driver, reports) and the
//! scenario runner as their issues land.

pub mod conformance;
pub mod generate;
pub mod producer;
