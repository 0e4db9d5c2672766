//! One run of Polkadot's approval subsystems on a step of a tranche test
//! sequence, at the real or the virtual clock.
//!
//! [`prepare`] builds tranche's world, makes it Polkadot's chain
//! ([`crate::chain`]) and has tranche generate every peer's assignments and
//! approvals on it; each message is decoded once with Polkadot's own v3
//! wire type. [`run`] then builds the node ([`crate::node`]) and drives
//! it ([`crate::drive`]): each block is imported at the start of its slot
//! and the peers' messages go in when tranche's producer
//! (`tranche_workload::producer`, upstream's sending rules) says they are
//! due. A block's figure is the time from its slot's start to chain
//! selection hearing it is approved (upstream's chain selection mock's
//! "approved after").

use crate::chain::polkadot_chain;
use crate::mocks::Observed;
pub use crate::prepared::{BlockOutcome, Layout, Prepared, SLOT_DURATION_MILLIS};
use crate::spawner::ThreadSpawner;
use crate::virtual_clock::{Pool, VirtualClock};
use crate::{drive, node};
use anyhow::{bail, Context, Result};
use futures::FutureExt;
use parity_scale_codec::{DecodeAll, Encode};
use polkadot_node_network_protocol::v3 as protocol_v3;
use polkadot_node_primitives::approval::time::{slot_number_to_tick, Clock, Tick};
use sp_core::traits::SpawnNamed;
use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};
pub use tranche_bench::floor::FloorMode;
use tranche_config::BenchStep;
use tranche_workload::generate::{generate_in, Show};
use tranche_world::World;

use tranche_primitives::time::TICK_DURATION_MILLIS as TICK_MILLIS;
/// The node under test's name in reports.
pub const NODE_NAME: &str = "polkadot 36.0.0";

/// Make the chain and the peers' messages of `step`.
pub fn prepare(step: &BenchStep, seed: u64) -> Result<Prepared> {
    if step.blocks_per_session.is_some() {
        bail!(
            "{}: blocks_per_session is not supported by tranche-polkadot yet",
            step.name
        );
    }
    if !step.enable_assignments_v2 {
        // polkadot-node-primitives 28.0.0 removed `AssignmentCertKindV2`'s
        // index 2 (the non-compact `RelayVRFModulo`), which tranche's v1
        // tranche-0 assignments are encoded as: they would not decode.
        bail!(
            "{}: Polkadot 36.0.0 decodes only compact tranche-0 assignments; \
             set enable_assignments_v2: true",
            step.name
        );
    }
    let params = step.generation_params(seed);
    let start = Instant::now();
    let cpu_start = tranche_node::process_cpu_time();
    let mut world = World::build(&params);
    let mut chain = polkadot_chain(&mut world);
    let messages = generate_in(&world, &params, Show::Nothing);
    chain.max_approval_coalesce_count = messages
        .bundles
        .iter()
        .flat_map(|b| b.approvals.iter())
        .map(|m| m.candidates.len() as u32)
        .max()
        .unwrap_or(1)
        .max(1);
    let mut decoded = Vec::with_capacity(messages.bundles.len());
    for bundle in &messages.bundles {
        let mut list = Vec::with_capacity(bundle.assignments.len() + bundle.approvals.len());
        for m in bundle.assignments.iter().chain(bundle.approvals.iter()) {
            let bytes = m.message.encode();
            let msg = protocol_v3::ApprovalDistributionMessage::decode_all(&mut &bytes[..])
                .context("a generated message is not Polkadot's v3 wire format")?;
            list.push((msg, bytes.len()));
        }
        decoded.push(list);
    }
    let block_ticks = world
        .blocks
        .iter()
        .map(|b| slot_number_to_tick(SLOT_DURATION_MILLIS, b.slot.into()))
        .collect();
    let network = step.network_config(seed);
    let links = tranche_links::Network::<()>::new(network.clone())
        .map_err(|e| anyhow::anyhow!("{}: invalid network configuration: {e}", step.name))?;
    let connected = (0..step.n_validators)
        .map(|v| v != 0 && links.is_connected(tranche_links::LinkPeer(v - 1)))
        .collect();
    // Made here, on a world of the harness's, never cached: the cache's
    // files hold tranche's own worlds.
    let generation = tranche_bench::run::GenerationReport {
        cache_file: String::new(),
        cache_hit: false,
        time_s: start.elapsed().as_secs_f64(),
        cache_bytes: 0,
        cpu_s: tranche_node::process_cpu_time()
            .saturating_sub(cpu_start)
            .as_secs_f64(),
    };
    Ok(Prepared {
        connected,
        step: step.clone(),
        tranche: tranche_bench::run::Prepared::new(params, world, messages, generation, network),
        chain: Arc::new(chain),
        decoded,
        block_ticks,
    })
}

