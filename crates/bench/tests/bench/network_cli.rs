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
    assert_eq!(text.lines().count(), 3, "{text}");

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
