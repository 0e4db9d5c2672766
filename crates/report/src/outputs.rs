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
//! one is replaced only when its name ends with the extension of what the
//! flag writes (`.json` for `--json` and `--output`, `.html` or `.htm` for
//! `--html`, `.svg` for `--profile`); any other existing file — a YAML
//! test sequence, a source file, a file without an extension — is refused,
//! so a slip such as `--html examples/default.yaml` never replaces a
//! tracked input.

use anyhow::{bail, Context, Result};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

/// The extensions an existing file may have to be replaced by `flag`'s
/// output (none: no existing file is replaced).
fn replaceable(flag: &str) -> &'static [&'static str] {
    match flag {
        "--json" | "--output" => &["json"],
        "--html" => &["html", "htm"],
        "--profile" => &["svg"],
        _ => &[],
    }
}

/// The identity of an existing file (device, inode), to tell two names of
/// one file apart from two files.
fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Check every `(flag, path)` output against the run's `inputs` and each
/// other; the error names the flag and the path.
pub fn check(outputs: &[(&str, &Path)], inputs: &[&Path]) -> Result<()> {
    for (i, (flag, path)) in outputs.iter().enumerate() {
        let named = || format!("{flag} {}", path.display());
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
            if outputs[..i].iter().any(|(_, p)| identity(p) == Some(id)) {
                bail!("{}: is also another output of this run", named());
            }
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            let ours = replaceable(flag);
            if !ours.iter().any(|o| o.eq_ignore_ascii_case(ext)) {
                bail!(
                    "{}: exists and is not a .{} file; not replaced (remove it or pick another name)",
                    named(),
                    ours.first().copied().unwrap_or("json")
                );
            }
        }
        if outputs[..i].iter().any(|(_, p)| p == path) {
            bail!("{}: is also another output of this run", named());
        }
        let dir = parent(path);
        tempfile::Builder::new()
            .prefix(".tranche-check-")
            .tempfile_in(dir)
            .with_context(|| format!("{}: cannot write in {}", named(), dir.display()))?;
    }
    Ok(())
}

/// [`check`] of the outputs a command line names (a flag with no path is
/// skipped) against its one input file, if any.
pub fn check_flags(outputs: &[(&str, Option<&Path>)], input: Option<&Path>) -> Result<()> {
    let named: Vec<(&str, &Path)> = outputs
        .iter()
        .filter_map(|(flag, p)| p.map(|p| (*flag, p)))
        .collect();
    let inputs: Vec<&Path> = input.into_iter().collect();
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
    let context = || format!("cannot write {}", path.display());
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
        check(&[("--json", &ok)], &[&input]).unwrap();
        assert!(!ok.exists(), "checking writes nothing");

        let e = check(&[("--json", &d)], &[&input]).unwrap_err().to_string();
        assert!(e.contains("--json") && e.contains("is a folder"), "{e}");
        let e = check(&[("--json", &input)], &[&input])
            .unwrap_err()
            .to_string();
        assert!(e.contains("is an input"), "{e}");
        let tracked = d.join("tracked.yaml");
        std::fs::write(&tracked, "keep").unwrap();
        let e = check(&[("--html", &tracked)], &[&input])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--html") && e.contains("not a .html file"),
            "{e}"
        );
        let old = d.join("old.json");
        std::fs::write(&old, "{}").unwrap();
        check(&[("--json", &old)], &[&input]).unwrap();
        let link = d.join("link.json");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let e = check(&[("--html", &link)], &[&input])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--html") && e.contains("is an input"), "{e}");
        let e = check(&[("--json", &ok), ("--html", &ok)], &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("another output"), "{e}");
        let missing = d.join("no/such/folder/out.json");
        let e = check(&[("--profile", &missing)], &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--profile") && e.contains("cannot write in"),
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
