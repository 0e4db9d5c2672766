//! The two drivers of a run. Both connect every other validator as a peer,
//! send the gossip topology, import each block at the start of its slot
//! (with the views the network bridge would tell) and deliver the peers'
//! messages when tranche's producer says they are due.
//!
//! - [`real`]: the subsystems on their own threads; the driver polls wall
//!   time every 20 ms.
//! - [`virtual_ticks`]: every task on one thread ([`crate::virtual_clock`]);
//!   per tick the driver moves the clock, lets the node run until nothing
//!   can progress, imports, delivers and lets it run again. Times are in
//!   ticks (500 ms each), the same messages at the same ticks every run.

use crate::chain::Chain;
use crate::inbound::Inbound;
use crate::mocks::Observed;
use crate::node::{to_node, topology};
use crate::prepared::{BlockOutcome, Layout, Prepared};
use crate::virtual_clock::{Pool, VirtualClock};
use anyhow::{Context, Result};
use polkadot_node_network_protocol::peer_set::ValidationVersion;
use polkadot_node_network_protocol::{ObservedRole, OurView, ValidationProtocols, View};
use polkadot_node_primitives::approval::time::{Clock, Tick};
use polkadot_node_subsystem::messages::network_bridge_event::NewGossipTopology;
use polkadot_node_subsystem::messages::NetworkBridgeEvent;
use polkadot_overseer::{BlockInfo, Handle};
use polkadot_primitives::{Block, ValidatorIndex};
use sc_client_api::UnpinWorkerMessage;
use sc_utils::mpsc::TracingUnboundedSender;
use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tranche_primitives::time::TICK_DURATION_MILLIS;
use tranche_workload::producer::{Delivery, MessageId, Producer, ProducerOptions};

/// Ticks a run may go on after the last block's slot, beyond its
/// tranches, before blocks still unapproved are reported as such.
const GRACE_TICKS: Tick = 40;
const ORIGIN: &str = "tranche-polkadot";
/// Seconds per tick.
const TICK_S: f64 = TICK_DURATION_MILLIS as f64 / 1000.0;

/// Each block's outcome from the moments it was imported and approved
/// (wall instants or ticks): `at` the import's seconds since the first,
/// `after` the seconds from import to approval.
fn outcomes<T: Copy>(
    chain: &Chain,
    imported: &[Option<T>],
    approved: &[Option<T>],
    at: impl Fn(T) -> f64,
    after: impl Fn(usize, T) -> f64,
) -> Vec<BlockOutcome> {
    (0..chain.blocks.len())
        .map(|b| BlockOutcome {
            number: chain.blocks[b].header.number,
            imported_s: imported[b].map(&at).unwrap_or(f64::NAN),
            approved_after_s: match (imported[b], approved[b]) {
                (Some(_), Some(a)) => Some(after(b, a)),
                _ => None,
            },
        })
        .collect()
}

/// What a driver observed.
pub struct Driven {
    pub blocks: Vec<BlockOutcome>,
    pub delivered: Delivered,
    /// The unapproved blocks' candidates the sending rule stalled.
    pub stalled: Vec<tranche_bench::run::Stall>,
    /// Approvals the producer withheld to make no-shows.
    pub withheld_approvals: u64,
    /// Copies the emulated links lost or refused.
    pub lost: u64,
    /// Copies the peers handed to the links (some may be in flight at the
    /// end).
    pub sent: u64,
}

/// The unapproved blocks' candidates upstream's sending rule stalled, as
/// tranche's own runs report them.
fn stalled(
    prepared: &Prepared,
    producer: &Producer<'_>,
    blocks: &[BlockOutcome],
) -> Vec<tranche_bench::run::Stall> {
    let approved: Vec<Option<u64>> = blocks
        .iter()
        .map(|b| b.approved_after_s.map(|_| 0))
        .collect();
    tranche_bench::run::stalls(
        &prepared.tranche.world,
        &approved,
        producer,
        prepared.step.n_validators,
    )
}

/// Messages and bytes delivered to the node, and the unique messages in
/// the order first delivered (the crypto floor's).
#[derive(Default, Clone)]
pub struct Delivered {
    pub messages: u64,
    pub bytes: u64,
    pub unique: Vec<MessageId>,
    seen: HashSet<MessageId>,
}

async fn connect_peers(handle: &mut Handle, prepared: &Prepared, layout: Layout) {
    let chain = &prepared.chain;
    for v in (1..chain.peer_ids.len()).filter(|v| prepared.connected[*v]) {
        let event = NetworkBridgeEvent::PeerConnected(
            chain.peer_ids[v],
            ObservedRole::Authority,
            ValidationVersion::V3.into(),
            Some([chain.discovery_keys[v].clone()].into_iter().collect()),
        );
        handle.send_msg(to_node(layout, event), ORIGIN).await;
    }
    let event = NetworkBridgeEvent::NewGossipTopology(NewGossipTopology {
        session: chain.first_session,
        topology: topology(chain),
        local_index: Some(ValidatorIndex(tranche_world::NODE_UNDER_TEST.0)),
    });
    handle.send_msg(to_node(layout, event), ORIGIN).await;
}

