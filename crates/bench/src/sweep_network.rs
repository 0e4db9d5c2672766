//! `tranche sweep network`: a grid of `tranche network` runs — validators × cores
//! × no-show fraction × slow fraction, from comma-separated flags or a
//! small `!ApprovalSweep` file over a base `!ApprovalNetwork` file (or the
//! default) — run one after another in this process, summarised in one
//! table and one JSON file.

use crate::cli::{engine_of, CliError, NetworkArgs};
use crate::config::NetworkSpec;
use crate::report::NetworkReport;
use crate::verdicts::Verify;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::PathBuf;

/// Most runs one sweep may ask for.
pub const MAX_SWEEP_RUNS: usize = 256;

/// `tranche sweep network [FILE.yaml]`.
#[derive(clap::Args, Debug, Clone)]
pub struct SweepArgs {
    /// An `!ApprovalSweep` file (the lists and a base), or the base
    /// `!ApprovalNetwork` file itself; without one, the embedded default.
    pub file: Option<PathBuf>,
    /// Validator counts, comma-separated (default: the file's).
    #[arg(long, value_delimiter = ',')]
    pub validators: Vec<u32>,
    /// Core counts, comma-separated (default: the file's).
    #[arg(long, value_delimiter = ',')]
    pub cores: Vec<u32>,
    /// No-show fractions, comma-separated (default: the file's).
    #[arg(long = "no-show", value_delimiter = ',')]
    pub no_show: Vec<f64>,
    /// Slow fractions, comma-separated (default: the file's).
    #[arg(long, value_delimiter = ',')]
    pub slow: Vec<f64>,
    /// Override the file's `num_blocks`.
    #[arg(long)]
    pub blocks: Option<u32>,
    /// Seed of every run.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Write every row as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// One run of a sweep, summarised.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    pub n_validators: u32,
    pub n_cores: u32,
    pub no_show_fraction: f64,
    pub slow_fraction: f64,
    pub all_approved: bool,
    /// Over the blocks: the median of the per-block p50 approval times,
    /// and the largest per-block p99 and max.
    pub p50_ms: Option<u64>,
    pub p99_ms: Option<u64>,
    pub max_ms: Option<u64>,
    /// Candidates claimed by triggered assignments, per block on average.
    pub assignments_per_block: f64,
    pub max_tranche: u32,
    pub no_shows_max: u32,
    /// Median bytes one validator sent.
    pub bytes_out_p50: u64,
    pub wall_s: f64,
    pub cpu_s: f64,
}

impl SweepRow {
    fn of(spec: &NetworkSpec, r: &NetworkReport) -> SweepRow {
        let mut p50: Vec<u64> = r.blocks.iter().filter_map(|b| b.p50_ms).collect();
        p50.sort_unstable();
        SweepRow {
            n_validators: spec.n_validators,
            n_cores: spec.n_cores,
            no_show_fraction: spec.no_show_fraction,
            slow_fraction: spec.slow_fraction,
            all_approved: r.all_approved,
            p50_ms: p50.get(p50.len() / 2).copied(),
            p99_ms: r.blocks.iter().filter_map(|b| b.p99_ms).max(),
            max_ms: r.blocks.iter().filter_map(|b| b.max_ms).max(),
            assignments_per_block: r.blocks.iter().map(|b| b.assignments).sum::<u64>() as f64
                / r.blocks.len().max(1) as f64,
            max_tranche: r.blocks.iter().map(|b| b.max_tranche).max().unwrap_or(0),
            no_shows_max: r.blocks.iter().map(|b| b.no_shows_max).max().unwrap_or(0),
            bytes_out_p50: r.bytes_out.p50,
            wall_s: r.cost.wall_s,
            cpu_s: r.cost.cpu_s,
        }
    }
}

/// A sweep file: the lists to combine, over a base `!ApprovalNetwork`
/// file (relative to the sweep file; the default without one).
///
/// ```yaml
/// !ApprovalSweep
/// base: no-shows.yaml
/// n_validators: [100, 200]
/// no_show_fraction: [0.0, 0.2]
/// ```
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Grid {
    pub base: Option<PathBuf>,
    pub n_validators: Vec<u32>,
    pub n_cores: Vec<u32>,
    pub no_show_fraction: Vec<f64>,
    pub slow_fraction: Vec<f64>,
    pub num_blocks: Option<u32>,
}

#[derive(Deserialize)]
enum GridFile {
    ApprovalSweep(Grid),
}

/// The grid a command line asks for: a `!ApprovalSweep` file's, or an
/// `!ApprovalNetwork` file as the base; flags win over the file's lists.
fn read_grid(args: &SweepArgs) -> Result<Grid, CliError> {
    let mut grid = Grid::default();
    if let Some(path) = &args.file {
        let text = tranche_primitives::limits::read_text(path, 1 << 20)
            .map_err(|e| CliError::Sweep(format!("{}: {e}", path.display())))?;
        if text.contains("!ApprovalSweep") {
            let GridFile::ApprovalSweep(g) = yaml_serde::from_str(&text).map_err(|e| {
                CliError::Sweep(format!(
                    "{}: {}",
                    path.display(),
                    e.to_string().replace('\n', " ")
                ))
            })?;
            grid = g;
            let dir = path.parent().unwrap_or(std::path::Path::new("."));
            grid.base = grid.base.map(|b| dir.join(b));
        } else {
            grid.base = Some(path.clone());
        }
    }
    let flag = |flag: &Vec<u32>, file: &mut Vec<u32>| {
        if !flag.is_empty() {
            *file = flag.clone();
        }
    };
    flag(&args.validators, &mut grid.n_validators);
    flag(&args.cores, &mut grid.n_cores);
    if !args.no_show.is_empty() {
        grid.no_show_fraction = args.no_show.clone();
    }
    if !args.slow.is_empty() {
        grid.slow_fraction = args.slow.clone();
    }
    grid.num_blocks = args.blocks.or(grid.num_blocks);
    Ok(grid)
}

