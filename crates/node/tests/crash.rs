//! A real crash: a node runs in a child process (this test binary again)
//! with a redb store and prints on its stdout every announcement as it
//! leaves the node — our own assignment, our own approval, a block reported
//! approved — then the parent kills it with SIGKILL at a chosen point,
//! reopens the database and checks that every announcement it saw is in
//! it (docs/durability.md). Repeated at many kill points, in both layouts.

mod common;

use common::*;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tranche_node::{Architecture, Clock, Node, NodeEvent, StoreConfig};
use tranche_primitives::time::DEFAULT_TICKS_PER_SLOT;
use tranche_primitives::{Hash, ValidatorIndex};
use tranche_voting::{RedbStore, Store, ValidatorSet};

const CHILD: &str = "TRANCHE_CRASH_CHILD_DB";
const LAYOUT: &str = "TRANCHE_CRASH_CHILD_LAYOUT";
const TEST: &str = "sigkill_loses_no_announcement";

fn hex(h: &Hash) -> String {
    h.0.iter().map(|b| format!("{b:02x}")).collect()
}

/// The child: run the small network against a node with a redb store and
/// print each announcement (`A block c,c`, `V block c,c`, `B block`) the
/// moment it is seen leaving the node.
fn child(db: &str, layout: &str) {
    let n = net(40, 4, 6, 3);
    let architecture = if layout == "classic" {
        Architecture::Classic
    } else {
        Architecture::Parallel { workers: 2 }
    };
    let mut cfg = config(&n, architecture, Clock::virtual_at(0));
    cfg.store = StoreConfig::Redb(db.into());
    let mut node = Node::start(cfg).unwrap();
    let out = std::io::stdout();
    let first = n.blocks[0].block.slot * DEFAULT_TICKS_PER_SLOT;
    let end = first + 12 * 12;
    connect(&n, &mut node, first, false);
    drive_ticks(&n, &mut node, first, end, |node, _| {
        let mut seen = BTreeSet::new();
        while let Ok(e) = node.events().try_recv() {
            match e {
                NodeEvent::Send { bytes, .. } => {
                    seen.extend(item_keys(&bytes).into_iter().filter_map(ours));
                }
                NodeEvent::BlockApproved { hash, .. } => {
                    seen.insert(format!("B {} []", hex(&hash)));
                }
                _ => {}
            }
        }
        let mut o = out.lock();
        for l in seen {
            writeln!(o, "{l}").unwrap();
            o.flush().unwrap();
        }
    });
    println!("DONE");
    // Wait to be killed: the parent decides when the crash happens.
    std::thread::sleep(Duration::from_secs(600));
}

/// Our own item as an announcement line (`A block c,c` / `V block c,c`).
fn ours(k: ItemKey) -> Option<String> {
    match k {
        ItemKey::Assignment {
            block,
            validator: 0,
            claimed,
            ..
        } => Some(format!("A {} {claimed:?}", hex(&block))),
        ItemKey::Approval {
            block,
            validator: 0,
            candidates,
        } => Some(format!("V {} {candidates:?}", hex(&block))),
        _ => None,
    }
}

/// Whether the database holds `line`'s announcement.
fn recorded(snap: &tranche_voting::Snapshot, line: &str) -> bool {
    let mut parts = line.splitn(3, ' ');
    let (kind, block, cands) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    );
    let Some(b) = snap.blocks.iter().find(|b| hex(&b.hash) == block) else {
        return false;
    };
    let cands: Vec<u32> = cands
        .trim_matches(|c| c == '[' || c == ']')
        .split(", ")
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    match kind {
        "A" => cands.iter().all(|c| {
            snap.approval_entries.iter().any(|(h, i, e)| {
                *h == b.hash && i == c && e.our_assignment.as_ref().is_some_and(|o| o.triggered)
            })
        }),
        "V" => cands.iter().all(|c| {
            let chash = b.candidates[*c as usize].hash;
            snap.approvals.contains(&(chash, ValidatorIndex(0)))
        }),
        "B" => snap.block_states.iter().any(|(h, st)| {
            *h == b.hash
                && ValidatorSet::from_bytes(b.candidates.len(), &st.approved)
                    .is_some_and(|s| s.is_full())
        }),
        _ => panic!("unknown line {line}"),
    }
}

/// Run the child, kill it with SIGKILL after `after` announcement lines
/// (or at its end), and check the database. Returns the lines seen.
fn crash_once(layout: &str, after: usize, dir: &std::path::Path) -> usize {
    let db = dir.join(format!("{layout}-{after}.redb"));
    let _ = std::fs::remove_file(&db);
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", TEST, "--nocapture", "--test-threads=1"])
        .env(CHILD, &db)
        .env(LAYOUT, layout)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = Vec::new();
    let reader = BufReader::new(child.stdout.take().unwrap());
    let deadline = Instant::now() + Duration::from_secs(120);
    for line in reader.lines() {
        let line = line.unwrap();
        if line == "DONE" || Instant::now() > deadline {
            break;
        }
        if line.starts_with(['A', 'V', 'B']) && line.len() > 66 {
            lines.push(line);
            if lines.len() >= after {
                break;
            }
        }
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let mut store = RedbStore::open(&db).unwrap();
    let snap = store.load().unwrap();
    for l in &lines {
        assert!(
            recorded(&snap, l),
            "{layout}, killed after {after}: announcement `{l}` is not in the database"
        );
    }
    lines.len()
}

#[test]
fn sigkill_loses_no_announcement() {
    if let Ok(db) = std::env::var(CHILD) {
        child(&db, &std::env::var(LAYOUT).unwrap_or_default());
        return;
    }
    let dir = std::env::temp_dir().join(format!("tranche-crash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut points = 0;
    let mut seen_total = 0;
    for layout in ["parallel", "classic"] {
        for after in [1, 2, 3, 5, 8, 13] {
            seen_total += crash_once(layout, after, &dir);
            points += 1;
        }
    }
    assert!(points >= 10);
    assert!(
        seen_total >= 20,
        "the children announced too little: {seen_total}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
