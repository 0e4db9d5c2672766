//! `--db-path` as a user meets it (docs/durability.md, "What the node
//! owns"): a file of the user's where the database belongs, a folder of
//! the user's holding a `metadata` file, a second run on a path a running
//! node uses, a nearly full disk, too little address space. Each is one
//! line and a non-zero exit (never a signal), and nothing that was not
//! the node's is touched.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_tranche");

/// The folder a default run uses inside `--db-path` (step and layout).
const STEP: &str = "default_yaml__embedded___1_ApprovalVoting/parallel-4";

/// A small virtual-clock run on `db` at `db_path`.
fn small(db: &str, db_path: &Path, cache: &Path) -> Command {
    small_on("virtual", "2", db, db_path, cache)
}

/// A small run of `blocks` blocks on `clock`, on `db` at `db_path`.
fn small_on(clock: &str, blocks: &str, db: &str, db_path: &Path, cache: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.args([
        "run",
        "--clock",
        clock,
        "--validators",
        "40",
        "--cores",
        "6",
    ])
    .args(["--blocks", blocks, "--quiet", "--db", db])
    .arg("--db-path")
    .arg(db_path)
    .arg("--cache-dir")
    .arg(cache);
    c
}

/// The run failed with one line naming `path` and containing `why`.
fn one_line_refusal(out: &Output, path: &Path, why: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(err.contains(why), "wanted `{why}` in: {err}");
}

#[test]
fn a_users_file_named_approvals_redb_is_refused_and_kept() {
    let dir = crate::common::tmp("db_ownership", "users-file");
    let file = dir.join("d").join(STEP).join("approvals.redb");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let lines: String = (1..=2000).map(|i| format!("{i}\n")).collect();
    std::fs::write(&file, &lines).unwrap();
    let out = small("redb", &dir.join("d"), &dir.join("cache"))
        .output()
        .unwrap();
    one_line_refusal(&out, &file, "not a redb database");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), lines);
}

#[test]
fn a_users_folder_with_a_metadata_file_is_refused_and_kept() {
    let dir = crate::common::tmp("db_ownership", "users-folder");
    let folder = dir.join("p").join(STEP).join("approvals.paritydb");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("metadata"), b"notes\n").unwrap();
    std::fs::write(folder.join("thesis.tex"), b"x\n").unwrap();
    let out = small("parity-db", &dir.join("p"), &dir.join("cache"))
        .output()
        .unwrap();
    one_line_refusal(&out, &folder, "not a database this node made");
    assert_eq!(std::fs::read(folder.join("thesis.tex")).unwrap(), b"x\n");
    assert_eq!(std::fs::read(folder.join("metadata")).unwrap(), b"notes\n");
}

/// A real-clock run holds its database; a second run on the same
/// `--db-path` is refused naming the first's pid, and the first ends well.
#[test]
fn a_second_run_on_a_path_in_use_is_refused_and_the_first_ends_well() {
    let dir = crate::common::tmp("db_ownership", "in-use");
    for (db, name) in [
        ("redb", "approvals.redb"),
        ("parity-db", "approvals.paritydb"),
    ] {
        let root = dir.join(db);
        let mut first = small_on("real", "2", db, &root, &dir.join("cache"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let path = root.join(STEP).join(name);
        let lock = root.join(STEP).join(format!("{name}.lock"));
        let pid = first.id().to_string();
        // Until the first run's store holds the lock (its pid written in
        // it, its database made: the lock is taken for the removal of an
        // earlier database first, and again by the store).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while std::fs::read_to_string(&lock).ok().as_deref() != Some(pid.as_str()) || !path.exists()
        {
            assert!(
                std::time::Instant::now() < deadline,
                "{db}: the first run never took the lock"
            );
            assert!(
                first.try_wait().unwrap().is_none(),
                "{db}: the first run ended early"
            );
            std::thread::yield_now();
        }
        let out = small(db, &root, &dir.join("cache")).output().unwrap();
        one_line_refusal(&out, &path, &format!("in use by another node (pid {pid}"));
        let first = first.wait_with_output().unwrap();
        assert!(
            first.status.success(),
            "{db}: the first run failed: {}",
            String::from_utf8_lossy(&first.stderr)
        );
    }
}

/// A small tmpfs mounted at a temporary folder, unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, kib: u64) -> Result<Tmpfs, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs"])
            .arg(dir)
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_owned());
        }
        Ok(Tmpfs(dir.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// ParityDB on a nearly full disk, at a range of free space: one line
/// saying "No space left on device" or a run that ends well — never
/// SIGBUS (a memory-mapped write past the space).
#[test]
fn parity_db_on_a_nearly_full_disk_is_an_error_at_every_fill_level() {
    let dir = crate::common::tmp("db_ownership", "full");
    let fs = match Tmpfs::mount(&dir.join("fs"), 16 * 1024) {
        Ok(fs) => fs,
        Err(why) => {
            eprintln!("skipped: no tmpfs can be mounted here ({why})");
            return;
        }
    };
    for free_kib in [
        60u64, 100, 1_000, 4_000, 5_000, 8_000, 9_000, 10_000, 12_000, 16_000,
    ] {
        for e in std::fs::read_dir(&fs.0).unwrap() {
            let p = e.unwrap().path();
            let _ = std::fs::remove_dir_all(&p).or_else(|_| std::fs::remove_file(&p));
        }
        let fill = (16 * 1024u64).saturating_sub(free_kib) * 1024;
        std::fs::write(fs.0.join("filler"), vec![0u8; fill as usize]).unwrap();
        let out = small("parity-db", &fs.0.join("x"), &dir.join("cache"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => {}
            Some(1) => {
                assert_eq!(err.trim().lines().count(), 1, "{free_kib} KiB free: {err}");
                assert!(
                    err.contains("No space left on device"),
                    "{free_kib} KiB free: {err}"
                );
            }
            _ => panic!("{free_kib} KiB free: {:?} {err}", out.status),
        }
    }
}

/// Too little address space for ParityDB's maps: one line that says so
/// and what to do, and no warning of ParityDB's after it.
#[test]
fn parity_db_under_a_small_ulimit_v_says_why() {
    let dir = crate::common::tmp("db_ownership", "ulimit");
    let cmd = small("parity-db", &dir.join("u"), &dir.join("cache"));
    let mut line = format!("ulimit -v 16000000 && exec '{BIN}'");
    for a in cmd.get_args() {
        line.push_str(&format!(" '{}'", a.to_string_lossy()));
    }
    let out = Command::new("sh").args(["-c", &line]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        eprintln!("skipped: 16 GB of address space was enough here");
        return;
    }
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("ulimit -v") && !err.contains("Shutdown error"),
        "{err}"
    );
}
