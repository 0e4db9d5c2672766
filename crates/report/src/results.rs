//! The JSON results the tool writes, read back (`compare`, `history`, the
//! outputs' overwrite rule): through the checked input path every other
//! input takes (a regular file of at most [`MAX_RESULT_FILE_BYTES`]: a
//! FIFO, a device or a folder is refused at once), each told by its kind
//! — `meta.kind`, or for files written before kinds existed, its shape
//! (`runs`: a run report; `validators`: a network report; a bare list of
//! rows: a sweep) — and every error one line in the project's words.

use crate::meta::kind;
use crate::network::sweep::SweepRow;
use crate::network::SimulationReport;
use crate::sweep_run::RunSweepRow;
use crate::{Meta, ReportFile, TOOL};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Largest result file read: a network report holds every validator's
/// record of every block (about 1 KiB per validator and block).
pub const MAX_RESULT_FILE_BYTES: u64 = 256 << 20;

/// What `sweep run --json` and `sweep network --json` write: the
/// metadata and one row per grid point (older files: the bare list).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepFile<R> {
    pub meta: Meta,
    pub rows: Vec<R>,
}

/// A result file of any kind.
#[derive(Debug, Clone, PartialEq)]
pub enum ResultFile {
    Run(ReportFile),
    Network(Box<SimulationReport>),
    SweepRun(SweepFile<RunSweepRow>),
    SweepNetwork(SweepFile<SweepRow>),
}

impl ResultFile {
    /// Its `meta.kind` ([`kind`]).
    pub fn kind(&self) -> &'static str {
        match self {
            ResultFile::Run(_) => kind::RUN,
            ResultFile::Network(_) => kind::NETWORK,
            ResultFile::SweepRun(_) => kind::SWEEP_RUN,
            ResultFile::SweepNetwork(_) => kind::SWEEP_NETWORK,
        }
    }

    /// Its metadata, where the file has one.
    pub fn meta(&self) -> Option<&Meta> {
        match self {
            ResultFile::Run(f) => f.meta.as_ref(),
            ResultFile::Network(r) => r.meta.as_ref(),
            ResultFile::SweepRun(f) => Some(&f.meta),
            ResultFile::SweepNetwork(f) => Some(&f.meta),
        }
    }
}

/// A file that could not be read as a result.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Not there, not a regular file, too large, not text.
    #[error("{0}")]
    Read(String),
    #[error("{path} is not a tranche result: {reason}")]
    Parse { path: String, reason: String },
    #[error("{path} cannot be compared: {reason}")]
    Incompatible { path: String, reason: String },
}

/// What a file says it is, read without its bulk.
#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    meta: Option<ProbeMeta>,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    runs: Option<IgnoredAny>,
    #[serde(default)]
    validators: Option<IgnoredAny>,
    #[serde(default)]
    rows: Option<Vec<ProbeRow>>,
}

#[derive(Deserialize)]
struct ProbeMeta {
    #[serde(default)]
    tool: String,
    #[serde(default)]
    kind: String,
}

/// A sweep row's telling field: `layout` in a sweep of runs,
/// `no_show_fraction` in a sweep of networks.
#[derive(Deserialize)]
struct ProbeRow {
    #[serde(default)]
    layout: Option<IgnoredAny>,
    #[serde(default)]
    no_show_fraction: Option<IgnoredAny>,
}

fn sweep_kind(rows: &[ProbeRow]) -> Result<&'static str, String> {
    match rows.first() {
        Some(r) if r.layout.is_some() => Ok(kind::SWEEP_RUN),
        Some(r) if r.no_show_fraction.is_some() => Ok(kind::SWEEP_NETWORK),
        Some(_) => Err("a list of rows of no sweep this tool writes".into()),
        None => Err("an empty sweep (no rows)".into()),
    }
}

/// The kind of result `text` holds, from its `meta` or its shape.
pub fn kind_of(text: &str) -> Result<&'static str, String> {
    let start = text.trim_start();
    if start.starts_with('[') {
        let rows: Vec<ProbeRow> = serde_json::from_str(text).map_err(|e| words(&e, "a sweep"))?;
        return sweep_kind(&rows);
    }
    if !start.starts_with('{') {
        return Err("it is not JSON".into());
    }
    let probe: Probe = serde_json::from_str(text).map_err(|e| words(&e, "a result"))?;
    if let Some(m) = &probe.meta {
        if m.tool != TOOL && !m.tool.is_empty() {
            return Err(format!("it was written by `{}`, not by {TOOL}", m.tool));
        }
        if !m.kind.is_empty() {
            return [
                kind::RUN,
                kind::NETWORK,
                kind::SWEEP_RUN,
                kind::SWEEP_NETWORK,
            ]
            .into_iter()
            .find(|k| *k == m.kind)
            .ok_or_else(|| format!("its kind `{}` is none this build reads", m.kind));
        }
    }
    if probe.runs.is_some() {
        return match probe.tool.as_deref() {
            Some(TOOL) => Ok(kind::RUN),
            Some(other) => Err(format!("it was written by `{other}`, not by {TOOL}")),
            None => Err("it has `runs` but no `tool`".into()),
        };
    }
    if probe.validators.is_some() {
        return Ok(kind::NETWORK);
    }
    if let Some(rows) = &probe.rows {
        return sweep_kind(rows);
    }
    Err(
        "JSON, but none of the results this tool writes (no `meta.kind`, `runs`, \
         `validators` or `rows`)"
            .into(),
    )
}

