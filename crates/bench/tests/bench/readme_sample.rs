//! README.md's sample report cannot go stale silently: this runs the
//! command the README shows (`docs/sample-report.sh`, which regenerates the
//! block) and compares its output with the README's block, every figure,
//! date, path and machine detail masked, so that a change of rows, sections,
//! labels or legend fails here until the block is regenerated.

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
    let now = masked(&String::from_utf8(out.stdout).unwrap());
    let readme = masked(&readme_block());
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
}
