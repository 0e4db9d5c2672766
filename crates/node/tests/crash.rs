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
use tranche_node::{Architecture, Clock, Node, NodeEvent};
use tranche_primitives::time::DEFAULT_TICKS_PER_SLOT;
use tranche_primitives::{Hash, ValidatorIndex};
use tranche_voting::{RedbStore, Store, ValidatorSet};

const CHILD: &str = "TRANCHE_CRASH_CHILD_DB";
const LAYOUT: &str = "TRANCHE_CRASH_CHILD_LAYOUT";
const TEST: &str = "sigkill_loses_no_announcement";
/// Set in a child of the real-clock test: the run's tick zero, in
/// milliseconds since the Unix epoch, shared by every restart.
const REAL_T0: &str = "TRANCHE_CRASH_CHILD_REAL_T0";
const REAL_TEST: &str = "repeated_sigkills_of_a_real_clock_run_lose_no_announcement";

fn hex(h: &Hash) -> String {
    h.0.iter().map(|b| format!("{b:02x}")).collect()
}

/// The child: run the small network against a node with a redb store and
/// print each announcement (`A block c,c`, `V block c,c`, `B block`) the
/// moment it is seen leaving the node.
fn child(db: &str, layout: &str) {
    let n = net(40, 4, 6, 3);
    let cfg = config_with_db(&n, architecture(layout), Clock::virtual_at(0), db.as_ref());
    let mut node = Node::start(cfg).unwrap();
    let first = n.blocks[0].block.slot * DEFAULT_TICKS_PER_SLOT;
    let end = first + 12 * 12;
    connect(&n, &mut node, first, false);
    drive_ticks(&n, &mut node, first, end, |node, _| {
        print_announcements(node, Duration::ZERO)
    });
    println!("DONE");
    // Wait to be killed: the parent decides when the crash happens.
    std::thread::sleep(Duration::from_secs(600));
}

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// Print the announcements among the events waiting now.
fn print_announcements(node: &Node, wait: Duration) {
    let mut seen = BTreeSet::new();
    while let Ok(e) = node.events().recv_timeout(wait) {
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
    let out = std::io::stdout();
    let mut o = out.lock();
    for l in seen {
        writeln!(o, "{l}").unwrap();
        o.flush().unwrap();
    }
}

/// The real-clock child: the node on the wall clock from the run's tick
/// zero `t0` (so a restarted child carries on where the run is), on the
/// database a killed child left; every block whose slot has come is
/// imported (a stored one is ignored), peers' messages are delivered when
/// their tick comes, announcements printed as they leave. A restarted
/// child first gets again every message due before it started: the peers
/// re-send what the node lacks when it reconnects, as upstream's
/// `unify_with_peer` does (an import the killed child had not yet
/// committed — at most one tick of them, docs/durability.md — comes back
/// this way).
fn real_child(db: &str, layout: &str, t0: u64) {
    let n = net(20, 4, 2, 3);
    let first = n.blocks[0].block.slot * DEFAULT_TICKS_PER_SLOT;
    let start = first - 2 + (unix_ms() - t0) / 500;
    let clock = Clock::real(start);
    let cfg = config_with_db(&n, architecture(layout), clock.clone(), db.as_ref());
    let mut node = Node::start(cfg).unwrap();
    connect(&n, &mut node, start, false);
    let end = n.blocks.last().unwrap().block.slot * DEFAULT_TICKS_PER_SLOT + 8;
    let mut feed = RealFeed {
        imported: 0,
        next: 0,
    };
    while clock.now() <= end {
        feed.feed(&n, &mut node, clock.now());
        print_announcements(&node, Duration::from_millis(20));
        node.check().unwrap();
    }
    println!("DONE");
    std::thread::sleep(Duration::from_secs(600));
}

fn architecture(layout: &str) -> Architecture {
    if layout == "classic" {
        Architecture::CLASSIC
    } else {
        Architecture::parallel(2)
    }
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

/// Start a child (`test` with `envs`), read its announcement lines until
/// `after` of them (or its end: `DONE`), kill it with SIGKILL. Returns the
/// lines and whether the child had finished its run.
fn run_and_kill(test: &str, envs: &[(&str, String)], after: usize) -> (Vec<String>, bool) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = Vec::new();
    let mut done = false;
    let reader = BufReader::new(child.stdout.take().unwrap());
    let deadline = Instant::now() + Duration::from_secs(120);
    for line in reader.lines() {
        let line = line.unwrap();
        if line == "DONE" || Instant::now() > deadline {
            done = line == "DONE";
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
    (lines, done)
}

/// Every line is in the database at `db`.
fn check_recorded(db: &std::path::Path, lines: &[String], what: &str) {
    let mut store = RedbStore::open(db).unwrap();
    let snap = store.load().unwrap();
    for l in lines {
        assert!(
            recorded(&snap, l),
            "{what}: announcement `{l}` is not in the database"
        );
    }
}

/// Run the child, kill it with SIGKILL after `after` announcement lines
/// (or at its end), and check the database. Returns the lines seen.
fn crash_once(layout: &str, after: usize, dir: &std::path::Path) -> usize {
    let db = dir.join(format!("{layout}-{after}.redb"));
    let _ = std::fs::remove_file(&db);
    let envs = [
        (CHILD, db.display().to_string()),
        (LAYOUT, layout.to_owned()),
    ];
    let (lines, _) = run_and_kill(TEST, &envs, after);
    check_recorded(&db, &lines, &format!("{layout}, killed after {after}"));
    lines.len()
}

/// Repeated crashes of one real-clock run: a child runs the node on the
/// wall clock and is killed with SIGKILL after a few announcements, the
/// next child starts the node again on the same database and carries on
/// where the run is, and so on until the run is over. After every kill the
/// database holds every announcement any child made.
#[test]
fn repeated_sigkills_of_a_real_clock_run_lose_no_announcement() {
    if let (Ok(db), Ok(t0)) = (std::env::var(CHILD), std::env::var(REAL_T0)) {
        real_child(
            &db,
            &std::env::var(LAYOUT).unwrap_or_default(),
            t0.parse().unwrap(),
        );
        return;
    }
    let dir = std::env::temp_dir().join(format!("tranche-real-crash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for layout in ["parallel", "classic"] {
        let db = dir.join(format!("{layout}.redb"));
        let t0 = unix_ms().to_string();
        let envs = [
            (CHILD, db.display().to_string()),
            (LAYOUT, layout.to_owned()),
            (REAL_T0, t0),
        ];
        let mut all = Vec::new();
        let mut kills = 0;
        for after in [1, 3, 2, 5, 4, 100] {
            let (lines, done) = run_and_kill(REAL_TEST, &envs, after);
            all.extend(lines);
            if !done {
                kills += 1;
            }
            check_recorded(&db, &all, &format!("{layout}, kill {kills}"));
            if done {
                break;
            }
        }
        eprintln!("{layout}: {kills} kills, {} announcements", all.len());
        assert!(
            kills >= 3,
            "{layout}: only {kills} kills before the run ended"
        );
        // The run approved its blocks across the crashes.
        let approved = all.iter().filter(|l| l.starts_with('B')).count();
        assert!(approved >= 1, "{layout}: no block approved in {all:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sigkill_loses_no_announcement() {
    if let Ok(db) = std::env::var(CHILD) {
        if std::env::var(REAL_T0).is_err() {
            child(&db, &std::env::var(LAYOUT).unwrap_or_default());
        }
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
