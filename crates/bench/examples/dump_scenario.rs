//! Debug aid: turn what the producer would send for block 0 of a test
//! sequence into a `tranche scenario` file, to see why a block is or is not
//! approved. Usage: dump_scenario FILE.yaml OUT.json
use std::collections::BTreeMap;
use tranche_bench::run::{prepare, ClockKind, DbKind, RunOptions};
use tranche_config as config;
use tranche_primitives::time::{slot_start_tick, DEFAULT_TICKS_PER_SLOT};
use tranche_primitives::ApprovalDistributionMessage;
use tranche_workload::producer::{Producer, ProducerOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let cfg = config::load(std::path::Path::new(&args[1])).unwrap();
    let step = &cfg.steps[0];
    let options = RunOptions {
        architecture: tranche_node::Architecture::CLASSIC,
        clock: ClockKind::Virtual,
        seed: 0,
        cache_dir: "/tmp/tc".into(),
        db: DbKind::Memory,
        progress: tranche_bench::run::Progress::Quiet,
        floor: tranche_bench::floor::FloorMode::Sample,
        db_path: None,
        restart_at_block: None,
        checks: Default::default(),
        node: Default::default(),
    };
    let p = prepare(
        &tranche_config::resolve::Plan::of(step, options.seed),
        &options,
    )
    .unwrap();
    let ticks: Vec<u64> = p
        .world
        .blocks
        .iter()
        .map(|b| slot_start_tick(b.slot, DEFAULT_TICKS_PER_SLOT))
        .collect();
    let mut prod = Producer::new(
        &p.messages.bundles,
        ticks.clone(),
        ProducerOptions {
            needed_approvals: step.session.needed_approvals,
            num_no_shows_per_candidate: step.num_no_shows_per_candidate,
            stop_when_approved: step.stop_when_approved,
            last_considered_tranche: step.send_limit_tranche(),
        },
    );
    for b in 0..ticks.len() {
        prod.block_initialised(b as u32);
    }
    let mut events = Vec::new();
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for t in ticks[0]..ticks[0] + 400 {
        out.clear();
        prod.poll(t, &mut out);
        for d in &out {
            if d.block != 0 || !seen.insert(d.message as *const _) {
                continue;
            }
            match &d.message.message {
                ApprovalDistributionMessage::Assignments(items) => {
                    for a in items {
                        events.push(serde_json::json!({"tick": t, "kind": "assignment", "validator": a.cert.validator.0, "block": "A", "candidates": a.claimed.iter_ones().collect::<Vec<_>>(), "tranche": d.message.tranche}));
                    }
                }
                ApprovalDistributionMessage::Approvals(items) => {
                    for v in items {
                        events.push(serde_json::json!({"tick": t, "kind": "approval", "validator": v.validator.0, "block": "A", "candidates": v.candidate_indices.iter_ones().collect::<Vec<_>>()}));
                    }
                }
            }
        }
    }
    let s = &p.world.session;
    let groups: Vec<Vec<u32>> = s
        .validator_groups
        .iter()
        .map(|g| g.iter().map(|v| v.0).collect())
        .collect();
    let cands: Vec<_> = p.world.blocks[0]
        .candidates
        .iter()
        .map(|c| serde_json::json!({"core": c.core.0, "group": c.group.0}))
        .collect();
    let mut by: BTreeMap<u64, usize> = BTreeMap::new();
    for e in &events {
        *by.entry(e["tick"].as_u64().unwrap()).or_default() += 1;
    }
    let sc = serde_json::json!({
        "name": "dump", "description": "from producer",
        "session": {"n_validators": s.n_validators(), "n_cores": s.n_cores, "needed_approvals": s.needed_approvals, "no_show_slots": s.no_show_slots,
            "n_delay_tranches": s.n_delay_tranches, "zeroth_delay_tranche_width": s.zeroth_delay_tranche_width, "relay_vrf_modulo_samples": s.relay_vrf_modulo_samples,
            "validator_groups": groups},
        "blocks": [{"name": "A", "number": 1, "slot": p.world.blocks[0].slot, "candidates": cands}],
        "events": events, "end_tick": ticks[0] + 600,
    });
    std::fs::write(&args[2], serde_json::to_string_pretty(&sc).unwrap()).unwrap();
    eprintln!(
        "{} events; withheld {}",
        sc["events"].as_array().unwrap().len(),
        prod.stats.withheld_approvals
    );
}
