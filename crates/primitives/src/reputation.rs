//! Reputation changes approval-distribution reports about peers (upstream
//! `COST_*` / `BENEFIT_*` in `polkadot/node/network/approval-distribution/src/lib.rs`),
//! with upstream's names and values. Aggregation and flushing are
//! the runtime's business. The table lives here, below distribution
//! (which re-exports it as `tranche_distribution::reputation`), so that
//! the metrics that count changes by kind need no state machine.

/// One reputation change: a name for logs and metrics, its value, and
/// whether it is malicious (upstream `UnifiedReputationChange::Malicious`:
/// reported at once instead of aggregated; approval-distribution upstream
/// has none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rep {
    pub name: &'static str,
    pub value: i32,
    pub malicious: bool,
}

impl Rep {
    /// True for a cost (negative value).
    pub fn is_cost(&self) -> bool {
        self.value < 0
    }

    /// Reported at once, not aggregated.
    pub fn is_malicious(&self) -> bool {
        self.malicious
    }
}

/// Every change approval-distribution reports, in a fixed order (metrics
/// count changes by kind in this order).
pub const ALL: [Rep; 7] = [
    COST_UNEXPECTED_MESSAGE,
    COST_DUPLICATE_MESSAGE,
    COST_ASSIGNMENT_TOO_FAR_IN_THE_FUTURE,
    COST_INVALID_MESSAGE,
    COST_OVERSIZED_BITFIELD,
    BENEFIT_VALID_MESSAGE,
    BENEFIT_VALID_MESSAGE_FIRST,
];

/// Unknown block, peer out of view, vote before its assignment.
pub const COST_UNEXPECTED_MESSAGE: Rep = Rep {
    name: "Peer sent an out-of-view assignment or approval",
    value: -100_000,
    malicious: false,
};
/// The same message twice from the same peer (outside aggression).
pub const COST_DUPLICATE_MESSAGE: Rep = Rep {
    name: "Peer sent identical messages",
    value: -200_000,
    malicious: false,
};
/// A valid assignment whose tranche is 20 ticks or more ahead of now.
pub const COST_ASSIGNMENT_TOO_FAR_IN_THE_FUTURE: Rep = Rep {
    name: "The vote was valid but too far in the future",
    value: -100_000,
    malicious: false,
};
/// Bad certificate, bad signature, bad indices.
pub const COST_INVALID_MESSAGE: Rep = Rep {
    name: "The vote was bad",
    value: -300_000,
    malicious: false,
};
/// A bitfield that is too long, empty, or not minimal.
pub const COST_OVERSIZED_BITFIELD: Rep = Rep {
    name: "Oversized certificate or candidate bitfield",
    value: -300_000,
    malicious: false,
};
/// A valid message we already had.
pub const BENEFIT_VALID_MESSAGE: Rep = Rep {
    name: "Peer sent a valid message",
    value: 10_000,
    malicious: false,
};
/// A valid message that was new to us.
pub const BENEFIT_VALID_MESSAGE_FIRST: Rep = Rep {
    name: "Valid message with new information",
    value: 15_000,
    malicious: false,
};
