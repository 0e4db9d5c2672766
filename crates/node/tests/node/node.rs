//! The node end to end: both layouts fed the same blocks and messages in
//! virtual time agree on every approval tick and every (peer, item) sent;
//! a failing worker stops the node with its name; a small network on the
//! real clock approves every block.

use crate::common;

use common::*;
use std::time::{Duration, Instant};
use tranche_node::{Architecture, Clock, Layout, Node, NodeError, NodeEvent};
use tranche_primitives::time::DEFAULT_TICKS_PER_SLOT;

#[test]
fn classic_and_parallel_agree_tick_for_tick() {
    let net = net(20, 4, 3, 3);
    let end = net.blocks.last().unwrap().block.slot * DEFAULT_TICKS_PER_SLOT + 40;
    let start = net.blocks[0].block.slot * DEFAULT_TICKS_PER_SLOT;
    let mut reference = None;
    for arch in [
        Architecture::CLASSIC,
        Architecture::parallel(1),
        Architecture::parallel(2),
        Architecture::parallel(4),
        Architecture::parallel(8),
    ] {
        let mut node = Node::start(config(&net, arch, Clock::virtual_at(start))).unwrap();
        let trace = run_virtual(&net, &mut node, end);
        node.shutdown().unwrap();
        assert_eq!(
            trace.approved.len(),
            3,
            "{arch:?}: every block approved: {:?}",
            trace.approved
        );
        let items: usize = trace.sent.values().map(Vec::len).sum();
        eprintln!(
            "{arch:?}: approved {:?}, {items} items in {} notifications",
            trace.approved, trace.notifications
        );
        assert!(items > 100, "{arch:?}: only {items} items sent");
        match &reference {
            None => reference = Some((arch, trace)),
            Some((ra, rt)) => {
                assert_eq!(
                    rt.approved, trace.approved,
                    "{ra:?} vs {arch:?}: approval ticks"
                );
                for (tick, items) in &rt.sent {
                    assert_eq!(
                        Some(items),
                        trace.sent.get(tick),
                        "{ra:?} vs {arch:?}: sends at tick {tick}"
                    );
                }
                assert_eq!(rt.sent.len(), trace.sent.len());
            }
        }
    }
}

#[test]
fn a_failing_worker_stops_the_node_with_its_name() {
    let net = net(10, 2, 1, 2);
    for (arch, target, name) in [
        (Architecture::parallel(4), 2, "approval-voting-parallel-1"),
        (Architecture::parallel(2), 0, "approval-voting-parallel-db"),
        (Architecture::CLASSIC, 1, "approval-distribution"),
    ] {
        let mut node = Node::start(config(&net, arch, Clock::virtual_at(0))).unwrap();
        node.inject_fault(target).unwrap();
        let start = Instant::now();
        let err = node.wait_idle(Duration::from_secs(5)).unwrap_err();
        match &err {
            NodeError::WorkerFailed(f) => {
                assert_eq!(f.worker, name);
                assert!(f.message.contains("fault injected"), "{f}");
            }
            other => panic!("expected a worker failure, got {other}"),
        }
        assert!(node.shutdown().is_err());
        assert!(
            start.elapsed() < Duration::from_secs(1),
            "{:?}",
            start.elapsed()
        );
    }
}

#[test]
fn real_clock_small_network_approves_every_block() {
    let net = net(10, 2, 3, 2);
    // Start the real clock two ticks before the first block's slot.
    let first = net.blocks[0].block.slot * DEFAULT_TICKS_PER_SLOT;
    let clock = Clock::real(first - 2);
    let mut node = Node::start(config(&net, Architecture::parallel(2), clock.clone())).unwrap();
    for v in 1..net.n {
        node.peer_connected(
            tranche_distribution::PeerId(v),
            Some(tranche_primitives::ValidatorIndex(v)),
        )
        .unwrap();
    }
    node.topology(
        1,
        tranche_distribution::SessionGridTopology::identity(10),
        Some(tranche_primitives::ValidatorIndex(0)),
    )
    .unwrap();
    // Compress time: every block's slot arrives 3 ticks after the previous,
    // since the schedule is already fixed; deliver on the real clock.
    let mut approved = std::collections::BTreeSet::new();
    let mut feed = RealFeed::default();
    let deadline = Instant::now() + Duration::from_secs(60);
    while approved.len() < 3 && Instant::now() < deadline {
        feed.feed(&net, &mut node, clock.now());
        while let Ok(e) = node.events().recv_timeout(Duration::from_millis(20)) {
            if let NodeEvent::BlockApproved { number, .. } = e {
                approved.insert(number);
            }
        }
        node.check().unwrap();
    }
    node.shutdown().unwrap();
    assert_eq!(approved.len(), 3, "approved {approved:?}");
}

