//! Whole-network approval simulation (`tranche network`): every validator
//! of a session is a node running the real approval-voting and
//! approval-distribution state machines, all of them in one deterministic
//! simulation on timely dataflow, from one thread to many machines with
//! the same results.
//!
//! What a validator is and does in virtual time — its state machines,
//! behaviour, links, shared verdicts and CPU — is `tranche_model` (no
//! timely there: it is tested on its own); this crate runs every
//! validator's model on the engine.
//!
//! # Time and determinism
//!
//! Virtual time is in milliseconds; it is timely's timestamp. Voting and
//! distribution see the 500 ms protocol tick of the moment. `engine` has
//! the dataflow (a feedback loop of 1 ms around one operator, the exchange
//! pact by destination validator) and why a moment is complete everywhere
//! before anyone handles it. Each validator handles a moment's inputs in a
//! fixed order — due timers, blocks, then notifications by (sender,
//! sequence) — so the per-validator results are the same for any number
//! of threads and processes.
//!
//! Modules: `cluster` (where the workers run, its bounds, the engine's
//! errors: below all the others), `engine` (the dataflow); for several
//! processes `rendezvous` (connecting them, with a deadline, strangers
//! dropped), `liveness` (one line when one goes away) and `gather` (every
//! process's cost figures to process 0). What is not the engine lives
//! where its kind lives: the `!ApprovalNetwork` objective in
//! `tranche_config::approval_network`, the records and cost figures in
//! `tranche_records`, the report, table and page in
//! `tranche_report::network` (made from the [`NetworkRun`] this crate
//! returns), the command line and
//! `tranche sweep network` in the `tranche` binary
//! (`crates/bench/src/network_cli.rs`, `sweep_network.rs`).

pub mod cluster;
pub mod engine;
pub mod gather;
pub mod hello;
pub mod liveness;
pub mod rendezvous;

use std::sync::Arc;

pub use cluster::{
    ClusterOptions, EngineConfig, EngineError, MAX_PROCESSES, MAX_THREADS, MAX_WORKERS,
};
pub use engine::ProgressFn;
pub use tranche_config::approval_network::NetworkSpec;
pub use tranche_model::{drawn, member, setup, verdicts, CostTable, CostsError, Verify};
pub use tranche_records::cost::{CostTotal, ProcessCost, RunCost};
pub use tranche_records::run::NetworkRun;

/// CPU seconds (user and system) this process has used.
pub fn process_cpu_seconds() -> f64 {
    tranche_metrics::process_cpu_time().as_secs_f64()
}

/// Run a simulation on this process's share of the engine, telling
/// `progress` (if any) how far virtual time has come. Process 0 returns
/// the run (every record, the cost; `SimulationReport::of_run` in
/// `tranche_report::network` makes the report of it); the other processes return `None`. Several processes
/// connect with `ClusterOptions::default()` (see [`simulate_with`]).
pub fn simulate(
    spec: &NetworkSpec,
    seed: u64,
    verify: Verify,
    engine: &EngineConfig,
    progress: Option<ProgressFn>,
) -> Result<Option<NetworkRun>, EngineError> {
    let cluster = ClusterOptions::default();
    let costs = CostTable::default();
    simulate_with(spec, seed, verify, &costs, engine, &cluster, progress)
}

/// What every process must agree on: the network simulated (the spec
/// with the overrides applied), the seed, who verifies and the CPU
/// model's cost table.
fn fingerprint(spec: &NetworkSpec, seed: u64, verify: Verify, costs: &CostTable) -> u64 {
    use std::hash::{Hash, Hasher};
    // SipHash with fixed keys: the same value in every process.
    let mut h = std::hash::DefaultHasher::new();
    format!("{spec:?} {seed} {verify:?} {costs:?}").hash(&mut h);
    h.finish()
}

/// [`simulate`] with the CPU model's cost table `costs` (used when the
/// objective has a `node`), connecting several processes as `cluster`
/// says; process 0's run has every process's cost figures
/// (`RunCost::per_process`).
pub fn simulate_with(
    spec: &NetworkSpec,
    seed: u64,
    verify: Verify,
    costs: &CostTable,
    engine: &EngineConfig,
    cluster: &ClusterOptions,
    progress: Option<ProgressFn>,
) -> Result<Option<NetworkRun>, EngineError> {
    let wall = std::time::Instant::now();
    let cpu = process_cpu_seconds();
    let shared = Arc::new(tranche_model::setup::Shared::with_costs(
        spec, seed, verify, costs,
    ));
    let print = fingerprint(spec, seed, verify, costs);
    let result = engine::run(shared, engine, cluster, print, progress)?;
    let own = ProcessCost {
        process: engine.process,
        wall_s: wall.elapsed().as_secs_f64(),
        cpu_s: process_cpu_seconds() - cpu,
        verified: result.verified,
        reused: result.reused,
        moments: result.moments,
        peak_rss_bytes: tranche_metrics::peak_rss_bytes(),
    };
    let per_process = result.control.gather(own.clone())?;
    if engine.process != 0 {
        return Ok(None);
    }
    let cost = RunCost {
        wall_s: own.wall_s,
        cpu_s: own.cpu_s,
        threads: engine.threads,
        processes: engine.processes.max(1),
        deliveries: result.records.iter().map(|r| r.notifications_in).sum(),
        verified: own.verified,
        reused: own.reused,
        moments: own.moments,
        peak_rss_bytes: own.peak_rss_bytes,
        total: CostTotal::of(&per_process),
        per_process,
    };
    // The CPU model's threads by name, in the records' order.
    let threads = spec
        .node
        .and_then(|shape| tranche_model::cpu::shape::threads(&shape).ok())
        .unwrap_or_default();
    Ok(Some(NetworkRun {
        records: result.records,
        cost,
        threads: threads.into_iter().map(|t| t.name).collect(),
    }))
}
