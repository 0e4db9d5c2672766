//! The `tranche network` command line: which file, which seed, which
//! engine (`--threads`, `--processes`, `--process`, `--hostfile`), who
//! verifies (`--verify`), where the JSON and the page go (checked before
//! any work and written atomically, `tranche_cli::outputs`); overrides
//! of the file's sizes for quick sweeps; progress on stderr while it runs
//! (`tranche_cli::progress`), after the run's estimate when it is
//! long. Bad flags and files are one-line errors; every number a flag
//! takes is bounded.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tranche_cli::progress::{Phase, Progress};
use tranche_cli::text::counted;
use tranche_config::approval_network::SpecChecks as _;
use tranche_config::approval_network::{self as config, NetworkSpec, NetworkSpecError};
use tranche_report::network::NetworkTable;
use tranche_simulation::{EngineConfig, EngineError, Verify, MAX_PROCESSES, MAX_THREADS};

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
    /// Worker threads in this process, 1 to 256 (the same in every
    /// process).
    #[arg(long, default_value_t = 1, value_parser = threads_flag())]
    pub threads: usize,
    /// Processes in all, 1 to 64 (each started with its own --process).
    #[arg(long, default_value_t = 1, value_parser = processes_flag())]
    pub processes: usize,
    /// This process's index, 0-based; process 0 prints the results.
    #[arg(long, default_value_t = 0)]
    pub process: usize,
    /// One `host:port` per line, a line per process in process order
    /// (default with several processes: 127.0.0.1:2101, 2102, ...).
    #[arg(long, value_name = "FILE")]
    pub hostfile: Option<PathBuf>,
    /// With several processes: how long to wait for the others to
    /// connect before giving up, naming them.
    #[arg(long, value_name = "SECS", default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub connect_timeout: u64,
    /// Who verifies each certificate and signature: `once` per process
    /// (the verdict is shared), `every` node for itself, or `model`:
    /// nobody (every verdict valid; with the file's `node`, each check
    /// still costs its table time at every validator), for large sweeps.
    #[arg(long, default_value = "once", value_parser = parse_verify)]
    pub verify: Verify,
    /// The CPU model's cost table, a YAML file as `tranche calibrate`
    /// writes it (default: the table measured for this project,
    /// BENCHMARKS.md); used when the file has a `node` key.
    #[arg(long, value_name = "FILE")]
    pub costs: Option<PathBuf>,
    /// Write the results as JSON to this file (process 0 only: it alone
    /// gathers the results).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the table and plots as one HTML page to this file (process 0
    /// only).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// An earlier `tranche network --json` result of the same objective
    /// and seed on another node (`node` alone may differ), drawn beside
    /// this run: its approval times per block in the table and, with
    /// --html, on one plot against block number (up to 4, repeat the flag).
    #[arg(long, value_name = "FILE.json")]
    pub beside: Vec<PathBuf>,
    /// Write a CPU flamegraph (SVG) of this process, sampled in process
    /// (stacks rooted at the simulation's thread names); with several
    /// processes, each writes its own (give each its own name).
    #[arg(long, value_name = "FILE.svg")]
    pub profile: Option<PathBuf>,
    #[command(flatten)]
    pub size: crate::run_cli::SizeArgs,
    /// Print only the results: no progress on stderr.
    #[arg(long)]
    pub quiet: bool,
    /// Print the run's estimate (deliveries, memory, CPU time) and whether
    /// it fits this machine, then stop: nothing simulated.
    #[arg(long)]
    pub dry_run: bool,
}

/// `--threads`: 1 to [`MAX_THREADS`], a bound every process shares.
pub fn threads_flag() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(1..=MAX_THREADS as u64)
}

/// `--processes`: 1 to [`MAX_PROCESSES`].
fn processes_flag() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(1..=MAX_PROCESSES as u64)
}

