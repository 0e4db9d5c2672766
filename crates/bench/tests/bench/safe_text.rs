//! One safe-text rule for every value echoed from an input (issue 60,
//! point 15): a hostfile line, a sweep file's `base:`, a scenario's block
//! name are shown with their control characters escaped and cut after 80
//! bytes with their length, whatever the command; no escape sequence
//! reaches the terminal and no line grows with the input.

use crate::common::{tmp, tranche};

/// The terminal escape every case plants: it sets the window's title.
const TITLE: &str = "\u{1b}]0;pwn\u{7}";

/// `out` holds no raw escape and no line longer than `max` bytes.
fn safe(what: &str, out: &[u8], max: usize) {
    let text = String::from_utf8_lossy(out);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{what}: a raw control character: {text:.400}"
    );
    for line in text.lines() {
        assert!(line.len() <= max, "{what}: a line of {} bytes", line.len());
    }
}

#[test]
fn a_hostfile_line_is_quoted_escaped_and_cut() {
    for (name, line, shown) in [
        (
            "escape",
            format!("{TITLE}:2101"),
            "\\u{1b}]0;pwn\\u{7}:2101",
        ),
        (
            "huge",
            format!("{}:2101", "A".repeat(1_000_000)),
            "(1 000 005 bytes)",
        ),
    ] {
        let hosts = tmp("safe-hostfile", name);
        std::fs::write(&hosts, format!("{line}\n127.0.0.1:2102\n")).unwrap();
        let out = tranche(&[
            "network",
            "--quiet",
            "--validators",
            "40",
            "--cores",
            "4",
            "--blocks",
            "1",
            "--processes",
            "2",
            "--hostfile",
            hosts.to_str().unwrap(),
        ]);
        std::fs::remove_file(&hosts).ok();
        assert!(!out.status.success(), "{name}: ran");
        safe(name, &out.stderr, 300);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(shown), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
    }
}

#[test]
fn a_sweep_files_base_is_quoted_escaped_and_cut() {
    for (name, base, shown) in [
        (
            "escape",
            format!("{TITLE}.yaml"),
            "\\u{1b}]0;pwn\\u{7}.yaml",
        ),
        ("long", format!("{}.yaml", "B".repeat(5_000)), "B… ("),
    ] {
        let file = tmp("safe-sweep", name);
        let quoted = serde_json::to_string(&base).unwrap();
        let text = format!("!ApprovalSweep\nbase: {quoted}\nn_validators: [40]\n");
        std::fs::write(&file, text).unwrap();
        let out = tranche(&["sweep", "network", "--quiet", file.to_str().unwrap()]);
        std::fs::remove_file(&file).ok();
        assert!(!out.status.success(), "{name}: ran");
        safe(name, &out.stderr, 400);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(shown), "{name}: {err}");
    }
}

#[test]
fn a_scenarios_block_names_are_escaped_and_cut() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/scenarios");
    let text = std::fs::read_to_string(dir.join("01_tranche0_enough.json")).unwrap();
    let mut s: serde_json::Value = serde_json::from_str(&text).unwrap();
    let long = format!("{TITLE}{}", "X".repeat(3_091));
    s["events"][0]["block"] = long.clone().into();
    s["events"][5]["block"] = long.into();
    s["blocks"][0]["name"] = format!("\u{1b}[2J{}", "N".repeat(200)).into();
    s["description"] = format!("{TITLE} {}", "D".repeat(100_000)).into();
    let file = tmp("safe-scenario", "s.json");
    std::fs::write(&file, s.to_string()).unwrap();
    let out = tranche(&["scenario", file.to_str().unwrap()]);
    std::fs::remove_file(&file).ok();
    safe("scenario", &out.stdout, 500);
    safe("scenario", &out.stderr, 500);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("for \\u{1b}]0;pwn\\u{7}XXX"), "{text:.2000}");
    assert!(text.contains("(3 099 bytes)"), "{text:.2000}");
    assert!(text.contains("block \\u{1b}[2JNNN"), "{text:.2000}");
}

#[test]
fn an_output_path_and_a_conformance_files_format_are_escaped_and_cut() {
    let json = format!("/nonexistent/{TITLE}{}/r.json", "F".repeat(300));
    let out = tranche(&["run", "--json", &json, "--validators", "20", "--cores", "4"]);
    assert!(!out.status.success());
    safe("--json", &out.stderr, 300);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--json /nonexistent/\\u{1b}]0;pwn\\u{7}FFF"),
        "{err}"
    );
    // A vector file whose `format` is 70 KB with an escape in it.
    let vectors = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/vectors/public-basic.json"
    );
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(vectors).unwrap()).unwrap();
    v["format"] = format!("{TITLE}{}", "G".repeat(70_000)).into();
    let (file, output) = (
        tmp("safe-conformance", "c.json"),
        tmp("safe-conformance", "o.json"),
    );
    std::fs::write(&file, v.to_string()).unwrap();
    let out = tranche(&[
        "conformance",
        "--input",
        file.to_str().unwrap(),
        "--output",
        output.to_str().unwrap(),
    ]);
    std::fs::remove_file(&file).ok();
    assert!(!out.status.success() && !output.exists());
    safe("conformance", &out.stderr, 400);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("(70 008 bytes)"), "{err}");
}
