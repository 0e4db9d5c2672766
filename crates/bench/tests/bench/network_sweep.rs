//! `tranche sweep`: one row per combination, in order, each a real run.

use clap::Parser;
use tranche_bench::sweep_network::{execute, grid, SweepArgs};

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: SweepArgs,
}

fn args(extra: &[&str]) -> SweepArgs {
    let mut argv = vec!["sweep"];
    argv.extend_from_slice(extra);
    Cli::try_parse_from(argv).unwrap().args
}

/// A base file of its own for each test (they run at once).
fn base(tag: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("tranche-sweep-{tag}-{}.yaml", std::process::id()));
    std::fs::write(
        &p,
        "!ApprovalNetwork\nn_cores: 4\nnum_blocks: 1\nneeded_approvals: 8\n\
         relay_vrf_modulo_samples: 2\nrun_after_last_block_secs: 60\n",
    )
    .unwrap();
    p
}

#[test]
fn a_grid_of_runs_in_one_table() {
    let file = base("flags");
    let f = file.to_str().unwrap();
    let rows = execute(&args(&[f, "--validators", "20,30", "--no-show", "0,0.2"])).unwrap();
    std::fs::remove_file(&file).unwrap();
    let keys: Vec<(u32, f64)> = rows
        .iter()
        .map(|r| (r.n_validators, r.no_show_fraction))
        .collect();
    assert_eq!(keys, vec![(20, 0.0), (20, 0.2), (30, 0.0), (30, 0.2)]);
    assert!(rows.iter().all(|r| r.all_approved));
    assert!(rows[1].no_shows_max > 0 && rows[0].no_shows_max == 0);
}

#[test]
fn an_impossible_cell_is_skipped_with_its_bound_and_the_others_run() {
    // 100 validators form 20 backing groups: 40 cores cannot be.
    let (specs, _, skipped) =
        grid(&args(&["--validators", "100,200", "--cores", "20,40"])).unwrap();
    let sizes: Vec<(u32, u32)> = specs.iter().map(|s| (s.n_validators, s.n_cores)).collect();
    assert_eq!(sizes, vec![(100, 20), (200, 20), (200, 40)]);
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert!(
        skipped[0].contains("[validators 100, cores 40")
            && skipped[0]
                .contains("must be 1..=20: 100 validators in groups of 5 form 20 backing groups"),
        "{skipped:?}"
    );
    // Nothing that can run: one error naming the first cell.
    let e = grid(&args(&["--validators", "10"])).unwrap_err();
    assert!(e.to_string().contains("validators 10"), "{e}");
    assert!(Cli::try_parse_from(["sweep", "--cores", "x"]).is_err());
}

#[test]
fn a_sweep_file_names_its_lists_and_its_base() {
    let base = base("file");
    let file = base.with_extension("grid.yaml");
    std::fs::write(
        &file,
        format!(
            "!ApprovalSweep\nbase: {}\nn_validators: [20, 24, 28]\nno_show_fraction: [0.0, 0.1]\n",
            base.file_name().unwrap().to_str().unwrap()
        ),
    )
    .unwrap();
    let g = file.to_str().unwrap();
    let (specs, _, _) = grid(&args(&[g])).unwrap();
    assert_eq!(specs.len(), 6);
    assert!(specs
        .iter()
        .all(|s| s.n_cores == 4 && s.session.needed_approvals == 8));
    // A flag wins over the file's list.
    let (specs, _, _) = grid(&args(&[g, "--validators", "30"])).unwrap();
    assert_eq!(specs.len(), 2);
    std::fs::write(&file, "!ApprovalSweep\nn_validatorz: [20]\n").unwrap();
    let e = grid(&args(&[g])).unwrap_err();
    std::fs::remove_file(&file).unwrap();
    std::fs::remove_file(&base).unwrap();
    assert!(
        e.to_string().ends_with(
            "grid.yaml: unknown key `n_validatorz` in an !ApprovalSweep file: did you mean \
             `n_validators`?"
        ),
        "{e}"
    );
    assert!(!e.to_string().contains('\n'));
}

/// Issue 32: a sweep whose `base` is not an `!ApprovalNetwork` file (say
/// `/etc/passwd`) printed that file's contents in the error; a huge value
/// in the sweep file itself was quoted whole. Neither is echoed now.
#[test]
fn a_sweep_never_echoes_its_base_or_a_huge_value() {
    let dir = std::env::temp_dir().join(format!("tranche-sweep-echo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let passwd = dir.join("passwd");
    std::fs::write(&passwd, "root:x:0:0:root:/root:/bin/bash\n".repeat(50)).unwrap();
    let file = dir.join("grid.yaml");
    std::fs::write(&file, "!ApprovalSweep\nbase: passwd\nn_validators: [20]\n").unwrap();
    let e = grid(&args(&[file.to_str().unwrap()]))
        .unwrap_err()
        .to_string();
    assert!(!e.contains("root:") && e.contains("a string of"), "{e}");
    // Issue 43: beyond the bound of every YAML input, refused before
    // parsing; a value under it is cut with its length.
    for (size, needle) in [
        (1_000_000, "a value longer than 65536 bytes at line 2"),
        (60_000, "(60 000 bytes)"),
    ] {
        let big = "A".repeat(size);
        std::fs::write(&file, format!("!ApprovalSweep\nn_validators: \"{big}\"\n")).unwrap();
        let e = grid(&args(&[file.to_str().unwrap()]))
            .unwrap_err()
            .to_string();
        assert!(
            e.len() <= 300 && e.contains(needle),
            "{} bytes: {:?}",
            e.len(),
            e.get(..300)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
