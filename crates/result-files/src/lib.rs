//! The JSON results the tool writes, read back (`compare`, `history`, the
//! outputs' overwrite rule): a regular file of at most
//! [`MAX_RESULT_FILE_BYTES`] (a FIFO, a device or a folder is refused at
//! once), streamed through a strict reader (`strict`: no key given twice;
//! the bulk `compare` and `history` do not judge left behind as it is
//! read, so memory follows the figures, not the file's size), each told by
//! its kind — `meta.kind`, or for files written before kinds existed, its
//! shape (`runs`: a run report; `validators`: a network report; a bare
//! list of rows: a sweep) — then checked (`check`: counts, times and CPU
//! within stated bounds, a parseable date, records that agree with the
//! configuration they claim); every error one line in the project's
//! words. What an output flag writing a result may replace ([`writes`]).
//! The results themselves are `tranche-results`'; `tranche-report`
//! re-exports this crate as `tranche_report::results`.

mod check;
pub mod strict;

pub use check::{date_seconds, MAX_CPU_S, MAX_MS};
pub use strict::RecordDigest;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::Read as _;
use std::path::Path;
use tranche_results::meta::kind;
use tranche_results::network::SimulationReport;
use tranche_results::sweep::{RunSweepRow, SweepRow};
use tranche_results::{Meta, ReportFile, TOOL};

/// Largest result file read: a network report holds every validator's
/// record of every block (about 1 KiB per validator and block). Read as
/// a stream, it takes memory for its figures only (each validator's
/// record is kept as a 24-byte digest).
pub const MAX_RESULT_FILE_BYTES: u64 = 256 << 20;

/// What `sweep run --json` and `sweep network --json` write: the
/// metadata and one row per grid point (older files: the bare list).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepFile<R> {
    pub meta: Meta,
    pub rows: Vec<R>,
}

/// A network report as `compare` and `history` keep it: its summaries,
/// cost and configuration (`report`, its `validators` left empty), and
/// each validator's record as a digest.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkResult {
    pub report: SimulationReport,
    pub records: Vec<RecordDigest>,
}

impl NetworkResult {
    /// `report` with its records digested.
    pub fn of(mut report: SimulationReport) -> NetworkResult {
        let records = report.validators.iter().map(RecordDigest::of).collect();
        report.validators = Vec::new();
        NetworkResult { report, records }
    }
}

/// A result file of any kind.
#[derive(Debug, Clone, PartialEq)]
pub enum ResultFile {
    Run(ReportFile),
    Network(Box<NetworkResult>),
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
            ResultFile::Network(r) => r.report.meta.as_ref(),
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
    /// A result whose figures break the bounds `check` states.
    #[error("{path} is not a valid tranche result: {reason}")]
    Invalid { path: String, reason: String },
    #[error("{path} cannot be compared: {reason}")]
    Incompatible { path: String, reason: String },
    /// A file of this tool that `compare` and `history` do not judge (a
    /// `calibrate --check` comparison).
    #[error(
        "{path} is {what}, which compare and history do not judge (they judge the --json \
             results of run and network, history sweeps too)"
    )]
    NotJudged { path: String, what: String },
}

/// Every kind of JSON file the tool writes.
const WRITTEN_KINDS: [&str; 5] = [
    kind::RUN,
    kind::NETWORK,
    kind::SWEEP_RUN,
    kind::SWEEP_NETWORK,
    kind::CALIBRATE_CHECK,
];

/// A sweep's kind, from its first row's telling field: `layout` in a
/// sweep of runs, `no_show_fraction` in a sweep of networks.
fn sweep_kind(rows: &[Value]) -> Result<&'static str, String> {
    match rows.first() {
        Some(r) if r.get("layout").is_some() => Ok(kind::SWEEP_RUN),
        Some(r) if r.get("no_show_fraction").is_some() => Ok(kind::SWEEP_NETWORK),
        Some(_) => Err("a list of rows of no sweep this tool writes".into()),
        None => Err("an empty sweep (no rows)".into()),
    }
}

