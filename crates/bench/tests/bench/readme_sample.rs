//! README.md's sample report cannot go stale silently: this runs the
//! command the README shows (`docs/sample-report.sh`, which regenerates the
//! block) and compares its output with the README's block twice: every
//! figure, date, path and machine detail masked, so that a change of rows,
//! sections, labels or legend fails here; and exactly, the lines whose
//! figures the virtual clock makes exact for a seed (approval times, why
//! blocks were approved, bytes, message counts: the sections `compare`
//! judges exactly) and the configuration hash, so that a change of what the
//! protocol does or of the default configuration fails here too until the
//! block is regenerated. The commit, which changes every commit, is not
//! compared.

use crate::common;

use std::path::Path;

/// The text with every number (`12`, `0.1234`, `3.30`) as `#`, runs of
/// blanks as one, and the lines that name the machine, date, build, paths
/// or command cut to their first word.
fn masked(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            for head in [
                "tranche (result format",
                "machine:",
                "command:",
                "messages:",
            ] {
                if l.starts_with(head) {
                    return head.to_owned();
                }
            }
            let mut out = String::new();
            let mut in_number = false;
            for c in l.chars() {
                let digit = c.is_ascii_digit() || (in_number && c == '.');
                if digit {
                    if !in_number {
                        out.push('#');
                    }
                } else {
                    out.push(c);
                }
                in_number = digit;
            }
            out.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .filter(|l| !l.is_empty())
        .collect()
}

/// The sections of the table whose every figure is exact under the
/// virtual clock for a seed.
const EXACT_SECTIONS: &[&str] = &[
    "Approval",
    "Why (the run's candidates)",
    "Network (SCALE-encoded messages, no framing)",
    "Messages (count)",
];

/// The headline's rows that are exact (its CPU rows are not).
const EXACT_ROWS: &[&str] = &["approval p50 over blocks", "approval max over blocks"];

/// The report's lines whose figures are exact under the virtual clock: the
/// step's title line, the headline's approval rows and every line of the
/// exact sections (a section runs from a blank line to the next).
fn exact_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut blank = true;
    for l in text.lines() {
        if l.trim().is_empty() {
            blank = true;
            continue;
        }
        if blank {
            section = l.split("  ").next().unwrap_or_default().to_owned();
        }
        blank = false;
        let title = l.contains(" — ") && l.contains(" validators, ");
        if title
            || EXACT_SECTIONS.contains(&section.as_str())
            || EXACT_ROWS.iter().any(|r| l.starts_with(r))
        {
            out.push(l.trim_end().to_owned());
        }
    }
    out
}

/// The configuration hash of the metadata line (`...; config HASH`).
fn config_hash(text: &str) -> Option<&str> {
    let line = text.lines().find(|l| l.starts_with("machine:"))?;
    line.rsplit_once("; config ").map(|(_, h)| h.trim())
}

/// The README's block between the `sample-report` markers, fences cut.
fn readme_block() -> String {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let start = readme
        .find("<!-- sample-report:start -->")
        .expect("README.md has the sample-report markers");
    let end = readme.find("<!-- sample-report:end -->").unwrap();
    readme[start..end]
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with("```"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_readme_sample_report_has_the_layout_the_code_prints() {
    let cache = common::tmp("readme", "cache");
    let args = [
        "run",
        "--architecture",
        "both",
        "--clock",
        "virtual",
        "--seed",
        "0",
    ];
    let cache_dir = cache.to_str().unwrap();
    let out = common::tranche(&[&args[..], &["--cache-dir", cache_dir, "--quiet"]].concat());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the README's command failed: {stderr}"
    );
    let printed = String::from_utf8(out.stdout).unwrap();
    let sample = readme_block();
    let now = masked(&printed);
    let readme = masked(&sample);
    let _ = std::fs::remove_dir_all(&cache);
    for (i, (a, b)) in readme.iter().zip(&now).enumerate() {
        assert_eq!(
            a, b,
            "README.md's sample report is stale at line {i} (masked); regenerate it with \
             docs/sample-report.sh"
        );
    }
    assert_eq!(
        readme.len(),
        now.len(),
        "README.md's sample report has another number of lines; regenerate it with \
         docs/sample-report.sh"
    );
    // The exact figures and the configuration hash, as printed.
    assert!(
        config_hash(&printed).is_some(),
        "no config hash in\n{printed}"
    );
    assert_eq!(
        config_hash(&sample),
        config_hash(&printed),
        "README.md's sample report has another configuration hash; regenerate it with \
         docs/sample-report.sh"
    );
    let (exact_readme, exact_now) = (exact_lines(&sample), exact_lines(&printed));
    assert!(exact_now.len() > 15, "{exact_now:#?}");
    for (a, b) in exact_readme.iter().zip(&exact_now) {
        assert_eq!(
            a, b,
            "README.md's sample report shows other exact (virtual-clock) figures than the \
             code prints; regenerate it with docs/sample-report.sh"
        );
    }
    assert_eq!(exact_readme.len(), exact_now.len());
}
