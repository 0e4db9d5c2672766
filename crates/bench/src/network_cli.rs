//! The `tranche network` command line: which file, which seed, which
//! engine (`--threads`, `--processes`, `--process`, `--hostfile`), who
//! verifies (`--verify`), where the JSON and the page go (checked before
//! any work and written atomically, `tranche_report::outputs`); overrides
//! of the file's sizes for quick sweeps; progress on stderr while it runs
//! (`tranche_report::progress`). Bad flags and files are one-line errors.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use tranche_report::progress::{Phase, Progress};
use tranche_simulation::{EngineConfig, EngineError, Verify};
use tranche_workload::config::approval_network::{self as config, ConfigError, NetworkSpec};

/// `tranche network [FILE.yaml]`.
#[derive(clap::Args, Debug, Clone)]
pub struct NetworkArgs {
    /// An `!ApprovalNetwork` file; without one, the embedded default (100
    /// validators, 20 cores, 5 blocks).
    pub file: Option<PathBuf>,
    /// Seed of every draw (keys, grid, latencies, behaviours, checks);
    /// 0 by default, as `tranche run`.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Worker threads in this process.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Processes in all (each started with its own --process).
    #[arg(long, default_value_t = 1)]
    pub processes: usize,
    /// This process's index, 0-based; process 0 prints the results.
    #[arg(long, default_value_t = 0)]
    pub process: usize,
    /// One `host:port` per line, a line per process in process order
    /// (default with several processes: 127.0.0.1:2101, 2102, ...).
    #[arg(long, value_name = "FILE")]
    pub hostfile: Option<PathBuf>,
    /// Who verifies each certificate and signature: `once` per process
    /// (the verdict is shared) or `every` node for itself.
    #[arg(long, default_value = "once", value_parser = parse_verify)]
    pub verify: Verify,
    /// Write the results as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the table and plots as one HTML page to this file.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Override the file's `n_validators`.
    #[arg(long)]
    pub validators: Option<u32>,
    /// Override the file's `n_cores`.
    #[arg(long)]
    pub cores: Option<u32>,
    /// Override the file's `num_blocks`.
    #[arg(long)]
    pub blocks: Option<u32>,
    /// Print only the results: no progress on stderr.
    #[arg(long)]
    pub quiet: bool,
}

fn parse_verify(s: &str) -> Result<Verify, String> {
    match s {
        "once" => Ok(Verify::Once),
        "every" => Ok(Verify::Every),
        other => Err(format!("`{other}` is not `once` or `every`")),
    }
}

/// Why `tranche network` could not run.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("--hostfile {path}: {message}")]
    Hostfile { path: String, message: String },
    #[error(transparent)]
    Output(#[from] anyhow::Error),
    #[error("sweep: {0}")]
    Sweep(String),
    #[error(
        "{file}: {validators} validators x {cores} cores x {blocks} blocks need an estimated \
         {need_mib} MiB per process, {available_mib} MiB are available: use more processes, \
         fewer blocks or `finality: true`"
    )]
    TooBig {
        file: String,
        validators: u32,
        cores: u32,
        blocks: u32,
        need_mib: u64,
        available_mib: u64,
    },
}

/// Refuses a run whose estimated memory per process exceeds what the
/// machine has available (`MemAvailable`; no check where unreadable).
pub fn check_fits(spec: &NetworkSpec, source: &str, processes: usize) -> Result<(), CliError> {
    let need = spec.estimated_bytes() / processes.max(1) as u64;
    match tranche_workload::config::cost::mem_available() {
        Some(avail) if need > avail => Err(CliError::TooBig {
            file: source.to_owned(),
            validators: spec.n_validators,
            cores: spec.n_cores,
            blocks: spec.num_blocks,
            need_mib: need >> 20,
            available_mib: avail >> 20,
        }),
        _ => Ok(()),
    }
}

/// The spec a command line asks for: the file or the default, with the
/// overrides applied and checked again.
pub fn spec_of(args: &NetworkArgs) -> Result<(NetworkSpec, String), CliError> {
    let (mut spec, source) = match &args.file {
        Some(p) => (config::load(p)?, p.display().to_string()),
        None => (
            config::embedded_default(),
            tranche_workload::config::DEFAULT_SOURCE.to_owned(),
        ),
    };
    if let Some(v) = args.validators {
        spec.n_validators = v;
    }
    if let Some(c) = args.cores {
        spec.n_cores = c;
    }
    if let Some(b) = args.blocks {
        spec.num_blocks = b;
    }
    spec.validate(&source)?;
    Ok((spec, source))
}

