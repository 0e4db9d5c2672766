//! The upstream twins of `tranche run --prometheus` (`mod.rs` serves
//! them): subsystem-bench's gauges and per-peer counters
//! (`polkadot/node/subsystem-bench/src/lib/network.rs`), approval-voting's
//! (`polkadot/node/core/approval-voting/src/lib.rs` `Metrics`),
//! approval-distribution's
//! (`polkadot/node/network/approval-distribution/src/metrics.rs`) and
//! approval-voting-parallel's per-worker channels
//! (`polkadot/node/core/approval-voting-parallel/src/metrics.rs`), and the
//! task manager's polling time, which upstream's benchmark reads as CPU
//! (`substrate/client/service/src/task_manager/mod.rs`), under upstream's
//! names and labels. What upstream has and the node cannot
//! serve is listed in `docs/observability.md`.

use super::encode::{counter, encode_histogram, family, gauge, labelled};
use super::live::{lock, LiveRun};
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use std::fmt;
use std::sync::atomic::Ordering;
use tranche_metrics::ASSIGNMENT_KINDS;

/// subsystem-bench's own gauges and its per-peer network counters.
pub(crate) fn encode_subsystem_bench(enc: &mut DescriptorEncoder, run: &LiveRun) -> fmt::Result {
    gauge(
        enc,
        "subsystem_benchmark_n_validators",
        "Validators of the benchmark",
        f64::from(run.n_validators),
    )?;
    gauge(
        enc,
        "subsystem_benchmark_n_cores",
        "Cores of the benchmark",
        f64::from(run.n_cores),
    )?;
    gauge(
        enc,
        "subsystem_benchmark_current_block",
        "The block being imported (1-based)",
        run.current_block.load(Ordering::Relaxed) as f64,
    )?;
    let peers = lock(&run.peers).clone();
    let peer_series = |pick: fn(&(u64, u64)) -> u64| -> Vec<(Vec<(&str, String)>, u64)> {
        peers
            .iter()
            .enumerate()
            .map(|(i, v)| (vec![("peer", format!("validator-{}", i + 1))], pick(v)))
            .collect()
    };
    // Upstream's counters without a `_total` suffix: typed `unknown`
    // so that the names stay as upstream's dashboards know them.
    type Pick = fn(&(u64, u64)) -> u64;
    for (dir, pick) in [("sent", (|v| v.0) as Pick), ("received", |v| v.1)] {
        labelled(
            enc,
            &format!("subsystem_benchmark_network_peer_total_bytes_{dir}"),
            &format!("Bytes each emulated peer {dir}"),
            MetricType::Unknown,
            &peer_series(pick),
            |e, v| ConstGauge::new(*v).encode(e),
        )?;
    }
    Ok(())
}

/// Upstream's gauge of candidates not yet approved in the unfinalized
/// chain: the benchmark finalizes nothing while it runs (the driver's
/// `finalized_number: 0`), so every imported candidate is in it, and the
/// unapproved are those imported less those approved.
fn unapproved_candidates(imported: u64, approved: u64) -> u64 {
    imported.saturating_sub(approved)
}

/// approval-voting's counters and approval-time histograms, under upstream's names.
pub(crate) fn encode_approval_voting(enc: &mut DescriptorEncoder, run: &LiveRun) -> fmt::Result {
    let p = &run.node.protocol;
    counter(
        enc,
        "polkadot_parachain_imported_candidates",
        "Candidates imported with new blocks",
        p.imported_candidates(),
    )?;
    counter(
        enc,
        "polkadot_parachain_approvals_no_shows",
        "No-shows tolerated when a candidate got approved",
        p.no_shows(),
    )?;
    counter(
        enc,
        "polkadot_parachain_approvals_observed_no_shows",
        "No-shows observed",
        p.observed_no_shows(),
    )?;
    counter(
        enc,
        "polkadot_parachain_approvals_wakeups",
        "Wakeups processed",
        p.wakeups(),
    )?;
    // A counter upstream, without `_total`: typed `unknown`, as above.
    let e = family(
        enc,
        "polkadot_parachain_approved_by_one_third",
        "Candidates approved through the one-third rule",
        MetricType::Unknown,
    )?;
    ConstGauge::new(p.approved_by_one_third()).encode(e)?;
    encode_histogram(
        family(
            enc,
            "polkadot_parachain_approvals_candidate_approval_time_ticks",
            "Ticks since the block's slot start when a candidate got approved",
            MetricType::Histogram,
        )?,
        &p.candidate_approval_ticks.snapshot(),
        1.0,
    )?;
    encode_histogram(
        family(
            enc,
            "polkadot_parachain_approvals_blockapproval_time_ticks",
            "Ticks since the block's slot start when a block got approved",
            MetricType::Histogram,
        )?,
        &p.block_approval_ticks.snapshot(),
        1.0,
    )?;
    gauge(
        enc,
        "polkadot_parachain_approval_unapproved_candidates_in_unfinalized_chain",
        "Number of unapproved candidates in unfinalized chain",
        unapproved_candidates(p.imported_candidates(), p.candidates_approved()) as f64,
    )?;
    Ok(())
}

