//! `tranche sweep network`: a grid of `tranche network` runs — validators × cores
//! × no-show fraction × slow fraction, from comma-separated flags or a
//! small `!ApprovalSweep` file over a base `!ApprovalNetwork` file (or the
//! default) — run one after another in this process, summarised in one
//! table and one JSON file (checked before any work and written
//! atomically, `tranche_cli::outputs`). Its rows are
//! [`tranche_report::network::SweepRow`]s.

use crate::network_cli::{engine_of, CliError, NetworkArgs};
use std::path::PathBuf;
use tranche_cli::text::counted;
use tranche_config::approval_network::SpecChecks as _;
use tranche_config::approval_sweep::SweepGrid;
pub use tranche_report::network::sweep::{table, SweepRow};
use tranche_simulation::{NetworkSpec, Verify};

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
    /// Seed of every run (0 by default, as `tranche run`).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Worker threads, 1 to 256.
    #[arg(long, default_value_t = 1, value_parser = crate::network_cli::threads_flag())]
    pub threads: usize,
    /// Write every row as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the table and the approval plots as one HTML page.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Print only the results: no progress on stderr.
    #[arg(long)]
    pub quiet: bool,
    /// Print each cell's estimate (deliveries, memory, CPU-s, wall time)
    /// and the sweep's total, and stop: nothing simulated.
    #[arg(long)]
    pub dry_run: bool,
}

/// The grid a command line asks for: a `!ApprovalSweep` file's
/// (`tranche_config::approval_sweep`), or an `!ApprovalNetwork` file as
/// the base; flags win over the file's lists.
fn read_grid(args: &SweepArgs) -> Result<SweepGrid, CliError> {
    let mut grid = SweepGrid::default();
    if let Some(path) = &args.file {
        let text = match crate::examples::embedded_network(path) {
            Some(e) => e.text.to_owned(),
            None => tranche_cli::input::read_text(path, tranche_cli::input::MAX_INPUT_FILE_BYTES)
                .map_err(|e| {
                CliError::Sweep(format!("{}: {e}", tranche_cli::text::path(path)))
            })?,
        };
        if tranche_config::file_kind(&text) == tranche_config::FileKind::ApprovalSweep {
            grid = tranche_config::approval_sweep::parse(&text, path)
                .map_err(|e| CliError::Sweep(e.to_string()))?;
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
    crate::small::axes(&mut grid.n_validators, &mut grid.n_cores);
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
        connect_timeout: 20,
        verify: Verify::Once,
        costs: None,
        json: None,
        html: None,
        beside: Vec::new(),
        profile: None,
        size: crate::run_cli::SizeArgs {
            blocks,
            ..Default::default()
        },
        quiet: true,
        dry_run: false,
    }
}

/// The specs of a sweep that can run, in row order (validators
/// outermost), each checked; its source; and a line for each cell that
/// cannot run (`sweep::possible`).
pub fn grid(args: &SweepArgs) -> Result<(Vec<NetworkSpec>, String, Vec<String>), CliError> {
    let grid = read_grid(args)?;
    let (base, source) =
        crate::network_cli::spec_of(&run_args(args, grid.base.clone(), grid.num_blocks))?;
    use crate::sweep::{axis, check_runs};
    let (ns, cs) = (
        axis(&grid.n_validators, base.n_validators),
        axis(&grid.n_cores, base.n_cores),
    );
    let (nss, sls) = (
        axis(&grid.no_show_fraction, base.no_show_fraction),
        axis(&grid.slow_fraction, base.slow_fraction),
    );
    let runs = ns.len() * cs.len() * nss.len() * sls.len();
    check_runs(runs, MAX_SWEEP_RUNS).map_err(CliError::Sweep)?;
    let mut cells = Vec::new();
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
                    let name = cell_name(&source, &spec);
                    let checked = spec
                        .validate(&name)
                        .map_err(CliError::from)
                        .and_then(|()| crate::network_cli::check_network_fits(&spec, &name, 1));
                    cells.push(checked.map(|()| spec).map_err(|e| e.to_string()));
                }
            }
        }
    }
    let (specs, skipped) = crate::sweep::possible(cells).map_err(CliError::Sweep)?;
    Ok((specs, source, skipped))
}

/// A cell of the sweep as its lines name it: `FILE [validators 100, cores
/// 20, no-show 0, slow 0]`.
fn cell_name(source: &str, spec: &NetworkSpec) -> String {
    format!(
        "{source} [validators {}, cores {}, no-show {}, slow {}]",
        spec.n_validators, spec.n_cores, spec.no_show_fraction, spec.slow_fraction
    )
}