/// The `host:port` lines of a hostfile (blank lines and `#` comments
/// skipped).
pub fn read_hostfile(path: &Path) -> Result<Vec<String>, CliError> {
    let fail = |message: String| CliError::Hostfile {
        path: path.display().to_string(),
        message,
    };
    let text =
        tranche_primitives::limits::read_text(path, 1 << 20).map_err(|e| fail(e.to_string()))?;
    let mut hosts = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if !line.contains(':') {
            return Err(fail(format!("line {}: `{line}` is not host:port", i + 1)));
        }
        hosts.push(line.to_owned());
    }
    Ok(hosts)
}

/// The engine a command line asks for.
pub fn engine_of(args: &NetworkArgs) -> Result<EngineConfig, CliError> {
    let hosts = match &args.hostfile {
        Some(p) => read_hostfile(p)?,
        None if args.processes > 1 => (0..args.processes)
            .map(|i| format!("127.0.0.1:{}", 2101 + i))
            .collect(),
        None => Vec::new(),
    };
    let engine = EngineConfig {
        threads: args.threads,
        processes: args.processes.max(1),
        process: args.process,
        hosts,
    };
    engine.timely()?;
    Ok(engine)
}

/// Progress of the simulation in virtual time: a bar in a terminal, a
/// line per block slot reached otherwise, nothing with `--quiet`.
fn progress_of(
    mode: Progress,
    spec: &NetworkSpec,
) -> (Option<tranche_simulation::Progress>, Arc<Phase>) {
    let span_s = u64::from(spec.num_blocks.saturating_sub(1)) * 6 + spec.run_after_last_block_secs;
    let phase = Arc::new(mode.phase("simulation", "s of virtual time", span_s));
    let blocks = spec.num_blocks;
    let last_block = std::sync::atomic::AtomicU32::new(0);
    let bar = phase.clone();
    let tell: Option<tranche_simulation::Progress> = match mode {
        Progress::Quiet => None,
        Progress::Bars => Some(Arc::new(move |ms: u64, _end: u64| bar.set(ms / 1000))),
        Progress::Lines => Some(Arc::new(move |ms: u64, _end: u64| {
            // Block b's slot starts (b - 1) × 6 s after the first.
            let b = ((ms / 6000) as u32 + 1).min(blocks);
            if last_block.fetch_max(b, std::sync::atomic::Ordering::Relaxed) < b {
                eprintln!(
                    "simulation: block {b}'s slot reached ({} s of virtual time)",
                    ms / 1000
                );
            }
        })),
    };
    (tell, phase)
}

/// Run `tranche network`: the table on stdout (process 0), and the JSON
/// and the page, written atomically with the umask's mode.
pub fn execute(args: &NetworkArgs) -> Result<(), CliError> {
    tranche_report::outputs::check_flags(
        &[
            ("--json", args.json.as_deref()),
            ("--html", args.html.as_deref()),
        ],
        args.file.as_deref(),
    )?;
    let (spec, source) = spec_of(args)?;
    let engine = engine_of(args)?;
    check_fits(&spec, &source, engine.processes)?;
    let mode = if engine.process == 0 {
        Progress::detect(args.quiet)
    } else {
        Progress::Quiet
    };
    let (progress, phase) = progress_of(mode, &spec);
    let Some(report) =
        tranche_simulation::simulate(&spec, &source, args.seed, args.verify, &engine, progress)?
    else {
        return Ok(());
    };
    if let Ok(phase) = Arc::try_unwrap(phase) {
        let approved = report
            .blocks
            .iter()
            .filter(|b| b.approved == b.expected)
            .count();
        phase.finish(&format!(
            "{approved} of {} blocks approved by all",
            report.blocks.len()
        ));
    }
    print!("{}", report.table());
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report).expect("the report serialises");
        tranche_report::outputs::write_atomic(path, (text + "\n").as_bytes())?;
    }
    if let Some(path) = &args.html {
        let page = tranche_report::network::page::render(&report)?;
        tranche_report::outputs::write_atomic(path, page.as_bytes())?;
    }
    Ok(())
}
