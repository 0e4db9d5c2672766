//! The CPU model's jobs: how a notification is split by worker, and how
//! `batch: moment` makes a moment's notifications one job.

use super::*;
use crate::costs::CostKind;
use tranche_primitives::{CandidateBitfield, Hash, IndirectSignedApprovalVote};
use tranche_primitives::{ValidatorIndex, ValidatorSignature};

fn votes(validators: &[u32]) -> ApprovalDistributionMessage {
    ApprovalDistributionMessage::approvals(validators.iter().map(|&v| IndirectSignedApprovalVote {
        block_hash: Hash([1; 32]),
        candidate_indices: CandidateBitfield::from_index(0),
        validator: ValidatorIndex(v),
        signature: ValidatorSignature([2; 64]),
    }))
}

/// Each part: (worker index, the validators of its items in order).
fn parts(split: Parts<Job>) -> Vec<(usize, u32, Vec<u32>)> {
    split
        .into_iter()
        .map(|(w, job)| match job {
            Job::Items {
                from,
                msg: ApprovalDistributionMessage::Approvals(v),
            } => (w.index(), from, v.iter().map(|v| v.validator.0).collect()),
            _ => panic!("a split gives items of the notification's kind"),
        })
        .collect()
}

/// Threads 1 to 3 of a four-thread CPU, as workers.
fn three_workers() -> Vec<ThreadId> {
    let specs = (0..4)
        .map(|i| crate::cpu::ThreadSpec::new(format!("t{i}"), None))
        .collect();
    let cpu: Cpu<Job, Done> = Cpu::new(specs, 1).unwrap();
    cpu.threads().skip(1).map(|(t, _)| t).collect()
}

#[test]
fn a_notification_is_split_by_worker_in_the_order_of_first_items() {
    let workers = three_workers();
    let split = split(7, votes(&[5, 3, 8, 4, 2, 6]), &workers);
    assert_eq!(
        parts(split),
        vec![(3, 7, vec![5, 8, 2]), (1, 7, vec![3, 6]), (2, 7, vec![4]),]
    );
    // All of one worker's: one part, the items as they came.
    assert_eq!(
        parts(super::split(9, votes(&[4, 1, 7]), &workers)),
        vec![(2, 9, vec![4, 1, 7])]
    );
    assert!(super::split(9, votes(&[]), &workers).is_empty());
}

#[test]
fn a_moments_notifications_are_split_into_one_job_a_worker() {
    let workers = three_workers();
    // Each worker's index and its shares: (sender, items' validators).
    type Shares = Vec<(u32, Vec<u32>)>;
    let parts: Vec<(usize, Shares)> =
        split_all(vec![(7, votes(&[5, 3])), (9, votes(&[4, 8]))], &workers)
            .into_iter()
            .map(|(w, job)| {
                let Job::Batch(all) = job else {
                    panic!("one batch a worker")
                };
                let shares = all
                    .into_iter()
                    .map(|(from, msg)| match msg {
                        ApprovalDistributionMessage::Approvals(v) => {
                            (from, v.iter().map(|v| v.validator.0).collect())
                        }
                        _ => panic!("approvals stay approvals"),
                    })
                    .collect();
                (w.index(), shares)
            })
            .collect();
    // Workers by first item (5 on the third, 3 on the first, 4 on the
    // second); a worker's shares in the notifications' order.
    assert_eq!(
        parts,
        vec![
            (3, vec![(7, vec![5]), (9, vec![8])]),
            (1, vec![(7, vec![3])]),
            (2, vec![(9, vec![4])]),
        ]
    );
}

/// Handles every item as a duplicate and forwards each back to its
/// sender; remembers when each `send` came and how many it carried.
#[derive(Default)]
struct Forwarder {
    handled: usize,
    sent: Vec<(u64, Vec<u32>)>,
}

impl Handler for Forwarder {
    fn handle_items(
        &mut self,
        _now_ms: u64,
        from: u32,
        msg: ApprovalDistributionMessage,
        _defer: bool,
    ) -> Handled {
        self.handled += 1;
        let ApprovalDistributionMessage::Approvals(votes) = msg else {
            panic!("approvals only here")
        };
        Handled {
            sends: votes
                .into_iter()
                .map(|v| (PeerId(from), Outgoing::Approval(v)))
                .collect(),
            ..Handled::default()
        }
    }
    fn run_checks(&mut self, _now_ms: u64, _work: Vec<Action>) -> Handled {
        Handled::default()
    }
    fn send(&mut self, now_ms: u64, sends: Vec<(PeerId, Outgoing)>) {
        let to = sends.iter().map(|(p, _)| p.0).collect();
        self.sent.push((now_ms, to));
    }
    fn import(&mut self, _now_ms: u64, _imports: Vec<Import>) {}
    fn take_owed(&mut self) -> Owed {
        Owed::default()
    }
}

/// Three one-item notifications from peers 4, 5, 6 reach a node at
/// moment 0, each item costing 1 ms; the forwards as they left.
fn three_in_a_moment(layout: Layout, batch: Batch) -> (Forwarder, Vec<u64>) {
    let shape = NodeShape {
        layout,
        workers: 1,
        cores: 1,
        batch,
        ..NodeShape::default()
    };
    let costs = CostTable::default()
        .with(CostKind::Duplicate, NS_PER_MS)
        .with(CostKind::Route, 0);
    let mut busy = Busy::new(&shape, costs, false);
    let mut node = Forwarder::default();
    for from in [4, 5, 6] {
        busy.enqueue(from, votes(&[from]));
    }
    for now_ms in 0..5 {
        busy.drive(now_ms, &mut node);
    }
    (node, busy.busy_ms())
}

#[test]
fn a_moments_notifications_are_one_job_with_batch_moment() {
    for layout in [Layout::Classic, Layout::Parallel] {
        // One job each: each handled in turn, its forward leaving as it
        // is done.
        let (node, busy) = three_in_a_moment(layout, Batch::Notification);
        assert_eq!(node.handled, 3);
        assert_eq!(
            node.sent,
            vec![(1, vec![4]), (2, vec![5]), (3, vec![6])],
            "{layout:?}"
        );
        let each = busy;
        // One job: the same work, the forwards leaving together when
        // the last is handled.
        let (node, busy) = three_in_a_moment(layout, Batch::Moment);
        assert_eq!(node.handled, 3);
        assert_eq!(node.sent, vec![(3, vec![4, 5, 6])], "{layout:?}");
        assert_eq!(busy, each, "{layout:?}: the same CPU, thread by thread");
        let distribution = if layout == Layout::Classic { 0 } else { 1 };
        assert_eq!(busy[distribution], 3, "{layout:?}: {busy:?}");
    }
}
