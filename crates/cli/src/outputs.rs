//! The files every command writes (`--json`, `--html`, `--profile`,
//! `--output`, `examples --write`): checked before any work — each must be
//! a writable place for a regular file, not a folder, not an input of the
//! run, not another output, and not an existing file of another kind —
//! and written atomically (a temporary file beside it, then renamed), so a
//! failed write never leaves half a file and a later failure never loses
//! what was written before. Files get the mode the user's umask gives
//! (0644 under umask 022), as `open(2)` with 0666 would.
//!
//! # Which existing file may be replaced
//!
//! An output path that does not exist yet may have any name. An existing
//! one is replaced only when it is this tool's own output of the kind the
//! flag writes ([`Writes`]): for a JSON result, a file whose `meta.kind`
//! (older files: whose shape; the reader comes with the kind, [`ResultKind`]) is that kind —
//! `tranche network --json base.json` never replaces a `run` baseline —
//! for `calibrate --out`, a file that begins with the header `calibrate`
//! writes (so an `!ApprovalNetwork` file is never replaced); for a page, a
//! flamegraph or a conformance file, one whose name ends with its
//! extension (`.html`/`.htm`, `.svg`, `.json`); an empty file (as
//! `mktemp` makes) always. Anything else — a YAML
//! test sequence, a source file, a result of another kind — is refused,
//! so a slip such as `--html examples/default.yaml` never replaces a
//! tracked input.

use crate::input::{read_text, MAX_INPUT_FILE_BYTES};
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

/// What an output flag writes: which existing file it may replace.
#[derive(Debug, Clone, Copy)]
pub enum Writes {
    /// A JSON result of this kind.
    Result(ResultKind),
    /// The cost table of `tranche calibrate`: an existing file must begin
    /// with [`COST_TABLE_HEADERS`].
    CostTable,
    /// A file known by its extension, the first one named in messages.
    Extension(&'static [&'static str]),
}

/// A kind of JSON result, with how to tell an existing file's kind: the
/// results' reader is not this crate's (`tranche_report::results::writes`
/// makes these).
#[derive(Debug, Clone, Copy)]
pub struct ResultKind {
    /// Its `meta.kind`.
    pub name: &'static str,
    /// Most bytes of a result file read to tell its kind.
    pub max_bytes: u64,
    /// The kind of a file's text, or why it has none.
    pub read: fn(&str) -> Result<&'static str, String>,
    /// A kind in a sentence's words (`a run report (tranche run --json)`).
    pub describe: fn(&str) -> String,
}

/// An HTML page (`--html`).
pub const HTML: Writes = Writes::Extension(&["html", "htm"]);
/// A flamegraph (`--profile`).
pub const SVG: Writes = Writes::Extension(&["svg"]);
/// A conformance vector file (`conformance --output`).
pub const CONFORMANCE: Writes = Writes::Extension(&["json"]);

/// The first line of a cost table `tranche calibrate` writes (the header
/// of `calibrate/mod.rs`), and of the tables written before it had one
/// (`CostTable::to_yaml`'s own header).
pub const COST_TABLE_HEADERS: [&str; 2] = ["# tranche calibrate", "# tranche cost table:"];

/// Why the existing file at `path` may not be replaced by what `writes`
/// writes, if it may not.
fn not_replaceable(path: &Path, writes: Writes) -> Option<String> {
    // An empty file (`mktemp`'s) holds nothing to lose.
    if std::fs::metadata(path).is_ok_and(|m| m.len() == 0) {
        return None;
    }
    let refused = |what: String| {
        Some(format!(
            "exists and is not {what}; not replaced (remove it or pick another name)"
        ))
    };
    match writes {
        Writes::Extension(exts) => {
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            (!exts.iter().any(|o| o.eq_ignore_ascii_case(ext)))
                .then(|| refused(format!("a .{} file", exts[0])))
                .flatten()
        }
        Writes::Result(kind) => {
            let text = read_text(path, kind.max_bytes).ok();
            let found = text.as_deref().map(kind.read);
            let mine = format!("{} this tool wrote", (kind.describe)(kind.name));
            match found {
                Some(Ok(k)) if k == kind.name => None,
                Some(Ok(other)) => refused(format!("{mine} (it is {})", (kind.describe)(other))),
                _ => refused(mine),
            }
        }
        Writes::CostTable => {
            let text = read_text(path, MAX_INPUT_FILE_BYTES).unwrap_or_default();
            let first = text.lines().next().unwrap_or("");
            (!COST_TABLE_HEADERS.iter().any(|h| first.starts_with(h)))
                .then(|| refused("a cost table tranche calibrate wrote".into()))
                .flatten()
        }
    }
}