/// The kind of the file read as `read`, one of `kinds`, from its `meta`
/// or its shape.
fn kind_of_read(read: &strict::Read, kinds: &[&'static str]) -> Result<&'static str, String> {
    let v = &read.value;
    if let Value::Array(rows) = v {
        return sweep_kind(rows);
    }
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_owned();
    if let Some(meta) = v.get("meta").filter(|m| m.is_object()) {
        let (tool, k) = (text(meta.get("tool")), text(meta.get("kind")));
        if tool != TOOL && !tool.is_empty() {
            return Err(format!(
                "it was written by {}, not by {TOOL}",
                tranche_cli::text::code(&tool)
            ));
        }
        if !k.is_empty() {
            return kinds.iter().copied().find(|w| *w == k).ok_or_else(|| {
                format!(
                    "its kind {} is none this build reads",
                    tranche_cli::text::code(&k)
                )
            });
        }
    }
    if v.get("runs").is_some() {
        return match v.get("tool").and_then(Value::as_str) {
            Some(TOOL) => Ok(kind::RUN),
            Some(other) => Err(format!(
                "it was written by {}, not by {TOOL}",
                tranche_cli::text::code(other)
            )),
            None => Err("it has `runs` but no `tool`".into()),
        };
    }
    if read.records.is_some() {
        return Ok(kind::NETWORK);
    }
    if let Some(Value::Array(rows)) = v.get("rows") {
        return sweep_kind(rows);
    }
    Err(
        "JSON, but none of the results this tool writes (no `meta.kind`, `runs`, \
         `validators` or `rows`)"
            .into(),
    )
}

/// Read `text` strictly (as [`read`] reads a file), its error in words.
fn read_str(text: &str) -> Result<strict::Read, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    let read = strict::read(&mut de).map_err(|e| words(&e, "a result"))?;
    de.end().map_err(|e| words(&e, "a result"))?;
    Ok(read)
}

/// The kind of result `text` holds, of those `compare` and `history`
/// read, from its `meta` or its shape.
pub fn kind_of(text: &str) -> Result<&'static str, String> {
    let read = read_str(text)?;
    match kind_of_read(&read, &WRITTEN_KINDS)? {
        kind::CALIBRATE_CHECK => Err(format!(
            "it is {}, which compare and history do not read",
            kind::describe(kind::CALIBRATE_CHECK)
        )),
        k => Ok(k),
    }
}

/// The kind of any JSON file the tool writes (a result, or a
/// `calibrate --check` comparison), for the outputs' overwrite rule.
pub fn written_kind(text: &str) -> Result<&'static str, String> {
    kind_of_read(&read_str(text)?, &WRITTEN_KINDS)
}

/// What an output flag that writes a result of `kind` may replace (an
/// existing file [`written_kind`] reads as that kind, `tranche_cli::outputs`).
pub const fn writes(kind: &'static str) -> tranche_cli::outputs::Writes {
    tranche_cli::outputs::Writes::Result(tranche_cli::outputs::ResultKind {
        name: kind,
        max_bytes: MAX_RESULT_FILE_BYTES,
        read: written_kind,
        describe: kind::describe,
    })
}

