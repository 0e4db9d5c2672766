//! What the tests that run a small network by hand share: the next moment
//! of the run, the earliest of the next packet's arrival and the next
//! event a validator asked for, always after `now`.

use std::collections::BTreeMap;
use tranche_model::member::{Packet, SimNode};

/// The run's next moment after `now`; `None` when nothing is left.
pub fn next_moment(now: u64, due: &BTreeMap<u64, Vec<Packet>>, nodes: &[SimNode]) -> Option<u64> {
    let next_packet = due.keys().next().copied();
    let next_own = nodes.iter().filter_map(SimNode::next_event_ms).min();
    match (next_packet, next_own) {
        (Some(a), Some(b)) => Some(a.min(b).max(now + 1)),
        (a, b) => a.or(b).map(|t| t.max(now + 1)),
    }
}
