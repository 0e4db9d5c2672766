//! Reputation changes on their way out of the node, as upstream's
//! `ReputationAggregator` (`polkadot/node/subsystem-util/src/reputation.rs`,
//! used by `polkadot/node/network/approval-distribution/src/lib.rs`):
//! summed per peer and sent every `REPUTATION_CHANGE_INTERVAL` (30 s, here
//! 60 ticks of the node's clock); a malicious change is sent at once.

use crate::messages::NodeEvent;
use crossbeam_channel::Sender;
use std::collections::BTreeMap;
use tranche_distribution::reputation::Rep;
use tranche_distribution::PeerId;
use tranche_primitives::Tick;

/// 30 s in 500 ms ticks.
pub(crate) const FLUSH_TICKS: Tick = 60;

/// The changes not yet sent, summed per peer.
#[derive(Debug, Default)]
pub(crate) struct Reputations {
    by_peer: BTreeMap<PeerId, i32>,
    last_flush: Option<Tick>,
}

impl Reputations {
    /// Note one change: malicious ones leave at once, the rest are summed.
    pub(crate) fn add(&mut self, peer: PeerId, rep: Rep, events: &Sender<NodeEvent>) {
        if rep.is_malicious() {
            let _ = events.send(NodeEvent::Reputation {
                peer,
                change: rep.value,
            });
            return;
        }
        let sum = self.by_peer.entry(peer).or_insert(0);
        *sum = sum.saturating_add(rep.value);
    }

    /// Send the sums if the interval has passed since the last flush (the
    /// first call starts the interval).
    pub(crate) fn maybe_flush(&mut self, now: Tick, events: &Sender<NodeEvent>) {
        let last = *self.last_flush.get_or_insert(now);
        if now.saturating_sub(last) >= FLUSH_TICKS {
            self.flush(events);
            self.last_flush = Some(now);
        }
    }

    /// Send every sum now.
    pub(crate) fn flush(&mut self, events: &Sender<NodeEvent>) {
        for (peer, change) in std::mem::take(&mut self.by_peer) {
            let _ = events.send(NodeEvent::Reputation { peer, change });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tranche_distribution::reputation::{
        BENEFIT_VALID_MESSAGE_FIRST, COST_DUPLICATE_MESSAGE, COST_INVALID_MESSAGE,
    };

    fn drain(rx: &crossbeam_channel::Receiver<NodeEvent>) -> Vec<(u32, i32)> {
        rx.try_iter()
            .map(|e| match e {
                NodeEvent::Reputation { peer, change } => (peer.0, change),
                _ => panic!("only reputation"),
            })
            .collect()
    }

    #[test]
    fn changes_are_summed_per_peer_and_sent_every_thirty_seconds() {
        let (tx, rx) = crossbeam_channel::unbounded();
        let mut r = Reputations::default();
        r.maybe_flush(100, &tx);
        r.add(PeerId(1), COST_DUPLICATE_MESSAGE, &tx);
        r.add(PeerId(1), BENEFIT_VALID_MESSAGE_FIRST, &tx);
        r.add(PeerId(2), COST_INVALID_MESSAGE, &tx);
        r.maybe_flush(159, &tx);
        assert!(drain(&rx).is_empty(), "nothing before 30 s");
        r.maybe_flush(160, &tx);
        assert_eq!(drain(&rx), vec![(1, -200_000 + 15_000), (2, -300_000)]);
        r.add(PeerId(3), COST_DUPLICATE_MESSAGE, &tx);
        r.flush(&tx);
        assert_eq!(drain(&rx), vec![(3, -200_000)]);
    }

    #[test]
    fn a_malicious_change_leaves_at_once() {
        let (tx, rx) = crossbeam_channel::unbounded();
        let mut r = Reputations::default();
        let evil = Rep {
            name: "test: malicious",
            value: -1_000_000,
            malicious: true,
        };
        r.add(PeerId(4), evil, &tx);
        assert_eq!(drain(&rx), vec![(4, -1_000_000)]);
    }
}
