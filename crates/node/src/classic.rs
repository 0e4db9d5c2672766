//! The classic layout, upstream's `approval-distribution` +
//! `approval-voting` pair (`polkadot/node/network/approval-distribution/src/lib.rs`,
//! `polkadot/node/core/approval-voting/src/lib.rs`): one distribution worker
//! that decodes peers' bytes itself and hands every check to the voting
//! worker, waiting for each verdict; voting checks crypto and imports what
//! passes. The node's own view is kept here, on the caller's thread.

use crate::channel::{Closed, Tx};
use crate::checks::CheckMode;
use crate::fanout::Fanout;
use crate::layout::{NodeError, Running, INBOX_CAPACITY};
use crate::messages::{DistMsg, Input};
use crate::wiring::{Voting, Wiring, Workers};
use std::sync::Arc;
use tranche_distribution::PeerId;

/// A running classic layout: how the node reaches its two workers.
pub(crate) struct Classic {
    /// Bounded input of the distribution worker (peers' bytes).
    dist: Tx<DistMsg>,
    fanout: Fanout,
}

impl Classic {
    /// Start the voting worker (`approval-voting`) and the distribution
    /// worker (`approval-distribution`).
    pub fn start(wiring: &mut Wiring, voting: Voting) -> Result<Classic, NodeError> {
        let workers = Workers {
            voting: "approval-voting".to_owned(),
            distribution: vec!["approval-distribution".to_owned()],
            capacity: INBOX_CAPACITY,
            mode: CheckMode::ViaVoting,
            router: None,
        };
        let (fanout, mut dist) = wiring.start_workers(voting, workers)?;
        Ok(Classic {
            dist: dist.remove(0),
            fanout,
        })
    }
}

impl Running for Classic {
    fn peer_bytes(&mut self, peer: PeerId, bytes: Arc<[u8]>) -> Result<(), Closed> {
        self.dist.send(DistMsg::PeerBytes { peer, bytes })
    }

    fn send(&mut self, input: Input) -> Result<(), Closed> {
        self.fanout.send(input)
    }

    fn inject_fault(&self, target: usize) -> Result<(), Closed> {
        self.fanout.prio.inject_fault(target)
    }

    fn stop(&self) {
        self.fanout.prio.stop();
    }
}
