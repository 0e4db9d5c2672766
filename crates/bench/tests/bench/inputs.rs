//! Issue 43: every input a command reads, read under the same bounds and
//! protected as an input. A deep cost table through `run`, `network` and
//! `calibrate --check` is refused at once; a 40 MB YAML input is read in
//! memory a small multiple of its size; a cost table or hostfile named as
//! an output is refused; a 1 MB hostfile line gives a short error line;
//! multi-process flags that would do nothing are refused.

use crate::common::BIN;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The most a refusal may take (a debug binary reading 40 MB included).
const DEADLINE: Duration = Duration::from_secs(20);

/// A small network file.
const NET: &str =
    "!ApprovalNetwork\nn_validators: 20\nn_cores: 4\nnum_blocks: 1\nneeded_approvals: 5\n";

fn guard() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ci/guard.yaml")
}

/// What a child printed, whether it succeeded, how long it took.
struct Ran {
    stderr: String,
    stdout: String,
    success: bool,
    took: Duration,
}

/// `tranche ARGS` in `dir`, its address space limited to `vm_kib` KiB
/// when given (`ulimit -v`: what the process maps, whatever the memory
/// of the test process it was forked from).
fn run_limited(dir: &Path, args: &[&str], vm_kib: Option<u64>) -> Ran {
    let start = Instant::now();
    let limit = vm_kib.map_or(String::new(), |k| format!("ulimit -v {k} && "));
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("{limit}exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Ran {
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        success: out.status.success(),
        took: start.elapsed(),
    }
}

fn run_in(dir: &Path, args: &[&str]) -> Ran {
    run_limited(dir, args, None)
}

/// `tranche ARGS` in `dir` is refused at once with one line containing
/// every needle, nothing on stdout.
fn refused_in(dir: &Path, args: &[&str], needles: &[&str]) -> Ran {
    let ran = run_in(dir, args);
    assert!(!ran.success, "{args:?} ran: {}", ran.stderr);
    assert!(ran.took < DEADLINE, "{args:?} took {:?}", ran.took);
    assert!(ran.stdout.is_empty(), "{args:?}: {}", ran.stdout);
    let lines: Vec<_> = ran.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: {}", ran.stderr);
    for n in needles {
        assert!(
            lines[0].contains(n),
            "{args:?}: `{n}` missing: {}",
            lines[0]
        );
    }
    assert!(lines[0].len() <= 300, "{} bytes", lines[0].len());
    ran
}

/// [`refused_in`] of `tranche network net.yaml --quiet EXTRA`.
fn net_refused(dir: &Path, extra: &[&str], needles: &[&str]) -> Ran {
    let mut args = vec!["network", "net.yaml", "--quiet"];
    args.extend_from_slice(extra);
    refused_in(dir, &args, needles)
}

fn folder_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(d.path().join(name), text).unwrap();
    }
    d
}

#[test]
fn a_deep_cost_table_is_refused_at_once_by_every_command() {
    let deep = format!("route: {}{}\n", "[".repeat(200_000), "]".repeat(200_000));
    let d = folder_with(&[("deep.yaml", &deep), ("net.yaml", NET)]);
    let guard = guard();
    let guard = guard.to_str().unwrap();
    let needles = ["deep.yaml", "nesting deeper than 64 levels at line 1"];
    refused_in(
        d.path(),
        &[
            "run",
            guard,
            "--node",
            "model",
            "--clock",
            "virtual",
            "--quiet",
            "--costs",
            "deep.yaml",
        ],
        &needles,
    );
    net_refused(d.path(), &["--costs", "deep.yaml"], &needles);
    refused_in(
        d.path(),
        &[
            "calibrate",
            "--check",
            guard,
            "--quiet",
            "--costs",
            "deep.yaml",
        ],
        &needles,
    );
}

/// The README's bound: reading any YAML input takes at most 3 × its size
/// plus 64 MiB, checked as an address-space limit (`ulimit -v`) under
/// which each command must still give its one-line refusal. A 40 MB
/// `route: [1,1,1,…]` took 2.4 GB and aborted.
#[test]
fn a_40_mb_yaml_input_is_read_in_memory_a_small_multiple_of_its_size() {
    let flat = format!("route: [{}1]\n", "1,".repeat(20_000_000));
    // Under every pre-scan bound, so parsed: 600 values of 64 000 bytes.
    let long = format!("route: [{}]\n", vec!["x".repeat(64_000); 600].join(", "));
    let d = folder_with(&[
        ("flat.yaml", &flat),
        ("long.yaml", &long),
        ("net.yaml", NET),
    ]);
    drop((flat, long));
    for (file, needles) in [
        ("flat.yaml", ["more than 100000 values by line 1", ""]),
        ("long.yaml", ["unknown key `route`", "`!ApprovalNetwork`"]),
    ] {
        let size = std::fs::metadata(d.path().join(file)).unwrap().len();
        assert!(size > 38_000_000);
        let kib = (3 * size + (64 << 20)) >> 10;
        for (args, needle) in [
            (vec!["run", file, "--quiet"], needles[0]),
            (vec!["network", file, "--quiet"], needles[1]),
            (
                vec!["network", "net.yaml", "--quiet", "--costs", file],
                if file == "flat.yaml" {
                    needles[0]
                } else {
                    "cost table: route: expected microseconds"
                },
            ),
        ] {
            let ran = run_limited(d.path(), &args, Some(kib));
            assert!(!ran.success, "{args:?}");
            assert!(ran.took < DEADLINE, "{args:?} took {:?}", ran.took);
            let lines: Vec<_> = ran.stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{args:?} under {kib} KiB: {}", ran.stderr);
            assert!(
                lines[0].starts_with("error: ") && lines[0].contains(needle),
                "{args:?} under {kib} KiB: {}",
                lines[0]
            );
        }
    }
}

