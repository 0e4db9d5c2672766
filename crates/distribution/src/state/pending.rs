//! Messages held for a block we do not know yet (it is in our view, its
//! import has not reached us): bounded per block
//! (`Config::max_pending_per_block`) and, our choice beyond upstream (which
//! has neither bound), per peer within the block
//! (`Config::max_pending_per_peer`), so that one peer cannot fill the
//! whole buffer and crowd out honest peers' early messages.

use super::hashers::IdMap;
use super::Pending;
use crate::action::PeerId;

/// The messages held for one unknown block, in arrival order.
#[derive(Debug, Default)]
pub(super) struct Held {
    messages: Vec<(PeerId, Pending)>,
    per_peer: IdMap<PeerId, usize>,
}

impl Held {
    /// Hold `m` from `peer` unless a bound is reached; returns whether it
    /// is held. Beyond a bound the message is dropped without cost: the
    /// sender may be honest and simply ahead of us.
    pub(super) fn push(
        &mut self,
        peer: PeerId,
        m: Pending,
        per_block: usize,
        per_peer: usize,
    ) -> bool {
        if self.messages.len() >= per_block {
            return false;
        }
        let n = self.per_peer.entry(peer).or_default();
        if *n >= per_peer {
            return false;
        }
        *n += 1;
        self.messages.push((peer, m));
        true
    }

    pub(super) fn len(&self) -> usize {
        self.messages.len()
    }

    /// The held messages, in arrival order.
    pub(super) fn into_messages(self) -> Vec<(PeerId, Pending)> {
        self.messages
    }
}
