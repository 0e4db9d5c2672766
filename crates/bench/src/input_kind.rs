//! What a file given as a YAML input is, when it is no YAML at all: an
//! HTML page, a JSON result of this tool, a script. Asked only once the
//! configuration reader has refused the file, so that its error says what
//! the file is (`page.html: not YAML: it is an HTML or XML page`) instead
//! of how the YAML parser read it.

use std::path::Path;

/// What `text` is, when it is plainly not a YAML input.
pub fn sniff(text: &str) -> Option<String> {
    let start = text.trim_start_matches('\u{feff}').trim_start();
    if start.starts_with('<') {
        return Some("an HTML or XML page (it starts with `<`)".into());
    }
    if start.starts_with("#!") {
        return Some("a script (it starts with `#!`)".into());
    }
    if start.starts_with('{') || start.starts_with('[') {
        if let Ok(kind) = tranche_report::results::kind_of(text) {
            return Some(format!(
                "{}, which `tranche compare` and `tranche history` read",
                tranche_report::meta::kind::describe(kind)
            ));
        }
    }
    None
}

/// The largest file looked at as another command's input: cost tables
/// and scenarios are a few KiB, and a refused 40 MB input is not read a
/// second time.
const MAX_SNIFFED_BYTES: usize = 1 << 20;

/// What `text` is when it is the input of another command of this tool:
/// a cost table or a scenario file, with the command line that reads it.
pub fn other_tool_input(text: &str, path: &Path, reads: &str) -> Option<String> {
    if text.len() > MAX_SNIFFED_BYTES {
        return None;
    }
    let first = text.lines().next().unwrap_or("");
    let header = tranche_cli::outputs::COST_TABLE_HEADERS
        .iter()
        .any(|h| first.starts_with(h));
    let names_costs = tranche_model::CostKind::ALL
        .iter()
        .any(|c| text.contains(c.key()));
    if header || (names_costs && tranche_model::CostTable::from_yaml_str(text).is_ok()) {
        return Some(format!(
            "this is a cost table (as `tranche calibrate` writes), not {reads}: give it as \
             `--costs {}` to `tranche run --node model` or `tranche network`",
            tranche_cli::text::path(path)
        ));
    }
    let start = text.trim_start();
    if start.starts_with('{') {
        let v: serde_json::Value = serde_json::from_str(start).ok()?;
        if v.get("session").is_some() && v.get("blocks").is_some() {
            return Some(format!(
                "this is a scenario file (testdata/scenarios/README.md), not {reads}: run it \
                 with `tranche scenario {}`",
                tranche_cli::text::path(path)
            ));
        }
    }
    None
}

/// The error for the input `path` that the configuration reader refused
/// with `error`: what the file is when it is another command's input or
/// plainly not YAML (and what the command reads instead), else `error`
/// itself.
pub fn explain(path: &Path, error: impl Into<anyhow::Error>, reads: &str) -> anyhow::Error {
    let error = error.into();
    let text = tranche_cli::input::read_text(path, tranche_cli::input::MAX_INPUT_FILE_BYTES);
    let text = text.ok();
    if let Some(hint) = text
        .as_deref()
        .and_then(|t| other_tool_input(t, path, reads))
    {
        return anyhow::anyhow!("{}: {hint}", tranche_cli::text::path(path));
    }
    match text.as_deref().and_then(sniff) {
        Some(what) => anyhow::anyhow!(
            "{}: not YAML: it is {what}; this command reads {reads} (`tranche examples`)",
            tranche_cli::text::path(path)
        ),
        None => error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_scripts_and_results_are_told_yaml_is_not() {
        assert!(sniff("<!DOCTYPE html>\n<html>").unwrap().contains("HTML"));
        assert!(sniff("#!/bin/sh\necho").unwrap().contains("script"));
        let run = r#"{"tool": "tranche", "version": "0.2.0", "runs": []}"#;
        assert!(sniff(run).unwrap().starts_with("a run report"));
        assert_eq!(sniff("TestConfiguration:\n- objective: x\n"), None);
        assert_eq!(sniff("{\"TestConfiguration\": []}"), None);
    }
}
