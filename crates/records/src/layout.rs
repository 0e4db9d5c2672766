//! How a validator's two state machines are laid out on threads — one
//! place for the node (`crates/node`, through `tranche_validator::layout`),
//! the simulation's CPU model (`tranche_model::cpu::shape`) and the
//! configuration of both (`tranche_config::node_shape`), kept here below
//! them all so the configuration needs no state machine: the two
//! layouts, the parallel layout's default worker count and the capacities
//! of the node's queues, each after upstream.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Which of the node's two layouts runs a validator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// `approval-distribution` and `approval-voting`: distribution hands
    /// every check to the voting thread and waits for its verdict (upstream
    /// before `approval-voting-parallel`).
    Classic,
    /// A router, distribution workers that check crypto, one voting
    /// thread (upstream `polkadot/node/core/approval-voting-parallel`,
    /// what Polkadot runs).
    #[default]
    Parallel,
}

impl Layout {
    /// `classic` or `parallel`.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Classic => "classic",
            Layout::Parallel => "parallel",
        }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownLayout {
    /// The name, as given.
    pub found: String,
}

impl fmt::Display for UnknownLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expected classic or parallel, found \"{}\"",
            self.found.escape_default()
        )
    }
}

impl std::error::Error for UnknownLayout {}

impl FromStr for Layout {
    type Err = UnknownLayout;

    fn from_str(s: &str) -> Result<Layout, UnknownLayout> {
        match s {
            "classic" => Ok(Layout::Classic),
            "parallel" => Ok(Layout::Parallel),
            _ => Err(UnknownLayout {
                found: s.to_owned(),
            }),
        }
    }
}

/// The parallel layout's distribution workers by default (upstream
/// `APPROVAL_DISTRIBUTION_WORKER_COUNT`).
pub const DEFAULT_WORKERS: usize = 4;

/// The node's inbox (upstream's approval-distribution inbox): the classic
/// distribution thread's input and the parallel router's.
pub const INBOX_CAPACITY: usize = 64_000;
/// Each parallel distribution worker's bounded input (upstream
/// `DEFAULT_WORKERS_CHANNEL_SIZE` = 64 000 / 4 in
/// `polkadot/node/core/approval-voting-parallel/src/lib.rs`).
pub const WORKER_CHANNEL_CAPACITY: usize = 16_000;
/// The voting thread's bounded input, in both layouts.
pub const VOTING_CHANNEL_CAPACITY: usize = 16_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layout_reads_back_from_its_name_and_nothing_else_is_one() {
        for l in [Layout::Classic, Layout::Parallel] {
            assert_eq!(l.name().parse(), Ok(l));
            assert_eq!(l.to_string(), l.name());
        }
        let e = "Parallel\n".parse::<Layout>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "expected classic or parallel, found \"Parallel\\n\""
        );
    }
}