/// Import block `b`, wait for the overseer to activate it, then tell the
/// node's view and every peer's.
async fn import_block(
    handle: &mut Handle,
    prepared: &Prepared,
    layout: Layout,
    b: usize,
    unpin: &TracingUnboundedSender<UnpinWorkerMessage<Block>>,
) -> Result<()> {
    let chain = &prepared.chain;
    let block = &chain.blocks[b];
    let info = BlockInfo {
        hash: block.hash,
        parent_hash: block.header.parent_hash,
        number: block.header.number,
        unpin_handle: polkadot_overseer::UnpinHandle::new(block.hash, unpin.clone()),
    };
    handle.block_imported(info).await;
    let (tx, rx) = futures::channel::oneshot::channel();
    handle.wait_for_activation(block.hash, tx).await;
    rx.await
        .context("the overseer stopped")?
        .map_err(|e| anyhow::anyhow!("block {} not activated: {e}", b + 1))?;
    // What the network bridge tells on a new leaf: approval distribution
    // keeps the messages of a block in its view that approval-voting has
    // not announced yet, and drops others.
    let event = NetworkBridgeEvent::OurViewChange(OurView::new([block.hash], 0));
    handle.send_msg(to_node(layout, event), ORIGIN).await;
    for v in 1..chain.peer_ids.len() {
        let event =
            NetworkBridgeEvent::PeerViewChange(chain.peer_ids[v], View::new([block.hash], 0));
        handle.send_msg(to_node(layout, event), ORIGIN).await;
    }
    Ok(())
}

/// Hand the messages the links delivered to the node, in their order.
async fn deliver(
    handle: &mut Handle,
    prepared: &Prepared,
    layout: Layout,
    arrivals: &[(u32, MessageId)],
    delivered: &mut Delivered,
) {
    for &(sender, id) in arrivals {
        let (msg, len) = &prepared.decoded[id.bundle as usize][id.index as usize];
        let event = NetworkBridgeEvent::PeerMessage(
            prepared.chain.peer_ids[sender as usize],
            ValidationProtocols::V3(msg.clone()),
        );
        handle.send_msg(to_node(layout, event), ORIGIN).await;
        delivered.messages += 1;
        delivered.bytes += *len as u64;
        if delivered.seen.insert(id) {
            delivered.unique.push(id);
        }
    }
}

fn producer(prepared: &Prepared) -> Producer<'_> {
    let step = &prepared.step;
    let mut producer = Producer::new(
        &prepared.tranche.messages.bundles,
        prepared.block_ticks.clone(),
        ProducerOptions {
            needed_approvals: step.session.needed_approvals,
            num_no_shows_per_candidate: step.num_no_shows_per_candidate,
            stop_when_approved: step.stop_when_approved,
            last_considered_tranche: step.send_limit_tranche(),
        },
    );
    producer.set_reachable(prepared.connected.clone());
    producer
}

/// The last tick a run goes on to: past the last block's tranches and
/// every no-show window a candidate may suffer
/// (`BenchStep::drain_ticks`, as tranche's own runs), then a grace.
fn last_tick(prepared: &Prepared) -> Tick {
    let drain = prepared.step.drain_ticks().unwrap_or(u64::MAX / 4);
    prepared
        .block_ticks
        .last()
        .expect("a step has blocks")
        .saturating_add(drain)
        .saturating_add(GRACE_TICKS)
}

/// Blocks chain selection has newly heard approved, told to the producer.
fn newly_approved(
    observed: &Observed,
    told: &mut [bool],
    producer: &mut Producer<'_>,
) -> Vec<usize> {
    let approved = observed.approved.lock().expect("not poisoned");
    let mut out = Vec::new();
    for (b, at) in approved.iter().enumerate() {
        if at.is_some() && !told[b] {
            told[b] = true;
            producer.block_approved(b as u32);
            out.push(b);
        }
    }
    out
}

/// Whether the run is over: every block approved and every message the
/// peers would still send sent (as tranche's own driver ends, so that both
/// nodes are sent the same messages).
fn done(told: &[bool], producer: &Producer<'_>) -> bool {
    told.iter().all(|a| *a) && producer.is_done()
}

/// An error when the overseer has stopped before the run's end.
fn check_running(observed: &Observed) -> Result<()> {
    if observed.overseer_stopped.load(Ordering::SeqCst) {
        anyhow::bail!(
            "the overseer stopped before the run's end: one of Polkadot's subsystems \
             exited or failed"
        );
    }
    Ok(())
}

