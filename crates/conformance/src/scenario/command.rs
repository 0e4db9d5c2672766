//! `tranche scenario PATH`: run one scenario file (print its timeline, or
//! write its result) or every scenario under a folder, and judge each
//! against its `NAME.expected.json` when there is one. Exit status: 0 every
//! compared field equal; 1 a difference; 2 a file could not be read.

use super::run::{render_timeline, run, run_probed, Probe};
use super::schema::Scenario;
use super::verdict::{differences, expected_path, load_expected, scenario_files, Difference};
use std::path::{Path, PathBuf};
use tranche_cli::text::path as shown;

/// An error with its causes after it, joined by `: `, each only where the
/// text before does not already say it (a read error's message carries its
/// cause: it is printed once), made one short line
/// ([`tranche_cli::text::one_line`]: a quoted name or value from the
/// file is cut).
pub fn error_chain(e: &anyhow::Error) -> String {
    let mut s = String::new();
    for cause in e.chain() {
        let c = cause.to_string();
        if !s.contains(&c) {
            if !s.is_empty() {
                s.push_str(": ");
            }
            s.push_str(&c);
        }
    }
    tranche_cli::text::one_line(&s)
}

/// What `tranche scenario` was asked.
#[derive(Clone, Debug)]
pub struct Args {
    /// A scenario file or a folder of them.
    pub path: PathBuf,
    /// The expected answer (default: `NAME.expected.json` beside the file).
    pub expected: Option<PathBuf>,
    /// Write the result here instead of printing the timeline.
    pub output: Option<PathBuf>,
}

/// Run the command; returns the exit status.
pub fn execute(args: &Args) -> u8 {
    if args.path.is_dir() {
        if args.expected.is_some() || args.output.is_some() {
            eprintln!("error: --expected and --output take one scenario file, not a folder");
            return 2;
        }
        return run_folder(&args.path);
    }
    run_file(args)
}

fn probes(diffs: &[Difference]) -> Vec<Probe> {
    let mut out: Vec<Probe> = Vec::new();
    for d in diffs {
        if let Some((block, index, ticks)) = &d.candidate {
            for &t in ticks {
                let p = (block.clone(), *index, t);
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    out
}

fn run_file(args: &Args) -> u8 {
    let scenario = match Scenario::load(&args.path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {}", error_chain(&e));
            return 2;
        }
    };
    let default_expected = expected_path(&args.path);
    let expected_file = match &args.expected {
        Some(p) => Some(p.clone()),
        None if default_expected.exists() => Some(default_expected),
        None => None,
    };
    let expected = match expected_file.as_deref().map(load_expected).transpose() {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {}", error_chain(&e));
            return 2;
        }
    };
    let mut result = run(&scenario);
    let diffs = expected
        .as_ref()
        .map(|e| differences(&result.result, e))
        .unwrap_or_default();
    if !diffs.is_empty() {
        // Again, with what our rule counted at the differing ticks.
        result = run_probed(&scenario, &probes(&diffs));
    }
    match &args.output {
        Some(path) => {
            let text = serde_json::to_string_pretty(&result.result).expect("a result serialises");
            if let Err(e) = std::fs::write(path, text + "\n") {
                eprintln!("error: cannot write {}: {e}", shown(path));
                return 2;
            }
        }
        None => print!("{}", render_timeline(&scenario, &result)),
    }
    let Some(file) = expected_file else {
        return 0;
    };
    match diffs.first() {
        None => {
            println!("matches {}: every decision field is equal", shown(&file));
            0
        }
        Some(first) => {
            println!("differs from {}: {first}", shown(&file));
            if diffs.len() > 1 {
                println!(
                    "  and {} more:",
                    tranche_cli::text::counted(diffs.len() - 1, "difference")
                );
                for d in &diffs[1..] {
                    println!("  {d}");
                }
            }
            1
        }
    }
}

fn judge(file: &Path) -> Result<Vec<Difference>, String> {
    let scenario = Scenario::load(file).map_err(|e| error_chain(&e))?;
    let expected_file = expected_path(file);
    if !expected_file.exists() {
        return Err(format!(
            "{}: no {} to compare with",
            shown(file),
            shown(&expected_file)
        ));
    }
    let expected = load_expected(&expected_file).map_err(|e| error_chain(&e))?;
    Ok(differences(&run(&scenario).result, &expected))
}

fn run_folder(dir: &Path) -> u8 {
    let files = match scenario_files(dir) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {}", error_chain(&e));
            return 2;
        }
    };
    let (mut passed, mut failed, mut unreadable) = (0usize, 0usize, 0usize);
    for f in &files {
        match judge(f) {
            Ok(d) if d.is_empty() => passed += 1,
            Ok(d) => {
                failed += 1;
                let more = if d.len() > 1 {
                    format!(" (and {} more)", d.len() - 1)
                } else {
                    String::new()
                };
                println!("FAIL {}: {}{more}", shown(f), d[0]);
            }
            Err(e) => {
                failed += 1;
                unreadable += 1;
                println!("ERROR {e}");
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if unreadable > 0 {
        2
    } else if failed > 0 {
        1
    } else {
        0
    }
}
