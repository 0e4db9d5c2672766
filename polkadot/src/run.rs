//! One run of Polkadot's approval subsystems on a step of a tranche test
//! sequence, at the real clock.
//!
//! [`prepare`] builds tranche's world, makes it Polkadot's chain
//! ([`crate::chain`]) and has tranche generate every peer's assignments and
//! approvals on it; each message is decoded once with Polkadot's own v3
//! wire type. [`run`] then builds an overseer (Polkadot's
//! `dummy_overseer_builder`) in which approval-voting and
//! approval-distribution (classic) or approval-voting-parallel (parallel)
//! are Polkadot's and the rest is the harness ([`crate::mocks`]), connects
//! the emulated peers, and drives it tick by tick: each block is imported
//! at the start of its slot and the peers' messages go in when tranche's
//! producer (`tranche_workload::producer`, upstream's sending rules) says
//! they are due. A block's figure is the time from its import to chain
//! selection hearing it is approved.

use crate::chain::{polkadot_chain, Chain};
use crate::mocks::{self, Mock, Observed};
use crate::spawner::ThreadSpawner;
use anyhow::{bail, Context, Result};
use futures::FutureExt;
use parity_scale_codec::{DecodeAll, Encode};
use polkadot_approval_distribution::ApprovalDistribution;
use polkadot_node_core_approval_voting::{
    ApprovalVotingSubsystem, Config as ApprovalVotingConfig, RealAssignmentCriteria,
};
use polkadot_node_core_approval_voting_parallel::ApprovalVotingParallelSubsystem;
use polkadot_node_network_protocol::grid_topology::{SessionGridTopology, TopologyPeerInfo};
use polkadot_node_network_protocol::peer_set::ValidationVersion;
use polkadot_node_network_protocol::{
    self as net_protocol, v3 as protocol_v3, ObservedRole, OurView, ValidationProtocols, View,
};
use polkadot_node_primitives::approval::time::{slot_number_to_tick, Clock, Tick};
use polkadot_node_subsystem::messages::network_bridge_event::NewGossipTopology;
use polkadot_node_subsystem::messages::{
    ApprovalDistributionMessage, ApprovalVotingParallelMessage, NetworkBridgeEvent,
};
use polkadot_node_subsystem_util::database::Database;
use polkadot_overseer::{AllMessages, BlockInfo, Handle, SpawnGlue};
use polkadot_primitives::{ValidatorIndex, ASSIGNMENT_KEY_TYPE_ID, PARACHAIN_KEY_TYPE_ID};
use sc_keystore::LocalKeystore;
use sp_keystore::Keystore;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tranche_config::BenchStep;
use tranche_workload::generate::{generate_in, Show};
use tranche_workload::producer::{Delivery, Producer, ProducerOptions};
use tranche_world::World;

/// Polkadot's slot length, as the benchmark's chain has it.
pub const SLOT_DURATION_MILLIS: u64 = 6_000;
const TICK_MILLIS: u64 = 500;
/// Ticks a run may go on after the last block's slot, beyond its
/// tranches, before blocks still unapproved are reported as such.
const GRACE_TICKS: Tick = 40;
/// The node under test's name in reports.
pub const NODE_NAME: &str = "polkadot 36.0.0";

/// Which of Polkadot's node layouts runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// approval-voting and approval-distribution, each a subsystem.
    Classic,
    /// approval-voting-parallel with its workers.
    Parallel,
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::Classic => "classic",
            Layout::Parallel => "parallel",
        }
    }
}

/// A step's chain and messages, made once and run in any layout.
pub struct Prepared {
    pub step: BenchStep,
    pub world: World,
    pub chain: Arc<Chain>,
    pub bundles: Vec<tranche_workload::generate::bundles::Bundle>,
    /// Each message decoded as Polkadot's v3 type, by bundle, then its
    /// assignments followed by its approvals (tranche's `MessageId`).
    pub decoded: Vec<Vec<(protocol_v3::ApprovalDistributionMessage, usize)>>,
    /// Tick of each block's slot start.
    pub block_ticks: Vec<Tick>,
}

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
    Ok(Prepared {
        step: step.clone(),
        world,
        chain: Arc::new(chain),
        bundles: messages.bundles,
        decoded,
        block_ticks,
    })
}

