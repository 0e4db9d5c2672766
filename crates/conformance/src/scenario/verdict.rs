//! Comparing a run's decision fields with Polkadot's recorded answer
//! (`NAME.expected.json` beside the scenario): per block the four `*_tick`
//! fields, per candidate `approved_tick` and `approved_tranche`, per event
//! the result class (`Bad(…)`'s text is free). Other fields of the expected
//! file (hashes, `last_seen`, metrics) are informational and not compared.

use super::run::ScenarioResult;
use anyhow::{Context, Result};
use serde_json::Value;
use std::path::{Path, PathBuf};
use tranche_cli::text::bare;

/// The decision fields compared per block.
pub const BLOCK_FIELDS: [&str; 4] = [
    "all_candidates_approved_tick",
    "approved_signal_tick",
    "approved_ancestor_tick",
    "pruned_tick",
];

/// The decision fields compared per candidate.
pub const CANDIDATE_FIELDS: [&str; 2] = ["approved_tick", "approved_tranche"];

/// One decision field where the run and the expected answer differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// What differs, e.g. `block "A" approved_signal_tick`.
    pub field: String,
    pub ours: String,
    pub expected: String,
    /// For a candidate field: the candidate (block name, index) and the
    /// ticks worth explaining (ours and the expected one, where set).
    pub candidate: Option<(String, u32, Vec<u64>)>,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The names and values come from the files: shown safe
        // (`tranche_cli::text`).
        use tranche_cli::text::{bare, one_line};
        write!(
            f,
            "{}: ours {}, expected {}",
            one_line(&self.field),
            bare(&self.ours),
            bare(&self.expected)
        )
    }
}

/// `dir/NAME.expected.json` for `dir/NAME.json`.
pub fn expected_path(scenario: &Path) -> PathBuf {
    scenario.with_extension("expected.json")
}

/// Read an expected-answer file (a regular file of at most
/// `MAX_INPUT_FILE_BYTES`).
pub fn load_expected(path: &Path) -> Result<Value> {
    let text = tranche_cli::input::read_text(path, tranche_cli::input::MAX_INPUT_FILE_BYTES)
        .with_context(|| format!("cannot read {}", tranche_cli::text::path(path)))?;
    parse_expected(&text, &tranche_cli::text::path(path))
}

/// Parse an expected answer's `text`, `source` naming it in errors (shown
/// by the safe-text rule already): a JSON object.
pub fn parse_expected(text: &str, source: &str) -> Result<Value> {
    let v: Value = serde_json::from_str(text)
        .with_context(|| format!("{source} is not a JSON expected-answer file"))?;
    if !v.is_object() {
        anyhow::bail!("{source} is not a JSON object");
    }
    Ok(v)
}

/// The class of an event result: `Bad(…)` → `Bad`.
pub fn result_class(result: &str) -> &str {
    result.split('(').next().unwrap_or(result)
}

/// A value of a decision field, as a difference names it: control
/// characters escaped, cut after 80 bytes with its length (the expected
/// file is anyone's).
fn show(v: &Value) -> String {
    match v {
        Value::Null => "never".into(),
        Value::String(s) => bare(s),
        other => bare(&other.to_string()),
    }
}

/// A block name or an index of the expected file in a difference's field:
/// its JSON, cut after 80 bytes.
fn key(v: &Value) -> String {
    bare(&v.to_string())
}

