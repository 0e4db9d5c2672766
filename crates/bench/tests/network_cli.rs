//! `tranche network` and `tranche sweep` through the binary: the table on
//! stdout, a one-line error and a failing exit for a bad file.

mod common;
use common::tranche;

#[test]
fn network_prints_its_table_and_sweep_its_rows() {
    let dir = std::env::temp_dir().join(format!("tranche-network-cli-{}", std::process::id()));
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
