//! The benchmark run (upstream `polkadot/node/subsystem-bench/src/lib/approval/mod.rs`,
//! `bench_approvals`): the messages of a step prepared once (`prepare`),
//! then one run per layout (`run_step`): the one driver (`driver`) runs the
//! node under test (`under_test`: the real node, `real`, or its model,
//! `model` — the only difference between `--node real` and `--node model`
//! is which is built) among emulated peers tick by tick, and `assemble`
//! turns the finished run into its report. Under the virtual clock each
//! tick is: wakeups, block imports, deliveries, then the node run at its
//! moments (the real node drained until idle; wakeups an import or a
//! delivery makes due within the tick run in it, as upstream's do) —
//! deterministic protocol timing. Under the real clock the same schedule runs against wall time.

mod approvals;
mod assemble;
mod chain;
mod driver;
mod meter;
mod model;
mod real;
mod restart;
mod under_test;
pub use assemble::stalls;
pub(crate) use restart::check as check_restart;

pub use model::ModelOptions;

pub use tranche_cli::progress::{Phase, Progress};

use anyhow::{Context, Result};
use driver::Driver;
use parity_scale_codec::Encode;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tranche_config::generation::GenerationParams;
use tranche_config::resolve::Plan;
use tranche_config::BenchStep;
use tranche_links::NetworkConfig;
use tranche_node::{Architecture, Clock, StoreConfig};
use tranche_primitives::time::TICK_DURATION_MILLIS;
use tranche_primitives::{Tick, ValidationProtocol};
use tranche_prometheus::Exporter;
pub use tranche_report::{GenerationReport, RunReport, Stall};
use tranche_workload::generate::cache::GeneratedMessages;
use tranche_workload::generate::world::World;
use tranche_workload::generate::{load_or_generate, CacheOutcome, Show};

/// Which clock drives a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockKind {
    Real,
    Virtual,
}

/// Where the node under test keeps its approval database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DbKind {
    Memory,
    Redb,
    /// ParityDB, Polkadot's parachains database.
    ParityDb,
}

impl ClockKind {
    /// `real` or `virtual`, as reports name it.
    pub fn name(self) -> &'static str {
        match self {
            ClockKind::Real => "real",
            ClockKind::Virtual => "virtual",
        }
    }
}

/// Options of one run beside the test-sequence step.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub architecture: Architecture,
    pub clock: ClockKind,
    pub seed: u64,
    pub cache_dir: PathBuf,
    pub db: DbKind,
    /// What the run tells on stderr as it goes.
    pub progress: Progress,
    /// How the crypto floor is measured (`floor.rs`).
    pub floor: crate::floor::FloorMode,
    /// Keep the database in this folder (one subfolder per step and
    /// layout) instead of a temporary one removed at the end.
    pub db_path: Option<PathBuf>,
    /// Crash and restart the node at the start of this block's slot
    /// (`restart.rs`).
    pub restart_at_block: Option<u32>,
    /// Batched signatures and the checking order (`--signatures`,
    /// `--schedule`).
    pub checks: tranche_node::CheckPolicy,
    /// The node under test: the real node on threads, or the simulation's
    /// model of it (`--node model`, `model.rs`).
    pub node: NodeUnderTest,
}

/// What runs as the node under test.
#[derive(Debug, Clone, Default)]
pub enum NodeUnderTest {
    /// The node (`crates/node`) on real threads.
    #[default]
    Real,
    /// One validator of the simulation's model on its modelled CPU.
    Model(ModelOptions),
}

/// How long the node may take to drain one virtual tick.
pub(super) const IDLE_TIMEOUT: Duration = Duration::from_secs(600);
/// Ticks a run may go on after its last block's slot, beyond the longest
/// tranche and no-show window, before blocks that are still unapproved are
/// reported as such.
pub(super) const GRACE_TICKS: Tick = 40;
/// How often the real-clock driver samples the run for plots and the
/// Prometheus endpoint: once a tick, as the virtual-clock driver does.
pub(super) const REAL_SAMPLE_EVERY: Duration = Duration::from_millis(TICK_DURATION_MILLIS);

/// Messages of a step, generated or loaded, with how they were obtained.
pub struct Prepared {
    pub params: GenerationParams,
    pub world: World,
    pub messages: GeneratedMessages,
    pub generation: GenerationReport,
    /// Each message's encoded notification, shared by every copy: per
    /// bundle, its assignments then its approvals (a `MessageId`).
    pub encoded: Vec<Vec<Arc<[u8]>>>,
    /// The step's emulated network (its plan's, `config::resolve`).
    pub network: NetworkConfig,
}

