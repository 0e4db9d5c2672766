//! `tranche history` through the binary: a folder of five run results of
//! different commits (their `meta.commit` and `meta.date` set here, the
//! files named out of date order) and two network results prints one
//! table per series in date order, writes the page, and marks the step
//! where a regression was planted.

use crate::common::{args, guard_run, tmp, BIN};
use std::process::Command;

#[test]
fn a_folder_of_results_over_five_commits_marks_the_planted_regression() {
    let dir = tmp("history", "dir");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (cache, template) = (tmp("history", "cache"), tmp("history", "run.json"));
    guard_run(&cache, &args([&"--json", &template]));
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&template).unwrap()).unwrap();
    // File names out of date order: the dates decide.
    for (name, day, commit) in [
        ("e.json", 1, "1111111aaaaa"),
        ("d.json", 2, "2222222bbbbb"),
        ("c.json", 3, "3333333ccccc"),
        ("b.json", 4, "4444444ddddd"),
        ("a.json", 5, "5555555eeeee"),
    ] {
        let mut v = run.clone();
        v["meta"]["commit"] = commit.into();
        v["meta"]["date"] = format!("2026-03-0{day}T12:00:00Z").into();
        if day == 4 {
            // The planted regression: the node sends more.
            let sent = v["runs"][0]["network"]["sent_bytes"].as_u64().unwrap();
            v["runs"][0]["network"]["sent_bytes"] = (sent + 512).into();
        }
        std::fs::write(dir.join(name), v.to_string()).unwrap();
    }
    let network = dir.join("n1.json");
    let mut n = crate::common::small_network(&network);
    n["meta"]["commit"] = "6666666fffff".into();
    n["meta"]["date"] = "2026-03-06T12:00:00Z".into();
    std::fs::write(dir.join("n2.json"), n.to_string()).unwrap();
    std::fs::write(dir.join("notes.json"), "{\"x\": 1}").unwrap();

    let page = tmp("history", "page.html");
    let out = Command::new(BIN)
        .arg("history")
        .arg(&dir)
        .arg("--html")
        .arg(&page)
        .arg("--ignore-cpu")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(
        text.contains("run: guard.yaml #1 ApprovalVoting (seed 0"),
        "{text}"
    );
    assert!(
        text.contains("5 results in meta.date order, 2 regressions"),
        "{text}"
    );
    assert!(text.contains("network: default.yaml (embedded)"), "{text}");
    // In date order: commit 1111111 first, 5555555 last.
    let order: Vec<usize> = [
        "1111111aaaaa",
        "2222222bbbbb",
        "3333333ccccc",
        "4444444ddddd",
        "5555555eeeee",
    ]
    .iter()
    .map(|c| text.find(c).unwrap_or_else(|| panic!("{c} in {text}")))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
    assert!(
        text.contains("regression at #4 (commit 4444444ddddd,"),
        "{text}"
    );
    assert!(text.contains("bytes sent: "), "{text}");
    assert!(
        text.contains("note: ") && text.contains("notes.json"),
        "{text}"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("regression at #4 (4444444ddddd)"),
        "the plot marks it"
    );
    assert!(html.matches("<svg").count() >= 5 + 4, "a plot per figure");
    for p in [dir, cache] {
        let _ = std::fs::remove_dir_all(p);
    }
    let _ = std::fs::remove_file(page);
    let _ = std::fs::remove_file(template);
}
