//! `tranche sweep`: one row per combination, in order, each a real run.

use clap::Parser;
use tranche_network::sweep::{execute, grid, SweepArgs};

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

fn base() -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("tranche-sweep-{}.yaml", std::process::id()));
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
    let file = base();
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
fn a_bad_combination_is_named() {
    let e = grid(&args(&["--validators", "100,10"])).unwrap_err();
    assert!(e.to_string().contains("validators 10"), "{e}");
    assert!(Cli::try_parse_from(["sweep", "--cores", "x"]).is_err());
}
