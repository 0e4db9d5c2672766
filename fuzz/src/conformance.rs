//! The properties of the fuzz targets of tranche-conformance's readers:
//! the scenario file of `tranche scenario` (`Scenario::parse`), its
//! expected answer (`verdict::parse_expected`, then `differences` against
//! a run), and the conformance vector file of `tranche conformance`
//! (`vectors::parse`, then `compute` and `check::compare`). Any text may
//! be refused, never with a panic, and a refusal is one line without a
//! control character, of bounded length; what is accepted runs (when
//! small enough for a fuzzer's pace) without a panic.
//!
//! Not a module of the fuzz crate's library: the fuzz targets and
//! `crates/conformance/tests/conformance/fuzz_corpus.rs` include this file
//! by `#[path]`.

#![allow(dead_code)]

use std::sync::OnceLock;
use tranche_conformance::scenario::command::error_chain;
use tranche_conformance::scenario::verdict::{differences, parse_expected};
use tranche_conformance::scenario::{render_timeline, run, Scenario, ScenarioResult};
use tranche_conformance::vectors::{self, check};

/// Target name and check, for the corpus replay.
pub type Target = (&'static str, fn(&[u8]) -> bool);

/// Every target of this file.
pub const TARGETS: &[Target] = &[
    ("scenario", scenario),
    ("scenario_expected", scenario_expected),
    ("conformance_vectors", conformance_vectors),
];

/// A refusal: one line, no control character, bounded.
fn one_line(line: &str) {
    assert!(
        !line.chars().any(char::is_control),
        "a control character in {line:?}"
    );
    assert!(line.len() <= 2_000, "{} bytes", line.len());
}

/// Reads `data` (if UTF-8) as a scenario. One small enough is run; its
/// result compared with itself has no difference, and its timeline renders.
/// Returns whether it was accepted.
pub fn scenario(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    match Scenario::parse(text) {
        Ok(s) => {
            let candidates: usize = s.blocks.iter().map(|b| b.candidates.len()).sum();
            let small = s.end_tick() - s.start_tick() <= 2_000
                && s.session.n_validators <= 1_000
                && s.events.len() <= 1_000
                && candidates <= 64;
            if small {
                let r = run(&s);
                let itself = serde_json::to_value(&r.result).expect("a result serialises");
                let diffs = differences(&r.result, &itself);
                assert!(diffs.is_empty(), "a result differs from itself: {diffs:?}");
                let _ = render_timeline(&s, &r);
            }
            true
        }
        Err(e) => {
            one_line(&error_chain(&e));
            false
        }
    }
}

/// The result the expected answers are compared with: a run of a small
/// scenario with a block, a candidate and its events.
fn ours() -> &'static ScenarioResult {
    static OURS: OnceLock<ScenarioResult> = OnceLock::new();
    OURS.get_or_init(|| {
        let text = r#"{"name": "fuzz", "session": {"n_validators": 10, "n_cores": 2,
            "needed_approvals": 3, "no_show_slots": 2, "n_delay_tranches": 40,
            "zeroth_delay_tranche_width": 0, "relay_vrf_modulo_samples": 2},
            "blocks": [{"name": "A", "number": 1, "slot": 10, "candidates": [{"core": 0, "group": 0}]}],
            "events": [
              {"tick": 120, "kind": "assignment", "validator": 5, "block": "A", "candidates": [0], "tranche": 0},
              {"tick": 122, "kind": "approval", "validator": 5, "block": "A", "candidates": [0]},
              {"tick": 123, "kind": "approval", "validator": 6, "block": "B", "candidates": [0]}
            ], "end_tick": 140}"#;
        run(&Scenario::parse(text).expect("the fuzz scenario reads")).result
    })
}

/// Reads `data` (if UTF-8) as an expected answer and compares a run with
/// it: every difference is one line. Returns whether it was accepted.
pub fn scenario_expected(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    match parse_expected(text, "fuzz.expected.json") {
        Ok(expected) => {
            for d in differences(ours(), &expected) {
                one_line(&d.to_string());
            }
            true
        }
        Err(e) => {
            one_line(&error_chain(&e));
            false
        }
    }
}

/// Reads `data` (if UTF-8) as a conformance vector file. One small enough
/// is computed as `tranche conformance` does, and compared with itself as
/// `tranche conformance --check` does (its outputs, if any, as the
/// reference). Returns whether it was accepted.
pub fn conformance_vectors(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    match vectors::parse(text, "fuzz.json") {
        Ok(file) => {
            let cores: usize = file.blocks.iter().map(|b| b.leaving_cores.len()).sum();
            let small = file.validators.len() <= 4
                && file.blocks.len() <= 2
                && cores <= 8
                && file.session.n_cores <= 64
                && file.approvals.len() <= 4;
            if small {
                match vectors::compute(&file) {
                    Ok(ours) => match check::compare(&file, &ours) {
                        Ok(report) => {
                            for f in &report.failures {
                                one_line(f);
                            }
                        }
                        Err(e) => one_line(&error_chain(&e)),
                    },
                    Err(e) => one_line(&error_chain(&e)),
                }
            }
            true
        }
        Err(e) => {
            one_line(&error_chain(&e));
            false
        }
    }
}