/// What a run measured.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub layout: Layout,
    pub clock: ClockKind,
    pub blocks: Vec<BlockOutcome>,
    /// CPU seconds per task name, with the number of tasks of that name
    /// (at the real clock each task is a thread of its own).
    pub cpu: Vec<(String, f64, usize)>,
    pub messages_to_node: u64,
    pub bytes_to_node: u64,
    /// Distinct messages the node was sent.
    pub unique_messages: u64,
    /// Approvals the peers withheld to make no-shows.
    pub withheld_approvals: u64,
    /// Copies the emulated links lost or refused.
    pub lost: u64,
    /// Copies the peers handed to the links (what `tranche run` counts as
    /// deliveries; some may still be in flight when the run ends).
    pub messages_sent: u64,
    /// The crypto floor of the unique messages the node was sent
    /// (`crate::floor`); `None` with `--floor off`.
    pub floor: Option<tranche_bench::floor::CryptoFloor>,
    pub floor_mode: FloorMode,
    pub messages_from_node: u64,
    pub bytes_from_node: u64,
    pub wall_s: f64,
    /// Requests the harness had no answer for.
    pub unanswered: Vec<String>,
    /// The unapproved blocks' candidates upstream's sending rule left
    /// without the assignments that would cover their no-shows
    /// (`Producer::stalls`): such a block cannot be approved whatever the
    /// node does.
    pub stalled: Vec<tranche_bench::run::Stall>,
}

impl RunOutcome {
    pub fn all_approved(&self) -> bool {
        self.blocks.iter().all(|b| b.approved_after_s.is_some())
    }

    /// CPU seconds of the node's own tasks (`floor::is_node_task`).
    pub fn node_cpu_s(&self) -> f64 {
        self.cpu
            .iter()
            .filter(|(name, _, _)| crate::floor::is_node_task(name))
            .map(|(_, s, _)| s)
            .sum()
    }

    /// The node's CPU ÷ the floor's, where a floor was measured.
    pub fn floor_ratio(&self) -> Option<f64> {
        let floor = self.floor.as_ref()?.cpu.as_secs_f64();
        (floor > 0.0).then(|| self.node_cpu_s() / floor)
    }
}

/// Polkadot's clock over wall time, tick `base` at `start`.
#[derive(Clone)]
pub struct RealClock {
    start: Instant,
    base: Tick,
}

impl Clock for RealClock {
    fn tick_now(&self) -> Tick {
        self.base + self.start.elapsed().as_millis() as u64 / TICK_MILLIS
    }

    fn wait(&self, tick: Tick) -> Pin<Box<dyn futures::Future<Output = ()> + Send + 'static>> {
        let at = self.start + Duration::from_millis(tick.saturating_sub(self.base) * TICK_MILLIS);
        let now = Instant::now();
        if at <= now {
            Box::pin(futures::future::ready(()))
        } else {
            Box::pin(futures_timer::Delay::new(at - now))
        }
    }
}

/// Which clock drives a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockKind {
    /// Wall time; the subsystems on their own threads.
    Real,
    /// Ticks the driver moves when the node is idle; one thread.
    Virtual,
}

impl ClockKind {
    pub fn name(self) -> &'static str {
        match self {
            ClockKind::Real => "real",
            ClockKind::Virtual => "virtual",
        }
    }
}

