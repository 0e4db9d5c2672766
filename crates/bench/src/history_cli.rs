//! `tranche history PATH...`: the results kept over commits (folders of
//! `--json` files of `run`, `network` and the sweeps, or the files
//! themselves), each read through the checked input path; the series'
//! table on stdout, `--html` the page with a plot per headline figure
//! (`tranche_report::history`). A file that is no result, an invalid one,
//! or one without `meta.date` is left out with a line saying why (printed
//! also when no file is left). Exit status 0, or 3 when results of one
//! name are not comparable (followed as series apart, what differs
//! named), or when a step could not be judged.

use crate::compare_cli::PolicyArgs;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use tranche_report::history::{self, Entry};

/// Most files one history reads.
pub const MAX_FILES: usize = 10_000;

/// `tranche history`.
#[derive(clap::Args, Debug, Clone)]
pub struct HistoryArgs {
    /// Folders of result files (every `*.json` in each, not below) or
    /// result files, in any order: results are ordered by `meta.date`.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Write the table and the plots as one HTML page to this file.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

/// The files `paths` name: a folder's `*.json` in name order, a file as
/// it is; a path that does not exist is refused by name.
fn files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        let shown = || tranche_cli::text::bare(&p.display().to_string());
        match std::fs::metadata(p) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                bail!("{}: no such file or folder", shown())
            }
            Err(e) => bail!("cannot read {}: {e}", shown()),
            Ok(m) if m.is_dir() => {
                let mut found: Vec<PathBuf> = Vec::new();
                for entry in std::fs::read_dir(p)
                    .with_context(|| format!("cannot read the folder {}", shown()))?
                {
                    let Ok(entry) = entry else { continue };
                    let f = entry.path();
                    if f.extension().is_some_and(|e| e == "json") {
                        found.push(f);
                    }
                    if out.len() + found.len() > MAX_FILES {
                        bail!("more than {MAX_FILES} result files; name fewer folders");
                    }
                }
                found.sort();
                out.extend(found);
            }
            Ok(_) => out.push(p.clone()),
        }
        if out.len() > MAX_FILES {
            bail!("more than {MAX_FILES} result files; name fewer folders");
        }
    }
    Ok(out)
}

/// Run `tranche history`; its exit status.
pub fn execute(args: &HistoryArgs) -> Result<u8> {
    use tranche_cli::outputs;
    let inputs = files(&args.paths)?;
    let input_refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    if let Some(html) = &args.html {
        outputs::check(&[("--html", html, outputs::HTML)], &input_refs)?;
    }
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    for f in &inputs {
        match tranche_report::results::read(f) {
            Ok(result) => entries.push(Entry {
                file: f.display().to_string(),
                result,
            }),
            Err(e) => skipped.push(format!("{e}; left out")),
        }
    }
    if entries.is_empty() {
        for line in &skipped {
            tranche_cli::errln!("note: {}", tranche_cli::text::escape_controls(line));
        }
        let listed: Vec<String> = args
            .paths
            .iter()
            .map(|p| tranche_cli::text::bare(&p.display().to_string()))
            .collect();
        bail!(
            "no result file to follow in {} ({} read, none a result{})",
            listed.join(", "),
            tranche_cli::text::counted(inputs.len(), "file"),
            if skipped.is_empty() {
                ""
            } else {
                ": see the notes above"
            }
        );
    }
    let (series, mut undated) = history::build(entries, &args.policy.policy());
    skipped.append(&mut undated);
    tranche_cli::stream::out(&history::render(&series, &skipped))?;
    if let Some(path) = &args.html {
        let command = std::env::args().collect::<Vec<_>>().join(" ");
        let (page, cut) = history::page::render_noting(&series, &skipped, &command)?;
        outputs::write_atomic(path, page.as_bytes())?;
        if let Some(note) = cut {
            tranche_cli::errln!("{note}");
        }
    }
    let unjudged = series.iter().any(|s| {
        s.points
            .iter()
            .any(|p| matches!(p.step, history::Step::NotComparable(_)))
    });
    Ok(if unjudged || !history::apart(&series).is_empty() {
        tranche_report::compare::EXIT_NOT_COMPARABLE
    } else {
        0
    })
}