/// approval-distribution's import counters, under upstream's names.
pub(crate) fn encode_approval_distribution(
    enc: &mut DescriptorEncoder,
    run: &LiveRun,
) -> fmt::Result {
    let p = &run.node.protocol;
    let kinds = p.assignments_imported();
    let kind_series: Vec<(Vec<(&str, String)>, u64)> = ASSIGNMENT_KINDS
        .iter()
        .zip(kinds)
        .map(|(k, v)| (vec![("kind", (*k).to_owned())], v))
        .collect();
    labelled(
        enc,
        "polkadot_parachain_assignments_imported",
        "Assignments accepted (ours and peers')",
        MetricType::Counter,
        &kind_series,
        |e, v| ConstCounter::new(*v).encode(e),
    )?;
    counter(
        enc,
        "polkadot_parachain_approvals_imported",
        "Approval votes accepted (ours and peers')",
        p.approvals_imported(),
    )?;
    Ok(())
}

/// approval-voting-parallel's per-worker channel gauges (both layouts).
pub(crate) fn encode_parallel_channels(enc: &mut DescriptorEncoder, run: &LiveRun) -> fmt::Result {
    let chans = &run.node.channels;
    let by_kind = |bounded: bool| {
        chans
            .iter()
            .filter(move |c| c.capacity.is_some() == bounded)
            .map(|c| {
                let name = c.name.strip_suffix("-prio").unwrap_or(&c.name).to_owned();
                (vec![("worker_name", name)], c.clone())
            })
            .collect::<Vec<_>>()
    };
    for (bounded, prefix) in [(true, "bounded"), (false, "unbounded")] {
        let series = by_kind(bounded);
        labelled(
            enc,
            &format!("polkadot_approval_voting_parallel_worker_{prefix}_sent"),
            "Messages sent into the worker's channel",
            MetricType::Gauge,
            &series,
            |e, c| ConstGauge::new(c.sent() as i64).encode(e),
        )?;
        labelled(
            enc,
            &format!("polkadot_approval_voting_parallel_worker_{prefix}_received"),
            "Messages the worker took from its channel",
            MetricType::Gauge,
            &series,
            |e, c| ConstGauge::new(c.received() as i64).encode(e),
        )?;
        labelled(
            enc,
            &format!("polkadot_approval_voting_parallel_worker_{prefix}_tof"),
            "Seconds messages waited in the worker's channel",
            MetricType::Histogram,
            &series,
            |e, c| encode_histogram(e, &c.time_of_flight(), 1e-9),
        )?;
    }
    Ok(())
}

/// CPU per node thread as the task manager's `substrate_tasks_polling_duration`
/// histogram, one series per thread: `task_name` the thread, `task_group`
/// its group (the subsystem, as upstream groups a subsystem's tasks),
/// `kind` `blocking` (each is a thread of its own). The sum is the thread's
/// CPU seconds and the count the messages it handled; the node does not time
/// each message, so the only bucket is `+Inf`.
pub(crate) fn encode_tasks_polling(enc: &mut DescriptorEncoder, run: &LiveRun) -> fmt::Result {
    let mut e = family(
        enc,
        "substrate_tasks_polling_duration",
        "CPU seconds of each node thread (sum) and the messages it handled (count)",
        MetricType::Histogram,
    )?;
    for w in &run.node.workers {
        let group = tranche_results::thread_group(&w.name);
        let labels = [
            ("task_name", w.name.as_str()),
            ("task_group", group.as_str()),
            ("kind", "blocking"),
        ];
        let handled = w.handled();
        e.encode_family(&labels)?
            .encode_histogram::<prometheus_client::encoding::NoLabelSet>(
                w.cpu_seconds(),
                handled,
                &[(f64::INFINITY, handled)],
                None,
            )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unapproved_candidates_are_the_imported_not_yet_approved() {
        assert_eq!(unapproved_candidates(12, 5), 7);
        assert_eq!(unapproved_candidates(12, 12), 0);
        assert_eq!(unapproved_candidates(0, 0), 0);
    }
}