/// A serde error in the project's words, one line: where, and what of
/// `what` was wrong, without the Rust type names serde speaks of.
pub(crate) fn words(e: &serde_json::Error, what: &str) -> String {
    use serde_json::error::Category;
    let at = format!("line {}, column {}", e.line(), e.column());
    match e.classify() {
        Category::Syntax => format!("it is not JSON ({at})"),
        Category::Eof => format!("it ends before its JSON does ({at}: truncated?)"),
        Category::Io => format!("it could not be read ({at})"),
        Category::Data => {
            let message = e.to_string();
            let message = message
                .rsplit_once(" at line ")
                .map_or(message.as_str(), |(m, _)| m);
            let detail = if let Some(field) = message.strip_prefix("missing field ") {
                format!("lacks the field {field}")
            } else if message.starts_with("invalid type") || message.starts_with("invalid value") {
                let found = message
                    .split_once(": ")
                    .and_then(|(_, r)| r.split_once(", expected"))
                    .map_or("", |(found, _)| found);
                format!("has a value of the wrong kind ({found})")
            } else if message.starts_with("unknown variant") {
                "has a value this build does not know".to_owned()
            } else {
                "does not have the fields this build reads".to_owned()
            };
            format!("{what} that {detail} ({at})")
        }
    }
}

/// Read a result file of any kind.
pub fn read(path: &Path) -> Result<ResultFile, LoadError> {
    let shown = path.display().to_string();
    let text = tranche_config::input::read_text(path, MAX_RESULT_FILE_BYTES)
        .map_err(|e| LoadError::Read(tranche_config::text::one_line(&e.to_string())))?;
    parse(&text, &shown)
}

/// Parse `text`, the result file `path`.
pub fn parse(text: &str, path: &str) -> Result<ResultFile, LoadError> {
    let fail = |reason: String| LoadError::Parse {
        path: path.to_owned(),
        reason,
    };
    let kind = kind_of(text).map_err(fail)?;
    let what = kind::describe(kind);
    let typed = |e: serde_json::Error| fail(words(&e, &what));
    let bare = text.trim_start().starts_with('[');
    let old_meta = || Meta {
        tool: TOOL.into(),
        kind: kind.into(),
        ..Meta::default()
    };
    Ok(match kind {
        kind::RUN => ResultFile::Run(serde_json::from_str(text).map_err(typed)?),
        kind::NETWORK => ResultFile::Network(serde_json::from_str(text).map_err(typed)?),
        kind::SWEEP_RUN if bare => ResultFile::SweepRun(SweepFile {
            meta: old_meta(),
            rows: serde_json::from_str(text).map_err(typed)?,
        }),
        kind::SWEEP_RUN => ResultFile::SweepRun(serde_json::from_str(text).map_err(typed)?),
        kind::SWEEP_NETWORK if bare => ResultFile::SweepNetwork(SweepFile {
            meta: old_meta(),
            rows: serde_json::from_str(text).map_err(typed)?,
        }),
        _ => ResultFile::SweepNetwork(serde_json::from_str(text).map_err(typed)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_told_by_its_meta_or_its_shape() {
        let run = ReportFile::new(vec![crate::fixture::run()]);
        let text = serde_json::to_string(&run).unwrap();
        assert_eq!(kind_of(&text), Ok(kind::RUN));
        assert!(matches!(parse(&text, "r.json"), Ok(ResultFile::Run(_))));
        let old_sweep = r#"[{"n_validators": 100, "n_cores": 20, "no_show_fraction": 0.0}]"#;
        assert_eq!(kind_of(old_sweep), Ok(kind::SWEEP_NETWORK));
        let old_run_sweep = r#"[{"n_validators": 100, "layout": "classic"}]"#;
        assert_eq!(kind_of(old_run_sweep), Ok(kind::SWEEP_RUN));
        let network = r#"{"source": "x", "validators": []}"#;
        assert_eq!(kind_of(network), Ok(kind::NETWORK));
        let tagged = r#"{"meta": {"tool": "tranche", "kind": "sweep-network"}, "rows": []}"#;
        assert_eq!(kind_of(tagged), Ok(kind::SWEEP_NETWORK));
    }

    #[test]
    fn what_is_no_result_is_said_in_one_line_without_serde_words() {
        let cases = [
            ("<html></html>", "it is not JSON"),
            ("{\"a\": 1}", "none of the results this tool writes"),
            ("[]", "an empty sweep"),
            (
                r#"{"meta": {"tool": "other", "kind": "run"}}"#,
                "written by `other`",
            ),
            (
                r#"{"tool": "tranche", "version": "0.2.0", "runs": ["#,
                "truncated",
            ),
            (
                r#"{"tool": "tranche", "version": "0.2.0", "runs": [1]}"#,
                "a run report (tranche run --json) that has a value of the wrong kind",
            ),
            (
                r#"{"tool": "tranche", "runs": []}"#,
                "a run report (tranche run --json) that lacks the field `version`",
            ),
        ];
        for (text, want) in cases {
            let e = parse(text, "f.json").unwrap_err().to_string();
            assert!(e.starts_with("f.json is not a tranche result: "), "{e}");
            assert!(e.contains(want), "{text}: {e}");
            assert_eq!(e.lines().count(), 1, "{e}");
            for serde in ["struct ", "ReportFile", "expected "] {
                assert!(!e.contains(serde), "{text}: {e}");
            }
        }
    }
}
