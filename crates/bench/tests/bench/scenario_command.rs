//! `tranche scenario` from the command line: a timeline, a result file, a
//! folder judged with `N passed, M failed`, the first difference named and
//! the differing candidate explained, exit status 2 for unreadable files.

use serde_json::Value;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/scenarios")
}

#[test]
fn command_prints_a_timeline_writes_a_result_and_names_file_errors() {
    let exe = env!("CARGO_BIN_EXE_tranche");
    let file = dir().join("11_child_waits_for_parent.json");
    let out = std::process::Command::new(exe)
        .arg("scenario")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("candidate A#0 approved at clock tranche 30"),
        "{text}"
    );
    // The summary reads as sentences, never "approved never".
    assert!(
        !text.contains(" never,") && !text.contains("approved never"),
        "{text}"
    );
    assert!(text.contains("every candidate approved at tick"), "{text}");
    assert!(text.contains("no-show on A#0"));
    assert!(text.contains("block B approved"));

    let tmp = std::env::temp_dir().join(format!("tranche-scenario-{}.json", std::process::id()));
    let out = std::process::Command::new(exe)
        .arg("scenario")
        .arg(&file)
        .arg("--output")
        .arg(&tmp)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&tmp).unwrap()).unwrap();
    assert_eq!(v["blocks"][1]["approved_ancestor_tick"], 150);
    let _ = std::fs::remove_file(&tmp);

    let bad =
        std::env::temp_dir().join(format!("tranche-bad-scenario-{}.json", std::process::id()));
    std::fs::write(
        &bad,
        r#"{"name":"x","session":{"n_validators":4,"n_cores":1,"needed_approvals":2,"no_show_slots":1},
            "blocks":[{"name":"A","number":1,"slot":1},{"name":"A","number":1,"slot":2}]}"#,
    )
    .unwrap();
    // Exit 2 with the error on stderr.
    let unreadable = |p: &Path| {
        let out = std::process::Command::new(exe)
            .arg("scenario")
            .arg(p)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(unreadable(&bad).contains("duplicate block name \"A\""));
    let _ = std::fs::remove_file(&bad);

    // A missing file: its error once, on one line.
    let err = unreadable(&bad);
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn command_judges_a_folder_and_ends_with_a_count() {
    let exe = env!("CARGO_BIN_EXE_tranche");
    let out = std::process::Command::new(exe)
        .arg("scenario")
        .arg(dir().join("random"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text.lines().last(), Some("300 passed, 0 failed"));
}

#[test]
fn command_names_the_first_difference_and_explains_the_candidate() {
    let exe = env!("CARGO_BIN_EXE_tranche");
    let tmp = std::env::temp_dir().join(format!("tranche-verdict-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let scenario = tmp.join("02_exactly_needed.json");
    std::fs::copy(dir().join("02_exactly_needed.json"), &scenario).unwrap();
    let mut expected: Value = serde_json::from_str(
        &std::fs::read_to_string(dir().join("02_exactly_needed.expected.json")).unwrap(),
    )
    .unwrap();
    // Pretend Polkadot approved the candidate a tick later.
    expected["candidates"][0]["approved_tick"] = 132.into();
    expected["candidates"][0]["approved_tranche"] = 12.into();
    std::fs::write(
        tmp.join("02_exactly_needed.expected.json"),
        expected.to_string(),
    )
    .unwrap();

    let out = std::process::Command::new(exe)
        .arg("scenario")
        .arg(&scenario)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("candidate \"A\"#0 approved_tick: ours 131, expected 132"),
        "{text}"
    );
    // What our rule counted at our tick and at the expected one.
    assert!(
        text.contains("explain A#0: tranches 0..=0 suffice"),
        "{text}"
    );
    assert!(text.contains("no-shows []"), "{text}");

    // The folder form counts it as failed.
    let out = std::process::Command::new(exe)
        .arg("scenario")
        .arg(&tmp)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("FAIL"), "{text}");
    assert_eq!(text.lines().last(), Some("0 passed, 1 failed"));

    // An expected file that is not JSON: exit 2.
    std::fs::write(tmp.join("02_exactly_needed.expected.json"), "not json").unwrap();
    let out = std::process::Command::new(exe)
        .arg("scenario")
        .arg(&scenario)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a JSON expected-answer file"));
    let _ = std::fs::remove_dir_all(&tmp);
}