/// The `tranche network` arguments of one run of the sweep: one process,
/// the sweep's seed and threads, verdicts shared.
fn run_args(args: &SweepArgs, file: Option<PathBuf>, blocks: Option<u32>) -> NetworkArgs {
    NetworkArgs {
        file,
        seed: args.seed,
        threads: args.threads,
        processes: 1,
        process: 0,
        hostfile: None,
        verify: Verify::Once,
        json: None,
        html: None,
        validators: None,
        cores: None,
        blocks,
    }
}

/// The specs of a sweep, in row order (validators outermost), each checked.
pub fn grid(args: &SweepArgs) -> Result<(Vec<NetworkSpec>, String), CliError> {
    let grid = read_grid(args)?;
    let (base, source) = crate::cli::spec_of(&run_args(args, grid.base.clone(), grid.num_blocks))?;
    let or = |v: &Vec<u32>, d: u32| if v.is_empty() { vec![d] } else { v.clone() };
    let orf = |v: &Vec<f64>, d: f64| if v.is_empty() { vec![d] } else { v.clone() };
    let (ns, cs) = (
        or(&grid.n_validators, base.n_validators),
        or(&grid.n_cores, base.n_cores),
    );
    let (nss, sls) = (
        orf(&grid.no_show_fraction, base.no_show_fraction),
        orf(&grid.slow_fraction, base.slow_fraction),
    );
    let runs = ns.len() * cs.len() * nss.len() * sls.len();
    if runs > MAX_SWEEP_RUNS {
        return Err(CliError::Sweep(format!(
            "{runs} runs asked for; at most {MAX_SWEEP_RUNS}"
        )));
    }
    let mut specs = Vec::new();
    for &n in &ns {
        for &c in &cs {
            for &no_show in &nss {
                for &slow in &sls {
                    let spec = NetworkSpec {
                        n_validators: n,
                        n_cores: c,
                        no_show_fraction: no_show,
                        slow_fraction: slow,
                        ..base.clone()
                    };
                    let name = format!(
                        "{source} [validators {n}, cores {c}, no-show {no_show}, slow {slow}]"
                    );
                    spec.validate(&name)?;
                    crate::cli::check_fits(&spec, &name, 1)?;
                    specs.push(spec);
                }
            }
        }
    }
    Ok((specs, source))
}

/// The sweep's table.
pub fn table(rows: &[SweepRow]) -> String {
    let ms = |v: Option<u64>| v.map_or("-".to_owned(), |v| v.to_string());
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>5} {:>5} {:>7} {:>5} {:>8} {:>8} {:>8} {:>8} {:>9} {:>6} {:>8} {:>9} {:>7}",
        "vals",
        "cores",
        "no-show",
        "slow",
        "approved",
        "p50 ms",
        "p99 ms",
        "max ms",
        "assign/b",
        "max tr",
        "no-shows",
        "KiB out",
        "wall s"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{:>5} {:>5} {:>7} {:>5} {:>8} {:>8} {:>8} {:>8} {:>9.1} {:>6} {:>8} {:>9.0} {:>7.1}",
            r.n_validators,
            r.n_cores,
            r.no_show_fraction,
            r.slow_fraction,
            if r.all_approved { "all" } else { "NOT all" },
            ms(r.p50_ms),
            ms(r.p99_ms),
            ms(r.max_ms),
            r.assignments_per_block,
            r.max_tranche,
            r.no_shows_max,
            r.bytes_out_p50 as f64 / 1024.0,
            r.wall_s
        );
    }
    s
}

/// Run `tranche sweep network`.
pub fn execute(args: &SweepArgs) -> Result<Vec<SweepRow>, CliError> {
    let (specs, source) = grid(args)?;
    let engine = engine_of(&run_args(args, None, None))?;
    let mut rows = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let report = crate::simulate(spec, &source, args.seed, Verify::Once, &engine)?
            .expect("a single process reports");
        let row = SweepRow::of(spec, &report);
        // Progress on stderr; the table goes to stdout at the end.
        eprintln!(
            "sweep: {}/{} ({} validators, {} cores, no-show {}, slow {}) in {:.1} s",
            i + 1,
            specs.len(),
            row.n_validators,
            row.n_cores,
            row.no_show_fraction,
            row.slow_fraction,
            row.wall_s
        );
        rows.push(row);
    }
    print!("{}", table(&rows));
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&rows).expect("rows serialise");
        std::fs::write(path, text + "\n").map_err(|e| CliError::Output {
            flag: "--json",
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
    }
    Ok(rows)
}