/// Every differing decision field, in file order: blocks, candidates,
/// events.
pub fn differences(ours: &ScenarioResult, expected: &Value) -> Vec<Difference> {
    let ours = serde_json::to_value(ours).expect("a result serialises");
    let list = |v: &Value, k: &str| v[k].as_array().cloned().unwrap_or_default();
    let mut diffs = Vec::new();
    let mut push = |field: String, o: &Value, e: &Value, candidate| {
        diffs.push(Difference {
            field,
            ours: show(o),
            expected: show(e),
            candidate,
        })
    };
    let our_blocks = list(&ours, "blocks");
    for eb in list(expected, "blocks") {
        let name = &eb["name"];
        let shown = key(name);
        let Some(ob) = our_blocks.iter().find(|b| b["name"] == *name) else {
            push(format!("block {shown}"), &Value::Null, name, None);
            continue;
        };
        for f in BLOCK_FIELDS {
            if ob[f] != eb[f] {
                push(format!("block {shown} {f}"), &ob[f], &eb[f], None);
            }
        }
    }
    let our_candidates = list(&ours, "candidates");
    for ec in list(expected, "candidates") {
        let (block, index) = (&ec["block"], &ec["index"]);
        let what = format!("candidate {}#{}", key(block), key(index));
        let Some(oc) = our_candidates
            .iter()
            .find(|c| c["block"] == *block && c["index"] == *index)
        else {
            push(what, &Value::Null, &Value::String("present".into()), None);
            continue;
        };
        for f in CANDIDATE_FIELDS {
            if oc[f] != ec[f] {
                let ticks: Vec<u64> = [&oc["approved_tick"], &ec["approved_tick"]]
                    .iter()
                    .filter_map(|t| t.as_u64())
                    .collect();
                let probe = (
                    block.as_str().unwrap_or_default().to_string(),
                    index.as_u64().unwrap_or_default() as u32,
                    ticks,
                );
                push(format!("{what} {f}"), &oc[f], &ec[f], Some(probe));
            }
        }
    }
    let our_events = list(&ours, "events");
    for ee in list(expected, "events") {
        let index = &ee["index"];
        let shown = key(index);
        let Some(oe) = our_events.iter().find(|e| e["index"] == *index) else {
            push(format!("event {shown}"), &Value::Null, &ee["result"], None);
            continue;
        };
        let (o, e) = (
            oe["result"].as_str().unwrap_or(""),
            ee["result"].as_str().unwrap_or(""),
        );
        if result_class(o) != result_class(e) {
            push(
                format!("event {shown} result"),
                &oe["result"],
                &ee["result"],
                None,
            );
        }
    }
    diffs
}

/// Every scenario file (`*.json` but not `*.expected.json`) under `dir`, in
/// every folder below it, sorted by path.
pub fn scenario_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d)
            .with_context(|| format!("cannot read {}", tranche_cli::text::path(&d)))?;
        for e in entries {
            let p = e
                .with_context(|| format!("cannot read {}", tranche_cli::text::path(&d)))?
                .path();
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            if p.is_dir() {
                stack.push(p);
            } else if name.ends_with(".json") && !name.ends_with(".expected.json") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_class_ignores_the_reason() {
        assert_eq!(result_class("Bad(UnknownBlock(0x12))"), "Bad");
        assert_eq!(result_class("AcceptedDuplicate"), "AcceptedDuplicate");
    }

    /// Found by the `scenario_expected` fuzz target's corpus: a value or
    /// a block name of the expected file reached the terminal raw
    /// (escapes, and any length) in the difference naming it.
    #[test]
    fn a_difference_shows_the_expected_file_escaped_and_cut() {
        let text = r#"{"name": "t", "session": {"n_validators": 4, "n_cores": 1,
            "needed_approvals": 1, "no_show_slots": 1, "n_delay_tranches": 4,
            "zeroth_delay_tranche_width": 0, "relay_vrf_modulo_samples": 1},
            "blocks": [{"name": "A", "number": 1, "slot": 1, "candidates": [{"core": 0, "group": 0}]}]}"#;
        let ours = crate::scenario::run(&crate::scenario::Scenario::parse(text).unwrap()).result;
        let long = format!("\u{1b}]0;pwn\u{7}{}", "x".repeat(5_000));
        let expected = serde_json::json!({
            "blocks": [{"name": long}],
            "candidates": [{"block": "A", "index": 0, "approved_tick": long}],
        });
        let diffs = differences(&ours, &expected);
        assert_eq!(diffs.len(), 3, "{diffs:?}");
        for d in &diffs[..2] {
            let line = d.to_string();
            assert!(!line.chars().any(char::is_control), "{line:?}");
            assert!(line.len() < 400 && line.contains("bytes)"), "{line}");
        }
    }

    /// Found writing the `scenario_expected` fuzz target: the expected
    /// answer was read whole whatever it was (`/dev/zero` never ended).
    #[test]
    fn an_expected_answer_is_a_bounded_regular_file_holding_an_object() {
        let e = load_expected(Path::new("/dev/zero")).unwrap_err();
        assert!(
            format!("{e:#}").contains("a device, FIFO or socket"),
            "{e:#}"
        );
        let e = parse_expected("[1]", "x.expected.json").unwrap_err();
        assert_eq!(e.to_string(), "x.expected.json is not a JSON object");
        assert!(parse_expected("{}", "x").is_ok());
    }

    #[test]
    fn expected_path_sits_beside_the_scenario() {
        assert_eq!(
            expected_path(Path::new("d/r3_00.json")),
            PathBuf::from("d/r3_00.expected.json")
        );
    }
}
