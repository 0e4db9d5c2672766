//! The properties of the fuzz targets of `tranche network`'s and `tranche
//! sweep network`'s YAML inputs: `!ApprovalNetwork`
//! (`tranche_config::approval_network::parse`) and `!ApprovalSweep`
//! (`tranche_config::approval_sweep::parse`). Any text may be refused, but
//! never with a panic, and a refusal is one line naming the file, with no
//! control character and of bounded length (a value from the file is
//! echoed escaped and cut); what is accepted is within the bounds its
//! reader promises.
//!
//! Not a module of the fuzz crate's library (tranche-primitives' corpus
//! replay cannot depend on tranche-config's users): the fuzz targets and
//! `crates/config/tests/config/fuzz_corpus.rs` include this file by
//! `#[path]`, so the fuzzers and the test run the same checks.

#![allow(dead_code)]

use std::path::Path;
use tranche_config::approval_network::{self, SpecChecks as _, MAX_NETWORK_VALIDATORS};
use tranche_config::approval_sweep;

/// Target name and check, for the corpus replay.
pub type Target = (&'static str, fn(&[u8]) -> bool);

/// Every target of this file.
pub const TARGETS: &[Target] = &[
    ("approval_network", approval_network),
    ("approval_sweep", approval_sweep),
];

/// The most bytes of a refusal: a value is cut at 80 bytes, the rest is
/// ours.
const MOST_ERROR_BYTES: usize = 1_000;

/// A refusal is one line starting with `prefix`, without a control
/// character, of bounded length.
pub fn one_line_naming(line: &str, prefix: &str) {
    assert!(line.starts_with(prefix), "{line:?} does not name the file");
    assert!(
        !line.chars().any(char::is_control),
        "a control character in {line:?}"
    );
    assert!(
        line.len() <= MOST_ERROR_BYTES,
        "{} bytes: {:?}",
        line.len(),
        line.chars().take(200).collect::<String>()
    );
}

/// Reads `data` (if UTF-8) as an `!ApprovalNetwork` file. An accepted spec
/// passes its own checks again and its estimates do not panic. Returns
/// whether it was accepted.
pub fn approval_network(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    match approval_network::parse(text, "fuzz.yaml") {
        Ok(spec) => {
            spec.validate("again").expect("an accepted spec is valid");
            assert!((2..=MAX_NETWORK_VALIDATORS).contains(&spec.n_validators));
            assert!(spec.n_cores >= 1 && spec.n_cores <= spec.n_backing_groups());
            let _ = spec.estimated_bytes();
            let (usual, most) = spec.estimated_cpu_seconds();
            assert!(usual <= most, "cpu estimate {usual} above its most {most}");
            let _ = spec.estimated_deliveries();
            true
        }
        Err(e) => {
            one_line_naming(&e.to_string(), "fuzz.yaml: ");
            false
        }
    }
}

/// Reads `data` (if UTF-8) as an `!ApprovalSweep` file in folder `d`. An
/// accepted grid's base is beside the file (its values are checked run by
/// run, by the `!ApprovalNetwork` checks). Returns whether it was accepted.
pub fn approval_sweep(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    match approval_sweep::parse(text, Path::new("d/fuzz.yaml")) {
        Ok(grid) => {
            if let Some(base) = &grid.base {
                assert!(base.starts_with("d"), "base {base:?} not beside the file");
            }
            true
        }
        Err(e) => {
            one_line_naming(&e.to_string(), "d/fuzz.yaml: ");
            false
        }
    }
}
