//! A real crash: a node runs in a child process (this test binary again)
//! with a store on disk (redb, and ParityDB alike) and prints on its stdout every announcement as it
//! leaves the node — our own assignment, our own approval, a block reported
//! approved — then the parent kills it with SIGKILL at a chosen point,
//! reopens the database and checks that every announcement it saw is in
//! it (docs/durability.md). Repeated at many kill points, in both layouts.
//! The kills follow the run's progress (announcements, and the ticks the
//! child reports), never the parent's clock, so a slow machine sees them
//! all.

use crate::common;

use common::*;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tranche_node::{Architecture, Clock, Node, NodeEvent};
use tranche_primitives::time::DEFAULT_TICKS_PER_SLOT;

const CHILD: &str = "TRANCHE_CRASH_CHILD_DB";
const LAYOUT: &str = "TRANCHE_CRASH_CHILD_LAYOUT";
/// The child's store: `redb` or `parity-db`.
const KIND: &str = "TRANCHE_CRASH_CHILD_STORE";
const TEST: &str = "sigkill_loses_no_announcement";
/// Set in a child of the real-clock test: the tick its wall clock starts
/// at (empty: the run's start), where the killed child had come to.
const REAL_START: &str = "TRANCHE_CRASH_CHILD_REAL_START";
/// A real-clock child lives at most this many ticks of its run (2 s):
/// about 22 ticks in all, so at least three of its lives are killed
/// before the run ends, however slowly the machine starts each.
const TICKS_PER_LIFE: u64 = 4;
const REAL_TEST: &str = "repeated_sigkills_of_a_real_clock_run_lose_no_announcement";

/// The test named `name` for the store `kind` (redb's tests have no
/// suffix), by its full name in this test binary (its module path
/// without the binary's own name), as `--exact` wants it.
fn test_name(name: &str, kind: &str) -> String {
    let name = match kind {
        "redb" => name.to_owned(),
        _ => format!("{name}_{}", kind.replace('-', "_")),
    };
    match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::{name}"),
        None => name,
    }
}

