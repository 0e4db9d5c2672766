//! `tranche examples`: the shipped test sequences of `tranche run` and
//! the objectives of `tranche network` (and a sweep of them), embedded in
//! the binary so that a user without the repository can list them, write
//! them out, and run one by its bare name from any folder (`tranche run
//! NAME`, `tranche network NAME`, `tranche sweep network NAME` where
//! `NAME` is not a file: [`embedded`], [`embedded_network`]).

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

/// The examples of `tranche network` and `tranche sweep network`
/// (`crates/simulation/examples/`, and the embedded default), in the order
/// `tranche examples` lists them; `examples --write DIR` puts them in
/// `DIR/network/`.
pub const NETWORK_EXAMPLES: &[Example] = &[
    Example {
        name: "default.yaml",
        about: "the embedded default of `tranche network`: 100 validators, 20 cores, 5 blocks",
        text: tranche_config::approval_network::DEFAULT_YAML,
    },
    Example {
        name: "no-shows.yaml",
        about: "a fifth of 200 validators never send their approvals",
        text: include_str!("../../simulation/examples/no-shows.yaml"),
    },
    Example {
        name: "slow-checkers.yaml",
        about: "a tenth of 200 validators check eight times slower",
        text: include_str!("../../simulation/examples/slow-checkers.yaml"),
    },
    Example {
        name: "finality-stall.yaml",
        about: "two fifths go offline at block 3; finality never comes",
        text: include_str!("../../simulation/examples/finality-stall.yaml"),
    },
    Example {
        name: "ten-blocks-classic.yaml",
        about: "polkadot-sdk#4849's run network-wide: 1 000 x 100, every tranche, 10 blocks, classic nodes",
        text: include_str!("../../simulation/examples/ten-blocks-classic.yaml"),
    },
    Example {
        name: "ten-blocks-parallel.yaml",
        about: "the same on parallel nodes (8 workers); --beside draws the classic result with it",
        text: include_str!("../../simulation/examples/ten-blocks-parallel.yaml"),
    },
    Example {
        name: "no-show-sweep.yaml",
        about: "`tranche sweep network`: approval against the share of no-shows, at two sizes",
        text: include_str!("../../simulation/examples/no-show-sweep.yaml"),
    },
];

/// The example of `list` that `path` names, when `path` is a bare file
/// name (no folder) that is not a file here (with or without its
/// `.yaml`).
fn find(list: &'static [Example], path: &Path) -> Option<&'static Example> {
    if path.components().count() != 1 || std::fs::symlink_metadata(path).is_ok() {
        return None;
    }
    let name = path.to_str()?;
    list.iter()
        .find(|e| e.name == name || e.name.strip_suffix(".yaml") == Some(name))
}

/// The embedded example of `tranche run` that `path` names, when `path`
/// is a bare file name that is not a file here.
pub fn embedded(path: &Path) -> Option<&'static Example> {
    find(EXAMPLES, path)
}

/// The embedded example of `tranche network` (or `sweep network`) that
/// `path` names, when `path` is a bare file name that is not a file here.
pub fn embedded_network(path: &Path) -> Option<&'static Example> {
    find(NETWORK_EXAMPLES, path)
}

/// The note a command prints when it runs an embedded example.
pub fn note(path: &Path) -> String {
    format!(
        "note: {} is not a file here; running the embedded example of that name (`tranche examples`)",
        path.display()
    )
}

/// The hint for a bare name that is an example of the other command.
pub fn other_command(path: &Path, network: bool) -> Option<String> {
    let (list, command) = if network {
        (EXAMPLES, "tranche run")
    } else {
        (NETWORK_EXAMPLES, "tranche network")
    };
    find(list, path).map(|e| {
        format!(
            "{} is not a file here, and the example of that name is for `{command}` (`tranche examples`)",
            e.name
        )
    })
}

fn section(out: &mut String, title: &str, list: &[Example]) {
    let w = EXAMPLES
        .iter()
        .chain(NETWORK_EXAMPLES)
        .map(|e| e.name.len())
        .max()
        .unwrap_or(0);
    out.push_str(title);
    for e in list {
        out.push_str(&format!("  {:<w$}  {}\n", e.name, e.about));
    }
}

/// The listing `tranche examples` prints.
pub fn listing() -> String {
    let mut out = String::new();
    section(&mut out, "tranche run (test sequences):\n", EXAMPLES);
    section(
        &mut out,
        "\ntranche network, tranche sweep network (!ApprovalNetwork, !ApprovalSweep):\n",
        NETWORK_EXAMPLES,
    );
    out.push_str("\nrun one with `tranche run NAME` or `tranche network NAME` from any folder (a file of\nthat name there wins); write them out with `tranche examples --write DIR` (the\nnetwork ones into DIR/network/)\n");
    out
}

/// Write every example into `dir` (created if missing), the network ones
/// into `dir/network/`, never over an existing file. Returns the paths
/// written.
pub fn write_all(dir: &Path) -> Result<Vec<std::path::PathBuf>> {
    let network = dir.join("network");
    for d in [dir, &network] {
        std::fs::create_dir_all(d)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", tranche_cli::text::path(d)))?;
    }
    let all = EXAMPLES
        .iter()
        .map(|e| (dir, e))
        .chain(NETWORK_EXAMPLES.iter().map(|e| (network.as_path(), e)));
    let mut written = Vec::new();
    for (d, e) in all {
        let path = d.join(e.name);
        if std::fs::symlink_metadata(&path).is_ok() {
            bail!(
                "{} exists; not overwritten (remove it or pick another folder)",
                path.display()
            );
        }
        tranche_cli::outputs::write_atomic(&path, e.text.as_bytes())?;
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
        // The network ones too: the simulation's folder, every file.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../simulation/examples");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".yaml"))
            .collect();
        on_disk.push("default.yaml".into());
        on_disk.sort();
        let mut embedded: Vec<String> =
            NETWORK_EXAMPLES.iter().map(|e| e.name.to_owned()).collect();
        embedded.sort();
        assert_eq!(on_disk, embedded, "every network example is embedded");
        for e in NETWORK_EXAMPLES
            .iter()
            .filter(|e| !e.text.contains("!ApprovalSweep"))
        {
            tranche_config::approval_network::parse(e.text, e.name).unwrap();
        }
    }

    #[test]
    fn a_network_example_is_found_by_its_bare_name_and_listed() {
        assert_eq!(
            embedded_network(Path::new("no-shows")).map(|e| e.name),
            Some("no-shows.yaml")
        );
        let default = embedded_network(Path::new("default.yaml")).unwrap();
        assert!(default.text.contains("!ApprovalNetwork"));
        assert!(embedded(Path::new("default.yaml"))
            .unwrap()
            .text
            .contains("TestConfiguration"));
        let text = listing();
        assert!(
            text.contains("  no-shows.yaml") && text.contains("tranche network"),
            "{text}"
        );
        let hint = other_command(Path::new("no-shows.yaml"), false).unwrap();
        assert!(hint.contains("is for `tranche network`"), "{hint}");
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
        assert_eq!(
            write_all(&d).unwrap().len(),
            EXAMPLES.len() + NETWORK_EXAMPLES.len()
        );
        assert!(d.join("network/no-show-sweep.yaml").is_file());
        let e = write_all(&d).unwrap_err().to_string();
        assert!(e.contains("not overwritten"), "{e}");
        std::fs::remove_dir_all(&d).ok();
    }
}
