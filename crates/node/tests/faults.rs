//! Store faults are errors, not losses (docs/durability.md): a store that
//! fails at a chosen point — a write, a commit, a flush, the first write of
//! each kind of record — stops the node with one line naming the store,
//! its path and the cause; the database is left openable, and a node
//! started again on it (the fault gone) approves every block and holds
//! every announcement made before the fault. For redb and ParityDB, in both
//! layouts; and once with a real full file system (a small tmpfs, when
//! this test runs as root).

mod common;

use common::*;
use std::collections::BTreeSet;
use std::path::Path;
use tranche_node::{Architecture, Clock, Node, NodeEvent, StoreConfig};
use tranche_primitives::time::DEFAULT_TICKS_PER_SLOT;
use tranche_primitives::Tick;
use tranche_voting::{Fault, FaultPoint};

/// What a node did before it stopped.
#[derive(Default)]
struct Seen {
    /// Announcement lines (see `common::recorded`).
    announced: BTreeSet<String>,
    /// Block numbers reported approved.
    approved: BTreeSet<u32>,
}

impl Seen {
    fn take(&mut self, node: &Node) {
        while let Ok(e) = node.events().try_recv() {
            match e {
                NodeEvent::Send { bytes, .. } => self
                    .announced
                    .extend(item_keys(&bytes).into_iter().filter_map(ours)),
                NodeEvent::BlockApproved { hash, number, .. } => {
                    self.announced.insert(format!("B {} []", hex(&hash)));
                    self.approved.insert(number);
                }
                _ => {}
            }
        }
    }
}

fn span(net: &Net) -> (Tick, Tick) {
    let first = net.blocks[0].block.slot * DEFAULT_TICKS_PER_SLOT;
    let end = net.blocks.last().unwrap().block.slot * DEFAULT_TICKS_PER_SLOT + 40;
    (first, end)
}

/// Run the whole schedule on a node with `store` (virtual time), stopping
/// at its first error; what it announced, and the error.
fn run(net: &Net, arch: Architecture, store: StoreConfig) -> (Seen, Option<String>) {
    let (first, end) = span(net);
    let mut cfg = config(net, arch, Clock::virtual_at(first));
    cfg.store = store;
    let mut node = match Node::start(cfg) {
        Ok(n) => n,
        Err(e) => return (Seen::default(), Some(e.to_string())),
    };
    let mut seen = Seen::default();
    connect(net, &mut node, first, false);
    let r = try_drive_ticks(net, &mut node, first, end, |_, _| {});
    seen.take(&node);
    let err = r
        .err()
        .or_else(|| node.check().err())
        .map(|e| e.to_string());
    let _ = node.shutdown();
    (seen, err)
}

/// After a fault: the database holds every announcement made before it,
/// and a node started again on it approves every block.
fn survives(net: &Net, arch: Architecture, kind: &str, db: &Path, before: &Seen, what: &str) {
    let snap = stored(kind, db);
    for l in &before.announced {
        assert!(
            recorded(&snap, l),
            "{what}: `{l}` was announced but is lost"
        );
    }
    let (after, err) = run(net, arch, store_config(kind, db));
    assert_eq!(err, None, "{what}: the restart failed");
    let all: BTreeSet<u32> = before.approved.union(&after.approved).copied().collect();
    assert_eq!(
        all.len(),
        net.blocks.len(),
        "{what}: approved before {:?}, after {:?}",
        before.approved,
        after.approved
    );
}

/// The message names the store, its path and the cause, on one line.
fn one_line(err: &str, kind: &str, db: &Path, cause: &str, what: &str) {
    assert!(!err.contains('\n'), "{what}: `{err}`");
    assert!(
        err.contains(&format!("{kind} database at {}", db.display())),
        "{what}: `{err}`"
    );
    assert!(err.contains(cause), "{what}: `{err}`");
}

/// Every injected fault point against one store, both layouts.
fn injected_faults(kind: &str) {
    let net = net(20, 4, 3, 3);
    let dir = tempfile::tempdir().unwrap();
    let points = [
        (FaultPoint::Write, 0),
        (FaultPoint::Write, 30),
        (FaultPoint::Commit, 0),
        (FaultPoint::Commit, 6),
        (FaultPoint::Flush, 0),
        (FaultPoint::Flush, 4),
        (FaultPoint::WriteOf("PutSession"), 0),
        (FaultPoint::WriteOf("PutBlock"), 1),
        (FaultPoint::WriteOf("PutBlockState"), 3),
        (FaultPoint::WriteOf("PutApprovalEntry"), 4),
        (FaultPoint::WriteOf("PutAssignment"), 10),
        (FaultPoint::WriteOf("PutApproval"), 10),
        (FaultPoint::WriteOf("PutWakeup"), 5),
        (FaultPoint::WriteOf("DeleteWakeup"), 2),
    ];
    let mut struck = 0;
    for (i, (point, after)) in points.into_iter().enumerate() {
        for arch in [Architecture::CLASSIC, Architecture::parallel(2)] {
            let what = format!("{kind}, {}, {point:?} after {after}", arch.name());
            let db = dir.path().join(format!("{i}-{}.{kind}", arch.name()));
            let fault = Fault { point, after };
            let faulty = StoreConfig::Faulty(Box::new(store_config(kind, &db)), fault);
            let (before, err) = run(&net, arch, faulty);
            let Some(err) = err else {
                panic!("{what}: the fault never struck");
            };
            one_line(&err, kind, &db, "injected fault", &what);
            struck += 1;
            survives(&net, arch, kind, &db, &before, &what);
        }
    }
    assert_eq!(struck, 28);
}

#[test]
fn injected_store_faults_stop_the_node_and_lose_nothing_redb() {
    injected_faults("redb");
}

#[test]
fn injected_store_faults_stop_the_node_and_lose_nothing_parity_db() {
    injected_faults("parity-db");
}
