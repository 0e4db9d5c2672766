//! `tranche examples`: the shipped test sequences, embedded in the binary
//! so that a user without the repository can list them, write them out,
//! and run one by its bare name from any folder (`tranche run NAME` where
//! `NAME` is not a file: [`embedded`]).

use anyhow::{bail, Result};
use std::path::Path;

/// One shipped example: its file name, what it runs, its text.
pub struct Example {
    pub name: &'static str,
    pub about: &'static str,
    pub text: &'static str,
}

/// Every example of `examples/`, in the order `tranche examples` lists them.
pub const EXAMPLES: &[Example] = &[
    Example {
        name: "default.yaml",
        about: "the embedded default of `tranche run`: 100 validators, 20 cores, 3 blocks, best case",
        text: include_str!("../../../examples/default.yaml"),
    },
    Example {
        name: "approvals_throughput_best_case.yaml",
        about: "upstream's best case: 500 validators, 100 cores, stop when approved",
        text: include_str!("../../../examples/approvals_throughput_best_case.yaml"),
    },
    Example {
        name: "approvals_throughput.yaml",
        about: "upstream's throughput: 500 validators, 100 cores, every tranche sent",
        text: include_str!("../../../examples/approvals_throughput.yaml"),
    },
    Example {
        name: "approvals_throughput_no_optimisations_enabled.yaml",
        about: "upstream's throughput without coalescing or v2 assignments",
        text: include_str!("../../../examples/approvals_throughput_no_optimisations_enabled.yaml"),
    },
    Example {
        name: "approvals_no_shows.yaml",
        about: "upstream's no-shows: withheld approvals covered by later tranches",
        text: include_str!("../../../examples/approvals_no_shows.yaml"),
    },
    Example {
        name: "approvals_throughput_1000.yaml",
        about: "1 000 validators, 200 cores, every tranche sent (run with --clock virtual on small machines)",
        text: include_str!("../../../examples/approvals_throughput_1000.yaml"),
    },
    Example {
        name: "approvals_throughput_1000_100.yaml",
        about: "the run of polkadot-sdk#4849: 1 000 validators, 100 cores, every tranche, 10 blocks",
        text: include_str!("../../../examples/approvals_throughput_1000_100.yaml"),
    },
];

/// The embedded example `path` names, when `path` is a bare file name
/// (no folder) that is not a file here but is listed by `tranche
/// examples` (with or without its `.yaml`).
pub fn embedded(path: &Path) -> Option<&'static Example> {
    if path.components().count() != 1 || std::fs::symlink_metadata(path).is_ok() {
        return None;
    }
    let name = path.to_str()?;
    EXAMPLES
        .iter()
        .find(|e| e.name == name || e.name.strip_suffix(".yaml") == Some(name))
}

/// The listing `tranche examples` prints.
pub fn listing() -> String {
    let w = EXAMPLES.iter().map(|e| e.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for e in EXAMPLES {
        out.push_str(&format!("{:<w$}  {}\n", e.name, e.about));
    }
    out.push_str("\nrun one with `tranche run NAME` from any folder (a file of that name there wins);\nwrite them out with `tranche examples --write DIR`\n");
    out
}

/// Write every example into `dir` (created if missing), never over an
/// existing file. Returns the paths written.
pub fn write_all(dir: &Path) -> Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    let mut written = Vec::new();
    for e in EXAMPLES {
        let path = dir.join(e.name);
        if std::fs::symlink_metadata(&path).is_ok() {
            bail!(
                "{} exists; not overwritten (remove it or pick another folder)",
                path.display()
            );
        }
        tranche_report::outputs::write_atomic(&path, e.text.as_bytes())?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_example_is_listed_and_parses() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".yaml"))
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = EXAMPLES.iter().map(|e| e.name.to_owned()).collect();
        embedded.sort();
        assert_eq!(on_disk, embedded, "every file of examples/ is embedded");
        for e in EXAMPLES {
            tranche_config::parse(e.text, e.name).unwrap();
        }
    }

    #[test]
    fn a_bare_listed_name_that_is_no_file_is_the_embedded_example() {
        let e = embedded(Path::new("approvals_no_shows.yaml")).unwrap();
        assert_eq!(e.name, "approvals_no_shows.yaml");
        assert_eq!(
            embedded(Path::new("approvals_no_shows")).map(|e| e.name),
            Some("approvals_no_shows.yaml")
        );
        assert!(embedded(Path::new("elsewhere/approvals_no_shows.yaml")).is_none());
        assert!(embedded(Path::new("not_an_example.yaml")).is_none());
    }

    #[test]
    fn writing_refuses_to_overwrite() {
        let d = std::env::temp_dir().join(format!("tranche-examples-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        assert_eq!(write_all(&d).unwrap().len(), EXAMPLES.len());
        let e = write_all(&d).unwrap_err().to_string();
        assert!(e.contains("not overwritten"), "{e}");
        std::fs::remove_dir_all(&d).ok();
    }
}
