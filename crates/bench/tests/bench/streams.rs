//! Closed and full streams, one rule for every command
//! (`crates/cli/src/stream.rs`): a closed stdout ends the command
//! quietly with status 141; a full stdout is one error line and status 74
//! (never 1, `compare`'s regression and `scenario`'s difference); a full
//! stderr leaves the output whole and gives status 74 (where the command
//! had something to say there). Never a panic or a backtrace.

use crate::common::{tmp, BIN};
use std::process::{Command, Output, Stdio};

/// Where one of the command's streams goes.
#[derive(Clone, Copy, Debug)]
enum Sink {
    /// A pipe whose reading end is closed before the command starts.
    Closed,
    /// `/dev/full`: every write fails with ENOSPC.
    Full,
}

fn sink(s: Sink) -> Stdio {
    match s {
        Sink::Closed => {
            let (reader, writer) = std::io::pipe().unwrap();
            drop(reader);
            Stdio::from(writer)
        }
        Sink::Full => Stdio::from(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        ),
    }
}

/// `tranche ARGS` with its stdout (or its stderr) going to `s`.
fn tranche(args: &[String], stdout: Option<Sink>, stderr: Option<Sink>) -> Output {
    let mut c = Command::new(BIN);
    c.args(args);
    match stdout {
        Some(s) => c.stdout(sink(s)),
        None => c.stdout(Stdio::piped()),
    };
    match stderr {
        Some(s) => c.stderr(sink(s)),
        None => c.stderr(Stdio::piped()),
    };
    c.output().unwrap()
}

fn no_panic(what: &str, out: &Output) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{what}: {err}"
    );
    assert_ne!(out.status.code(), Some(101), "{what}: {err}");
}

#[test]
fn every_command_ends_quietly_on_a_closed_or_full_stream() {
    let cache = tmp("streams", "cache");
    let guard = concat!(env!("CARGO_MANIFEST_DIR"), "/../../ci/guard.yaml");
    let scenario = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/scenarios/01_tranche0_enough.json"
    );
    let json = tmp("streams", "r.json");
    let made = Command::new(BIN)
        .args(["run", guard, "--clock", "virtual", "--quiet", "--cache-dir"])
        .arg(&cache)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let (cache, json) = (cache.display().to_string(), json.display().to_string());
    let small_network = ["--validators", "40", "--cores", "8", "--blocks", "1"];
    let commands: Vec<(&str, Vec<&str>)> = vec![
        (
            "run",
            vec!["run", guard, "--clock", "virtual", "--cache-dir", &cache],
        ),
        ("network", [&["network"][..], &small_network].concat()),
        (
            "sweep run",
            vec![
                "sweep",
                "run",
                guard,
                "--architecture",
                "classic",
                "--cache-dir",
                &cache,
            ],
        ),
        (
            "sweep network",
            [&["sweep", "network"][..], &small_network].concat(),
        ),
        ("calibrate", vec!["calibrate", "--quick"]),
        ("examples", vec!["examples"]),
        ("help", vec!["--help"]),
        ("run help", vec!["run", "--help"]),
        ("version", vec!["--version"]),
        ("compare", vec!["compare", &json, &json, "--ignore-cpu"]),
        ("history", vec!["history", &json, "--ignore-cpu"]),
        ("scenario", vec!["scenario", scenario]),
    ];
    for (name, args) in &commands {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let closed = tranche(&args, Some(Sink::Closed), None);
        no_panic(&format!("{name} | closed"), &closed);
        assert_eq!(closed.status.code(), Some(141), "{name}: {closed:?}");
        let err = String::from_utf8_lossy(&closed.stderr);
        assert!(!err.contains("error"), "{name} | closed: {err}");

        let full = tranche(&args, Some(Sink::Full), None);
        no_panic(&format!("{name} > /dev/full"), &full);
        assert_eq!(full.status.code(), Some(74), "{name}: {full:?}");
        let err = String::from_utf8_lossy(&full.stderr);
        assert_eq!(
            err.lines().last(),
            Some("error: cannot write to stdout: No space left on device (os error 28)"),
            "{name} > /dev/full: {err}"
        );
        assert_eq!(err.matches("error:").count(), 1, "{name}: {err}");

        // Those that tell nothing on stderr are not hurt by a full one.
        let full_err = tranche(&args, None, Some(Sink::Full));
        let quiet = [
            "examples", "compare", "history", "scenario", "help", "run help", "version",
        ]
        .contains(name);
        let want = if quiet { 0 } else { 74 };
        assert_eq!(full_err.status.code(), Some(want), "{name} 2> /dev/full");
        assert!(
            !full_err.stdout.is_empty(),
            "{name} 2> /dev/full: no output"
        );
    }
    let _ = std::fs::remove_dir_all(&cache);
    let _ = std::fs::remove_file(&json);
}