/// The process's CPU seconds since `start`.
fn cpu_since(start: Duration) -> f64 {
    tranche_node::process_cpu_time()
        .saturating_sub(start)
        .as_secs_f64()
}

/// Load or generate the messages of a step.
pub fn prepare(plan: &Plan, options: &RunOptions) -> Result<Prepared> {
    let params = plan.generation.clone();
    let start = Instant::now();
    let cpu_start = tranche_node::process_cpu_time();
    let phase = options.progress.phase_without_bar("generation");
    let lines = GenerationLines::new();
    let tell = |done, total| lines.tell(done, total);
    let show = match options.progress {
        Progress::Bars => Show::Bar,
        Progress::Lines => Show::Told(&tell),
        Progress::Quiet => Show::Nothing,
    };
    let (world, messages, outcome) = load_or_generate(&params, &options.cache_dir, show)?;
    let generation = match outcome {
        CacheOutcome::Hit { path, .. } => GenerationReport {
            cache_file: path.display().to_string(),
            cache_hit: true,
            time_s: start.elapsed().as_secs_f64(),
            cache_bytes: std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0),
            cpu_s: cpu_since(cpu_start),
        },
        CacheOutcome::Generated {
            path,
            rejected,
            bytes,
            not_stored,
            ..
        } => {
            if let Some(why) = rejected {
                tranche_cli::errln!("warning: {why}; regenerated it");
            }
            if let Some(why) = not_stored {
                tranche_cli::errln!("warning: {why}; going on with the messages in memory");
            }
            GenerationReport {
                cache_file: path.display().to_string(),
                cache_hit: false,
                time_s: start.elapsed().as_secs_f64(),
                cache_bytes: bytes,
                cpu_s: cpu_since(cpu_start),
            }
        }
    };
    phase.finish(&format!(
        "{} ({})",
        generation.cache_file,
        if generation.cache_hit {
            "cache hit"
        } else {
            "generated"
        }
    ));
    Ok(Prepared::new(
        params,
        world,
        messages,
        generation,
        plan.network.clone(),
    ))
}

impl Prepared {
    /// A step's world and messages, however they were obtained (loaded,
    /// generated here, or made by another harness on a world of its own,
    /// as `tranche-polkadot`'s cross-check does), each message encoded
    /// once for the links.
    pub fn new(
        params: GenerationParams,
        world: World,
        messages: GeneratedMessages,
        generation: GenerationReport,
        network: NetworkConfig,
    ) -> Prepared {
        let encoded = messages
            .bundles
            .iter()
            .map(|b| {
                b.assignments
                    .iter()
                    .chain(&b.approvals)
                    .map(|m| {
                        ValidationProtocol::ApprovalDistribution(m.message.clone())
                            .encode()
                            .into()
                    })
                    .collect()
            })
            .collect();
        Prepared {
            params,
            world,
            messages,
            generation,
            encoded,
            network,
        }
    }
}

/// Generation's progress without a terminal: a line at each tenth of the
/// validators done, with the time so far and the time left.
struct GenerationLines {
    start: Instant,
    /// The last tenth told.
    told: std::sync::atomic::AtomicU64,
}

impl GenerationLines {
    fn new() -> GenerationLines {
        GenerationLines {
            start: Instant::now(),
            told: std::sync::atomic::AtomicU64::new(0),
        }
    }

    fn tell(&self, done: u64, total: u64) {
        let tenth = done * 10 / total.max(1);
        let before = self
            .told
            .fetch_max(tenth, std::sync::atomic::Ordering::Relaxed);
        if tenth <= before || done >= total {
            return;
        }
        let elapsed = self.start.elapsed();
        let left = tranche_cli::progress::eta(done, total, elapsed)
            .map_or_else(String::new, |l| format!(", about {} s left", l.as_secs()));
        tranche_cli::errln!(
            "generation: {done} of {total} validators' messages ({} %), {:.1} s{left}",
            tenth * 10,
            elapsed.as_secs_f64()
        );
    }
}

/// Run one step of a test sequence with one architecture.
pub fn run_step(step: &BenchStep, prepared: &Prepared, options: &RunOptions) -> Result<RunReport> {
    run_step_observed(step, prepared, options, None)
}

