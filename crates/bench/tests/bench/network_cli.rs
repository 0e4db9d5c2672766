//! `tranche network` and `tranche sweep` through the binary: the table on
//! stdout, progress lines on stderr, a one-line error and a failing exit
//! for a bad file.

use crate::common;
use common::tranche;

#[test]
fn network_prints_its_table_and_sweep_its_rows() {
    let dir = std::env::temp_dir().join(format!("tranche-simulation-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("small.yaml");
    std::fs::write(
        &file,
        "!ApprovalNetwork\nn_validators: 20\nn_cores: 4\nnum_blocks: 1\nneeded_approvals: 6\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let out = tranche(&["network", f, "--threads", "2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Not a terminal: progress as plain lines on stderr.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("simulation: started"), "{err}");
    assert!(err.contains("simulation: block 1's slot reached"), "{err}");
    assert!(err.contains("simulation: done in"), "{err}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("20/20"), "{text}");
    assert!(text.contains("every block approved by every honest validator"));

    let out = tranche(&["sweep", "network", f, "--validators", "20,24"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // The header and a row per run, then the legend of the columns.
    let rows = text
        .lines()
        .take_while(|l| !l.starts_with("legend:"))
        .count();
    assert_eq!(rows, 3, "{text}");
    assert!(text.contains("legend: vals = validators"), "{text}");

    std::fs::write(&file, "!ApprovalNetwork\nslow_factor: 0.5\n").unwrap();
    let out = tranche(&["network", f]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("`slow_factor` = 0.5"), "{err}");
}

#[test]
fn on_a_terminal_network_draws_a_bar() {
    // util-linux `script` gives the command a terminal; without it there
    // is nothing to test here (said, not passed silently).
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("on_a_terminal_network_draws_a_bar: skipped, no `script` on this machine");
        return;
    }
    let file = std::env::temp_dir().join(format!(
        "tranche-simulation-tty-{}.yaml",
        std::process::id()
    ));
    std::fs::write(
        &file,
        "!ApprovalNetwork\nn_validators: 20\nn_cores: 4\nnum_blocks: 1\nneeded_approvals: 6\n",
    )
    .unwrap();
    let command = format!("{} network {}", common::BIN, file.display());
    let out = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .unwrap();
    std::fs::remove_file(&file).unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("s of virtual time"), "a bar: {text}");
    assert!(
        !text.contains("slot reached"),
        "no plain lines on a terminal: {text}"
    );
    assert!(text.contains("20/20"), "{text}");
}

/// `tranche ARGS` is refused where it is parsed: a failing exit within
/// 2 s, nothing on stdout, no panic, and a first line naming `flag` and
/// its bound (clap adds its `--help` hint below it).
fn bounded(args: &[&str], flag: &str, bound: &str) {
    let start = std::time::Instant::now();
    let out = tranche(args);
    let took = start.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} ran");
    assert!(
        took < std::time::Duration::from_secs(2),
        "{args:?}: {took:?}"
    );
    assert!(out.stdout.is_empty(), "{args:?}");
    assert!(!err.contains("panicked"), "{err}");
    let first = err.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("error: ") && first.contains(flag) && first.contains(bound),
        "{args:?}: {err}"
    );
}

#[test]
fn every_count_a_flag_takes_is_bounded() {
    let file = std::env::temp_dir().join(format!("tranche-bounds-{}.yaml", std::process::id()));
    std::fs::write(
        &file,
        "!ApprovalNetwork\nn_validators: 20\nn_cores: 4\nnum_blocks: 1\nneeded_approvals: 6\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    for threads in ["0", "257", "10000", "4294967296", "18446744073709551615"] {
        bounded(
            &["network", f, "--threads", threads],
            "--threads",
            "1..=256",
        );
        bounded(
            &["sweep", "network", f, "--threads", threads],
            "--threads",
            "1..=256",
        );
    }
    for processes in ["0", "65", "18446744073709551615"] {
        bounded(
            &["network", f, "--processes", processes],
            "--processes",
            "1..=64",
        );
    }
    bounded(
        &["network", f, "--threads", "256", "--processes", "9"],
        "2304 workers",
        "at most 2048",
    );
    for hold in ["3601", "18446744073709551615"] {
        bounded(
            &[
                "run",
                "--prometheus",
                "127.0.0.1:0",
                "--prometheus-hold",
                hold,
            ],
            "--prometheus-hold",
            "0..=3600",
        );
    }
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn small_defects_of_the_network_commands() {
    let dir = tempfile::tempdir().unwrap();
    let tiny =
        "!ApprovalNetwork\nn_validators: 20\nn_cores: 4\nnum_blocks: 1\nneeded_approvals: 6\n";
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_owned()
    };
    // --costs without a `node` key: warned about, not silently ignored.
    let costs = write("costs.yaml", &tranche_model::CostTable::default().to_yaml());
    let plain = write("plain.yaml", tiny);
    let out = tranche(&["network", &plain, "--quiet", "--costs", &costs]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "warning: --costs {costs}: ignored, {plain} has no `node` key"
        )),
        "{err}"
    );
    let modelled = write(
        "node.yaml",
        &format!("{tiny}node: {{layout: classic, cores: 2}}\n"),
    );
    let out = tranche(&["network", &modelled, "--quiet", "--costs", &costs]);
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("ignored"));
    // Nobody expected to approve: said, not a vacuous success.
    let none = write("none.yaml", &format!("{tiny}no_show_fraction: 1.0\n"));
    let out = tranche(&["network", &none]);
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{err}");
    assert!(text.contains("no expected validator"), "{text}");
    assert!(!text.contains("every block approved"), "{text}");
    assert!(
        err.contains("done in") && err.contains("no expected validator"),
        "{err}"
    );
    // An empty sweep base is named, not `: cannot read :`.
    let sweep = write(
        "sweep.yaml",
        "!ApprovalSweep\nbase: \"\"\nn_validators: [20]\n",
    );
    let out = tranche(&["sweep", "network", &sweep]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(&format!("{sweep}: `base` is empty")), "{err}");
}

#[test]
fn network_writes_a_flamegraph_of_the_simulation_with_profile() {
    if !cfg!(feature = "profile") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("small.yaml");
    std::fs::write(
        &file,
        "!ApprovalNetwork\nn_validators: 30\nn_cores: 6\nnum_blocks: 2\nneeded_approvals: 6\n",
    )
    .unwrap();
    let svg = dir.path().join("sim.svg");
    let out = tranche(&[
        "network",
        file.to_str().unwrap(),
        "--threads",
        "1",
        "--profile",
        svg.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("profile: wrote"), "{err}");
    let page = std::fs::read_to_string(&svg).unwrap();
    assert!(
        page.starts_with("<?xml") || page.starts_with("<svg"),
        "{}",
        &page[..80.min(page.len())]
    );
    // The simulation's own work is in it: distribution handling peers' messages.
    assert!(
        page.contains("tranche_distribution"),
        "no distribution frames"
    );
    // A second --profile onto something that is no SVG is refused before any work.
    let not_svg = dir.path().join("notes.txt");
    std::fs::write(&not_svg, "mine").unwrap();
    let out = tranche(&[
        "network",
        file.to_str().unwrap(),
        "--profile",
        not_svg.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert_eq!(std::fs::read_to_string(&not_svg).unwrap(), "mine");
}
