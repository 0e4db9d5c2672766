//! What `tranche run` tells on stderr when stderr is not a terminal (a
//! log, CI): one line per phase start and end, one per tenth of the
//! message generation, and one per approved block,
//! `block N approved after M ms`; with `--quiet`, nothing but warnings and
//! errors.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_tranche");

fn guard_yaml() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ci/guard.yaml")
}

fn run(name: &str, extra: &[&str]) -> (String, String) {
    let dir = std::env::temp_dir().join(format!("tranche-progress-{}-{name}", std::process::id()));
    let out = Command::new(BIN)
        .arg("run")
        .arg(guard_yaml())
        .args("--clock virtual --architecture both --cache-dir".split(' '))
        .arg(&dir)
        .args(extra)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert!(out.status.success(), "{out:?}");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn without_a_terminal_phases_and_blocks_are_plain_lines() {
    let (_, err) = run("lines", &[]);
    let lines: Vec<&str> = err.lines().collect();
    assert!(!err.contains('\r') && !err.contains('\u{1b}'), "{err:?}");
    for phase in [
        "generation",
        "run classic",
        "run parallel/4",
        "crypto floor (sample)",
    ] {
        let started = lines
            .iter()
            .filter(|l| l.starts_with(&format!("{phase}: started")));
        assert_eq!(
            started.count(),
            if phase == "crypto floor (sample)" {
                2
            } else {
                1
            },
            "{phase}\n{err}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("{phase}: done in "))),
            "{phase}\n{err}"
        );
    }
    // Generation tells how far it has come, a line per tenth of the
    // validators (issue 31: only `started` and `done` before).
    let told: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("generation: ") && l.contains(" of 59 validators' messages ("))
        .collect();
    assert!((1..=9).contains(&told.len()), "{err}");
    let at = |p: &str| lines.iter().position(|l| l.starts_with(p)).unwrap();
    let first_told = lines.iter().position(|l| l == told[0]).unwrap();
    assert!(at("generation: started") < first_told && first_told < at("generation: done"));
    for run in ["run classic", "run parallel/4"] {
        let end = lines
            .iter()
            .find(|l| l.starts_with(&format!("{run}: done")))
            .unwrap();
        assert!(end.ends_with("3 of 3 blocks approved"), "{end}");
    }
    // The guard's three blocks, once per layout, each with its time.
    for n in 1..=3 {
        let prefix = format!("block {n} approved after ");
        let per_block: Vec<&&str> = lines.iter().filter(|l| l.starts_with(&prefix)).collect();
        assert_eq!(per_block.len(), 2, "{err}");
        for l in per_block {
            let ms = l
                .strip_prefix(&prefix)
                .unwrap()
                .strip_suffix(" ms")
                .unwrap();
            assert!(ms.parse::<u64>().is_ok(), "{l}");
        }
    }
}

#[test]
fn quiet_keeps_stderr_silent_and_the_report_on_stdout() {
    let (out, err) = run("quiet", &["--quiet"]);
    assert_eq!(err, "", "stderr under --quiet");
    assert!(out.contains("\nblock 1 approved "), "{out}");
}