/// [`run_step`], with the run's live figures served by `exporter`.
pub fn run_step_observed(
    step: &BenchStep,
    prepared: &Prepared,
    options: &RunOptions,
    exporter: Option<&Exporter>,
) -> Result<RunReport> {
    let layout = options.architecture.label();
    // The driver runs on a thread of its own named for the layout, so that
    // profiles tell the runs of one invocation apart (`profile.rs`).
    let on_driver_thread = |run: &(dyn Fn() -> Result<RunReport> + Sync)| {
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name(format!("env {layout}"))
                .spawn_scoped(scope, run)
                .context("cannot start the driver thread")?
                .join()
                .unwrap_or_else(|_| Err(anyhow::anyhow!("the driver thread panicked")))
        })
    };
    let chain = || chain::Chain::new(step, prepared);
    match &options.node {
        NodeUnderTest::Real => {
            restart::check(
                options.restart_at_block,
                step.num_blocks,
                options.db != DbKind::Memory,
            )?;
            // A temporary folder with a random name, removed when the guard
            // drops (also on an error or a panic); or the user's, kept.
            let (store, _guard) = database(step, options)?;
            on_driver_thread(&|| {
                let chain = chain();
                let clock = match options.clock {
                    ClockKind::Virtual => Clock::virtual_at(chain.first_tick),
                    ClockKind::Real => Clock::real(chain.first_tick),
                };
                let links = chain.links_and_producer()?;
                let meter = meter::Meter::start();
                let node = real::RealNode::start(&chain, &links.0, options, &clock, store.clone())?;
                let exporter = exporter.map(|e| (e, options));
                let d = Driver::new(chain, links, (node, clock), meter, exporter);
                drive(d, "", options)
            })
        }
        NodeUnderTest::Model(model) => on_driver_thread(&|| {
            let chain = chain();
            // The model's time is virtual.
            let clock = Clock::virtual_at(chain.first_tick);
            let links = chain.links_and_producer()?;
            let meter = meter::Meter::start();
            let node = model::ModelNode::start(&chain, &links.0, options, model)?;
            let d = Driver::new(chain, links, (node, clock), meter, None);
            drive(d, " (model)", options)
        }),
    }
}

/// Run a driver to its end and assemble the report, its progress told as
/// the phase `run LAYOUT` (with `suffix`).
fn drive<N: under_test::UnderTest>(
    mut d: Driver<'_, N>,
    suffix: &str,
    options: &RunOptions,
) -> Result<RunReport> {
    let layout = options.architecture.label();
    let phase = options
        .progress
        .phase(&format!("run {layout}{suffix}"), "blocks", d.blocks());
    let start = std::time::SystemTime::now();
    d.run_ticks(&phase)?;
    let blocks = d.blocks();
    let finished = d.finish(&phase)?;
    crate::profile::label_window(&layout, start, std::time::SystemTime::now());
    let approved = finished.approved.iter().filter(|a| a.is_some()).count();
    phase.finish(&format!(
        "{approved} of {} approved",
        tranche_cli::text::counted(blocks as usize, "block")
    ));
    assemble::report(finished, options)
}

/// Where the run's node keeps its database, and the guard of a temporary
/// folder. With `--db-path DIR`: `DIR/<step>/<layout>/approvals.redb` (a
/// file) or `approvals.paritydb` (a folder): one an earlier run left is
/// removed at the start, anything else there refused; kept after the run.
fn database(
    step: &BenchStep,
    options: &RunOptions,
) -> Result<(StoreConfig, Option<tempfile::TempDir>)> {
    if options.db == DbKind::Memory {
        return Ok((StoreConfig::Memory, None));
    }
    let (dir, guard) = match &options.db_path {
        Some(root) => {
            let step_dir: String = step
                .name
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            let dir = root
                .join(step_dir)
                .join(options.architecture.label().replace('/', "-"));
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("cannot create {}", tranche_cli::text::path(&dir)))?;
            (dir, None)
        }
        None => {
            let tmp = tempfile::Builder::new()
                .prefix("tranche-db-")
                .tempdir()
                .context("cannot create a temporary database folder")?;
            (tmp.path().to_path_buf(), Some(tmp))
        }
    };
    let (kind, name) = match options.db {
        DbKind::ParityDb => (tranche_store::Kind::ParityDb, "approvals.paritydb"),
        _ => (tranche_store::Kind::Redb, "approvals.redb"),
    };
    let path = dir.join(name);
    // Only a database an earlier run made is removed; anything else there
    // is refused and left as it is (tranche_store::clear).
    tranche_store::clear(kind, &path)?;
    // The configuration the database belongs to: a restart of this run
    // opens it again, nothing else does.
    let config = format!(
        "{}; {}; seed {}; {} validators, {} cores, {} blocks",
        step.name,
        options.architecture.label(),
        options.seed,
        step.n_validators,
        step.n_cores,
        step.num_blocks
    );
    let place = tranche_store::Place::new(path, &config);
    Ok(match kind {
        tranche_store::Kind::ParityDb => (StoreConfig::ParityDb(place), guard),
        tranche_store::Kind::Redb => (StoreConfig::Redb(place), guard),
    })
}