/// A serde error in the project's words, one line: where, and what of
/// `what` was wrong, without the Rust type names serde speaks of.
pub(crate) fn words(e: &serde_json::Error, what: &str) -> String {
    use serde_json::error::Category;
    // A typed read of the value already read has no position.
    let at = if e.line() == 0 {
        String::new()
    } else {
        format!(" (line {}, column {})", e.line(), e.column())
    };
    match e.classify() {
        Category::Syntax => format!("it is not JSON{at}"),
        Category::Eof => format!("it ends before its JSON does{at}: truncated?"),
        Category::Io => format!("it could not be read{at}"),
        Category::Data => {
            let message = e.to_string();
            let message = message
                .rsplit_once(" at line ")
                .map_or(message.as_str(), |(m, _)| m);
            let twice = message
                .strip_prefix(strict::DUPLICATE)
                .or_else(|| message.strip_prefix("duplicate field "));
            if let Some(key) = twice {
                return format!(
                    "it has the key {} twice{at}",
                    tranche_cli::text::one_line(key)
                );
            }
            let detail = if let Some(field) = message.strip_prefix("missing field ") {
                format!("lacks the field {}", tranche_cli::text::one_line(field))
            } else if message.starts_with("invalid type") || message.starts_with("invalid value") {
                let found = message
                    .split_once(": ")
                    .and_then(|(_, r)| r.split_once(", expected"))
                    .map_or("", |(found, _)| found);
                format!(
                    "has a value of the wrong kind ({})",
                    tranche_cli::text::one_line(found)
                )
            } else if message.starts_with("unknown variant") {
                "has a value this build does not know".to_owned()
            } else {
                "does not have the fields this build reads".to_owned()
            };
            format!("{what} that {detail}{at}")
        }
    }
}

/// Read a result file of any kind, as a stream (its size bounded by
/// [`MAX_RESULT_FILE_BYTES`], its memory by its figures).
pub fn read(path: &Path) -> Result<ResultFile, LoadError> {
    let shown = path.display().to_string();
    let fail =
        |e: &dyn std::fmt::Display| LoadError::Read(tranche_cli::text::one_line(&e.to_string()));
    let file =
        tranche_cli::input::open_regular(path, MAX_RESULT_FILE_BYTES).map_err(|e| fail(&e))?;
    let reader = std::io::BufReader::new(file.take(MAX_RESULT_FILE_BYTES + 1));
    let mut de = serde_json::Deserializer::from_reader(reader);
    let parsed = strict::read(&mut de).and_then(|r| de.end().map(|()| r));
    let read = parsed.map_err(|e| LoadError::Parse {
        path: shown.clone(),
        reason: words(&e, "a result"),
    })?;
    typed(read, &shown)
}

/// Parse `text`, the result file `path`.
pub fn parse(text: &str, path: &str) -> Result<ResultFile, LoadError> {
    let read = read_str(text).map_err(|reason| LoadError::Parse {
        path: path.to_owned(),
        reason,
    })?;
    typed(read, path)
}

