//! The crypto floor: the CPU this machine needs to verify just a run's
//! unique certificates and signatures, one after another on one thread,
//! with nothing else around them. The node's total CPU is reported as a
//! ratio to it.

use crate::run::Phase;
use std::time::Duration;
use tranche_node::thread_cpu_time;
use tranche_primitives::criteria::check_assignment_cert;
use tranche_primitives::vote::verify_approval;
use tranche_primitives::{ApprovalDistributionMessage, CoreBitfield, GroupIndex, Session};
use tranche_workload::generate::bundles::TestMessage;
use tranche_workload::generate::world::World;

/// What the floor measurement found.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CryptoFloor {
    pub assignments: u64,
    pub approvals: u64,
    /// Checks that failed (there should be none: generated messages are
    /// valid).
    pub failures: u64,
    pub cpu: Duration,
}

/// Verify each message once on the calling thread and measure the CPU.
pub fn measure<'a>(
    world: &World,
    session: &Session,
    messages: impl IntoIterator<Item = (u32, &'a TestMessage)>,
    phase: &Phase,
) -> CryptoFloor {
    let mut floor = CryptoFloor::default();
    let start = thread_cpu_time();
    for (i, (block, m)) in messages.into_iter().enumerate() {
        phase.set(i as u64);
        let Some(block) = world.blocks.get(block as usize) else {
            continue;
        };
        match &m.message {
            ApprovalDistributionMessage::Assignments(items) => {
                for (a, claimed) in items {
                    let cands: Vec<_> = claimed
                        .iter_ones()
                        .filter_map(|i| block.candidates.get(i as usize))
                        .collect();
                    let cores: Vec<u32> = cands.iter().map(|c| c.core.0).collect();
                    let groups: Vec<GroupIndex> = cands.iter().map(|c| c.group).collect();
                    let ok = CoreBitfield::from_indices(&cores).is_ok_and(|cb| {
                        check_assignment_cert(
                            &cb,
                            a.validator,
                            session,
                            &block.relay_vrf_story,
                            &a.cert,
                            &groups,
                        )
                        .is_ok()
                    });
                    floor.assignments += 1;
                    floor.failures += u64::from(!ok);
                }
            }
            ApprovalDistributionMessage::Approvals(votes) => {
                for v in votes {
                    let hashes: Vec<_> = v
                        .candidate_indices
                        .iter_ones()
                        .filter_map(|i| block.candidates.get(i as usize).map(|c| c.hash))
                        .collect();
                    let ok = session
                        .validator_key(v.validator)
                        .flatten()
                        .is_some_and(|key| {
                            verify_approval(key, &hashes, session.info.session_index, &v.signature)
                                .is_ok()
                        });
                    floor.approvals += 1;
                    floor.failures += u64::from(!ok);
                }
            }
        }
    }
    floor.cpu = thread_cpu_time().saturating_sub(start);
    floor
}