fn parse_verify(s: &str) -> Result<Verify, String> {
    match s {
        "once" => Ok(Verify::Once),
        "every" => Ok(Verify::Every),
        "model" => Ok(Verify::Model),
        other => Err(format!("`{other}` is not `once`, `every` or `model`")),
    }
}

/// Why `tranche network` could not run.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Config(#[from] NetworkSpecError),
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("--costs {0}")]
    Costs(String),
    #[error("--hostfile {path}: {message}")]
    Hostfile { path: String, message: String },
    #[error(transparent)]
    Output(#[from] anyhow::Error),
    #[error("sweep: {0}")]
    Sweep(String),
    #[error(transparent)]
    Beside(#[from] tranche_report::network::beside::BesideError),
    #[error(
        "{file}: {} x {} x {} need an estimated {need_mib} MiB per process, {available_mib} \
         MiB are available: use more processes, fewer blocks or `finality: true`",
        counted(*validators, "validator"),
        counted(*cores, "core"),
        counted(*blocks, "block")
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
pub fn check_network_fits(
    spec: &NetworkSpec,
    source: &str,
    processes: usize,
) -> Result<(), CliError> {
    let need = spec.estimated_bytes() / processes.max(1) as u64;
    match tranche_config::estimate::mem_available() {
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
        Some(p) => match crate::examples::embedded_network(p) {
            Some(e) => {
                if !args.quiet {
                    tranche_cli::errln!("{}", crate::examples::note(p));
                }
                let source = format!("{} (embedded)", e.name);
                (config::parse(e.text, &source)?, source)
            }
            None => match crate::examples::other_command(p, true) {
                Some(hint) => return Err(CliError::Output(anyhow::anyhow!(hint))),
                None => {
                    let reads = "an `!ApprovalNetwork` YAML file";
                    let spec = config::load(p)
                        .map_err(|e| CliError::Output(crate::input_kind::explain(p, e, reads)))?;
                    (spec, p.display().to_string())
                }
            },
        },
        None => (
            config::embedded_default(),
            tranche_config::DEFAULT_SOURCE.to_owned(),
        ),
    };
    if let Some(v) = args.size.validators {
        spec.n_validators = v;
    }
    if let Some(c) = args.size.cores {
        spec.n_cores = c;
    }
    if let Some(b) = args.size.blocks {
        spec.num_blocks = b;
    }
    crate::small::network(&mut spec);
    spec.validate(&source)?;
    Ok((spec, source))
}

/// The `host:port` lines of a hostfile (`tranche_config::hostfile`).
pub fn read_hostfile(path: &Path) -> Result<Vec<String>, CliError> {
    let fail = |message: String| CliError::Hostfile {
        path: tranche_cli::text::path(path),
        message,
    };
    tranche_config::hostfile::read(path).map_err(fail)
}

/// Flags that would do nothing with this engine, refused: a hostfile for
/// one process, results asked of a process that does not gather them.
fn check_engine_flags(args: &NetworkArgs) -> Result<(), CliError> {
    if let (Some(p), 1) = (&args.hostfile, args.processes) {
        return Err(CliError::Hostfile {
            path: tranche_cli::text::path(p),
            message: "a hostfile gives the addresses of several processes: it needs \
                      --processes N (2 or more)"
                .to_owned(),
        });
    }
    if args.process != 0 {
        let beside = args.beside.first();
        for (flag, given) in [
            ("--json", args.json.as_ref()),
            ("--html", args.html.as_ref()),
            ("--beside", beside),
        ] {
            if given.is_some() {
                return Err(CliError::Output(anyhow::anyhow!(
                    "{flag}: only process 0 gathers and writes the results; give {flag} to \
                     process 0's command line, not process {}'s",
                    args.process
                )));
            }
        }
    }
    Ok(())
}

/// A warning when `--threads` is above the machine's cores: the threads
/// take turns on them (40 validators, 1 block: 0.12 s at 1 thread, 23 s
/// at 256 on 2 cores).
pub fn threads_warning(threads: usize) -> Option<String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (threads > cores).then(|| {
        format!(
            "warning: --threads {threads} is more than this machine's {}: the \
             threads take turns on them and the run is slower, not faster",
            counted(cores, "core")
        )
    })
}

/// The engine a command line asks for.
pub fn engine_of(args: &NetworkArgs) -> Result<EngineConfig, CliError> {
    check_engine_flags(args)?;
    let processes = args.processes;
    let hosts = match &args.hostfile {
        Some(p) => {
            let hosts = read_hostfile(p)?;
            if processes > 1 && hosts.len() != processes {
                return Err(CliError::Hostfile {
                    path: tranche_cli::text::path(p),
                    message: format!(
                        "{} for --processes {processes}: one line per process",
                        counted(hosts.len(), "address")
                    ),
                });
            }
            hosts
        }
        None if processes > 1 => (0..processes)
            .map(|i| format!("127.0.0.1:{}", 2101 + i))
            .collect(),
        None => Vec::new(),
    };
    let engine = EngineConfig {
        threads: args.threads,
        processes,
        process: args.process,
        hosts,
    };
    engine.timely()?;
    Ok(engine)
}

/// A run estimated at this many CPU seconds or more is announced before
/// it starts, as `tranche run` announces its long steps.
const LONG_CPU_S: f64 = 10.0;

/// `S CPU-s in all (release build[; up to W if ...])`: an estimate
/// (`NetworkSpec::estimated_cpu_seconds`, summed over runs) in words, or
/// none when it is short.
pub fn long_cpu(cpu: f64, most: f64) -> Option<String> {
    if most < LONG_CPU_S {
        return None;
    }
    let worst = if most > cpu {
        format!("; up to {most:.0} if no-shows, loss or offline validators trigger every tranche")
    } else {
        String::new()
    };
    Some(format!("{cpu:.0} CPU-s in all (release build{worst})"))
}

/// `note: FILE: ... about M MiB per process and S CPU-s ...` for a run
/// that takes long, or none.
pub fn estimate_note(spec: &NetworkSpec, source: &str, processes: usize) -> Option<String> {
    let (cpu, most) = spec.estimated_cpu_seconds();
    let cpu = long_cpu(cpu, most)?;
    let mib = (spec.estimated_bytes() / processes.max(1) as u64) >> 20;
    Some(format!(
        "note: {source}: {} x {} x {}: about {mib} MiB per process and {cpu}",
        counted(spec.n_validators, "validator"),
        counted(spec.n_cores, "core"),
        counted(spec.num_blocks, "block")
    ))
}

/// The wall time of `cpu` CPU-seconds of simulation on `engine`'s
/// workers: each process's threads on this machine's cores (no more
/// than it has), each added worker worth 0.85 of one (the full-size
/// ten-block runs: 7 548 and 8 092 CPU-s took 70.8 and 69.5 min on 2
/// threads, 1.78 and 1.94 times faster than one).
pub fn wall_seconds(cpu: f64, engine: &EngineConfig) -> f64 {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = engine.threads.min(cores).max(1) * engine.processes.max(1);
    cpu / (1.0 + 0.85 * (workers - 1) as f64)
}

/// `seconds` as a person reads a wait: `40 s`, `12 min`, `1.4 h`.
pub fn duration(seconds: f64) -> String {
    if seconds < 90.0 {
        format!("{seconds:.0} s")
    } else if seconds < 90.0 * 60.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

/// `--dry-run`: the run's size and estimate (deliveries, memory per
/// process, CPU seconds and wall time on the engine's workers; what every
/// tranche triggered would take), and whether it fits the memory
/// available; nothing simulated.
pub fn dry_run(spec: &NetworkSpec, source: &str, engine: &EngineConfig) -> String {
    format!(
        "{}\ndry run: nothing simulated (without --dry-run the run starts here)\n",
        dry_run_line(spec, source, engine)
    )
}

/// [`dry_run`]'s estimate line, without its last line (a sweep prints one
/// a cell).
pub fn dry_run_line(spec: &NetworkSpec, source: &str, engine: &EngineConfig) -> String {
    let processes = engine.processes;
    let (cpu, most) = spec.estimated_cpu_seconds();
    let (deliveries, most_deliveries) = spec.estimated_deliveries();
    let need = spec.estimated_bytes() / processes.max(1) as u64;
    let fits = match tranche_config::estimate::mem_available() {
        Some(a) if need > a => format!("does not fit: {} MiB available", a >> 20),
        Some(a) => format!("fits: {} MiB available", a >> 20),
        None => "memory available unknown".to_owned(),
    };
    let worst = if most > cpu {
        format!(
            "; up to {most_deliveries:.0} deliveries and {most:.0} CPU-s if no-shows, loss or \
             offline validators trigger every tranche"
        )
    } else {
        String::new()
    };
    format!(
        "dry run: {source} — {} x {} x {}: about {deliveries:.0} deliveries, {} MiB per \
         process ({}), {cpu:.1} CPU-s and {} of wall time on {} (release build){worst}; {fits}",
        counted(spec.n_validators, "validator"),
        counted(spec.n_cores, "core"),
        counted(spec.num_blocks, "block"),
        need >> 20,
        counted(processes, "process"),
        duration(wall_seconds(cpu, engine)),
        counted(engine.threads, "thread") + if processes > 1 { " each" } else { "" },
    )
}

/// How often, at most, a plain line says how far virtual time has come
/// between the lines of the block slots.
const LINE_EVERY: Duration = Duration::from_secs(10);

/// The plain progress lines of a run (stderr not a terminal): one when
/// each block's slot is reached, and between them one every
/// [`LINE_EVERY`] of wall time, through the end of the run.
struct Lines {
    blocks: u32,
    last_block: u32,
    started: Instant,
    last_line: Instant,
}

impl Lines {
    fn new(blocks: u32, now: Instant) -> Lines {
        Lines {
            blocks,
            last_block: 0,
            started: now,
            last_line: now,
        }
    }

    /// The line for the moment `ms` of the `end` ms simulated, handled at
    /// `now`, if one is due.
    fn tell(&mut self, ms: u64, end: u64, now: Instant) -> Option<String> {
        // Block b's slot starts (b - 1) x 6 s after the first.
        let b = ((ms / 6000) as u32 + 1).min(self.blocks);
        let line = if self.last_block < b {
            self.last_block = b;
            format!(
                "simulation: block {b}'s slot reached ({} s of virtual time)",
                ms / 1000
            )
        } else if now.duration_since(self.last_line) >= LINE_EVERY {
            format!(
                "simulation: {} of {} s of virtual time, {:.0} s elapsed",
                ms / 1000,
                end / 1000,
                now.duration_since(self.started).as_secs_f64()
            )
        } else {
            return None;
        };
        self.last_line = now;
        Some(line)
    }
}

/// Progress of the simulation in virtual time: a bar in a terminal,
/// plain lines otherwise ([`Lines`]), nothing with `--quiet`.
fn progress_of(
    mode: Progress,
    spec: &NetworkSpec,
) -> (Option<tranche_simulation::ProgressFn>, Arc<Phase>) {
    let span_s = u64::from(spec.num_blocks.saturating_sub(1)) * 6 + spec.run_after_last_block_secs;
    let phase = Arc::new(mode.phase("simulation", "s of virtual time", span_s));
    let lines = Mutex::new(Lines::new(spec.num_blocks, Instant::now()));
    let bar = phase.clone();
    let tell: Option<tranche_simulation::ProgressFn> = match mode {
        Progress::Quiet => None,
        Progress::Bars => Some(Arc::new(move |ms: u64, _end: u64| bar.set(ms / 1000))),
        Progress::Lines => Some(Arc::new(move |ms: u64, end: u64| {
            let mut lines = lines.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(line) = lines.tell(ms, end, Instant::now()) {
                tranche_cli::errln!("{line}");
            }
        })),
    };
    (tell, phase)
}

/// How the run ended, for the progress's last line.
fn outcome(report: &tranche_report::network::SimulationReport) -> String {
    if report.no_expected_validator() {
        return "no expected validator (every one a no-show or offline)".to_owned();
    }
    let approved = report
        .blocks
        .iter()
        .filter(|b| b.approved == b.expected)
        .count();
    format!(
        "{approved} of {} approved by all",
        counted(report.blocks.len(), "block")
    )
}

/// Run `tranche network`: the table on stdout (process 0), and the JSON
/// and the page, written atomically with the umask's mode.
pub fn execute(args: &NetworkArgs) -> Result<(), CliError> {
    use tranche_cli::outputs;
    use tranche_report::meta::kind;
    outputs::check_flags(
        &[
            (
                "--json",
                args.json.as_deref(),
                tranche_report::results::writes(kind::NETWORK),
            ),
            ("--html", args.html.as_deref(), outputs::HTML),
            ("--profile", args.profile.as_deref(), outputs::SVG),
        ],
        &[
            args.file.as_deref(),
            args.costs.as_deref(),
            args.hostfile.as_deref(),
        ]
        .into_iter()
        .chain(args.beside.iter().map(|p| Some(p.as_path())))
        .collect::<Vec<_>>(),
    )?;
    let (spec, source) = spec_of(args)?;
    let engine = engine_of(args)?;
    let beside = tranche_report::network::beside::load(&args.beside, &spec, args.seed)?;
    if args.dry_run {
        let text = dry_run(&spec, &source, &engine);
        return tranche_cli::stream::out(&text).map_err(|e| CliError::Output(e.into()));
    }
    check_network_fits(&spec, &source, engine.processes)?;
    if let Some(w) = threads_warning(engine.threads) {
        tranche_cli::errln!("{w}");
    }
    let mode = if engine.process == 0 {
        Progress::detect(args.quiet)
    } else {
        Progress::Quiet
    };
    let mut costs = match &args.costs {
        Some(path) => {
            tranche_simulation::CostTable::load(path).map_err(|e| CliError::Costs(e.to_string()))?
        }
        None => tranche_simulation::CostTable::default(),
    };
    if let (Some(path), None) = (&args.costs, &spec.node) {
        tranche_cli::errln!(
            "warning: --costs {}: ignored, {source} has no `node` key (no CPU model to cost)",
            path.display()
        );
        // Unused: not a difference between processes either.
        costs = tranche_simulation::CostTable::default();
    }
    if mode != Progress::Quiet {
        if let Some(note) = estimate_note(&spec, &source, engine.processes) {
            tranche_cli::errln!("{note}");
        }
    }
    let meta = invocation_meta(args.seed, &spec, args.verify, &costs);
    let profiler = match &args.profile {
        Some(_) => Some(crate::profile::Profiler::start()?),
        None => None,
    };
    let (progress, phase) = progress_of(mode, &spec);
    let cluster = tranche_simulation::ClusterOptions {
        connect_timeout: std::time::Duration::from_secs(args.connect_timeout),
        tell_waiting: !args.quiet,
    };
    let Some(run) = tranche_simulation::simulate_with(
        &spec,
        args.seed,
        args.verify,
        &costs,
        &engine,
        &cluster,
        progress,
    )?
    else {
        // Another process than 0: its own flamegraph, nothing else.
        if let (Some(p), Some(path)) = (profiler, &args.profile) {
            p.finish(path)?;
        }
        return Ok(());
    };
    let mut report = tranche_report::network::of_run(&source, &spec, args.seed, run);
    if let Ok(phase) = Arc::try_unwrap(phase) {
        phase.finish(&outcome(&report));
    }
    report.meta = Some(meta);
    tranche_cli::stream::out(&report.table()).map_err(anyhow::Error::from)?;
    if !beside.is_empty() {
        let runs: Vec<&tranche_report::network::SimulationReport> =
            std::iter::once(&report).chain(&beside).collect();
        let table = tranche_report::network::beside::table(&runs);
        tranche_cli::stream::out(&format!("\n{table}")).map_err(anyhow::Error::from)?;
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report).expect("the report serialises");
        tranche_cli::outputs::write_atomic(path, (text + "\n").as_bytes())?;
    }
    if let Some(path) = &args.html {
        let page = tranche_report::network::page::render(&report, &beside)?;
        tranche_cli::outputs::write_atomic(path, page.as_bytes())?;
    }
    if let (Some(p), Some(path)) = (profiler, &args.profile) {
        p.finish(path)?;
        if !args.quiet {
            tranche_cli::errln!("profile: wrote {}", path.display());
        }
    }
    Ok(())
}

/// The `meta` of a network report: the spec's keys, who verifies and
/// the cost table in use make its configuration.
pub fn invocation_meta(
    seed: u64,
    spec: &NetworkSpec,
    verify: Verify,
    costs: &tranche_simulation::CostTable,
) -> tranche_report::Meta {
    use tranche_report::meta;
    let mut config = meta::spec_fields(spec);
    let verify = match verify {
        Verify::Once => "once",
        Verify::Every => "every",
        Verify::Model => "model",
    };
    config.push(format!("verify: {verify}"));
    let table: Vec<String> = costs.to_yaml().lines().map(str::to_owned).collect();
    config.push(format!("costs: {}", meta::lines_hash(&table)));
    tranche_report::meta::of(meta::kind::NETWORK, "", seed, config)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `read_hostfile` of `text` (in a file of its own), its error line.
    fn hostfile(name: &str, text: &str) -> Result<Vec<String>, String> {
        let path =
            std::env::temp_dir().join(format!("tranche-hostfile-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let read = read_hostfile(&path).map_err(|e| e.to_string());
        std::fs::remove_file(&path).unwrap();
        let p = path.display().to_string();
        read.map_err(|e| {
            e.strip_prefix(&format!("--hostfile {p}: "))
                .unwrap_or(&e)
                .to_owned()
        })
    }

    #[test]
    fn plain_progress_goes_on_after_the_last_slot() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut lines = Lines::new(2, t0);
        let end = 66_000;
        let told: Vec<Option<String>> = vec![
            lines.tell(0, end, at(0)),
            lines.tell(500, end, at(3)),
            lines.tell(6_000, end, at(5)),
            // Past the last slot, slowly: a line every 10 s of wall time.
            lines.tell(7_000, end, at(14)),
            lines.tell(8_000, end, at(15)),
            lines.tell(9_000, end, at(25)),
            lines.tell(65_000, end, at(26)),
        ];
        let want = [
            Some("simulation: block 1's slot reached (0 s of virtual time)"),
            None,
            Some("simulation: block 2's slot reached (6 s of virtual time)"),
            None,
            Some("simulation: 8 of 66 s of virtual time, 15 s elapsed"),
            Some("simulation: 9 of 66 s of virtual time, 25 s elapsed"),
            None,
        ];
        let told: Vec<Option<&str>> = told.iter().map(Option::as_deref).collect();
        assert_eq!(told, want);
    }

    #[test]
    fn a_long_run_is_announced_with_its_estimate() {
        let spec = |yaml: &str| config::parse(&format!("!ApprovalNetwork\n{yaml}"), "t").unwrap();
        assert_eq!(estimate_note(&config::embedded_default(), "d", 1), None);
        let big = spec("n_validators: 400\nn_cores: 80\n");
        assert_eq!(
            estimate_note(&big, "big.yaml", 2).unwrap(),
            "note: big.yaml: 400 validators x 80 cores x 5 blocks: about 442 MiB per process \
             and 72 CPU-s in all (release build)"
        );
        let lossy = spec("n_validators: 200\nn_cores: 40\nloss_probability: 1.0\n");
        let note = estimate_note(&lossy, "l.yaml", 1).unwrap();
        assert!(
            note.ends_with(
                "18 CPU-s in all (release build; up to 250 if no-shows, loss or offline \
                 validators trigger every tranche)"
            ),
            "{note}"
        );
    }

    #[test]
    fn good_lines_comments_and_blanks() {
        let hosts = hostfile("good", "# two\n\n10.0.0.1:2101\n  [::1]:2102  \n").unwrap();
        assert_eq!(hosts, vec!["10.0.0.1:2101", "[::1]:2102"]);
    }

    #[test]
    fn each_bad_line_is_one_line_naming_the_line() {
        let cases = [
            (
                "noport",
                "a:1\nlocalhost\n",
                "line 2: `localhost` is not host:port (no port)",
            ),
            ("emptyport", "a:1\n\nb:\n", "line 3: `b:` has no port"),
            ("nohost", ":2101\n", "line 1: `:2101` has no host"),
            (
                "badport",
                "a:http\n",
                "line 1: `http` in `a:http` is not a port (1 to 65535)",
            ),
            (
                "bigport",
                "a:70000\n",
                "line 1: `70000` in `a:70000` is not a port (1 to 65535)",
            ),
            (
                "zeroport",
                "a:0\n",
                "line 1: `0` in `a:0` is not a port (1 to 65535)",
            ),
            (
                "twice",
                "a:1\nb:2\na:1\n",
                "line 3: `a:1` is already process 0's address",
            ),
            ("empty", "# nothing\n\n", "no host:port line"),
            (
                "escape",
                "\u{1b}]0;pwn\u{7}:2101\n",
                "line 1: `\\u{1b}]0;pwn\\u{7}:2101` is not host:port (a space or control \
                 character inside)",
            ),
        ];
        for (name, text, want) in cases {
            let e = hostfile(name, text).unwrap_err();
            assert_eq!(e, want, "{name}");
            assert_eq!(e.lines().count(), 1);
        }
        // A 1 MB line is quoted cut, with its length.
        let e = hostfile("huge", &format!("{}:2101\n", "A".repeat(1_000_000))).unwrap_err();
        assert_eq!(
            e,
            format!(
                "line 1: `{}…` (1 000 005 bytes) is not host:port (a host name is at most 253 \
                 bytes)",
                "A".repeat(80)
            )
        );
        let missing = std::path::Path::new("/nonexistent/tranche/hosts");
        let e = read_hostfile(missing).unwrap_err().to_string();
        assert!(
            e.starts_with("--hostfile /nonexistent/tranche/hosts: "),
            "{e}"
        );
        assert_eq!(e.lines().count(), 1, "{e}");
    }

    #[test]
    fn fewer_or_more_lines_than_processes_is_an_error() {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            network: NetworkArgs,
        }
        let path =
            std::env::temp_dir().join(format!("tranche-hostfile-{}-count", std::process::id()));
        std::fs::write(&path, "127.0.0.1:2101\n127.0.0.1:2102\n").unwrap();
        let p = path.to_str().unwrap();
        let engine = |processes: &str| {
            let cli = Cli::parse_from(["t", "--processes", processes, "--hostfile", p]);
            engine_of(&cli.network).map_err(|e| e.to_string())
        };
        assert_eq!(engine("2").unwrap().hosts.len(), 2);
        assert_eq!(
            engine("3").unwrap_err(),
            format!("--hostfile {p}: 2 addresses for --processes 3: one line per process")
        );
        // Issue 43: a hostfile for one process would do nothing.
        assert!(engine("1").unwrap_err().contains("it needs --processes N"));
        std::fs::remove_file(&path).unwrap();
    }
}
