//! Hostile scenario and conformance files: every one ends at once in a
//! one-line error naming the problem — no hang, no allocation for sizes no
//! real session has, no panic.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tranche_conformance::scenario::Scenario;
use tranche_conformance::vectors;

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tranche-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn scenario_error(edit: impl Fn(&mut Value)) -> String {
    let text =
        std::fs::read_to_string(testdata().join("scenarios/02_exactly_needed.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    edit(&mut v);
    let start = Instant::now();
    let e = format!("{:#}", Scenario::parse(&v.to_string()).unwrap_err());
    assert!(start.elapsed() < Duration::from_secs(10));
    assert!(!e.contains('\n'), "{e}");
    e
}

#[test]
fn scenario_sizes_beyond_the_bounds_are_refused() {
    let e = scenario_error(|v| v["session"]["n_cores"] = 4_294_967_295u64.into());
    assert!(
        e.contains("session.n_cores is 4294967295, above the bound"),
        "{e}"
    );
    let e = scenario_error(|v| v["session"]["n_validators"] = 100_000.into());
    assert!(e.contains("session.n_validators is 100000"), "{e}");
    let e = scenario_error(|v| v["session"]["no_show_slots"] = 4_294_967_295u64.into());
    assert!(e.contains("session.no_show_slots"), "{e}");
    let e = scenario_error(|v| v["end_tick"] = 9_000_000.into());
    assert!(e.contains("tick-candidates"), "{e}");
    let e = scenario_error(|v| v["end_tick"] = u64::MAX.into());
    assert!(e.contains("at most"), "{e}");
}

#[test]
fn special_files_are_refused_without_waiting() {
    let fifo = tmp("scenario.fifo");
    let _ = std::fs::remove_file(&fifo);
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let start = Instant::now();
    let e = format!("{:#}", Scenario::load(&fifo).unwrap_err());
    assert!(e.contains("not a regular file"), "{e}");
    let e = format!("{:#}", vectors::load(&fifo).unwrap_err());
    assert!(e.contains("not a regular file"), "{e}");
    let e = format!("{:#}", Scenario::load(Path::new("/dev/zero")).unwrap_err());
    assert!(e.contains("not a regular file"), "{e}");
    assert!(start.elapsed() < Duration::from_secs(10));
    let _ = std::fs::remove_file(&fifo);
}

#[test]
fn conformance_sizes_beyond_the_bounds_are_refused() {
    let text = std::fs::read_to_string(testdata().join("vectors/public-basic.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["session"]["n_cores"] = 4_294_967_295u64.into();
    let path = tmp("huge-cores.json");
    std::fs::write(&path, v.to_string()).unwrap();
    let e = format!("{:#}", vectors::load(&path).unwrap_err());
    assert!(
        e.contains("session.n_cores is 4294967295, above the bound"),
        "{e}"
    );
    assert!(!e.contains('\n'));
}

/// Found by the `conformance_vectors` fuzz target (its seed
/// `core_out_of_range.json`): a leaving core of index 4 000 000 000 had
/// every assignment allocate a bitfield that long (6 s and 500 MB for a
/// 5 KB file). A core beyond the session's, or a group beyond its
/// groups, is refused.
#[test]
fn a_leaving_core_beyond_the_session_is_refused() {
    let text = std::fs::read_to_string(testdata().join("vectors/public-basic.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let refused = |edit: &dyn Fn(&mut Value)| {
        let mut v = v.clone();
        edit(&mut v);
        let start = Instant::now();
        let e = format!(
            "{:#}",
            vectors::parse(&v.to_string(), "f.json").unwrap_err()
        );
        assert!(start.elapsed() < Duration::from_secs(1));
        e
    };
    let e =
        refused(&|v| v["blocks"][0]["leaving_cores"][0]["core_index"] = 4_000_000_000u64.into());
    assert_eq!(
        e,
        "f.json: blocks[0].leaving_cores[0]: core_index 4000000000 is not below session.n_cores 4"
    );
    let e = refused(&|v| v["blocks"][1]["leaving_cores"][1]["group_index"] = 4.into());
    assert_eq!(
        e,
        "f.json: blocks[1].leaving_cores[1]: group_index 4 is not below the 4 \
         session.validator_groups"
    );
}