/// The identity of an existing file (device, inode), to tell two names of
/// one file apart from two files.
fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Check every `(flag, path, what it writes)` output against the run's
/// `inputs` and each other; the error names the flag and the path.
pub fn check(outputs: &[(&str, &Path, Writes)], inputs: &[&Path]) -> Result<()> {
    for (i, &(flag, path, writes)) in outputs.iter().enumerate() {
        let named = || format!("{flag} {}", crate::text::path(path));
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            if meta.is_dir() {
                bail!("{}: is a folder, not a file", named());
            }
            if !meta.is_file() && !meta.file_type().is_symlink() {
                bail!("{}: exists and is not a regular file", named());
            }
        }
        if let Some(id) = identity(path) {
            if inputs.iter().any(|input| identity(input) == Some(id)) {
                bail!(
                    "{}: is an input of this run; it would be overwritten",
                    named()
                );
            }
            if outputs[..i].iter().any(|(_, p, _)| identity(p) == Some(id)) {
                bail!("{}: is also another output of this run", named());
            }
            if let Some(why) = not_replaceable(path, writes) {
                bail!("{}: {why}", named());
            }
        }
        if outputs[..i].iter().any(|(_, p, _)| p == &path) {
            bail!("{}: is also another output of this run", named());
        }
        let dir = parent(path);
        match std::fs::metadata(dir) {
            Err(_) => bail!(
                "{}: the folder {} does not exist",
                named(),
                crate::text::path(dir)
            ),
            Ok(m) if !m.is_dir() => {
                bail!("{}: {} is not a folder", named(), crate::text::path(dir))
            }
            Ok(_) => {}
        }
        // The probe's own name is not the user's business: only the kind.
        if let Err(e) = tempfile::Builder::new()
            .prefix(".tranche-check-")
            .tempfile_in(dir)
        {
            bail!(
                "{}: cannot write in {}: {}",
                named(),
                crate::text::path(dir),
                e.kind()
            );
        }
    }
    Ok(())
}

/// [`check`] of the outputs a command line names (a flag with no path is
/// skipped) against every input file it names (the test sequence or
/// network file, a cost table, a hostfile …; one not given is skipped).
pub fn check_flags(
    outputs: &[(&str, Option<&Path>, Writes)],
    inputs: &[Option<&Path>],
) -> Result<()> {
    let named: Vec<(&str, &Path, Writes)> = outputs
        .iter()
        .filter_map(|&(flag, p, w)| p.map(|p| (flag, p, w)))
        .collect();
    let inputs: Vec<&Path> = inputs.iter().flatten().copied().collect();
    check(&named, &inputs)
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Write `bytes` to `path` atomically, with the mode the umask gives.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let context = || format!("cannot write {}", crate::text::path(path));
    let mut tmp = tempfile::Builder::new()
        .prefix(".tranche-out-")
        // Opened with 0666, so the umask decides, as for any other file
        // the user writes (tempfile's default is 0600).
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(parent(path))
        .with_context(context)?;
    tmp.write_all(bytes).with_context(context)?;
    tmp.flush().with_context(context)?;
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(context)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result kind whose files say `"kind": "run"` (the real reader is
    /// the report's, `tranche_report::results::writes`, tested there).
    const RUN: Writes = Writes::Result(ResultKind {
        name: "run",
        max_bytes: 1 << 20,
        read: |text| {
            (text.contains(r#""kind": "run""#))
                .then_some("run")
                .ok_or_else(|| "no kind".to_owned())
        },
        describe: |kind| format!("a {kind} file"),
    });

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("tranche-outputs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn bad_outputs_are_refused_before_the_run() {
        let d = dir("check");
        let input = d.join("in.yaml");
        std::fs::write(&input, "x").unwrap();
        let ok = d.join("out.json");
        check(&[("--json", &ok, RUN)], &[&input]).unwrap();
        assert!(!ok.exists(), "checking writes nothing");

        let e = check(&[("--json", &d, RUN)], &[&input])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--json") && e.contains("is a folder"), "{e}");
        let e = check(&[("--json", &input, RUN)], &[&input])
            .unwrap_err()
            .to_string();
        assert!(e.contains("is an input"), "{e}");
        let tracked = d.join("tracked.yaml");
        std::fs::write(&tracked, "keep").unwrap();
        let e = check(&[("--html", &tracked, HTML)], &[&input])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--html") && e.contains("not a .html file"),
            "{e}"
        );
        let old = d.join("old.json");
        std::fs::write(&old, r#"{"meta": {"kind": "run"}}"#).unwrap();
        check(&[("--json", &old, RUN)], &[&input]).unwrap();
        let link = d.join("link.json");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let e = check(&[("--html", &link, HTML)], &[&input])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--html") && e.contains("is an input"), "{e}");
        let e = check(&[("--json", &ok, RUN), ("--html", &ok, HTML)], &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("another output"), "{e}");
        let missing = d.join("no/such/folder/out.json");
        let e = check(&[("--profile", &missing, SVG)], &[])
            .unwrap_err()
            .to_string();
        // Issue 41: the folder that does not exist is named, not the
        // probe file.
        assert!(
            e.contains("--profile")
                && e.contains("the folder ")
                && e.contains("no/such/folder does not exist")
                && !e.contains(".tranche-check"),
            "{e}"
        );
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn writes_are_atomic_and_replace_a_link_not_its_target() {
        let d = dir("write");
        let target = d.join("precious");
        std::fs::write(&target, "keep").unwrap();
        let out = d.join("out.json");
        std::os::unix::fs::symlink(&target, &out).unwrap();
        write_atomic(&out, b"new").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        assert_eq!(std::fs::read(&out).unwrap(), b"new");
        let leftovers = std::fs::read_dir(&d)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with(".tranche")
            })
            .count();
        assert_eq!(leftovers, 0);
        std::fs::remove_dir_all(&d).ok();
    }
}