/// The `meta` of a sweep's JSON: its configuration lists the swept keys'
/// values (`meta::sweep_fields`) over what every run shares.
fn sweep_meta(args: &SweepArgs, specs: &[NetworkSpec]) -> tranche_report::Meta {
    let costs = tranche_simulation::CostTable::default();
    let points: Vec<Vec<String>> = specs
        .iter()
        .map(|s| crate::network_cli::invocation_meta(args.seed, s, Verify::Once, &costs).config)
        .collect();
    let config = tranche_report::meta::sweep_fields(&points);
    let kind = tranche_report::meta::kind::SWEEP_NETWORK;
    tranche_report::meta::of(kind, "", args.seed, config)
}

/// Run `tranche sweep network`.
pub fn execute(args: &SweepArgs) -> Result<Vec<SweepRow>, CliError> {
    use tranche_cli::outputs;
    use tranche_report::meta::kind;
    // The base network file a sweep file names is an input too.
    let base = read_grid(args)?.base;
    outputs::check_flags(
        &[
            (
                "--json",
                args.json.as_deref(),
                tranche_report::results::writes(kind::SWEEP_NETWORK),
            ),
            ("--html", args.html.as_deref(), outputs::HTML),
        ],
        &[args.file.as_deref(), base.as_deref()],
    )?;
    let (specs, source, skipped) = grid(args)?;
    crate::sweep::tell_skipped(&skipped);
    let engine = engine_of(&run_args(args, None, None))?;
    if let Some(w) = crate::network_cli::threads_warning(engine.threads) {
        tranche_cli::errln!("{w}");
    }
    let (cpu, most) = specs.iter().fold((0.0, 0.0), |(c, m), s| {
        let (sc, sm) = s.estimated_cpu_seconds();
        (c + sc, m + sm)
    });
    if args.dry_run {
        let mut text = String::new();
        for spec in &specs {
            let name = cell_name(&source, spec);
            text.push_str(&crate::network_cli::dry_run_line(spec, &name, &engine));
            text.push('\n');
        }
        text.push_str(&format!(
            "dry run: {}: about {cpu:.1} CPU-s and {} of wall time in all (release build)\n\
             dry run: nothing simulated (without --dry-run the sweep starts here)\n",
            counted(specs.len(), "run"),
            crate::network_cli::duration(crate::network_cli::wall_seconds(cpu, &engine)),
        ));
        tranche_cli::stream::out(&text).map_err(|e| CliError::Output(e.into()))?;
        return Ok(Vec::new());
    }
    if let Some(cpu) = crate::network_cli::long_cpu(cpu, most).filter(|_| !args.quiet) {
        tranche_cli::errln!(
            "note: {source}: {}: about {cpu}",
            counted(specs.len(), "run")
        );
    }
    let meta = sweep_meta(args, &specs);
    let mut rows = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let run = tranche_simulation::simulate(spec, args.seed, Verify::Once, &engine, None)?
            .expect("a single process reports");
        let report = tranche_report::network::of_run(&source, spec, args.seed, run);
        let row = SweepRow::of(spec, &report);
        // Progress on stderr; the table goes to stdout at the end.
        if args.quiet {
            rows.push(row);
            continue;
        }
        crate::sweep::progress(
            i,
            specs.len(),
            (row.n_validators, row.n_cores),
            &format!(
                "no-show {}, slow {}",
                row.no_show_fraction, row.slow_fraction
            ),
            row.wall_s,
        );
        rows.push(row);
    }
    let text = table(&rows) + &tranche_report::network::sweep::legend(&rows);
    tranche_cli::stream::out(&text).map_err(anyhow::Error::from)?;
    if let Some(path) = &args.json {
        let file = tranche_report::results::SweepFile {
            meta: meta.clone(),
            rows: rows.clone(),
        };
        let text = serde_json::to_string_pretty(&file).expect("rows serialise");
        tranche_cli::outputs::write_atomic(path, (text + "\n").as_bytes())?;
    }
    if let Some(path) = &args.html {
        let command = std::env::args().collect::<Vec<_>>().join(" ");
        let page = tranche_report::network::sweep::page(
            &rows,
            args.seed,
            tranche_report::meta::COMMIT,
            &command,
        )?;
        tranche_cli::outputs::write_atomic(path, page.as_bytes())?;
    }
    Ok(rows)
}