/// A session that is not in the start configuration is learned from its
/// first block (the voting worker hands it to distribution with the block):
/// nobody is charged for its messages, and the run decides exactly as with
/// the session known from the start.
#[test]
fn a_session_is_learned_from_its_first_block() {
    let net = net(20, 4, 3, 3);
    let end = net.blocks.last().unwrap().block.slot * DEFAULT_TICKS_PER_SLOT + 40;
    let start = net.blocks[0].block.slot * DEFAULT_TICKS_PER_SLOT;
    for arch in [Architecture::CLASSIC, Architecture::parallel(2)] {
        let mut known = Node::start(config(&net, arch, Clock::virtual_at(start))).unwrap();
        let with_session = run_virtual(&net, &mut known, end);
        known.shutdown().unwrap();
        let mut cfg = config(&net, arch, Clock::virtual_at(start));
        cfg.sessions.clear();
        let mut learning = Node::start(cfg).unwrap();
        let learned = run_virtual(&net, &mut learning, end);
        learning.shutdown().unwrap();
        assert_eq!(
            learned.approved.len(),
            3,
            "{arch:?}: {:?}",
            learned.approved
        );
        assert_same_trace(&with_session, &learned, &format!("{arch:?}"));
    }
}

/// `GetApprovalSignatures` through the node: the signatures it holds for a
/// candidate, by validator, the same in both layouts (the parallel one asks
/// every worker and merges), each one a valid vote.
#[test]
fn approval_signatures_are_answered_and_merged_across_workers() {
    let net = net(20, 4, 3, 3);
    let end = net.blocks.last().unwrap().block.slot * DEFAULT_TICKS_PER_SLOT + 40;
    let start = net.blocks[0].block.slot * DEFAULT_TICKS_PER_SLOT;
    let first = &net.blocks[0].block;
    let mut answers = Vec::new();
    for arch in [Architecture::CLASSIC, Architecture::parallel(4)] {
        let mut node = Node::start(config(&net, arch, Clock::virtual_at(start))).unwrap();
        run_virtual(&net, &mut node, end);
        let sigs = node
            .approval_signatures(vec![(first.hash, 0)], std::time::Duration::from_secs(60))
            .unwrap();
        node.shutdown().unwrap();
        assert!(sigs.len() >= 3, "{arch:?}: {} signatures", sigs.len());
        for (v, (block, candidates, signature)) in &sigs {
            assert_eq!(*block, first.hash);
            let hashes: Vec<_> = candidates
                .iter()
                .map(|c| first.candidates[*c as usize].hash)
                .collect();
            let key = net.pairs[v.0 as usize].public();
            assert_eq!(
                tranche_primitives::vote::verify_approval(key, &hashes, 1, signature),
                Ok(()),
                "{arch:?}: validator {v:?}"
            );
        }
        answers.push(sigs.keys().copied().collect::<Vec<_>>());
    }
    assert_eq!(answers[0], answers[1], "both layouts know the same voters");
}

/// Authority ids learned after the connection (`Node::peer_authority`)
/// route exactly as ids known at connection.
#[test]
fn authority_ids_learned_after_connecting_route_the_same() {
    let net = net(20, 4, 3, 3);
    let end = net.blocks.last().unwrap().block.slot * DEFAULT_TICKS_PER_SLOT + 40;
    let start = net.blocks[0].block.slot * DEFAULT_TICKS_PER_SLOT;
    let arch = Architecture::parallel(2);
    let mut a = Node::start(config(&net, arch, Clock::virtual_at(start))).unwrap();
    let known = run_virtual_with(&net, &mut a, end, false);
    a.shutdown().unwrap();
    let mut b = Node::start(config(&net, arch, Clock::virtual_at(start))).unwrap();
    let late = run_virtual_with(&net, &mut b, end, true);
    b.shutdown().unwrap();
    assert_eq!(late.approved.len(), 3);
    assert_same_trace(&known, &late, "authority learned late");
}

