//! Whole-network approval simulation (`tranche network`): every validator
//! of a session is a node running the real approval-voting and
//! approval-distribution state machines, all of them in one deterministic
//! simulation on timely dataflow, from one thread to many machines with
//! the same results.
//!
//! # The simulation model
//!
//! **Real**, as a node runs it:
//!
//! * each validator's own assignment key and approval key, its own
//!   assignments computed with real VRFs when voting's timers say its
//!   tranche has come, its approvals signed for real and coalesced by the
//!   voting state machine up to the session's `max_approval_coalesce_count`;
//! * the voting state machine (`crates/voting`, after upstream
//!   `polkadot/node/core/approval-voting/src/lib.rs`) and the distribution
//!   state machine (`crates/distribution`, after upstream
//!   `polkadot/node/network/approval-distribution/src/lib.rs`) of every
//!   validator, wired as the node's parallel layout wires them
//!   (`crates/node/src/distribution_worker.rs`): distribution checks each
//!   new message and hands what passes to voting; voting's due timers run
//!   one at a time, as the node's on a real clock do;
//! * gossip over the session's grid (a seeded shuffle) with random routing,
//!   per-peer knowledge and deduplication; notifications cut by upstream's
//!   limits and encoded as v3 wire messages, decoded by the receiver; their
//!   bytes are what the bandwidth and the counters see.
//!
//! **Modelled** (`model`), every draw seeded by the run's seed:
//!
//! * a candidate check (availability recovery and validation) is a delay
//!   drawn per check from `check_delay_ms` (normal, truncated at zero,
//!   rounded up to the 500 ms tick voting runs on), `slow_factor` times
//!   longer on slow validators;
//! * every pair of validators is linked; a link's one-way latency is drawn
//!   once (normal, as `!ApprovalVoting`'s `latency`, at least 1 ms), every
//!   validator has the same bandwidth for egress and ingress (the token
//!   bucket of upstream's `polkadot/node/subsystem-bench/src/lib/network.rs`,
//!   as `crates/links/src/limiter.rs` has it), each notification is
//!   lost with `loss_probability` (not resent);
//! * every validator imports each block at the start of its slot, and
//!   learns at that moment that its peers did (views are not sent over
//!   the links);
//! * finality, only with `finality: true`, is GRANDPA
//!   (`substrate/client/consensus/grandpa`) reduced to its rule, votes
//!   gated on approval as `polkadot/node/core/approval-voting` gates them:
//!   each validator tells every other one (over the links' latency,
//!   never lost, outside distribution's bytes and bandwidth) the highest
//!   block it approved with all its ancestors, and finalizes the highest
//!   block more than two thirds of the validators voted for — voting and
//!   distribution prune it, and the peers' views carry the new finalized
//!   number from that moment. Without it nothing is finalized, and
//!   distribution's aggression starts once 16 blocks are unfinalized;
//! * no-show validators trigger and send their assignments but never their
//!   approvals; offline validators stop handling and sending anything at
//!   their block's slot;
//! * reputation changes are dropped.
//!
//! **Shared** (`verdicts`): each assignment certificate and approval
//! signature is verified once network-wide, by its own validator's process
//! as it leaves that node; every other node reuses the verdict — through
//! the process's cache, and in other processes through the verdicts the
//! packets carry — which is the one it would have computed. `--verify
//! every` makes every node verify.
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
//! Modules: `model` (behaviours and check durations; the links are
//! `tranche_links::mesh`), `verdicts`, `member` (one validator), `setup`
//! (what a process shares), `engine`. What is not the engine lives where
//! its kind lives: the `!ApprovalNetwork` objective in
//! `tranche_workload::config::approval_network`, the records, report,
//! table and page in `tranche_report::simulation`, the command line and
//! `tranche sweep network` in the `tranche` binary
//! (`crates/bench/src/network_cli.rs`, `sweep_network.rs`).

pub mod engine;
pub mod model;
pub mod member;
pub mod setup;
pub mod verdicts;

use std::sync::Arc;

pub use engine::{EngineConfig, EngineError, Progress};
pub use tranche_report::simulation::{Cost, SimulationReport};
pub use tranche_workload::config::approval_network::NetworkSpec;
pub use verdicts::Verify;

/// CPU seconds (user and system) this process has used.
pub fn process_cpu_seconds() -> f64 {
    tranche_metrics::process_cpu_time().as_secs_f64()
}

/// Run a simulation on this process's share of the engine, telling
/// `progress` (if any) how far virtual time has come. Process 0 returns
/// the report; the other processes return `None`.
pub fn simulate(
    spec: &NetworkSpec,
    source: &str,
    seed: u64,
    verify: Verify,
    engine: &EngineConfig,
    progress: Option<Progress>,
) -> Result<Option<SimulationReport>, EngineError> {
    let wall = std::time::Instant::now();
    let cpu = process_cpu_seconds();
    let shared = Arc::new(setup::Shared::new(spec, seed, verify));
    let result = engine::run(shared, engine, progress)?;
    if engine.process != 0 {
        return Ok(None);
    }
    let cost = Cost {
        wall_s: wall.elapsed().as_secs_f64(),
        cpu_s: process_cpu_seconds() - cpu,
        threads: engine.threads,
        processes: engine.processes.max(1),
        deliveries: result.records.iter().map(|r| r.notifications_in).sum(),
        verified: result.verified,
        reused: result.reused,
        moments: result.moments,
    };
    Ok(Some(SimulationReport::new(
        source,
        spec,
        seed,
        result.records,
        cost,
    )))
}
