//! The `tranche network` command line: which file, which seed, which
//! engine (`--threads`, `--processes`, `--process`, `--hostfile`), who
//! verifies (`--verify`), where the JSON goes; overrides of the file's
//! sizes for quick sweeps. Bad flags and files are one-line errors.

use crate::config::{self, ConfigError, NetworkSpec};
use crate::engine::{EngineConfig, EngineError};
use crate::verdicts::Verify;
use std::path::{Path, PathBuf};

/// `tranche network [FILE.yaml]`.
#[derive(clap::Args, Debug, Clone)]
pub struct NetworkArgs {
    /// An `!ApprovalNetwork` file; without one, the embedded default (100
    /// validators, 20 cores, 5 blocks).
    pub file: Option<PathBuf>,
    /// Seed of every draw (keys, grid, latencies, behaviours, checks).
    #[arg(long, default_value_t = 1)]
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
    #[error("{flag} {path}: {message}")]
    Output {
        flag: &'static str,
        path: String,
        message: String,
    },
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
        None => (config::embedded_default(), "<embedded default>".to_owned()),
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

/// Run `tranche network`: the table on stdout (process 0), and the JSON.
pub fn execute(args: &NetworkArgs) -> Result<(), CliError> {
    let (spec, source) = spec_of(args)?;
    let engine = engine_of(args)?;
    check_fits(&spec, &source, engine.processes)?;
    let Some(report) = crate::simulate(&spec, &source, args.seed, args.verify, &engine)? else {
        return Ok(());
    };
    print!("{}", report.table());
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report).expect("the report serialises");
        write(path, "--json", text + "\n")?;
    }
    if let Some(path) = &args.html {
        write(path, "--html", crate::html::render(&report))?;
    }
    Ok(())
}

fn write(path: &Path, flag: &'static str, text: String) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|e| CliError::Output {
        flag,
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

/// CPU seconds (user and system) this process has used.
pub fn process_cpu_seconds() -> f64 {
    // SAFETY: getrusage writes into the struct we pass and nothing else.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return 0.0;
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(u.ru_utime) + secs(u.ru_stime)
}