/// Restart as upstream's activation: a node stopped half-way and started
/// again from its redb store re-announces the stored blocks to
/// distribution and re-sends our own assignments and approvals, so peers'
/// later messages for those blocks are taken (nobody is charged for an
/// unexpected message) and every block is approved.
#[test]
fn a_restarted_node_re_announces_what_it_stored_and_approves_every_block() {
    let net = net(20, 4, 3, 3);
    let start = net.blocks[0].block.slot * DEFAULT_TICKS_PER_SLOT;
    let end = net.blocks.last().unwrap().block.slot * DEFAULT_TICKS_PER_SLOT + 40;
    let mid = start + 14;
    let dir = std::env::temp_dir().join(format!("tranche-restart-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for arch in [Architecture::CLASSIC, Architecture::parallel(2)] {
        let db = dir.join(format!("{}.redb", arch.name()));
        let _ = std::fs::remove_file(&db);
        let with_db = |clock| config_with_db(&net, arch, clock, &db);
        let mut first = Node::start(with_db(Clock::virtual_at(start))).unwrap();
        let before = run_virtual_span(&net, &mut first, start, mid, false);
        first.shutdown().unwrap();
        let mut second = Node::start(with_db(Clock::virtual_at(mid + 1))).unwrap();
        let after = run_virtual_span(&net, &mut second, mid + 1, end, true);
        let unexpected = second
            .metrics()
            .protocol
            .reputation_changes()
            .into_iter()
            .find(|(k, _)| k.contains("out-of-view"))
            .map_or(0, |(_, n)| n);
        second.shutdown().unwrap();
        let mut approved = before.approved.clone();
        approved.extend(after.approved.clone());
        assert_eq!(approved.len(), 3, "{arch:?}: {approved:?}");
        // Distribution keeps nothing across the restart (as upstream), and
        // these scripted peers do not send again what they sent before it:
        // a vote after the restart whose assignment came before is
        // unexpected. Nothing else is: the stored blocks are known.
        assert_eq!(
            unexpected,
            votes_orphaned_by_restart(&net, mid),
            "{arch:?}: peers charged after the restart"
        );
        // Our own assignments and approvals of the stored blocks went out
        // again at activation.
        let ours_again = own_items_sent(&after);
        assert!(ours_again > 0, "{arch:?}: nothing of ours re-sent");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Votes of the schedule after `mid` that cover a candidate whose
/// assignment from the same validator was sent at or before `mid` only.
fn votes_orphaned_by_restart(net: &Net, mid: tranche_primitives::Tick) -> u64 {
    use std::collections::BTreeSet;
    let mut before = BTreeSet::new();
    let mut after = BTreeSet::new();
    for (t, _, bytes) in &net.schedule {
        for k in item_keys(bytes) {
            if let ItemKey::Assignment {
                block,
                validator,
                claimed,
                ..
            } = k
            {
                for c in claimed {
                    let set = if *t <= mid { &mut before } else { &mut after };
                    set.insert((block, validator, c));
                }
            }
        }
    }
    let mut orphans = 0;
    for (_, _, bytes) in net.schedule.iter().filter(|(t, _, _)| *t > mid) {
        for k in item_keys(bytes) {
            if let ItemKey::Approval {
                block,
                validator,
                candidates,
            } = k
            {
                if candidates.iter().any(|c| {
                    before.contains(&(block, validator, *c))
                        && !after.contains(&(block, validator, *c))
                }) {
                    orphans += 1;
                }
            }
        }
    }
    orphans
}

/// The existing equality, now over a session change and a crash-restart:
/// four blocks in two sessions (the second learned from its first block,
/// its topology arriving with it), the node crashed after block 3 and
/// started again from its redb store; every layout approves every block at
/// the same tick and sends the same (peer, item) pairs at the same ticks.
#[test]
fn classic_and_parallel_agree_across_two_sessions_and_a_restart() {
    let net = net_with_sessions(20, 4, 4, 3, 2);
    assert_eq!(net.sessions.len(), 2);
    let start = net.blocks[0].block.slot * DEFAULT_TICKS_PER_SLOT;
    let end = net.blocks.last().unwrap().block.slot * DEFAULT_TICKS_PER_SLOT + 40;
    let mid = net.blocks[2].block.slot * DEFAULT_TICKS_PER_SLOT + 3;
    let dir = std::env::temp_dir().join(format!("tranche-sessions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut reference: Option<(Architecture, Trace)> = None;
    for (i, arch) in [
        Architecture::CLASSIC,
        Architecture::parallel(1),
        Architecture::parallel(2),
        Architecture::parallel(4),
    ]
    .into_iter()
    .enumerate()
    {
        let db = dir.join(format!("{i}.redb"));
        let _ = std::fs::remove_file(&db);
        let with_db = |clock| config_with_db(&net, arch, clock, &db);
        let mut first = Node::start(with_db(Clock::virtual_at(start))).unwrap();
        let before = run_virtual_span(&net, &mut first, start, mid, false);
        first.crash();
        drop(first);
        let mut second = Node::start(with_db(Clock::virtual_at(mid + 1))).unwrap();
        let after = run_virtual_span(&net, &mut second, mid + 1, end, true);
        let charged = charged_peers(&second);
        second.shutdown().unwrap();
        let mut trace = before;
        trace.approved.extend(after.approved);
        trace.sent.extend(after.sent);
        trace.notifications += after.notifications;
        for list in trace.sent.values_mut() {
            list.sort();
        }
        assert_eq!(trace.approved.len(), 4, "{arch:?}: {:?}", trace.approved);
        // Only what the restart orphaned is charged (see the restart test);
        // nothing for the second session.
        assert_eq!(
            charged,
            votes_orphaned_by_restart(&net, mid),
            "{arch:?}: peers charged"
        );
        match &reference {
            None => reference = Some((arch, trace)),
            Some((ra, rt)) => {
                assert_eq!(rt.approved, trace.approved, "{ra:?} vs {arch:?}");
                assert_eq!(rt.sent, trace.sent, "{ra:?} vs {arch:?}: sends");
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `approval-distribution-prio` or `approval-voting-parallel-{i}-prio`.
fn is_distribution_worker_prio(name: &str) -> bool {
    let Some(base) = name.strip_suffix("-prio") else {
        return false;
    };
    base == "approval-distribution"
        || base
            .strip_prefix("approval-voting-parallel-")
            .is_some_and(|i| i.parse::<usize>().is_ok())
}

/// Costs charged to peers, summed over kinds.
fn charged_peers(node: &Node) -> u64 {
    let counts = node.metrics().protocol.reputation_changes();
    tranche_distribution::reputation::ALL
        .iter()
        .zip(counts)
        .filter(|(rep, _)| rep.is_cost())
        .map(|(_, (_, n))| n)
        .sum()
}

/// The parallel layout as upstream's: new blocks and our own assignments
/// and approvals go from the voting worker to the router, which forwards
/// them on the workers' bounded inputs; the workers' unbounded inputs carry
/// only the router's control traffic (our view, network events, stop). The
/// classic layout's distribution worker takes them unbounded, as upstream's
/// approval-voting sends them.
#[test]
fn parallel_workers_take_blocks_and_our_own_messages_on_their_bounded_input() {
    let net = net(20, 4, 3, 3);
    let start = net.blocks[0].block.slot * DEFAULT_TICKS_PER_SLOT;
    let end = net.blocks.last().unwrap().block.slot * DEFAULT_TICKS_PER_SLOT + 40;
    let blocks = net.blocks.len() as u64;
    let peers = u64::from(net.n - 1);
    // Per worker: a connection per peer and the topology, then per block
    // our view and every peer's view, and the stop at shutdown.
    let control = peers + 1 + blocks * (1 + peers) + 1;
    for arch in [Architecture::CLASSIC, Architecture::parallel(2)] {
        let mut node = Node::start(config(&net, arch, Clock::virtual_at(start))).unwrap();
        let trace = run_virtual(&net, &mut node, end);
        let ours = own_items_sent(&trace);
        assert!(ours > 0, "{arch:?}: the node sent nothing of its own");
        let metrics = node.shutdown().unwrap();
        let prio: Vec<(String, u64)> = metrics
            .channels
            .iter()
            .filter(|c| is_distribution_worker_prio(&c.name))
            .map(|c| (c.name.clone(), c.received()))
            .collect();
        assert!(!prio.is_empty(), "{arch:?}: no worker channels");
        for (name, received) in prio {
            match arch.layout {
                Layout::Parallel => {
                    assert_eq!(received, control, "{arch:?}: {name}")
                }
                // New blocks and our own messages on top.
                Layout::Classic => assert!(
                    received > control + blocks,
                    "{arch:?}: {name} took {received}"
                ),
            }
        }
    }
}

/// Under the virtual clock nothing waits past its tick, so `useful-first`
/// never reorders: it gives exactly the `fifo` results, in both layouts,
/// and batched signatures give exactly the one-by-one results.
#[test]
fn useful_first_and_batched_signatures_change_nothing_in_virtual_time() {
    use tranche_node::{CheckPolicy, Schedule, SignatureCheck};
    let net = net(20, 4, 3, 3);
    let start = net.blocks[0].block.slot * DEFAULT_TICKS_PER_SLOT;
    let end = net.blocks.last().unwrap().block.slot * DEFAULT_TICKS_PER_SLOT + 40;
    for arch in [Architecture::CLASSIC, Architecture::parallel(2)] {
        let run = |checks: CheckPolicy| {
            let mut cfg = config(&net, arch, Clock::virtual_at(start));
            cfg.checks = checks;
            let mut node = Node::start(cfg).unwrap();
            let trace = run_virtual(&net, &mut node, end);
            let metrics = node.shutdown().unwrap();
            (trace, metrics)
        };
        let (fifo, _) = run(CheckPolicy {
            signatures: SignatureCheck::OneByOne,
            schedule: Schedule::Fifo,
            backlog: None,
            ahead: 0,
        });
        let (useful, m) = run(CheckPolicy {
            signatures: SignatureCheck::Batched,
            schedule: Schedule::UsefulFirst,
            backlog: Some(1_000_000),
            ahead: 0,
        });
        assert_eq!(fifo.approved.len(), 3, "{arch:?}");
        assert_same_trace(&fifo, &useful, &format!("{arch:?}"));
        let [ahead, rest] = m.schedule.quantiles();
        assert_eq!(ahead.count, 0, "{arch:?}: nothing was taken ahead");
        assert!(rest.count > 0, "{arch:?}: the backlog was used");
    }
}

/// Certificates checked back to back ahead of the in-order pass change
/// nothing: for any split of a worker's input into batches (1, 7, all) the
/// approval ticks, the (peer, item) sends, every notification's items and
/// the number of checks equal checking each certificate when phase 1 asks,
/// with either way of checking signatures; and the batches were used.
#[test]
fn certificates_checked_ahead_change_no_send_or_grouping_for_any_batch_split() {
    use tranche_node::{CheckPolicy, SignatureCheck};
    let net = net(20, 4, 3, 3);
    let start = net.blocks[0].block.slot * DEFAULT_TICKS_PER_SLOT;
    let end = net.blocks.last().unwrap().block.slot * DEFAULT_TICKS_PER_SLOT + 40;
    let arch = Architecture::parallel(2);
    for signatures in [SignatureCheck::OneByOne, SignatureCheck::Batched] {
        let run = |ahead: usize| {
            let mut cfg = config(&net, arch, Clock::virtual_at(start));
            cfg.checks = CheckPolicy {
                signatures,
                ahead,
                ..CheckPolicy::default()
            };
            let mut node = Node::start(cfg).unwrap();
            let trace = run_virtual(&net, &mut node, end);
            let metrics = node.shutdown().unwrap();
            (trace, metrics)
        };
        let (inline, m) = run(0);
        assert_eq!(inline.approved.len(), 3, "{signatures:?}");
        assert_eq!(m.protocol.checked_ahead_taken(), 0);
        for ahead in [1, 7, usize::MAX] {
            let what = format!("{signatures:?}, batches of {ahead}");
            let (t, n) = run(ahead);
            assert_same_trace(&inline, &t, &what);
            assert_eq!(inline.groups, t.groups, "{what}: notifications");
            assert_eq!(m.verifications(), n.verifications(), "{what}: checks");
            assert!(
                n.protocol.checked_ahead_taken() > 0,
                "{what}: nothing was checked ahead"
            );
            assert_eq!(n.protocol.ahead_unused(), 0, "{what}: checks wasted");
        }
    }
}