/// A block's outcome.
#[derive(Debug, Clone)]
pub struct BlockOutcome {
    pub number: u32,
    /// Seconds from the run's start to the block's import.
    pub imported_s: f64,
    /// Seconds from the import to chain selection hearing it is approved.
    pub approved_after_s: Option<f64>,
}

/// What a run measured.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub layout: Layout,
    pub blocks: Vec<BlockOutcome>,
    /// CPU seconds per thread name, with the number of threads of that name.
    pub cpu: Vec<(String, f64, usize)>,
    pub messages_to_node: u64,
    pub bytes_to_node: u64,
    pub messages_from_node: u64,
    pub bytes_from_node: u64,
    pub wall_s: f64,
    /// Requests the harness had no answer for.
    pub unanswered: Vec<String>,
}

impl RunOutcome {
    pub fn all_approved(&self) -> bool {
        self.blocks.iter().all(|b| b.approved_after_s.is_some())
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

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn keystore(prepared: &Prepared) -> Result<Arc<LocalKeystore>> {
    let keystore = LocalKeystore::in_memory();
    let node = tranche_world::NODE_UNDER_TEST.0 as usize;
    let (validator_seed, assignment_seed) = prepared.chain.node_seeds;
    let keys = [
        (
            PARACHAIN_KEY_TYPE_ID,
            validator_seed,
            prepared.world.pairs[node].id().0,
        ),
        (
            ASSIGNMENT_KEY_TYPE_ID,
            assignment_seed,
            prepared.world.assignment_pairs[node].id().0,
        ),
    ];
    for (key_type, seed, public) in keys {
        keystore
            .insert(key_type, &format!("0x{}", hex(&seed)), &public)
            .map_err(|()| anyhow::anyhow!("the keystore refused the node's {key_type:?} key"))?;
    }
    Ok(Arc::new(keystore))
}

fn to_node(
    layout: Layout,
    event: NetworkBridgeEvent<net_protocol::ApprovalDistributionMessage>,
) -> AllMessages {
    match layout {
        Layout::Classic => AllMessages::ApprovalDistribution(
            ApprovalDistributionMessage::NetworkBridgeUpdate(event),
        ),
        Layout::Parallel => AllMessages::ApprovalVotingParallel(
            ApprovalVotingParallelMessage::NetworkBridgeUpdate(event),
        ),
    }
}

fn topology(chain: &Chain) -> SessionGridTopology {
    let peers = chain
        .peer_ids
        .iter()
        .zip(&chain.discovery_keys)
        .enumerate()
        .map(|(i, (peer, key))| TopologyPeerInfo {
            peer_ids: vec![*peer],
            validator_index: ValidatorIndex(i as u32),
            discovery_id: key.clone(),
        })
        .collect::<Vec<_>>();
    // The identity shuffle, as tranche's generation routes the grid.
    SessionGridTopology::new((0..peers.len()).collect(), peers)
}

/// Run `prepared` once in `layout` at the real clock; `progress` lines go
/// to stderr.
pub fn run(prepared: &Prepared, layout: Layout, progress: bool) -> Result<RunOutcome> {
    let chain = prepared.chain.clone();
    let n_blocks = chain.blocks.len();
    let observed = Observed::new(n_blocks);
    let spawner = ThreadSpawner::default();
    let first_tick = *prepared
        .block_ticks
        .first()
        .context("a step without blocks")?;
    let clock = RealClock {
        start: Instant::now(),
        base: first_tick,
    };
    let db = kvdb_memorydb::create(1);
    let db: Arc<dyn Database> =
        Arc::new(polkadot_node_subsystem_util::database::kvdb_impl::DbAdapter::new(db, &[]));
    let keystore = keystore(prepared)?;
    let config = || ApprovalVotingConfig {
        col_approval_data: 0,
        slot_duration_millis: SLOT_DURATION_MILLIS,
    };

    let chain_api = Mock(mocks::ChainApi {
        chain: chain.clone(),
        observed: observed.clone(),
    });
    let runtime_api = Mock(mocks::RuntimeApi {
        chain: chain.clone(),
        observed: observed.clone(),
    });
    let chain_selection = Mock(mocks::ChainSelection {
        chain: chain.clone(),
        observed: observed.clone(),
    });
    let bridge_tx = Mock(mocks::NetworkBridgeTx {
        observed: observed.clone(),
    });
    let builder = polkadot_overseer::dummy::dummy_overseer_builder(
        spawner.clone(),
        mocks::AlwaysSupportsParachains,
        None,
    )
    .context("building the overseer")?
    .replace_chain_api(move |_| chain_api)
    .replace_runtime_api(move |_| runtime_api)
    .replace_chain_selection(move |_| chain_selection)
    .replace_network_bridge_tx(move |_| bridge_tx)
    .replace_availability_recovery(|_| Mock(mocks::AvailabilityRecovery))
    .replace_candidate_validation(|_| Mock(mocks::CandidateValidation));

    let (overseer, raw_handle) = match layout {
        Layout::Classic => {
            let voting = ApprovalVotingSubsystem::with_config_and_clock(
                config(),
                db,
                keystore,
                Box::new(mocks::NeverSyncing),
                Default::default(),
                Arc::new(clock.clone()),
                Arc::new(SpawnGlue(spawner.clone())),
                // As `ApprovalVotingSubsystem::with_config`: 16 retries,
                // half the 120 s checking timeout apart.
                16,
                Duration::from_secs(60),
            );
            let distribution = ApprovalDistribution::new_with_clock(
                Default::default(),
                SLOT_DURATION_MILLIS,
                Arc::new(clock.clone()),
                Arc::new(RealAssignmentCriteria {}),
            );
            builder
                .replace_approval_voting(move |_| voting)
                .replace_approval_distribution(move |_| distribution)
                .build()
        }
        Layout::Parallel => {
            let parallel = ApprovalVotingParallelSubsystem::with_config_and_clock(
                config(),
                db,
                keystore,
                Box::new(mocks::NeverSyncing),
                Default::default(),
                Arc::new(clock.clone()),
                SpawnGlue(spawner.clone()),
                None,
            );
            builder
                .replace_approval_voting_parallel(move |_| parallel)
                .build()
        }
    }
    .context("starting the overseer")?;
    let mut handle = Handle::new(raw_handle);
    spawner.start("overseer", overseer.run().boxed());

    let outcome = futures::executor::block_on(drive(
        prepared,
        layout,
        &chain,
        &observed,
        &clock,
        &mut handle,
        progress,
    ));
    let cpu = spawner
        .cpu_by_name()
        .into_iter()
        .map(|(name, (cpu, threads))| (name.to_owned(), cpu.as_secs_f64(), threads))
        .collect();
    futures::executor::block_on(handle.stop());
    let (blocks, to_node, wall_s) = outcome?;
    let unanswered = observed
        .unanswered
        .lock()
        .expect("not poisoned")
        .iter()
        .cloned()
        .collect();
    Ok(RunOutcome {
        layout,
        blocks,
        cpu,
        messages_to_node: to_node.0,
        bytes_to_node: to_node.1,
        messages_from_node: observed.sent_messages.load(Ordering::Relaxed),
        bytes_from_node: observed.sent_bytes.load(Ordering::Relaxed),
        wall_s,
        unanswered,
    })
}

type Driven = (Vec<BlockOutcome>, (u64, u64), f64);

async fn drive(
    prepared: &Prepared,
    layout: Layout,
    chain: &Chain,
    observed: &Observed,
    clock: &RealClock,
    handle: &mut Handle,
    progress: bool,
) -> Result<Driven> {
    let step = &prepared.step;
    let n = chain.peer_ids.len();
    for v in 1..n {
        let event = NetworkBridgeEvent::PeerConnected(
            chain.peer_ids[v],
            ObservedRole::Authority,
            ValidationVersion::V3.into(),
            Some([chain.discovery_keys[v].clone()].into_iter().collect()),
        );
        handle
            .send_msg(to_node(layout, event), "tranche-polkadot")
            .await;
    }
    let event = NetworkBridgeEvent::NewGossipTopology(NewGossipTopology {
        session: chain.first_session,
        topology: topology(chain),
        local_index: Some(ValidatorIndex(tranche_world::NODE_UNDER_TEST.0)),
    });
    handle
        .send_msg(to_node(layout, event), "tranche-polkadot")
        .await;

    let mut producer = Producer::new(
        &prepared.bundles,
        prepared.block_ticks.clone(),
        ProducerOptions {
            needed_approvals: step.session.needed_approvals,
            num_no_shows_per_candidate: step.num_no_shows_per_candidate,
            stop_when_approved: step.stop_when_approved,
            last_considered_tranche: step.send_limit_tranche(),
        },
    );
    // The harness keeps every block's unpin handle alive for the run.
    let (unpin_tx, _unpin_rx) = sc_utils::mpsc::tracing_unbounded("tranche-polkadot-unpin", 1_000);
    let mut imported: Vec<Option<Instant>> = vec![None; chain.blocks.len()];
    let mut approved_told = vec![false; chain.blocks.len()];
    let last_tick = *prepared.block_ticks.last().expect("blocks")
        + GRACE_TICKS
        + Tick::from(step.session.n_delay_tranches);
    let (mut messages, mut bytes) = (0u64, 0u64);
    let mut due: Vec<Delivery> = Vec::new();
    loop {
        let now = clock.tick_now();
        for (b, block) in chain.blocks.iter().enumerate() {
            if imported[b].is_some() || prepared.block_ticks[b] > now {
                continue;
            }
            let info = BlockInfo {
                hash: block.hash,
                parent_hash: block.header.parent_hash,
                number: block.header.number,
                unpin_handle: polkadot_overseer::UnpinHandle::new(block.hash, unpin_tx.clone()),
            };
            handle.block_imported(info).await;
            imported[b] = Some(Instant::now());
            let (tx, rx) = futures::channel::oneshot::channel();
            handle.wait_for_activation(block.hash, tx).await;
            rx.await
                .context("the overseer stopped")?
                .map_err(|e| anyhow::anyhow!("block {} not activated: {e}", b + 1))?;
            // What the network bridge tells on a new leaf: approval
            // distribution keeps the messages of a block in its view that
            // approval-voting has not announced yet, and drops others.
            let event = NetworkBridgeEvent::OurViewChange(OurView::new([block.hash], 0));
            handle
                .send_msg(to_node(layout, event), "tranche-polkadot")
                .await;
            for v in 1..n {
                let event = NetworkBridgeEvent::PeerViewChange(
                    chain.peer_ids[v],
                    View::new([block.hash], 0),
                );
                handle
                    .send_msg(to_node(layout, event), "tranche-polkadot")
                    .await;
            }
            producer.block_initialised(b as u32);
            if progress {
                eprintln!("block {} imported", block.header.number);
            }
        }
        {
            let approved = observed.approved.lock().expect("not poisoned");
            for (b, at) in approved.iter().enumerate() {
                if at.is_some() && !approved_told[b] {
                    approved_told[b] = true;
                    producer.block_approved(b as u32);
                    if progress {
                        eprintln!("block {} approved", b + 1);
                    }
                }
            }
        }
        if approved_told.iter().all(|a| *a) || now > last_tick {
            break;
        }
        due.clear();
        producer.poll(now, &mut due);
        for d in due.drain(..) {
            let (msg, len) = &prepared.decoded[d.id.bundle as usize][d.id.index as usize];
            let event = NetworkBridgeEvent::PeerMessage(
                chain.peer_ids[d.sender as usize],
                ValidationProtocols::V3(msg.clone()),
            );
            handle
                .send_msg(to_node(layout, event), "tranche-polkadot")
                .await;
            messages += 1;
            bytes += *len as u64;
        }
        futures_timer::Delay::new(Duration::from_millis(20)).await;
    }
    let approved = observed.approved.lock().expect("not poisoned").clone();
    let blocks = chain
        .blocks
        .iter()
        .enumerate()
        .map(|(b, block)| BlockOutcome {
            number: block.header.number,
            imported_s: imported[b]
                .map(|at| at.duration_since(clock.start).as_secs_f64())
                .unwrap_or(f64::NAN),
            approved_after_s: match (imported[b], approved[b]) {
                (Some(i), Some(a)) => Some(a.saturating_duration_since(i).as_secs_f64()),
                _ => None,
            },
        })
        .collect();
    Ok((
        blocks,
        (messages, bytes),
        clock.start.elapsed().as_secs_f64(),
    ))
}
