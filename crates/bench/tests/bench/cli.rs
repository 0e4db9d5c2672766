//! The command line around the commands: version with the commit, the
//! shipped examples of `run` and `network` (and running one by its bare
//! name from any folder),
//! shell completions, warnings for flags without effect, output paths
//! refused before any work.

use crate::common;
use common::tranche;

#[test]
fn version_names_the_commit() {
    let out = tranche(&["--version"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("tranche 0."), "{text}");
    assert!(
        text.contains('(') && text.trim_end().ends_with(')'),
        "{text}"
    );
}

#[test]
fn examples_are_listed_and_written_out() {
    let out = tranche(&["examples"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("approvals_throughput.yaml"), "{text}");
    // The network examples too (issue 31).
    for name in [
        "no-shows.yaml",
        "finality-stall.yaml",
        "no-show-sweep.yaml",
        "ten-blocks-classic.yaml",
        "ten-blocks-parallel.yaml",
    ] {
        assert!(text.contains(name), "{name} in {text}");
    }
    let dir = std::env::temp_dir().join(format!("tranche-cli-examples-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = tranche(&["examples", "--write", dir.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(dir.join("approvals_no_shows.yaml").is_file());
    assert!(dir.join("network/no-shows.yaml").is_file());
    let again = tranche(&["examples", "--write", dir.to_str().unwrap()]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("not overwritten"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bare_example_name_runs_the_embedded_copy_from_any_folder() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str| {
        std::process::Command::new(common::BIN)
            .current_dir(dir.path())
            .args(["run", name, "--clock", "virtual", "--cache-dir", "cache"])
            .output()
            .unwrap()
    };
    let out = run("default.yaml");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("running the embedded example"), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("default.yaml (embedded) #1 ApprovalVoting"),
        "{text}"
    );
    // A name no example has is still a missing file.
    let out = run("no_such_example.yaml");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no_such_example.yaml"), "{err}");
}

#[test]
fn a_bare_network_example_name_runs_the_embedded_copy_from_any_folder() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(common::BIN)
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap()
    };
    let small = ["--validators", "40", "--cores", "8", "--blocks", "1"];
    let out = run(&[&["network", "default.yaml"][..], &small].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("running the embedded example"), "{err}");
    // An example of the other command is named as such.
    let out = run(&["network", "approvals_no_shows.yaml"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("is for `tranche run`"), "{err}");
    let out = run(&["run", "no-shows.yaml"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is for `tranche network`"), "{err}");
}

#[test]
fn completions_for_a_shell() {
    let out = tranche(&["completions", "bash"]);
    assert!(out.status.success());
    assert!(String::from_utf8(out.stdout).unwrap().contains("_tranche"));
    let bad = tranche(&["completions", "nosuchshell"]);
    assert!(!bad.status.success());
}

#[test]
fn workers_with_the_classic_layout_are_warned_about() {
    let dir = std::env::temp_dir().join(format!("tranche-cli-workers-{}", std::process::id()));
    let guard = concat!(env!("CARGO_MANIFEST_DIR"), "/../../ci/guard.yaml");
    let out = tranche(&[
        "run",
        guard,
        "--architecture",
        "classic",
        "--workers",
        "8",
        "--clock",
        "virtual",
        "--quiet",
        "--cache-dir",
        dir.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: --workers 8 has no effect with --architecture classic"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_output_over_the_input_is_refused_before_the_run() {
    let dir = std::env::temp_dir().join(format!("tranche-cli-outputs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("g.yaml");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../ci/guard.yaml"),
        &input,
    )
    .unwrap();
    let before = std::fs::read(&input).unwrap();
    let out = tranche(&[
        "run",
        input.to_str().unwrap(),
        "--json",
        input.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is an input of this run"), "{err}");
    assert_eq!(std::fs::read(&input).unwrap(), before);
    let out = tranche(&[
        "conformance",
        "--input",
        input.to_str().unwrap(),
        "--output",
        input.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert_eq!(std::fs::read(&input).unwrap(), before);
    std::fs::remove_dir_all(&dir).ok();
}

/// A file that is no YAML says so, whichever command is given it; `run`
/// takes `--validators`, `--cores` and `--blocks` as the other commands
/// do, checked as the file's own keys are (issue 31).
#[test]
fn a_page_is_not_yaml_and_run_takes_the_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html>\n<html><body><p>hi</p></body></html>\n",
    )
    .unwrap();
    let p = page.to_str().unwrap();
    for cmd in [
        vec!["run", p],
        vec!["network", p],
        vec!["sweep", "run", p],
        vec!["sweep", "network", p],
    ] {
        common::refused(&cmd, "not YAML: it is an HTML or XML page");
    }
    let cache = dir.path().join("cache");
    let out = tranche(&[
        "run",
        "--validators",
        "60",
        "--cores",
        "12",
        "--blocks",
        "1",
        "--clock",
        "virtual",
        "--quiet",
        "--cache-dir",
        cache.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("60 validators, 12 cores, 1 block,"), "{text}");
    common::refused(
        &["run", "--validators", "60", "--cores", "40"],
        "at most 12 cores",
    );
}

/// Issue 41: an error names what is wrong in the user's words: another
/// command's input says which command reads it, a missing folder is
/// named, an address without a port says so, and a restart beyond the
/// run's blocks is refused before any output (as every other flag).
#[test]
fn errors_name_the_command_the_folder_the_port_and_the_block() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let path = |p: &str| root.join(p).to_str().unwrap().to_owned();
    let d = tempfile::tempdir().unwrap();
    let costs = d.path().join("costs.yaml");
    std::fs::write(&costs, "# tranche calibrate: measured here\napproval: 60\n").unwrap();
    let costs = costs.to_str().unwrap();
    let bare = d.path().join("bare.yaml");
    std::fs::write(&bare, "approval: 60\nroute: 0.5\n").unwrap();
    let bare = bare.to_str().unwrap();
    let default = path("examples/default.yaml");
    let scenario = path("testdata/scenarios/01_tranche0_enough.json");
    let guard = path("ci/guard.yaml");
    for (args, why) in [
        (
            vec!["scenario", default.as_str()],
            "this is a test sequence, not a scenario (testdata/scenarios/README.md); run it \
             with `tranche run ",
        ),
        (
            vec!["run", scenario.as_str()],
            "this is a scenario file (testdata/scenarios/README.md), not a YAML test \
             sequence: run it with `tranche scenario ",
        ),
        (
            vec!["run", costs],
            "this is a cost table (as `tranche calibrate` writes), not a YAML test sequence: \
             give it as `--costs ",
        ),
        (vec!["run", bare], "this is a cost table"),
        (vec!["network", costs], "this is a cost table"),
        (
            vec!["run", "--json", "/nonexistent/dir/x.json"],
            "--json /nonexistent/dir/x.json: the folder /nonexistent/dir does not exist",
        ),
        (
            vec!["run", "--prometheus", "localhost"],
            "--prometheus localhost: an address with a port is needed, e.g. 127.0.0.1:9615",
        ),
        (
            vec![
                "run",
                guard.as_str(),
                "--clock",
                "virtual",
                "--restart-at-block",
                "9",
            ],
            "--restart-at-block 9: must name a block from 2 to the run's 3",
        ),
    ] {
        common::refused(&args, why);
    }
}

/// Issue 41: a count of one agrees with its noun in every line a
/// one-block, one-core run prints (tables, notes, progress), of
/// `network`, `run --node model` and `run` on a database in memory.
#[test]
fn a_count_of_one_is_singular_in_every_line() {
    let small = ["--validators", "40", "--cores", "1", "--blocks", "1"];
    let cache = common::tmp("singular", "cache");
    let cache = cache.to_str().unwrap();
    for command in [
        vec!["network"],
        vec!["run", "--node", "model"],
        vec![
            "run",
            "--db",
            "memory",
            "--clock",
            "virtual",
            "--cache-dir",
            cache,
        ],
    ] {
        let args = [&command[..], &small[..]].concat();
        let out = tranche(&args);
        assert!(out.status.success(), "{args:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        let text = String::from_utf8_lossy(&out.stdout);
        if command[0] == "network" || command.contains(&"model") {
            assert!(err.contains("1 of 1 block approved"), "{args:?}: {err}");
        }
        assert!(text.contains("40 validators"), "{args:?}: {text}");
        assert!(text.contains("1 core, 1 block"), "{args:?}: {text}");
        for line in err.lines().chain(text.lines()) {
            let words: Vec<&str> = line.split_whitespace().collect();
            for pair in words.windows(2) {
                assert!(
                    !(pair[0].trim_start_matches('(') == "1" && plural(pair[1])),
                    "{args:?}: {line}"
                );
            }
        }
    }
}

/// Whether `word` reads as a plural noun after a count: it ends in `s`
/// and is none of the words that do without being one (`process`, units,
/// verbs).
fn plural(word: &str) -> bool {
    let word = word.trim_end_matches([',', ';', ':', ')', '.']);
    let singular_s = word.ends_with("ss") || ["ms", "was", "has", "is"].contains(&word);
    word.len() > 2 && word.ends_with('s') && !word.starts_with('-') && !singular_s
}
