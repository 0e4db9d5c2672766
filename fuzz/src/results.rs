//! The property of the `result_reader` fuzz target: the reader of result
//! files (`tranche_report::results::parse`, the reader `compare` and
//! `history` use) and what they do with a result it accepts. Any bytes may
//! be refused, but never with a panic, and a refusal is one line naming
//! the file; an accepted result is compared with itself (no regression, or
//! not comparable for want of figures), followed by `history` and its
//! table rendered, without a panic and without a control character
//! reaching the text.
//!
//! Not a module of the crate's library (whose `src/lib.rs` is compiled into
//! tranche-primitives' corpus replay, which cannot depend on
//! tranche-report): the fuzz target and `crates/report/tests/fuzz_corpus.rs`
//! include this file by `#[path]`, so the fuzzer and the replay test run
//! the same checks.

#![allow(dead_code)]

use tranche_report::compare::CpuPolicy;
use tranche_report::history::{self, Entry};
use tranche_report::results::{self, ResultFile};

/// Target name and check, for the corpus replay.
pub type Target = (&'static str, fn(&[u8]) -> bool);

/// Every target of this file.
pub const TARGETS: &[Target] = &[("result_reader", result_reader)];

/// No control character but the line breaks the text is made of.
fn no_controls(text: &str) {
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "a control character reaches the text: {text:?}"
    );
}

/// Reads `data` (if UTF-8) as a result file. Returns whether it was
/// accepted.
pub fn result_reader(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    match results::parse(text, "fuzz.json") {
        Ok(result) => {
            let policy = CpuPolicy::default();
            judge_itself(&result, &policy);
            let entry = Entry {
                file: "fuzz.json".into(),
                result,
            };
            let (series, skipped) = history::build(vec![entry], &policy);
            let table = history::render(&series, &skipped);
            no_controls(&table);
            true
        }
        Err(e) => {
            let line = e.to_string();
            assert!(!line.contains('\n'), "not one line: {line}");
            assert!(line.starts_with("fuzz.json "), "{line}");
            false
        }
    }
}

/// A result against itself: never a regression.
fn judge_itself(r: &ResultFile, policy: &CpuPolicy) {
    use tranche_report::compare;
    let c = match r {
        ResultFile::Run(f) => compare::compare(f, f, policy),
        ResultFile::Network(n) => compare::network::compare(n, n, policy),
        _ => return,
    };
    assert!(c.passed(), "a result regresses against itself");
    no_controls(&c.render(true));
}
