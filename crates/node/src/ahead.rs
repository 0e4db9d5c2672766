//! Crypto back to back: a parallel-layout distribution worker drains up to
//! a batch of messages from its bounded input, decodes the peers' bytes
//! among them (the router only read where their items lie), checks the
//! certificates of
//! their first-seen assignments one after the other, and only then hands
//! the messages to the state machine in arrival order; when phase 1 asks
//! for a certificate check that was done ahead, the verdict is taken from
//! here instead of checking again.
//!
//! Nothing decides differently: a verdict is a pure function of the
//! assignment and its block, so the in-order pass does, sends and groups
//! exactly what checking inline does, for any split of the input into
//! batches (`crates/node/tests/node/node.rs`). What is checked ahead is what
//! the state would ask to check right now
//! (`tranche_distribution::State::assignment_check_ahead`), less the
//! copies of an assignment already taken in this batch; a verdict the
//! in-order pass did not ask for (a message of a block finalized while the
//! batch waited) is counted as unused. Checks are counted when the in-order
//! pass takes them, as without this.

use crate::channel::Rx;
use crate::maps::Map;
use crate::messages::{decoded, DistMsg};
use std::collections::VecDeque;
use std::sync::Arc;
use tranche_distribution::{AssignmentItem, AssignmentVerdict, State};
use tranche_primitives::{ApprovalDistributionMessage, CandidateBitfield, Hash, ValidatorIndex};

/// A worker's drained batch and the verdicts checked ahead for it.
pub(crate) struct Ahead {
    /// Most messages drained at once (at least 1).
    limit: usize,
    queue: VecDeque<DistMsg>,
    verdicts: Map<Arc<AssignmentItem>, AssignmentVerdict>,
    /// Checks run ahead that the in-order pass took, and those it never
    /// asked for, over the worker's life.
    pub taken: u64,
    pub unused: u64,
}

impl Ahead {
    pub fn new(limit: usize) -> Ahead {
        Ahead {
            limit: limit.max(1),
            queue: VecDeque::new(),
            verdicts: Map::default(),
            taken: 0,
            unused: 0,
        }
    }

    /// The next message in arrival order; when none is left of the batch,
    /// drain a new one from `normal` and check its certificates ahead.
    pub fn take(&mut self, normal: &Rx<DistMsg>, state: &State) -> Option<DistMsg> {
        if self.queue.is_empty() {
            self.unused += self.verdicts.len() as u64;
            self.verdicts.clear();
            while self.queue.len() < self.limit {
                match normal.try_recv() {
                    Some(m) => self.queue.push_back(decoded(m)),
                    None => break,
                }
            }
            self.check_ahead(state);
        }
        self.queue.pop_front()
    }

    /// The verdict checked ahead for this assignment, if any.
    pub fn verdict(&mut self, item: &AssignmentItem) -> Option<AssignmentVerdict> {
        let v = self.verdicts.remove(item);
        self.taken += u64::from(v.is_some());
        v
    }

    /// Check, back to back, every certificate the state would ask for,
    /// in the batch's order, up to the first message that is not a peer's
    /// (a block, a finality or view change may change what is asked).
    fn check_ahead(&mut self, state: &State) {
        let mut taken: Map<(Hash, ValidatorIndex), Vec<CandidateBitfield>> = Map::default();
        let mut checks = Vec::new();
        for m in &self.queue {
            let message = match m {
                DistMsg::Peer { message, .. } => message,
                // Bytes that did not decode: reported when handled.
                DistMsg::PeerBytes { .. } | DistMsg::PeerItem { .. } => continue,
                _ => break,
            };
            let ApprovalDistributionMessage::Assignments(items) = message else {
                continue;
            };
            for item in items {
                let subject = (item.cert.block_hash, item.cert.validator);
                if taken
                    .get(&subject)
                    .is_some_and(|c| c.contains(&item.claimed))
                {
                    continue;
                }
                if let Some(check) = state.assignment_check_ahead(item) {
                    taken.entry(subject).or_default().push(item.claimed.clone());
                    checks.push(check);
                }
            }
        }
        for check in checks {
            let verdict = check.check();
            self.verdicts.insert(check.assignment, verdict);
        }
    }
}
