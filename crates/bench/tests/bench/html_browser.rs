//! The HTML report (`tranche run --html`) rendered by a real browser:
//! headless Debian chromium (installed by `.ci/run`) loads the page from a
//! `file://` URL with networking off and dumps its DOM; every plot of the
//! file must be an `<svg>` element of the rendered page, the first two
//! the headline plots. Without `/usr/bin/chromium` the test is marked
//! ignored with its reason (the build script's cfg `no_chromium`), so
//! `cargo test` reports it as ignored, not as passed.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

const CHROMIUM: &str = "/usr/bin/chromium";

fn tmp(name: &str) -> PathBuf {
    common::tmp("browser", name)
}

/// The `id`s of the page's `<figure id="plot-N">` elements, in order.
fn plot_ids(text: &str) -> Vec<String> {
    text.match_indices("<figure id=\"plot-")
        .map(|(i, _)| {
            let rest = &text[i + "<figure id=\"".len()..];
            rest[..rest.find('"').unwrap()].to_owned()
        })
        .collect()
}

/// Each figure's content up to its closing tag starts with an `<svg`.
fn figures_with_svg(dom: &str) -> usize {
    dom.split("<figure id=\"plot-")
        .skip(1)
        .filter(|f| {
            let inner = &f[..f.find("</figure>").unwrap_or(f.len())];
            inner.contains("<svg") && inner.contains("</svg>")
        })
        .count()
}

#[test]
#[cfg_attr(
    no_chromium,
    ignore = "/usr/bin/chromium is absent (.ci/run installs Debian's chromium)"
)]
fn chromium_renders_every_plot_of_the_page() {
    assert!(
        Path::new(CHROMIUM).exists(),
        "{CHROMIUM} vanished since the build"
    );
    let html = tmp("report.html");
    common::guard_run(&tmp("cache"), &common::args([&"--html", &html]));
    let page = std::fs::read_to_string(&html).unwrap();
    let ids = plot_ids(&page);
    assert!(ids.len() >= 6, "{} plots in the page", ids.len());

    let profile = tempfile::tempdir().unwrap();
    let dumped = Command::new("timeout")
        .args(["120", CHROMIUM])
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", html.canonicalize().unwrap().display()))
        .output()
        .unwrap();
    assert!(
        dumped.status.success(),
        "chromium failed ({}): {}",
        dumped.status,
        String::from_utf8_lossy(&dumped.stderr)
    );
    let dom = String::from_utf8(dumped.stdout).unwrap();
    assert_eq!(plot_ids(&dom), ids, "the rendered page's plots");
    assert_eq!(figures_with_svg(&dom), ids.len(), "an svg in every plot");
    assert_eq!(dom.matches("<svg").count(), page.matches("<svg").count());
    assert!(dom.contains("Approval time per block"));
    // The headline first: the rendered page's first two svgs.
    let svgs: Vec<&str> = dom.split("<svg").skip(1).take(2).collect();
    assert!(svgs[0].contains("Approval time per block"), "{}", svgs[0]);
    assert!(
        svgs[1].contains("Node CPU by block slot against the crypto floor")
            && svgs[1].contains("floor, one by one (classic)")
            && svgs[1].contains("floor, batched (parallel/4)"),
        "{}",
        svgs[1]
    );
    for p in [html, tmp("cache")] {
        let _ = std::fs::remove_file(&p);
        let _ = std::fs::remove_dir_all(&p);
    }
}