/// The child: run the small network against a node with a store on disk
/// and print each announcement (`A block c,c`, `V block c,c`, `B block`)
/// the moment it is seen leaving the node.
fn child(db: &str, layout: &str, kind: &str) {
    let n = net(40, 4, 6, 3);
    let mut cfg = config(&n, architecture(layout), Clock::virtual_at(0));
    cfg.store = store_config(kind, db.as_ref());
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

/// The real-clock child: the node on the wall clock from tick `start`
/// (where the killed child had come to; `None`: the run's start), on the
/// database a killed child left; every block whose slot has come is
/// imported (a stored one is ignored), peers' messages are delivered when
/// their tick comes, announcements printed as they leave, and each tick
/// as it comes (`T tick`), so the parent follows the run's progress. A
/// restarted child first gets again every message due before it started:
/// the peers re-send what the node lacks when it reconnects, as
/// upstream's `unify_with_peer` does (an import the killed child had not
/// yet committed — at most one tick of them, docs/durability.md — comes
/// back this way).
fn real_child(db: &str, layout: &str, kind: &str, start: Option<u64>) {
    let n = net(20, 4, 2, 3);
    let first = n.blocks[0].block.slot * DEFAULT_TICKS_PER_SLOT;
    let start = start.unwrap_or(first - 2);
    let clock = Clock::real(start);
    let mut cfg = config(&n, architecture(layout), clock.clone());
    cfg.store = store_config(kind, db.as_ref());
    let mut node = Node::start(cfg).unwrap();
    connect(&n, &mut node, start, false);
    let end = n.blocks.last().unwrap().block.slot * DEFAULT_TICKS_PER_SLOT + 8;
    let mut feed = RealFeed {
        imported: 0,
        next: 0,
    };
    let mut told = None;
    while clock.now() <= end {
        let now = clock.now();
        if told != Some(now) {
            told = Some(now);
            println!("T {now}");
        }
        feed.feed(&n, &mut node, now);
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

/// What a child said before it was killed.
#[derive(Default)]
struct Life {
    /// Its announcement lines, every one it printed.
    lines: Vec<String>,
    /// It had finished its run (`DONE`).
    done: bool,
    /// The last tick it reported (real-clock children).
    last_tick: Option<u64>,
}

impl Life {
    /// Take one complete line of the child's; the ticks of this life so
    /// far, if it reports ticks.
    fn take(&mut self, line: &str, first_tick: &mut Option<u64>) -> Option<u64> {
        if line == "DONE" {
            self.done = true;
        } else if let Some(t) = line.strip_prefix("T ").and_then(|t| t.parse().ok()) {
            self.last_tick = Some(t);
            return Some(t - *first_tick.get_or_insert(t));
        } else if line.starts_with(['A', 'V', 'B']) && line.len() > 66 {
            self.lines.push(line.to_owned());
        }
        None
    }
}

/// Start a child (`test` with `envs`), read its lines until `after`
/// announcements, `ticks` ticks of its run (when given), or its end
/// (`DONE`), kill it with SIGKILL, and take what it had written before it
/// died as well.
fn run_and_kill(test: &str, envs: &[(&str, String)], after: usize, ticks: Option<u64>) -> Life {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    // A complete line, or none at the end of what the child wrote.
    let mut next = move || {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(_) if line.ends_with('\n') => Some(line.trim_end().to_owned()),
            _ => None,
        }
    };
    let mut life = Life::default();
    let mut first_tick = None;
    // Only a hung child meets this: the kills follow the run, not time.
    let deadline = Instant::now() + Duration::from_secs(300);
    while let Some(line) = next() {
        let lived = life.take(&line, &mut first_tick);
        if life.done
            || life.lines.len() >= after
            || lived.zip(ticks).is_some_and(|(l, t)| l >= t)
            || Instant::now() > deadline
        {
            break;
        }
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    // Written before it died: announced too.
    while let Some(line) = next() {
        life.take(&line, &mut first_tick);
    }
    life
}

/// Every line is in the `kind` database at `db`.
fn check_recorded(kind: &str, db: &std::path::Path, lines: &[String], what: &str) {
    let snap = stored(kind, db);
    for l in lines {
        assert!(
            recorded(&snap, l),
            "{what}: announcement `{l}` is not in the database"
        );
    }
}

/// Run the child on a `kind` store, kill it with SIGKILL after `after`
/// announcement lines (or at its end), and check the database. Returns
/// the lines seen.
fn crash_once(kind: &str, layout: &str, after: usize, dir: &std::path::Path) -> usize {
    let db = dir.join(format!("{layout}-{after}.{kind}"));
    let envs = [
        (CHILD, db.display().to_string()),
        (LAYOUT, layout.to_owned()),
        (KIND, kind.to_owned()),
    ];
    let life = run_and_kill(&test_name(TEST, kind), &envs, after, None);
    check_recorded(
        kind,
        &db,
        &life.lines,
        &format!("{kind}, {layout}, killed after {after}"),
    );
    life.lines.len()
}

/// Repeated crashes of one real-clock run: a child runs the node on the
/// wall clock and is killed with SIGKILL after a few announcements (or a
/// few ticks of its run), the next child starts the node again on the
/// same database and carries on from the tick the killed one had come
/// to, and so on until the run is over. After every kill the database
/// holds every announcement any child made.
#[test]
fn repeated_sigkills_of_a_real_clock_run_lose_no_announcement() {
    repeated_real_clock_sigkills("redb");
}

#[test]
fn repeated_sigkills_of_a_real_clock_run_lose_no_announcement_parity_db() {
    repeated_real_clock_sigkills("parity-db");
}

/// The child's store kind, when this process is a child.
fn child_kind() -> String {
    std::env::var(KIND).unwrap_or_else(|_| "redb".into())
}

fn repeated_real_clock_sigkills(kind: &str) {
    if let (Ok(db), Ok(start)) = (std::env::var(CHILD), std::env::var(REAL_START)) {
        real_child(
            &db,
            &std::env::var(LAYOUT).unwrap_or_default(),
            &child_kind(),
            start.parse().ok(),
        );
        return;
    }
    let dir = scratch().join(format!("tranche-real-crash-{kind}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The two layouts' runs are independent (their own database, their
    // own children), so they run side by side: the wall clock each child
    // waits on is the test's cost, not its CPU.
    std::thread::scope(|s| {
        for layout in ["parallel", "classic"] {
            let dir = &dir;
            s.spawn(move || real_clock_lives(kind, layout, dir));
        }
    });
    std::fs::remove_dir_all(&dir).ok();
}

/// One layout's lives on one database: killed after a few announcements
/// or ticks, restarted where the last one had come to, until the run ends.
fn real_clock_lives(kind: &str, layout: &str, dir: &std::path::Path) {
    let db = dir.join(format!("{layout}.{kind}"));
    let mut start = String::new();
    let mut all = Vec::new();
    let mut kills = 0;
    for (after, ticks) in [1, 3, 2, 5, 4]
        .map(|a| (a, Some(TICKS_PER_LIFE)))
        .into_iter()
        .chain([(usize::MAX, None)])
    {
        let envs = [
            (CHILD, db.display().to_string()),
            (LAYOUT, layout.to_owned()),
            (REAL_START, start.clone()),
            (KIND, kind.to_owned()),
        ];
        let life = run_and_kill(&test_name(REAL_TEST, kind), &envs, after, ticks);
        all.extend(life.lines);
        if !life.done {
            kills += 1;
        }
        check_recorded(kind, &db, &all, &format!("{kind}, {layout}, kill {kills}"));
        if life.done {
            break;
        }
        // The next life starts where this one had come to.
        if let Some(t) = life.last_tick {
            start = (t + 1).to_string();
        }
    }
    eprintln!(
        "{kind}, {layout}: {kills} kills, {} announcements",
        all.len()
    );
    assert!(
        kills >= 3,
        "{layout}: only {kills} kills before the run ended"
    );
    // The run approved its blocks across the crashes.
    let approved = all.iter().filter(|l| l.starts_with('B')).count();
    assert!(approved >= 1, "{layout}: no block approved in {all:?}");
}

#[test]
fn sigkill_loses_no_announcement() {
    sigkills_at_six_points("redb");
}

#[test]
fn sigkill_loses_no_announcement_parity_db() {
    sigkills_at_six_points("parity-db");
}

fn sigkills_at_six_points(kind: &str) {
    if let Ok(db) = std::env::var(CHILD) {
        if std::env::var(REAL_START).is_err() {
            child(
                &db,
                &std::env::var(LAYOUT).unwrap_or_default(),
                &child_kind(),
            );
        }
        return;
    }
    let dir = scratch().join(format!("tranche-crash-{kind}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut points = 0;
    let mut seen_total = 0;
    for layout in ["parallel", "classic"] {
        for after in [1, 2, 3, 5, 8, 13] {
            seen_total += crash_once(kind, layout, after, &dir);
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
