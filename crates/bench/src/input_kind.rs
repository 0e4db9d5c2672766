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

/// The error for the input `path` that the configuration reader refused
/// with `error`: what the file is when it is plainly not YAML (and what
/// the command reads instead), else `error` itself.
pub fn explain(path: &Path, error: impl Into<anyhow::Error>, reads: &str) -> anyhow::Error {
    let error = error.into();
    let text = tranche_config::input::read_text(path, tranche_config::input::MAX_INPUT_FILE_BYTES);
    match text.ok().as_deref().and_then(sniff) {
        Some(what) => anyhow::anyhow!(
            "{}: not YAML: it is {what}; this command reads {reads} (`tranche examples`)",
            path.display()
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
