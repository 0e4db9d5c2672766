//! The report of a finished run: CPU per thread and per block, the
//! crypto floor of the messages the peers sent, bytes, counts, protocol
//! counters, per-block approval times and the samples for the plots.

use super::driver::Finished;
use super::{peak_memory_bytes, RunOptions};
use crate::floor;
use anyhow::{bail, Result};
use tranche_node::ASSIGNMENT_KINDS;
use tranche_node::{process_cpu_time, thread_cpu_time};
use tranche_report::{
    BlockReport, ChecksReport, CpuRow, DatabaseReport, FloorReport, NetworkReport, ProtocolReport,
    RunReport,
};

/// Reputation changes by kind, those of the node before a restart
/// included.
fn reputation_by_kind(
    metrics: &tranche_node::NodeMetrics,
    before: Option<&tranche_node::NodeMetrics>,
) -> std::collections::BTreeMap<String, u64> {
    let mut by_kind = std::collections::BTreeMap::new();
    for m in std::iter::once(metrics).chain(before) {
        for (kind, n) in m.protocol.reputation_changes() {
            *by_kind.entry(kind.to_owned()).or_insert(0) += n;
        }
    }
    by_kind
}

/// What `--schedule useful-first` cost; `None` under `fifo`.
fn schedule_report(
    metrics: &tranche_node::NodeMetrics,
    options: &RunOptions,
) -> Option<tranche_report::ScheduleReport> {
    if options.checks.schedule != tranche_node::Schedule::UsefulFirst {
        return None;
    }
    let [ahead, rest] = metrics.schedule.quantiles();
    Some(tranche_report::ScheduleReport {
        ahead_messages: ahead.count,
        ahead_p50_ms: ahead.p50_ms,
        ahead_p99_ms: ahead.p99_ms,
        rest_messages: rest.count,
        rest_p50_ms: rest.p50_ms,
        rest_p99_ms: rest.p99_ms,
        backlog_peak: metrics.schedule.backlog_peak(),
    })
}

