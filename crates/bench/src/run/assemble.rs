//! The report of a finished run, one for both nodes under test: CPU per
//! thread and per block and the node's own figures (`under_test.rs`'s
//! `NodeFigures`), the crypto floor of the messages the peers sent, bytes,
//! counts, per-block approval times, stalls and the samples for the plots.

use super::driver::Finished;
use super::RunOptions;
use crate::floor::{self, FloorMode};
use anyhow::{bail, Result};
use tranche_cli::progress::Progress;
use tranche_report::{BlockReport, CpuRow, NetworkReport, RunReport};

/// Assemble the report of a finished run, of either node under test.
pub(super) fn report(f: Finished<'_>, options: &RunOptions) -> Result<RunReport> {
    let (step, prepared) = (f.step, f.prepared);
    let world = &prepared.world;
    // Before the floor: the run's peak, not the floor's.
    let peak_memory = f.meter.peak_rss.bytes();
    let floor = measure_floor(world, &f.session, &f.producer.sent, options)?;
    let blocks_n = f64::from(step.num_blocks.max(1));
    let node = f.node;
    let cpu: Vec<CpuRow> = node
        .threads
        .into_iter()
        .map(|(name, s, node)| CpuRow {
            name,
            total_s: s,
            per_block_s: s / blocks_n,
            node,
        })
        .collect();
    let node_cpu: f64 = cpu.iter().filter(|c| c.node).map(|c| c.total_s).sum();
    let mut counts = f.counts;
    counts.unique_messages = f.producer.stats.unique_messages;
    counts.withheld_approvals = f.producer.stats.withheld_approvals;
    counts.verifications = node.verifications;
    let stalls = stalls(world, &f.approved, &f.producer, step.n_validators);
    Ok(RunReport {
        name: step.name.clone(),
        architecture: options.architecture.name().into(),
        workers: options.architecture.distribution_workers(),
        clock: f.clock.into(),
        seed: options.seed,
        n_validators: step.n_validators,
        n_cores: step.n_cores,
        num_blocks: step.num_blocks,
        blocks: block_reports(world, &f.approved, &f.approved_after_ms),
        network: network_report(f.links.node_counters(), blocks_n),
        cpu,
        node_cpu_s: node_cpu,
        counts,
        generation: prepared.generation.clone(),
        crypto_floor: floor.report(options.floor, node_cpu, blocks_n),
        wall_time_s: f.wall.as_secs_f64(),
        peak_memory_bytes: peak_memory,
        protocol: node.protocol,
        samples: f.meter.samples,
        repeats: None,
        restart: node.restart,
        schedule: node.schedule,
        database: node.database,
        checks: node.checks,
        signatures: node.signatures.into(),
        stalls,
        node_under_test: node.kind.into(),
    })
}

/// Each block: its number, the tick and the ms after its slot it was
/// approved.
fn block_reports(
    world: &tranche_workload::generate::world::World,
    approved: &[Option<u64>],
    after_ms: &[Option<u64>],
) -> Vec<BlockReport> {
    world
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| BlockReport {
            number: b.number,
            approved_tick: approved[i],
            approved_after_ms: after_ms[i],
        })
        .collect()
}

/// The node's bytes in and out, in all and per block.
fn network_report(node: &tranche_links::TrafficCounters, blocks_n: f64) -> NetworkReport {
    NetworkReport {
        received_bytes: node.bytes_received,
        sent_bytes: node.bytes_sent,
        received_kib_per_block: node.bytes_received as f64 / 1024.0 / blocks_n,
        sent_kib_per_block: node.bytes_sent as f64 / 1024.0 / blocks_n,
    }
}

/// The candidates of the blocks never approved that upstream's sending
/// rule stalled (`Producer::stalls`); `approved`: each block's approval,
/// if any (`tranche-polkadot` reports its runs' stalls the same way).
pub fn stalls(
    world: &tranche_workload::generate::world::World,
    approved: &[Option<u64>],
    producer: &tranche_workload::producer::Producer<'_>,
    n_validators: u32,
) -> Vec<tranche_report::Stall> {
    let mut out = Vec::new();
    for (i, b) in world.blocks.iter().enumerate() {
        if approved.get(i).is_some_and(Option::is_some) {
            continue;
        }
        for s in producer.stalls(i as u32, n_validators) {
            out.push(tranche_report::Stall {
                block: b.number,
                candidate: s.candidate,
                no_shows: s.no_shows,
                max_tranche: s.max_tranche,
                window: s.window,
                last_sent: s.last_sent,
                next_tranche: s.next_tranche,
            });
        }
    }
    out
}

/// Measure the crypto floor of the run's unique messages (`floor.rs`) on a
/// thread of its own, so that the profile shows it in its own frame,
/// `crypto-floor`, not inside the run's driver.
fn measure_floor(
    world: &tranche_workload::generate::world::World,
    session: &tranche_primitives::Session,
    sent: &[(u32, &tranche_workload::generate::bundles::TestMessage)],
    options: &RunOptions,
) -> Result<floor::CryptoFloor> {
    let messages =
        floor::FloorMessages::new(world, sent.iter().copied(), options.floor, options.seed);
    let name = format!("crypto floor ({})", options.floor.name());
    // Nothing measured, nothing told (`calibrate --check` said "crypto
    // floor (off): started (0 messages)" at each of its runs).
    let progress = match options.floor {
        FloorMode::Off => Progress::Quiet,
        _ => options.progress,
    };
    let phase = progress.phase(&name, "messages", messages.len() as u64);
    let floor = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("crypto-floor".into())
            .spawn_scoped(scope, || messages.measure(session, &phase))
            .map(|h| h.join())
    });
    let floor = match floor {
        Ok(Ok(floor)) => floor,
        Ok(Err(_)) => bail!("the crypto floor's thread panicked"),
        Err(e) => bail!("cannot start the crypto floor's thread: {e}"),
    };
    phase.finish(&format!(
        "{} of {} verified",
        floor.sampled_assignment_messages + floor.sampled_approval_messages,
        tranche_cli::text::counted(
            floor.assignment_messages + floor.approval_messages,
            "unique message"
        )
    ));
    if floor.failures > 0 {
        bail!(
            "{} generated messages failed their own crypto check",
            floor.failures
        );
    }
    Ok(floor)
}
