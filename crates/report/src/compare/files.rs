//! `tranche compare A B` on files of any kind: two run reports or two
//! network reports are judged; files of different kinds, and sweeps
//! (followed over commits by `tranche history`), are said plainly not to
//! be comparable.

use super::{Comparison, CpuPolicy, LoadError};
use crate::meta::kind;
use crate::results::{self, ResultFile};
use std::path::Path;

/// What comparing two files gives.
#[derive(Debug)]
pub enum Outcome {
    Compared(Comparison),
    /// Exit status 3, with the reason.
    NotComparable(String),
    /// Exit status 2: a file could not be read.
    Unreadable(LoadError),
}

/// Read both files and judge the second against the first. A file of
/// this tool that compare does not judge (a `calibrate --check`
/// comparison), files of two kinds, results that are not comparable by
/// [`super::identity`]'s rule, and a comparison of no figure at all are
/// not comparable (exit 3), never a pass.
pub fn compare_files(baseline: &Path, current: &Path, policy: &CpuPolicy) -> Outcome {
    let (base, cur) = match (results::read(baseline), results::read(current)) {
        (Ok(b), Ok(c)) => (b, c),
        (Err(e @ LoadError::NotJudged { .. }), _) | (_, Err(e @ LoadError::NotJudged { .. })) => {
            return Outcome::NotComparable(e.to_string())
        }
        (Err(e), _) | (_, Err(e)) => return Outcome::Unreadable(e),
    };
    if base.kind() != cur.kind() {
        return Outcome::NotComparable(format!(
            "{} is {}, {} is {}: compare judges two results of one kind",
            baseline.display(),
            kind::describe(base.kind()),
            current.display(),
            kind::describe(cur.kind())
        ));
    }
    let compared = match (base, cur) {
        (ResultFile::Run(b), ResultFile::Run(c)) => {
            for (file, path) in [(&b, baseline), (&c, current)] {
                if let Err(e) = super::check_run(file, path) {
                    return Outcome::Unreadable(e);
                }
            }
            match super::not_comparable(&b, &c) {
                Some(why) => return Outcome::NotComparable(why),
                None => super::compare(&b, &c, policy),
            }
        }
        (ResultFile::Network(b), ResultFile::Network(c)) => {
            match super::network::not_comparable(&b, &c) {
                Some(why) => return Outcome::NotComparable(why),
                None => super::network::compare(&b, &c, policy),
            }
        }
        (b, _) => {
            return Outcome::NotComparable(format!(
                "compare judges run and network reports; both files are {} (follow a sweep \
                 over commits with `tranche history`)",
                kind::describe(b.kind())
            ))
        }
    };
    if compared.rows.is_empty() {
        let only = |runs: &[String]| {
            if runs.is_empty() {
                "none".to_owned()
            } else {
                let shown: Vec<String> = runs.iter().map(|r| tranche_cli::text::bare(r)).collect();
                shown.join(", ")
            }
        };
        return Outcome::NotComparable(format!(
            "no figure to compare: no run is in both files (baseline only: {}; current only: {})",
            only(&compared.missing_runs),
            only(&compared.new_runs)
        ));
    }
    Outcome::Compared(compared)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `value` written as JSON to `name` in `d`.
    fn write(
        d: &tempfile::TempDir,
        name: &str,
        value: &impl serde::Serialize,
    ) -> std::path::PathBuf {
        let path = d.path().join(name);
        std::fs::write(&path, serde_json::to_string(value).unwrap()).unwrap();
        path
    }

    #[test]
    fn files_of_two_kinds_are_said_to_be_so() {
        let d = tempfile::tempdir().unwrap();
        let file = crate::ReportFile::new(vec![crate::fixture::run()]);
        let run = write(&d, "run.json", &file);
        let network = write(&d, "network.json", &crate::fixture::network());
        let sweep = d.path().join("sweep.json");
        let row = crate::sweep_run::RunSweepRow {
            n_validators: 1,
            n_cores: 1,
            layout: "classic".into(),
            schedule: "fifo".into(),
            all_approved: true,
            max_approval_ms: None,
            node_cpu_per_block_s: 0.0,
            floor_per_block_s: 0.0,
            node_ratio: 0.0,
            floor: String::new(),
            wall_s: 0.0,
            peak_memory_mib: 0.0,
        };
        std::fs::write(&sweep, serde_json::to_string(&[row]).unwrap()).unwrap();
        let policy = CpuPolicy::default();
        let Outcome::NotComparable(why) = compare_files(&run, &network, &policy) else {
            panic!("a run and a network report were compared");
        };
        assert!(
            why.contains("is a run report (tranche run --json)")
                && why.contains("is a network report (tranche network --json)"),
            "{why}"
        );
        assert!(matches!(
            compare_files(&network, &network, &policy),
            Outcome::Compared(c) if c.passed()
        ));
        assert!(matches!(
            compare_files(&run, &run, &policy),
            Outcome::Compared(_)
        ));
        let Outcome::NotComparable(why) = compare_files(&sweep, &sweep, &policy) else {
            panic!("two sweeps were compared");
        };
        assert!(why.contains("tranche history"), "{why}");
    }

    #[test]
    fn no_figure_in_common_and_a_calibrate_check_file_are_not_comparable() {
        let d = tempfile::tempdir().unwrap();
        let run = write(
            &d,
            "run.json",
            &crate::ReportFile::new(vec![crate::fixture::run()]),
        );
        let empty = write(&d, "empty.json", &crate::ReportFile::new(vec![]));
        let policy = CpuPolicy::default();
        let Outcome::NotComparable(why) = compare_files(&empty, &run, &policy) else {
            panic!("a baseline of no run passed");
        };
        assert!(why.starts_with("no figure to compare"), "{why}");
        let check = d.path().join("check.json");
        std::fs::write(
            &check,
            r#"{"meta": {"tool": "tranche", "kind": "calibrate-check"}, "steps": []}"#,
        )
        .unwrap();
        let Outcome::NotComparable(why) = compare_files(&check, &run, &policy) else {
            panic!("a calibrate-check file was read as a result");
        };
        assert!(
            why.contains("is a comparison of the model with the node (tranche calibrate --check)")
                && why.contains("which compare and history do not judge"),
            "{why}"
        );
    }
}
