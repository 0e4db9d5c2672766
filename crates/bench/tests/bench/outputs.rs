//! The files every writing command makes, through the binary: `run`,
//! `sweep run`, `network` and `sweep network` refuse a folder, their own
//! input, an existing file that is not their own output and a result
//! of another kind before any work (within
//! 2 s, nothing on stdout, one line on stderr); written files take the
//! mode the umask gives (0644 under umask 022), `examples --write` too.

use crate::common;
use common::{refused, tmp, BIN};
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

const NETWORK: &str =
    "!ApprovalNetwork\nn_validators: 20\nn_cores: 4\nnum_blocks: 1\nneeded_approvals: 6\n";

#[test]
fn every_writing_command_refuses_a_folder_its_input_and_a_foreign_file_first() {
    let dir = tmp("outputs", "refuse");
    std::fs::create_dir_all(&dir).unwrap();
    let seq = dir.join("seq.yaml");
    std::fs::write(&seq, tranche_config::DEFAULT_YAML).unwrap();
    let net = dir.join("net.yaml");
    std::fs::write(&net, NETWORK).unwrap();
    let foreign = dir.join("notes.txt");
    std::fs::write(&foreign, "keep").unwrap();
    let leak = |p: &std::path::Path| -> &'static str { p.to_str().unwrap().to_owned().leak() };
    let (d, s, n, f) = (leak(&dir), leak(&seq), leak(&net), leak(&foreign));
    for cmd in [
        vec!["run", s],
        vec!["sweep", "run", s],
        vec!["network", n],
        vec!["sweep", "network", n],
    ] {
        let input = *cmd.last().unwrap();
        let with = |flag: &'static str, path: &'static str| {
            let mut a = cmd.clone();
            a.extend([flag, path]);
            a
        };
        refused(&with("--json", d), "is a folder");
        refused(&with("--json", input), "is an input");
        refused(&with("--json", f), "this tool wrote; not replaced");
        refused(&with("--html", input), "is an input");
        refused(&with("--html", f), "not a .html file");
    }
    assert_eq!(std::fs::read_to_string(&foreign).unwrap(), "keep");
    // A result of another kind is not replaced: `--json` of a network run
    // never overwrites a `run` baseline (issue 32), nor the reverse.
    let baseline = dir.join("baseline.json");
    let run_file = r#"{"tool": "tranche", "version": "0.2.0", "meta": {"tool": "tranche", "kind": "run"}, "runs": []}"#;
    std::fs::write(&baseline, run_file).unwrap();
    let b = leak(&baseline);
    refused(
        &["network", n, "--json", b],
        "is not a network report (tranche network --json) this tool wrote (it is a run report",
    );
    refused(&["sweep", "network", n, "--json", b], "(it is a run report");
    assert_eq!(std::fs::read_to_string(&baseline).unwrap(), run_file);
    let network_file = dir.join("network.json");
    std::fs::write(&network_file, r#"{"source": "x", "validators": []}"#).unwrap();
    refused(
        &["run", s, "--json", leak(&network_file)],
        "(it is a network report",
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Runs `sh -c 'umask 022; exec tranche ARGS'`; fails unless it succeeds.
fn under_umask_022(args: &[&str]) {
    let out = Command::new("sh")
        .arg("-c")
        .arg("umask 022; exec \"$@\"")
        .arg("sh")
        .arg(BIN)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn written_files_follow_the_umask() {
    let dir = tmp("outputs", "umask");
    std::fs::create_dir_all(&dir).unwrap();
    let net = dir.join("net.yaml");
    std::fs::write(&net, NETWORK).unwrap();
    let (json, html) = (dir.join("n.json"), dir.join("n.html"));
    under_umask_022(&[
        "network",
        net.to_str().unwrap(),
        "--quiet",
        "--json",
        json.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(mode(&json), 0o644);
    assert_eq!(mode(&html), 0o644);
    // Replacing our own earlier output is fine, and keeps the mode.
    under_umask_022(&[
        "network",
        net.to_str().unwrap(),
        "--quiet",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(mode(&json), 0o644);
    let examples = dir.join("examples");
    under_umask_022(&["examples", "--write", examples.to_str().unwrap()]);
    let first = std::fs::read_dir(&examples)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert_eq!(mode(&first), 0o644);
    std::fs::remove_dir_all(&dir).ok();
}
