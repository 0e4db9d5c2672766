//! Tells the tests whether headless chromium is installed: without
//! `/usr/bin/chromium` it sets the cfg `no_chromium`, under which the
//! browser test (`tests/bench/html_browser.rs`) is marked `#[ignore]` with the
//! reason, so that `cargo test` reports it as ignored rather than passed
//! (libtest has no run-time skip).

fn main() {
    const CHROMIUM: &str = "/usr/bin/chromium";
    println!("cargo::rustc-check-cfg=cfg(no_chromium)");
    println!("cargo::rerun-if-changed=build.rs");
    // A package installs it with its own old mtime, which cargo would not
    // take for a change; its folder's mtime moves when it comes or goes.
    println!("cargo::rerun-if-changed=/usr/bin");
    if !std::path::Path::new(CHROMIUM).exists() {
        println!("cargo::rustc-cfg=no_chromium");
    }
}
