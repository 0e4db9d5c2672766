//! Hostile test-sequence files: what is not a regular file, what is too
//! large, too deep, too big to run or vacuous. Each case must end within a
//! generous deadline in a one-line error naming the problem (the key, the
//! value, the bound), never a panic or a hang.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tranche_primitives::limits;
use tranche_workload::config::{self, ConfigError, ConfigErrorKind, MAX_DEPTH};

/// Far above what any case needs; a hang or a quadratic parse exceeds it.
const DEADLINE: Duration = Duration::from_secs(10);

/// A small, valid G2/G3 step; cases replace one line to break it.
const BASE: &str = "\
TestConfiguration:
- objective: !ApprovalVoting
    coalesce_tranche_diff: 12
    num_no_shows_per_candidate: 0
  n_validators: 60
  n_cores: 12
  needed_approvals: 10
  num_blocks: 3
";

fn with(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from}");
    BASE.replacen(from, to, 1)
}

/// Runs `f` under the deadline and checks its error is one line that
/// contains every one of `needles`.
fn refused(needles: &[&str], f: impl FnOnce() -> Result<config::BenchConfig, ConfigError>) {
    let start = Instant::now();
    let e = f().expect_err("must be refused");
    let took = start.elapsed();
    assert!(took < DEADLINE, "took {took:?}");
    let text = e.to_string();
    assert!(!text.contains('\n'), "not one line: {text}");
    for n in needles {
        assert!(text.contains(n), "`{n}` missing from: {text}");
    }
}

fn parse(yaml: &str) -> Result<config::BenchConfig, ConfigError> {
    config::parse(yaml, "hostile.yaml")
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tranche-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_base_case_is_accepted() {
    assert!(parse(BASE).is_ok());
}

#[test]
fn devices_fifos_and_folders_are_not_read() {
    refused(&["/dev/zero", "not a regular file"], || {
        config::load(Path::new("/dev/zero"))
    });
    let d = temp_dir("fifo");
    refused(&["a folder"], || config::load(&d));
    let fifo = d.join("pipe.yaml");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    refused(&["pipe.yaml", "not a regular file"], || config::load(&fifo));
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_huge_or_binary_file_is_refused_without_reading_it_all() {
    let d = temp_dir("huge");
    let big = d.join("big.yaml");
    let f = std::fs::File::create(&big).unwrap();
    // Sparse: no disk used, but larger than the limit.
    f.set_len(limits::MAX_INPUT_FILE_BYTES + 1).unwrap();
    let max = limits::MAX_INPUT_FILE_BYTES.to_string();
    refused(&["big.yaml", "larger than", &max], || config::load(&big));
    let bin = d.join("bin.yaml");
    std::fs::write(&bin, [0xff, 0xfe, 0x00]).unwrap();
    refused(&["not UTF-8"], || config::load(&bin));
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn deep_nesting_is_refused_before_parsing() {
    let max = MAX_DEPTH.to_string();
    for text in [
        "[".repeat(200_000),
        "{".repeat(200_000),
        format!("TestConfiguration:\n- {}", "[".repeat(200_000)),
        "- ".repeat(100_000),
        (0..200).map(|i| format!("{}k:\n", " ".repeat(i))).collect(),
    ] {
        refused(&["nesting deeper than", &max, "line"], || parse(&text));
    }
    let e = parse(&"[".repeat(1000)).unwrap_err();
    assert!(matches!(e.kind, ConfigErrorKind::TooDeep { .. }), "{e}");
}

#[test]
fn alias_bombs_and_long_flat_files_end_quickly() {
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let p = i - 1;
        bomb.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    bomb.push_str("TestConfiguration: *a9\n");
    refused(&["hostile.yaml"], || parse(&bomb));
    // Many shallow steps: linear, and each is checked.
    let steps = BASE.replacen("TestConfiguration:\n", "", 1).repeat(5_000);
    let many = format!("TestConfiguration:\n{steps}  n_cores: 0\n");
    refused(&["n_cores"], || parse(&many));
}