/// The real-clock driver (subsystems on their own threads).
pub async fn real(
    prepared: &Prepared,
    layout: Layout,
    observed: &Observed,
    clock: &impl Clock,
    start: Instant,
    handle: &mut Handle,
    progress: bool,
) -> Result<Driven> {
    let chain = &prepared.chain;
    connect_peers(handle, prepared, layout).await;
    let mut producer = producer(prepared);
    let first = prepared.block_ticks[0];
    let mut inbound = Inbound::new(prepared, first)?;
    // The harness keeps every block's unpin handle alive for the run.
    let (unpin_tx, _unpin_rx) = sc_utils::mpsc::tracing_unbounded("tranche-polkadot-unpin", 1_000);
    let mut imported: Vec<Option<Instant>> = vec![None; chain.blocks.len()];
    let mut told = vec![false; chain.blocks.len()];
    let last = last_tick(prepared);
    let mut delivered = Delivered::default();
    let mut due: Vec<Delivery> = Vec::new();
    loop {
        check_running(observed)?;
        let now = clock.tick_now();
        for (b, &slot_tick) in prepared.block_ticks.iter().enumerate() {
            if imported[b].is_none() && slot_tick <= now {
                import_block(handle, prepared, layout, b, &unpin_tx).await?;
                imported[b] = Some(Instant::now());
                producer.block_initialised(b as u32);
                if progress {
                    eprintln!("block {} imported", b + 1);
                }
            }
        }
        for b in newly_approved(observed, &mut told, &mut producer) {
            if progress {
                eprintln!("block {} approved", b + 1);
            }
        }
        if done(&told, &producer) || now > last {
            break;
        }
        due.clear();
        producer.poll(now, &mut due);
        inbound.send(prepared, inbound.time_of(now), &due);
        let arrivals = inbound.arrivals(inbound.time_of(first) + start.elapsed());
        deliver(handle, prepared, layout, &arrivals, &mut delivered).await;
        futures_timer::Delay::new(Duration::from_millis(20)).await;
    }
    let approved = observed.approved.lock().expect("not poisoned").clone();
    let blocks = outcomes(
        chain,
        &imported,
        &approved,
        |at| at.duration_since(start).as_secs_f64(),
        // From the block's slot start, as upstream's chain selection mock
        // and `tranche run` count it: a block the harness could import
        // only late (the overseer busy) is not credited with the delay.
        |b, a| {
            let slot =
                Duration::from_millis((prepared.block_ticks[b] - first) * TICK_DURATION_MILLIS);
            a.saturating_duration_since(start + slot).as_secs_f64()
        },
    );
    Ok(Driven {
        stalled: stalled(prepared, &producer, &blocks),
        withheld_approvals: producer.stats.withheld_approvals,
        lost: inbound.lost,
        sent: inbound.sent,
        blocks,
        delivered,
    })
}

/// The virtual-clock driver: every task on `pool`, time moved by ticks.
pub fn virtual_ticks(
    prepared: &Prepared,
    layout: Layout,
    observed: &Observed,
    clock: &VirtualClock,
    pool: &mut Pool,
    handle: &mut Handle,
    progress: bool,
) -> Result<Driven> {
    let chain = &prepared.chain;
    let first = prepared.block_ticks[0];
    clock.set(first);
    pool.run(connect_peers(handle, prepared, layout));
    pool.settle();
    let mut producer = producer(prepared);
    let mut inbound = Inbound::new(prepared, first)?;
    let (unpin_tx, _unpin_rx) = sc_utils::mpsc::tracing_unbounded("tranche-polkadot-unpin", 1_000);
    let mut imported: Vec<Option<Tick>> = vec![None; chain.blocks.len()];
    let mut approved: Vec<Option<Tick>> = vec![None; chain.blocks.len()];
    let mut told = vec![false; chain.blocks.len()];
    let last = last_tick(prepared);
    let mut delivered = Delivered::default();
    let mut due: Vec<Delivery> = Vec::new();
    let mut now = first;
    loop {
        clock.set(now);
        pool.settle();
        check_running(observed)?;
        for (b, &slot_tick) in prepared.block_ticks.iter().enumerate() {
            if imported[b].is_none() && slot_tick <= now {
                pool.run(import_block(handle, prepared, layout, b, &unpin_tx))?;
                pool.settle();
                imported[b] = Some(now);
                producer.block_initialised(b as u32);
                if progress {
                    eprintln!("block {} imported at tick {}", b + 1, now - first);
                }
            }
        }
        due.clear();
        producer.poll(now, &mut due);
        // The tick's deliveries leave at its start; what the links deliver
        // before the next tick arrives in this one (as `tranche run`'s
        // virtual clock delivers it).
        inbound.send(prepared, inbound.time_of(now), &due);
        let arrivals = inbound.arrivals(inbound.time_of(now + 1) - Duration::from_nanos(1));
        pool.run(deliver(handle, prepared, layout, &arrivals, &mut delivered));
        pool.settle();
        for b in newly_approved(observed, &mut told, &mut producer) {
            approved[b] = Some(now);
            if progress {
                eprintln!("block {} approved at tick {}", b + 1, now - first);
            }
        }
        if done(&told, &producer) || now > last {
            break;
        }
        now += 1;
    }
    let blocks = outcomes(
        chain,
        &imported,
        &approved,
        |t| (t - first) as f64 * TICK_S,
        |b, a| a.saturating_sub(prepared.block_ticks[b]) as f64 * TICK_S,
    );
    Ok(Driven {
        stalled: stalled(prepared, &producer, &blocks),
        withheld_approvals: producer.stats.withheld_approvals,
        lost: inbound.lost,
        sent: inbound.sent,
        blocks,
        delivered,
    })
}