#[test]
fn a_cost_table_or_hostfile_named_as_an_output_is_refused() {
    let d = folder_with(&[
        ("ct.html", "approval: 60\n"),
        ("ct.svg", "approval: 60\n"),
        ("net.yaml", NET),
        ("hosts.json", "127.0.0.1:2101\n127.0.0.1:2102\n"),
    ]);
    let guard = guard();
    let guard = guard.to_str().unwrap();
    refused_in(
        d.path(),
        &[
            "run", guard, "--node", "model", "--quiet", "--costs", "ct.html", "--html", "ct.html",
        ],
        &["--html ct.html", "is an input of this run"],
    );
    net_refused(
        d.path(),
        &["--costs", "ct.svg", "--profile", "ct.svg"],
        &["--profile ct.svg", "is an input of this run"],
    );
    net_refused(
        d.path(),
        &[
            "--processes",
            "2",
            "--hostfile",
            "hosts.json",
            "--json",
            "hosts.json",
        ],
        &["--json hosts.json", "is an input of this run"],
    );
    refused_in(
        d.path(),
        &[
            "calibrate",
            "--check",
            guard,
            "--costs",
            "ct.html",
            "--json",
            "ct.html",
        ],
        &["--json ct.html", "is an input of this run"],
    );
    // The base network file a sweep file names is an input too, by inode
    // (a hard link of it under an .html name is the same file).
    std::fs::write(
        d.path().join("grid.yaml"),
        "!ApprovalSweep\nbase: net.yaml\nn_validators: [20]\n",
    )
    .unwrap();
    std::fs::hard_link(d.path().join("net.yaml"), d.path().join("net.html")).unwrap();
    for flag in ["--json", "--html"] {
        for name in ["net.yaml", "net.html"] {
            refused_in(
                d.path(),
                &["sweep", "network", "grid.yaml", "--quiet", flag, name],
                &[&format!("{flag} {name}"), "is an input of this run"],
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(d.path().join("net.yaml")).unwrap(),
        NET
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("ct.html")).unwrap(),
        "approval: 60\n"
    );
    // A scenario's result over the scenario (it was overwritten, rc 0).
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/scenarios/01_tranche0_enough.json");
    std::fs::copy(&scenario, d.path().join("s.json")).unwrap();
    refused_in(
        d.path(),
        &["scenario", "s.json", "--output", "s.json"],
        &["--output s.json", "is an input of this run"],
    );
    assert_eq!(
        std::fs::read(d.path().join("s.json")).unwrap(),
        std::fs::read(&scenario).unwrap()
    );
}

#[test]
fn multi_process_flags_that_would_do_nothing_are_refused() {
    let d = folder_with(&[("net.yaml", NET), ("hosts", "127.0.0.1:2101\n")]);
    net_refused(
        d.path(),
        &["--hostfile", "hosts"],
        &["--hostfile hosts", "needs --processes N"],
    );
    for flag in ["--json", "--html"] {
        refused_in(
            d.path(),
            &[
                "network",
                "net.yaml",
                "--quiet",
                "--processes",
                "2",
                "--process",
                "1",
                flag,
                "out.x",
            ],
            &[flag, "only process 0", "not process 1's"],
        );
    }
    assert!(!d.path().join("out.x").exists());
}

#[test]
fn long_values_in_a_hostfile_or_cost_table_are_cut_in_the_error() {
    let long_line = format!("{}\n", "h".repeat(1_000_000));
    let escape = "\u{1b}[31mred:99999\n";
    let d = folder_with(&[
        ("net.yaml", NET),
        ("long", &long_line),
        ("escape", escape),
        ("big.yaml", "assignment_modulo: 1e300\n"),
    ]);
    let ran = net_refused(
        d.path(),
        &["--processes", "2", "--hostfile", "long"],
        &["--hostfile long", "no port", "(1 000 000 bytes)"],
    );
    assert!(ran.stderr.len() < 300, "{} bytes", ran.stderr.len());
    let ran = net_refused(
        d.path(),
        &["--processes", "2", "--hostfile", "escape"],
        &["\\u{1b}[31mred"],
    );
    assert!(!ran.stderr.contains('\u{1b}'), "{}", ran.stderr);
    net_refused(
        d.path(),
        &["--costs", "big.yaml"],
        &["assignment_modulo: 1e300 µs is above the largest cost"],
    );
}

#[test]
fn threads_beyond_the_cores_are_warned_with_the_figure() {
    let d = folder_with(&[("net.yaml", NET)]);
    let cores = std::thread::available_parallelism().unwrap().get();
    let threads = (cores + 1).to_string();
    let ran = run_in(
        d.path(),
        &["network", "net.yaml", "--quiet", "--threads", &threads],
    );
    assert!(ran.success, "{}", ran.stderr);
    let want = format!(
        "warning: --threads {threads} is more than this machine's {}",
        tranche_cli::text::counted(cores, "core")
    );
    assert!(ran.stderr.contains(&want), "{}", ran.stderr);
    let ran = run_in(
        d.path(),
        &["network", "net.yaml", "--quiet", "--threads", "1"],
    );
    assert!(!ran.stderr.contains("warning: --threads"), "{}", ran.stderr);
}
