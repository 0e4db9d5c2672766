//! `tranche network --processes 2` as two child processes on free local
//! ports: a good run's JSON has both processes' cost figures; process 0
//! alone gives up after `--connect-timeout` naming process 1; a process
//! SIGKILLed mid-run makes the other exit non-zero with one line naming
//! it. Wall-time behaviour, so each wait polls with a generous deadline.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_tranche");

/// A folder of its own for `test`, with a network file and a hostfile of
/// two free local ports.
pub(crate) struct Setup {
    pub(crate) dir: PathBuf,
    pub(crate) file: PathBuf,
    pub(crate) hostfile: PathBuf,
    pub(crate) hosts: Vec<String>,
}

impl Setup {
    pub(crate) fn new(test: &str, blocks: u32) -> Setup {
        let dir =
            std::env::temp_dir().join(format!("tranche-processes-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("tiny.yaml");
        std::fs::write(
            &file,
            format!(
                "!ApprovalNetwork\nn_validators: 20\nn_cores: 4\nnum_blocks: {blocks}\n\
                 needed_approvals: 6\nrun_after_last_block_secs: 20\n"
            ),
        )
        .unwrap();
        // Bound together, so the two ports differ.
        let listeners: Vec<_> = (0..2)
            .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
            .collect();
        let hosts: Vec<String> = listeners
            .iter()
            .map(|l| l.local_addr().unwrap().to_string())
            .collect();
        let hostfile = dir.join("hosts");
        std::fs::write(&hostfile, hosts.join("\n") + "\n").unwrap();
        Setup {
            dir,
            file,
            hostfile,
            hosts,
        }
    }

    /// `tranche network FILE --processes 2 --process I --hostfile F EXTRA`.
    pub(crate) fn start(&self, process: usize, extra: &[&str]) -> Child {
        Command::new(BIN)
            .arg("network")
            .arg(&self.file)
            .args(["--processes", "2", "--process", &process.to_string()])
            .arg("--hostfile")
            .arg(&self.hostfile)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The child's exit within `limit`, polled; killed (and `None`) past it.
pub(crate) fn wait_for(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// The lines of a child's stderr, as they come.
pub(crate) fn lines_of(child: &mut Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Everything still to come on `rx`, until the writer closes or `limit`.
pub(crate) fn drain(rx: &mpsc::Receiver<String>, limit: Duration) -> Vec<String> {
    let deadline = Instant::now() + limit;
    let mut out = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(l) => out.push(l),
            Err(_) => break,
        }
    }
    out
}

/// The lines of stderr that are not progress lines.
fn not_progress(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| !l.starts_with("simulation: "))
        .collect()
}

#[test]
fn a_good_two_process_run_reports_both_processes_cost() {
    let s = Setup::new("good", 1);
    let json = s.dir.join("run.json");
    // Issue 43: process 1 writes its own flamegraph (it wrote nothing).
    let svg = s.dir.join("one.svg");
    let profile = ["--profile", svg.to_str().unwrap()];
    let extra: &[&str] = if cfg!(feature = "profile") {
        &profile
    } else {
        &[]
    };
    let mut one = s.start(1, extra);
    let mut zero = s.start(0, &["--json", json.to_str().unwrap()]);
    let limit = Duration::from_secs(120);
    let zs = wait_for(&mut zero, limit).expect("process 0 finishes");
    let os = wait_for(&mut one, limit).expect("process 1 finishes");
    let stderr = |c: Child| String::from_utf8(c.wait_with_output().unwrap().stderr).unwrap();
    let (e0, e1) = (stderr(zero), stderr(one));
    assert!(zs.success(), "{e0}");
    assert!(os.success(), "{e1}");
    if cfg!(feature = "profile") {
        let page = std::fs::read_to_string(&svg).expect("process 1's flamegraph");
        assert!(page.contains("<svg"), "not an SVG");
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cost = &report["cost"];
    assert_eq!(cost["processes"], 2);
    let each = cost["per_process"].as_array().expect("per-process figures");
    assert_eq!(each.len(), 2, "{cost}");
    let mut cpu = 0.0;
    for (i, p) in each.iter().enumerate() {
        assert_eq!(p["process"], i, "{cost}");
        let c = p["cpu_s"].as_f64().unwrap();
        assert!(c > 0.0, "process {i} used no CPU: {cost}");
        assert!(p["wall_s"].as_f64().unwrap() > 0.0, "{cost}");
        assert!(p["verified"].as_u64().unwrap() > 0, "{cost}");
        assert!(p["moments"].as_u64().unwrap() > 0, "{cost}");
        cpu += c;
    }
    // The flat fields stay process 0's; `total` sums them all.
    assert_eq!(cost["cpu_s"], each[0]["cpu_s"]);
    assert_eq!(cost["verified"], each[0]["verified"]);
    let total = cost["total"]["cpu_s"].as_f64().unwrap();
    assert!((total - cpu).abs() < 1e-9, "{cost}");
    let verified: u64 = each.iter().map(|p| p["verified"].as_u64().unwrap()).sum();
    assert_eq!(cost["total"]["verified"], verified);
}

#[test]
fn process_0_alone_gives_up_naming_process_1() {
    let s = Setup::new("alone", 1);
    let mut zero = s.start(0, &["--connect-timeout", "2"]);
    let started = Instant::now();
    let status = wait_for(&mut zero, Duration::from_secs(60)).expect("process 0 gives up");
    let took = started.elapsed();
    let err = String::from_utf8(zero.wait_with_output().unwrap().stderr).unwrap();
    assert!(!status.success(), "{err}");
    assert!(took < Duration::from_secs(20), "took {took:?}");
    let lines: Vec<String> = err.lines().map(str::to_owned).collect();
    let last = lines.last().expect("an error line");
    assert_eq!(
        last,
        &format!(
            "error: process 1 ({}) did not connect within 2 s",
            s.hosts[1]
        )
    );
    // Before it gives up, it says once whom it waits for.
    let waiting: Vec<&String> = lines.iter().filter(|l| l.contains("waiting for")).collect();
    assert_eq!(waiting.len(), 1, "{err}");
    assert!(
        waiting[0].contains(&format!("process 1 ({})", s.hosts[1])),
        "{err}"
    );
    assert_eq!(not_progress(&lines).len(), 2, "{err}");
}

#[test]
fn a_killed_process_stops_the_other_with_one_line() {
    let s = Setup::new("killed", 30);
    let mut one = s.start(1, &[]);
    let mut zero = s.start(0, &[]);
    let rx = lines_of(&mut zero);
    // Mid-run: process 0 has reached the second block's slot.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    while !seen
        .iter()
        .any(|l: &String| l.starts_with("simulation: block 2's slot reached"))
    {
        let left = deadline
            .checked_duration_since(Instant::now())
            .unwrap_or_else(|| panic!("no progress within 60 s: {seen:?}"));
        match rx.recv_timeout(left) {
            Ok(l) => seen.push(l),
            Err(e) => panic!("process 0's stderr: {e} after {seen:?}"),
        }
    }
    assert!(
        zero.try_wait().unwrap().is_none(),
        "process 0 ended early: {seen:?}"
    );
    one.kill().unwrap(); // SIGKILL
    let killed = Instant::now();
    one.wait().unwrap();
    let status = wait_for(&mut zero, Duration::from_secs(60)).expect("process 0 stops");
    let took = killed.elapsed();
    seen.extend(drain(&rx, Duration::from_secs(10)));
    let err = seen.join("\n");
    assert!(!status.success(), "{err}");
    assert!(took < Duration::from_secs(30), "took {took:?}: {err}");
    let other = not_progress(&seen);
    assert_eq!(other.len(), 1, "one line besides progress: {err}");
    assert!(
        other[0].starts_with(&format!("error: process 1 ({}) went away", s.hosts[1])),
        "{err}"
    );
    assert!(
        !err.contains("panicked") && !err.contains("MergeQueue"),
        "{err}"
    );
}