/// The overseer's future, telling `observed` when it ends.
fn watched(
    overseer: impl futures::Future<Output = ()> + Send + 'static,
    observed: &Arc<Observed>,
) -> futures::future::BoxFuture<'static, ()> {
    let observed = observed.clone();
    overseer
        .map(move |()| observed.overseer_stopped.store(true, Ordering::SeqCst))
        .boxed()
}

fn cpu_list(cpu: BTreeMap<&'static str, (Duration, usize)>) -> Vec<(String, f64, usize)> {
    cpu.into_iter()
        .map(|(name, (cpu, tasks))| (name.to_owned(), cpu.as_secs_f64(), tasks))
        .collect()
}

/// Run `prepared` once in `layout` on `clock`; `progress` lines go to
/// stderr.
pub fn run(
    prepared: &Prepared,
    layout: Layout,
    clock: ClockKind,
    progress: bool,
) -> Result<RunOutcome> {
    run_with_floor(prepared, layout, clock, progress, FloorMode::Off)
}

/// [`run`], then the crypto floor of the messages the node was sent,
/// measured in `floor` mode (`crate::floor`).
pub fn run_with_floor(
    prepared: &Prepared,
    layout: Layout,
    clock: ClockKind,
    progress: bool,
    floor: FloorMode,
) -> Result<RunOutcome> {
    let observed = Observed::new(prepared.chain.blocks.len());
    let first_tick = *prepared
        .block_ticks
        .first()
        .context("a step without blocks")?;
    let start = Instant::now();
    let (driven, cpu) = match clock {
        ClockKind::Real => {
            let spawner = ThreadSpawner::default();
            let real_clock = RealClock {
                start,
                base: first_tick,
            };
            let (overseer, mut handle) = node::build(
                prepared,
                layout,
                spawner.clone(),
                Arc::new(real_clock.clone()),
                &observed,
            )?;
            spawner.start("overseer", watched(overseer.run(), &observed));
            let driven = futures::executor::block_on(drive::real(
                prepared,
                layout,
                &observed,
                &real_clock,
                start,
                &mut handle,
                progress,
            ));
            let cpu = cpu_list(spawner.cpu_by_name());
            futures::executor::block_on(handle.stop());
            let driven = driven?;
            (driven, cpu)
        }
        ClockKind::Virtual => {
            let mut pool = Pool::new();
            let virtual_clock = VirtualClock::new(first_tick);
            let spawner = pool.spawner();
            let (overseer, mut handle) = node::build(
                prepared,
                layout,
                spawner.clone(),
                Arc::new(virtual_clock.clone()),
                &observed,
            )?;
            spawner.spawn("overseer", None, watched(overseer.run(), &observed));
            let driven = drive::virtual_ticks(
                prepared,
                layout,
                &observed,
                &virtual_clock,
                &mut pool,
                &mut handle,
                progress,
            );
            let cpu = cpu_list(pool.cpu_by_name());
            pool.run(handle.stop());
            pool.settle();
            (driven?, cpu)
        }
    };
    let unanswered = observed
        .unanswered
        .lock()
        .expect("not poisoned")
        .iter()
        .cloned()
        .collect();
    let wall_s = start.elapsed().as_secs_f64();
    let seed = prepared.tranche.params.seed;
    let measured = match floor {
        FloorMode::Off => None,
        mode => Some(crate::floor::measure(
            prepared,
            &driven.delivered.unique,
            mode,
            seed,
        )?),
    };
    Ok(RunOutcome {
        floor: measured,
        floor_mode: floor,
        layout,
        clock,
        blocks: driven.blocks,
        cpu,
        messages_to_node: driven.delivered.messages,
        unique_messages: driven.delivered.unique.len() as u64,
        withheld_approvals: driven.withheld_approvals,
        lost: driven.lost,
        messages_sent: driven.sent,
        bytes_to_node: driven.delivered.bytes,
        stalled: driven.stalled,
        messages_from_node: observed.sent_messages.load(Ordering::Relaxed),
        bytes_from_node: observed.sent_bytes.load(Ordering::Relaxed),
        wall_s,
        unanswered,
    })
}
