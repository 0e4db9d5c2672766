//! `tranche sweep network`'s `!ApprovalSweep` file: the lists of a grid
//! of `tranche network` runs over a base `!ApprovalNetwork` file, read by
//! the objectives' one field reader (`parse/sweep.rs`) after the bounds
//! of every YAML input ([`crate::yaml::read`]). Combining the lists with
//! the command line's flags and running the grid is the command's
//! (`crates/bench/src/sweep_network.rs`).
//!
//! ```yaml
//! !ApprovalSweep
//! base: no-shows.yaml        # beside this file; without it, the default
//! n_validators: [100, 200]
//! no_show_fraction: [0.0, 0.2]
//! ```
//!
//! Every key is optional: `base`, the lists `n_validators`, `n_cores`,
//! `no_show_fraction` and `slow_fraction` (an absent or empty list keeps
//! the base's value), and `num_blocks` (the base's when absent). The
//! values are checked for each run against `NetworkSpec::validate`.

use std::path::Path;

use crate::error::ConfigErrorKind;
use tranche_cli::text::{bare, escape_controls};

pub use crate::sweep_grid::SweepGrid;

/// A sweep file that cannot be used: one line, `FILE: problem`, with any
/// control character from the file escaped and the file's name cut as
/// every value is (`crate::text`).
#[derive(Debug, thiserror::Error)]
#[error("{}", escape_controls(&format!("{}: {}", bare(.file), .kind)))]
pub struct SweepError {
    /// The file, as given.
    pub file: String,
    /// What is wrong, as the other objectives say it.
    pub kind: ConfigErrorKind,
}

/// Parses an `!ApprovalSweep` file's `text`, read from `path` (which
/// errors name): its `base` is taken beside it, except for a bare name
/// beside no folder (say an embedded example's).
pub fn parse(text: &str, path: &Path) -> Result<SweepGrid, SweepError> {
    let mut grid = crate::parse::sweep::read_sweep(text).map_err(|kind| SweepError {
        file: path.display().to_string(),
        kind,
    })?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        grid.base = grid.base.map(|b| dir.join(b));
    }
    Ok(grid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn refused(text: &str) -> String {
        let e = parse(text, Path::new("d/sweep.yaml"))
            .unwrap_err()
            .to_string();
        assert!(!e.contains('\n'), "{e:?} spans lines");
        e
    }

    #[test]
    fn the_lists_and_the_base_beside_the_file_are_read() {
        let text = "!ApprovalSweep\nbase: net.yaml\nn_validators: [100, 200]\n\
                    no_show_fraction: [0, 0.2]\nnum_blocks: 3\n";
        let g = parse(text, Path::new("d/sweep.yaml")).unwrap();
        assert_eq!(
            g,
            SweepGrid {
                base: Some(PathBuf::from("d/net.yaml")),
                n_validators: vec![100, 200],
                no_show_fraction: vec![0.0, 0.2],
                num_blocks: Some(3),
                ..SweepGrid::default()
            }
        );
        // A bare name stays bare; nothing but the tag is the default.
        let g = parse("!ApprovalSweep\nbase: net.yaml\n", Path::new("sweep.yaml")).unwrap();
        assert_eq!(g.base, Some(PathBuf::from("net.yaml")));
        assert_eq!(
            parse("!ApprovalSweep\n", Path::new("s")).unwrap(),
            SweepGrid::default()
        );
    }

    #[test]
    fn a_bad_key_is_named_on_one_line_with_a_suggestion() {
        assert_eq!(
            refused("!ApprovalSweep\nn_validatorz: [20]\n"),
            "d/sweep.yaml: unknown key `n_validatorz` in an !ApprovalSweep file: did you mean \
             `n_validators`?"
        );
    }

    #[test]
    fn a_bad_value_names_its_key_or_its_item() {
        assert_eq!(
            refused("!ApprovalSweep\nn_validators: [20, -1]\n"),
            "d/sweep.yaml: impossible `n_validators[1]: -1`: must not be negative"
        );
        assert_eq!(
            refused("!ApprovalSweep\nn_cores: 4\n"),
            "d/sweep.yaml: `n_cores` must be a list of unsigned integers, found integer 4"
        );
        assert_eq!(
            refused("!ApprovalSweep\nslow_fraction: [half]\n"),
            "d/sweep.yaml: `slow_fraction[0]` must be a number, found string \"half\""
        );
        // Issue 60: an empty list fell back to the base silently, and a
        // value twice ran equal cells.
        assert_eq!(
            refused("!ApprovalSweep\nn_validators: []\n"),
            "d/sweep.yaml: `n_validators` is an empty list: give at least one value, or leave \
             `n_validators` out for the base's"
        );
        assert_eq!(
            refused("!ApprovalSweep\nn_validators: [40, 40, 40]\n"),
            "d/sweep.yaml: `n_validators` holds 40 twice (n_validators[0] and n_validators[1]): \
             each value is one cell of the grid"
        );
        assert!(refused("!ApprovalSweep\nslow_fraction: [0.5, 0, 0.5]\n")
            .contains("`slow_fraction` holds 0.5 twice"));
        assert!(refused("!ApprovalSweep\nbase: \"\"\n")
            .starts_with("d/sweep.yaml: `base` is empty: name an !ApprovalNetwork file"));
        let e = refused(&format!(
            "!ApprovalSweep\nn_validators: \"{}\"\n",
            "A".repeat(60_000)
        ));
        assert!(e.len() < 300 && e.contains("(60 000 bytes)"), "{}", e.len());
    }

    #[test]
    fn another_file_or_a_deep_one_is_refused_before_its_keys() {
        assert!(refused("!ApprovalNetwork\nn_validators: 3\n")
            .contains("not an `!ApprovalSweep` file: its tag is `!ApprovalNetwork`"));
        let deep = format!(
            "!ApprovalSweep\nn_validators: {}1{}\n",
            "[".repeat(100),
            "]".repeat(100)
        );
        let e = refused(&deep);
        assert!(
            e.starts_with("d/sweep.yaml: nesting deeper than 64 levels at line 2"),
            "{e}"
        );
    }

    #[test]
    fn a_sweep_file_is_known_and_the_other_commands_name_its_own() {
        let text = "# a grid\n!ApprovalSweep\nn_validators: [20]\n";
        assert_eq!(crate::file_kind(text), crate::FileKind::ApprovalSweep);
        let use_sweep = "this is an !ApprovalSweep file; use `tranche sweep network`";
        let e = crate::parse(text, "s.yaml").unwrap_err().to_string();
        assert_eq!(e, format!("s.yaml: {use_sweep}"));
        let e = crate::approval_network::parse(text, "s.yaml")
            .unwrap_err()
            .to_string();
        assert_eq!(e, format!("s.yaml: {use_sweep}"));
    }
}