/// Stop the node of a finished run and assemble its report.
pub(super) fn report(f: Finished<'_>, options: &RunOptions) -> Result<RunReport> {
    let (step, prepared) = (f.step, f.prepared);
    let world = &prepared.world;
    let wall = f.meter.wall_start.elapsed();
    let driver_cpu = thread_cpu_time().saturating_sub(f.meter.driver_cpu_start);
    let metrics = f.node.shutdown()?;
    log_database(step, options, &metrics);
    // Before the floor: the run's peak, not the floor's.
    let peak_memory = peak_memory_bytes(f.meter.peak_rss);
    let process_cpu = process_cpu_time().saturating_sub(f.meter.process_cpu_start);

    let floor = measure_floor(world, &f.session, &f.producer.sent, options)?;

    let blocks_n = f64::from(step.num_blocks.max(1));
    let before = f.restart.before.as_ref();
    let (cpu, node_cpu) = cpu_rows(&metrics, before, process_cpu, driver_cpu, blocks_n);
    let mut counts = f.counts;
    counts.unique_messages = f.producer.stats.unique_messages;
    counts.withheld_approvals = f.producer.stats.withheld_approvals;
    counts.verifications = metrics.verifications();
    let stalls = stalls(world, &f.approved, &f.producer, step.n_validators);
    let node_counters = f.net.node_counters();
    let p = &metrics.protocol;
    Ok(RunReport {
        name: step.name.clone(),
        architecture: options.architecture.name().into(),
        workers: options.architecture.distribution_workers(),
        clock: options.clock.name().into(),
        seed: options.seed,
        n_validators: step.n_validators,
        n_cores: step.n_cores,
        num_blocks: step.num_blocks,
        blocks: block_reports(world, &f.approved, &f.approved_after_ms),
        network: network_report(node_counters, blocks_n),
        cpu,
        node_cpu_s: node_cpu,
        counts,
        generation: prepared.generation.clone(),
        crypto_floor: floor_report(&floor, options, node_cpu, blocks_n),
        wall_time_s: wall.as_secs_f64(),
        peak_memory_bytes: peak_memory,
        protocol: protocol_report(&metrics, before),
        samples: f.meter.samples,
        repeats: None,
        restart: f.restart.done,
        schedule: schedule_report(&metrics, options),
        database: DatabaseReport {
            commits: p.db_commits(),
            fsyncs: p.db_fsyncs(),
            commits_per_block: p.db_commits() as f64 / blocks_n,
            cpu_s: p.db_seconds(),
            cpu_per_block_s: p.db_seconds() / blocks_n,
        },
        checks: {
            let (round_trips, round_trip_us) = p.round_trip();
            ChecksReport {
                round_trips,
                round_trip_us,
                checked_ahead: p.checked_ahead_taken(),
                ahead_unused: p.ahead_unused(),
            }
        },
        signatures: match options.checks.signatures {
            _ if options.architecture.layout == tranche_node::Layout::Classic => "one-by-one",
            tranche_node::SignatureCheck::Batched => "batched",
            tranche_node::SignatureCheck::OneByOne => "one-by-one",
        }
        .into(),
        stalls,
        node_under_test: "real".into(),
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

/// The database's commits and the reputation changes, to the log.
fn log_database(
    step: &tranche_config::BenchStep,
    options: &RunOptions,
    metrics: &tranche_node::NodeMetrics,
) {
    let blocks = f64::from(step.num_blocks.max(1));
    let p = &metrics.protocol;
    log::info!(
        "{} {}: database {} commits, {} fsyncs ({:.1} and {:.1} per block)",
        step.name,
        options.architecture.name(),
        p.db_commits(),
        p.db_fsyncs(),
        p.db_commits() as f64 / blocks,
        p.db_fsyncs() as f64 / blocks,
    );
    for (kind, n) in p.reputation_changes() {
        if n > 0 {
            log::info!("reputation changes \"{kind}\": {n}");
        }
    }
}

/// CPU per thread of the node (a restarted node's threads counted with
/// those before the crash), the rest of the process as `other`, and the
/// test environment (the driver's thread); and the node's total.
fn cpu_rows(
    metrics: &tranche_node::NodeMetrics,
    before: Option<&tranche_node::NodeMetrics>,
    process_cpu: std::time::Duration,
    driver_cpu: std::time::Duration,
    blocks_n: f64,
) -> (Vec<CpuRow>, f64) {
    let row = |name: &str, s: f64, node: bool| CpuRow {
        name: name.into(),
        total_s: s,
        per_block_s: s / blocks_n,
        node,
    };
    let mut cpu = Vec::new();
    let mut node_cpu = 0.0;
    for w in &metrics.workers {
        // After a restart the same thread names ran twice: both count.
        let earlier = before
            .and_then(|m| m.workers.iter().find(|p| p.name == w.name))
            .map_or(0.0, |p| p.cpu_seconds());
        let s = w.cpu_seconds() + earlier;
        node_cpu += s;
        cpu.push(row(&w.name, s, true));
    }
    let env_s = driver_cpu.as_secs_f64();
    let other = (process_cpu.as_secs_f64() - node_cpu - env_s).max(0.0);
    cpu.push(row("other", other, true));
    node_cpu += other;
    cpu.push(row("test-environment", env_s, false));
    (cpu, node_cpu)
}

/// The protocol's counters, reputation changes before a restart included.
fn protocol_report(
    metrics: &tranche_node::NodeMetrics,
    before: Option<&tranche_node::NodeMetrics>,
) -> ProtocolReport {
    let p = &metrics.protocol;
    ProtocolReport {
        imported_candidates: p.imported_candidates(),
        assignments_imported: ASSIGNMENT_KINDS
            .iter()
            .zip(p.assignments_imported())
            .map(|(k, v)| ((*k).to_owned(), v))
            .collect(),
        approvals_imported: p.approvals_imported(),
        candidates_approved: p.candidates_approved(),
        approved_by_one_third: p.approved_by_one_third(),
        no_shows: p.no_shows(),
        observed_no_shows: p.observed_no_shows(),
        reputation_changes: reputation_by_kind(metrics, before),
    }
}

/// The candidates of the blocks never approved that upstream's sending
/// rule stalled (`Producer::stalls`).
fn stalls(
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
    let phase = options
        .progress
        .phase(&name, "messages", messages.len() as u64);
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
        "{} of {} unique messages verified",
        floor.sampled_assignment_messages + floor.sampled_approval_messages,
        floor.assignment_messages + floor.approval_messages
    ));
    if floor.failures > 0 {
        bail!(
            "{} generated messages failed their own crypto check",
            floor.failures
        );
    }
    Ok(floor)
}

/// The floor as the report shows it, beside the node's CPU.
fn floor_report(
    floor: &floor::CryptoFloor,
    options: &RunOptions,
    node_cpu: f64,
    blocks_n: f64,
) -> FloorReport {
    let floor_s = floor.cpu.as_secs_f64();
    let batched = floor.batched_cpu.as_secs_f64();
    FloorReport {
        assignments: floor.assignments,
        approvals: floor.approvals,
        cpu_s: floor_s,
        per_block_s: floor_s / blocks_n,
        node_ratio: if floor_s > 0.0 {
            node_cpu / floor_s
        } else {
            0.0
        },
        mode: options.floor.name().into(),
        assignment_messages: floor.assignment_messages,
        approval_messages: floor.approval_messages,
        sampled_assignment_messages: floor.sampled_assignment_messages,
        sampled_approval_messages: floor.sampled_approval_messages,
        interval_s: floor.interval_s,
        batched_cpu_s: batched,
        batched_per_block_s: batched / blocks_n,
        node_ratio_batched: if batched > 0.0 {
            node_cpu / batched
        } else {
            0.0
        },
    }
}

/// The report of a run of the modelled node (`model.rs`): the real node's
/// shape, with the modelled CPU of each of its threads and no database,
/// protocol counters or round trips (the model keeps none).
pub(super) fn model_report(
    f: super::model::ModelFinished<'_>,
    options: &RunOptions,
) -> Result<RunReport> {
    let (step, prepared) = (f.step, f.prepared);
    let world = &prepared.world;
    let peak_memory = peak_memory_bytes(super::PeakMemory::Sampled(0));
    let floor = measure_floor(world, &f.session, &f.producer.sent, options)?;
    let blocks_n = f64::from(step.num_blocks.max(1));
    let environment = |name: &str| name == tranche_model::cpu::shape::ENVIRONMENT_THREAD;
    let cpu: Vec<CpuRow> = f
        .threads
        .iter()
        .map(|(name, s)| CpuRow {
            name: name.clone(),
            total_s: *s,
            per_block_s: s / blocks_n,
            node: !environment(name),
        })
        .collect();
    let node_cpu: f64 = f
        .threads
        .iter()
        .filter(|(name, _)| !environment(name))
        .map(|(_, s)| s)
        .sum();
    let mut counts = f.counts;
    counts.unique_messages = f.producer.stats.unique_messages;
    counts.withheld_approvals = f.producer.stats.withheld_approvals;
    let stalls = stalls(world, &f.approved, &f.producer, step.n_validators);
    let node_counters = f.links.node_counters();
    Ok(RunReport {
        name: step.name.clone(),
        architecture: options.architecture.name().into(),
        workers: options.architecture.distribution_workers(),
        clock: "virtual".into(),
        seed: options.seed,
        n_validators: step.n_validators,
        n_cores: step.n_cores,
        num_blocks: step.num_blocks,
        blocks: block_reports(world, &f.approved, &f.approved_after_ms),
        network: network_report(node_counters, blocks_n),
        cpu,
        node_cpu_s: node_cpu,
        counts,
        generation: prepared.generation.clone(),
        crypto_floor: floor_report(&floor, options, node_cpu, blocks_n),
        wall_time_s: f.wall.as_secs_f64(),
        peak_memory_bytes: peak_memory,
        protocol: ProtocolReport::default(),
        samples: f.samples,
        repeats: None,
        restart: None,
        schedule: None,
        database: DatabaseReport::default(),
        checks: ChecksReport::default(),
        // The model charges the parallel layout's workers
        // `approval_batched` per signature (docs/network.md), the classic
        // voting thread `approval`: each is judged by that floor.
        signatures: if options.architecture.layout == tranche_node::Layout::Classic {
            "one-by-one"
        } else {
            "batched"
        }
        .into(),
        stalls,
        node_under_test: "model".into(),
    })
}