/// The result `read` holds, typed by its kind and checked.
fn typed(read: strict::Read, path: &str) -> Result<ResultFile, LoadError> {
    let fail = |reason: String| LoadError::Parse {
        path: path.to_owned(),
        reason,
    };
    let kind = kind_of_read(&read, &WRITTEN_KINDS).map_err(fail)?;
    if kind == kind::CALIBRATE_CHECK {
        return Err(LoadError::NotJudged {
            path: path.to_owned(),
            what: kind::describe(kind),
        });
    }
    let what = kind::describe(kind);
    let typed = |e: serde_json::Error| fail(words(&e, &what));
    let bare = read.value.is_array();
    let old_meta = || Meta {
        tool: TOOL.into(),
        kind: kind.into(),
        ..Meta::default()
    };
    let value = read.value;
    let result = match kind {
        kind::RUN => ResultFile::Run(serde_json::from_value(value).map_err(typed)?),
        kind::NETWORK => {
            let mut v = value;
            if let Value::Object(m) = &mut v {
                m.insert("validators".into(), Value::Array(Vec::new()));
            }
            ResultFile::Network(Box::new(NetworkResult {
                report: serde_json::from_value(v).map_err(typed)?,
                records: read.records.unwrap_or_default(),
            }))
        }
        kind::SWEEP_RUN if bare => ResultFile::SweepRun(SweepFile {
            meta: old_meta(),
            rows: serde_json::from_value(value).map_err(typed)?,
        }),
        kind::SWEEP_RUN => ResultFile::SweepRun(serde_json::from_value(value).map_err(typed)?),
        kind::SWEEP_NETWORK if bare => ResultFile::SweepNetwork(SweepFile {
            meta: old_meta(),
            rows: serde_json::from_value(value).map_err(typed)?,
        }),
        _ => ResultFile::SweepNetwork(serde_json::from_value(value).map_err(typed)?),
    };
    check::check(&result).map_err(|reason| LoadError::Invalid {
        path: path.to_owned(),
        reason,
    })?;
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_told_by_its_meta_or_its_shape() {
        let run = ReportFile::new(vec![tranche_results::fixture::run()]);
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

    #[test]
    fn impossible_values_duplicate_keys_and_false_dates_are_refused_by_name() {
        let good =
            serde_json::to_value(ReportFile::new(vec![tranche_results::fixture::run()])).unwrap();
        let with = |f: &dyn Fn(&mut Value)| {
            let mut v = good.clone();
            f(&mut v);
            parse(&v.to_string(), "r.json").err().map(|e| e.to_string())
        };
        assert_eq!(with(&|_| {}), None);
        let e = with(&|v| v["runs"][0]["node_cpu_s"] = (-5).into()).unwrap();
        assert!(
            e.contains("is not a valid tranche result: run ci: node_cpu_s is -5"),
            "{e}"
        );
        let e = with(&|v| v["runs"][0]["wall_time_s"] = 1e308.into()).unwrap();
        assert!(e.contains("wall_time_s is 1e308"), "{e}");
        let e = with(&|v| v["runs"][0]["counts"]["lost"] = (-1).into()).unwrap();
        assert!(
            e.contains("has a value of the wrong kind (integer `-1`)"),
            "{e}"
        );
        let e = with(&|v| {
            v["meta"] = serde_json::json!({"tool": "tranche", "kind": "run", "date": "yesterday"})
        })
        .unwrap();
        assert!(e.contains("meta.date \"yesterday\" is not a date"), "{e}");
        let text = good.to_string().replacen("{", r#"{"tool": "x", "#, 1);
        let e = parse(&text, "r.json").unwrap_err().to_string();
        assert!(e.contains("it has the key `tool` twice"), "{e}");
        assert_eq!(e.lines().count(), 1);
        // A network report whose records disagree with its n_validators.
        let mut n = tranche_results::fixture::network();
        n.validators.push(n.validators[0].clone());
        let e = parse(&serde_json::to_string(&n).unwrap(), "n.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("it holds the records of 3 validators, its n_validators is 2"),
            "{e}"
        );
    }

    /// Issue 60, 17: records that contradict themselves are refused with
    /// the field named: a block numbered past the run's blocks, a min
    /// above the max, a block given twice, a date in the future.
    #[test]
    fn records_that_contradict_themselves_are_refused_by_field() {
        let n = serde_json::to_value(tranche_results::fixture::network()).unwrap();
        let network = |f: &dyn Fn(&mut Value)| {
            let mut v = n.clone();
            f(&mut v);
            parse(&v.to_string(), "n.json").unwrap_err().to_string()
        };
        let e = network(&|v| v["blocks"][0]["number"] = 99.into());
        assert_eq!(
            e,
            "n.json is not a valid tranche result: blocks[0].number is 99, not 1: a report \
             of 1 block numbers them 1 to 1 in order"
        );
        let e = network(&|v| {
            v["blocks"][0]["min_ms"] = 9000.into();
            v["blocks"][0]["max_ms"] = 10.into();
        });
        assert!(
            e.contains("block 1 min_ms is 9000, more than its p50_ms"),
            "{e}"
        );
        let e = network(&|v| {
            v["meta"] = serde_json::json!({"tool": "tranche", "kind": "network",
                "date": "9999-01-01T00:00:00Z"})
        });
        assert!(
            e.contains(
                "meta.date \"9999-01-01T00:00:00Z\" is in the future: this machine's clock says 20"
            ),
            "{e}"
        );
        let run =
            serde_json::to_value(ReportFile::new(vec![tranche_results::fixture::run()])).unwrap();
        let mut twice = run.clone();
        twice["runs"][0]["blocks"][1]["number"] = 1.into();
        let e = parse(&twice.to_string(), "r.json").unwrap_err().to_string();
        assert!(
            e.contains("run ci: block 1 comes after block 1: blocks are numbered once each"),
            "{e}"
        );
        // Today's date, and one a few hours ahead (another machine's
        // clock), pass.
        let soon = tranche_results::meta::rfc3339(
            std::time::SystemTime::now() + std::time::Duration::from_secs(3 * 3600),
        );
        let mut dated = run;
        dated["meta"] = serde_json::json!({"tool": "tranche", "kind": "run", "date": soon});
        assert!(parse(&dated.to_string(), "r.json").is_ok());
    }

    #[test]
    fn a_network_report_keeps_its_records_as_digests() {
        let n = tranche_results::fixture::network();
        let r = parse(&serde_json::to_string(&n).unwrap(), "n.json").unwrap();
        let ResultFile::Network(read) = r else {
            panic!("not a network report")
        };
        assert_eq!(*read, NetworkResult::of(n));
        assert!(read.report.validators.is_empty());
        assert_eq!(read.records.len(), 2);
    }

    #[test]
    fn only_this_tools_own_output_of_that_kind_is_replaced() {
        const RUN: tranche_cli::outputs::Writes = writes(kind::RUN);
        let d = std::env::temp_dir().join(format!("tranche-outputs-kinds-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let write = |name: &str, text: &str| {
            let p = d.join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let run = tranche_results::ReportFile::new(vec![tranche_results::fixture::run()]);
        let baseline = write("baseline.json", &serde_json::to_string(&run).unwrap());
        let network = writes(kind::NETWORK);
        let e = tranche_cli::outputs::check(&[("--json", &baseline, network)], &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("is not a network report (tranche network --json) this tool wrote")
                && e.contains("(it is a run report (tranche run --json))")
                && e.contains("not replaced"),
            "{e}"
        );
        tranche_cli::outputs::check(&[("--json", &baseline, RUN)], &[]).unwrap();
        let other = write("package.json", "{\"name\": \"x\"}");
        let e = tranche_cli::outputs::check(&[("--json", &other, RUN)], &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not a run report"), "{e}");
        // calibrate --out: its own table, not an !ApprovalNetwork file.
        let net = write("net.yaml", "!ApprovalNetwork\nn_validators: 100\n");
        let e = tranche_cli::outputs::check(
            &[("--out", &net, tranche_cli::outputs::Writes::CostTable)],
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("is not a cost table tranche calibrate wrote"),
            "{e}"
        );
        let table = write(
            "costs.yaml",
            "# tranche calibrate (meta.kind calibrate)\nroute: 1\n",
        );
        tranche_cli::outputs::check(
            &[("--out", &table, tranche_cli::outputs::Writes::CostTable)],
            &[],
        )
        .unwrap();
        let older = write("old.yaml", "# tranche cost table: the virtual CPU time\n");
        tranche_cli::outputs::check(
            &[("--out", &older, tranche_cli::outputs::Writes::CostTable)],
            &[],
        )
        .unwrap();
        // calibrate --check --json: its own earlier comparison is replaced,
        // a run report is not.
        let check_kind = writes(kind::CALIBRATE_CHECK);
        let earlier = write(
            "check.json",
            r#"{"meta": {"tool": "tranche", "kind": "calibrate-check"}, "checks": []}"#,
        );
        tranche_cli::outputs::check(&[("--json", &earlier, check_kind)], &[]).unwrap();
        assert!(tranche_cli::outputs::check(&[("--json", &baseline, check_kind)], &[]).is_err());
        // An empty file, as mktemp makes, holds nothing to lose.
        let empty = write("empty", "");
        tranche_cli::outputs::check(&[("--json", &empty, RUN)], &[]).unwrap();
        std::fs::remove_dir_all(&d).ok();
    }
}
