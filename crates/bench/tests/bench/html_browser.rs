//! The HTML reports rendered by a real browser: headless Debian chromium
//! (installed by `.ci/run`) loads a page from a `file://` URL with
//! networking off and dumps its DOM. Every plot of `tranche run --html`
//! must be an `<svg>` element of the rendered page, the first two the
//! headline plots; and no page of the tool (`run`, `network`, `sweep run`,
//! `sweep network`) may scroll sideways in a window 800 or 1 400 px wide
//! (a copy of each page with a line of script that writes the document's
//! scroll width and client width into the DOM). Without `/usr/bin/chromium`
//! the tests are marked ignored with their reason (the build script's cfg
//! `no_chromium`), so `cargo test` reports them as ignored, not as passed.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

const CHROMIUM: &str = "/usr/bin/chromium";

fn tmp(name: &str) -> PathBuf {
    common::tmp("browser", name)
}

/// Chromium, headless, networking off, loading `page` in a window
/// `width` px wide: its DOM after the load.
fn dump_dom(page: &Path, width: u32) -> String {
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
        .arg(format!("--window-size={width},900"))
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.canonicalize().unwrap().display()))
        .output()
        .unwrap();
    assert!(
        dumped.status.success(),
        "chromium failed ({}): {}",
        dumped.status,
        String::from_utf8_lossy(&dumped.stderr)
    );
    String::from_utf8(dumped.stdout).unwrap()
}

/// The page's scroll width and client width in a window `width` px wide
/// (the page itself has no script: a copy gets one line that writes both
/// into the DOM).
fn widths(page: &Path, width: u32) -> (u32, u32) {
    let text = std::fs::read_to_string(page).unwrap();
    assert!(!text.contains("<script"), "{} has a script", page.display());
    let probe = page.with_extension("probe.html");
    let script = "<script>var e=document.documentElement;document.body.insertAdjacentHTML(\
                  'beforeend','<p id=\"widths\">'+e.scrollWidth+' '+e.clientWidth+'</p>')\
                  </script></body>";
    std::fs::write(&probe, text.replace("</body>", script)).unwrap();
    let dom = dump_dom(&probe, width);
    let _ = std::fs::remove_file(&probe);
    let at = dom.rfind("<p id=\"widths\">").expect("the probe ran") + "<p id=\"widths\">".len();
    let v: Vec<u32> = dom[at..at + dom[at..].find('<').unwrap()]
        .split(' ')
        .map(|n| {
            n.parse()
                .unwrap_or_else(|_| panic!("{n:?} in {}", &dom[at..]))
        })
        .collect();
    (v[0], v[1])
}

/// `tranche ARGS`, which must succeed.
fn tranche_ok(args: &[&std::ffi::OsStr]) {
    let out = Command::new(common::BIN).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "tranche {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[cfg_attr(
    no_chromium,
    ignore = "/usr/bin/chromium is absent (.ci/run installs Debian's chromium)"
)]
fn no_page_scrolls_sideways_at_800_or_1400_px() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name);
    let guard = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ci/guard.yaml");
    // A small network with the CPU model and finality, and a long
    // command line (the file's path), as a user's.
    let net = d("a-network-file-with-a-long-name-as-users-give-them.yaml");
    std::fs::write(
        &net,
        "!ApprovalNetwork\nn_validators: 20\nn_cores: 4\nnum_blocks: 2\nneeded_approvals: 8\n\
         relay_vrf_modulo_samples: 2\nrun_after_last_block_secs: 30\nfinality: true\n\
         node: {layout: parallel, workers: 2, cores: 2}\n",
    )
    .unwrap();
    common::guard_run(&d("cache"), &common::args([&"--html", &d("run.html")]));
    let o = |s: &'static str| std::ffi::OsStr::new(s);
    tranche_ok(&[
        o("network"),
        net.as_os_str(),
        o("--verify"),
        o("model"),
        o("--quiet"),
        o("--html"),
        d("network.html").as_os_str(),
    ]);
    tranche_ok(&[
        o("sweep"),
        o("network"),
        net.as_os_str(),
        o("--validators"),
        o("20,24"),
        o("--html"),
        d("sweep-network.html").as_os_str(),
    ]);
    tranche_ok(&[
        o("sweep"),
        o("run"),
        guard.as_os_str(),
        o("--validators"),
        o("60,80"),
        o("--cores"),
        o("12"),
        o("--architecture"),
        o("classic,parallel"),
        o("--workers"),
        o("2"),
        o("--cache-dir"),
        d("cache").as_os_str(),
        o("--html"),
        d("sweep-run.html").as_os_str(),
    ]);
    let mut wide = Vec::new();
    for page in ["run", "network", "sweep-network", "sweep-run"] {
        for width in [800, 1400] {
            let (scroll, client) = widths(&d(&format!("{page}.html")), width);
            if scroll > client {
                wide.push(format!(
                    "{page} at {width} px: {scroll} px wide in {client}"
                ));
            }
        }
    }
    assert!(wide.is_empty(), "pages that scroll sideways: {wide:?}");
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

    let dom = dump_dom(&html, 1600);
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

#[test]
#[cfg_attr(
    no_chromium,
    ignore = "/usr/bin/chromium is absent (.ci/run installs Debian's chromium)"
)]
fn chromium_draws_and_names_each_sweep_series() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("sweep.html");
    let o = std::ffi::OsStr::new;
    tranche_ok(&[
        o("sweep"),
        o("run"),
        o("--validators"),
        o("40,50"),
        o("--cores"),
        o("8,10"),
        o("--schedule"),
        o("fifo,useful-first"),
        o("--architecture"),
        o("classic"),
        o("--cache-dir"),
        dir.path().join("cache").as_os_str(),
        o("--html"),
        page.as_os_str(),
    ]);
    let dom = dump_dom(&page, 1400);
    // The legend names what varies and every series; each is drawn in a
    // colour of its own (40 x 10 is refused by the rules: 10 cores has
    // the 50-validator point only).
    let texts: Vec<String> = dom
        .split("<text")
        .skip(1)
        .filter_map(|t| Some(t[t.find('>')? + 1..t.find("</text>")?].trim().to_owned()))
        .collect();
    let series = [
        "fifo, 8 cores",
        "useful-first, 8 cores",
        "fifo, 10 cores",
        "useful-first, 10 cores",
    ];
    for name in ["series: schedule, cores"].iter().chain(&series) {
        assert!(texts.iter().any(|t| t == name), "{name:?} in {texts:?}");
    }
    let mut strokes: Vec<&str> = dom
        .split("<polyline")
        .skip(1)
        .filter_map(|p| p.split("stroke=\"").nth(1)?.split('"').next())
        .filter(|c| *c != "#000000" && *c != "#FFFFFF")
        .collect();
    strokes.sort_unstable();
    strokes.dedup();
    assert!(strokes.len() >= series.len(), "colours {strokes:?}");
}
