//! What every worker of a process shares, read-only but for the process's
//! verdicts: the chain (keys, the session, the blocks: the `tranche_world`
//! crate's `World`, the benchmark's own), the session's
//! gossip grid, the model, who verifies. Built once per process from
//! the spec and the seed, so every process builds the same.

use crate::costs::CostTable;
use crate::drawn::Model;
use crate::member::{slot_ms, NodeSetup, SimNode};
use crate::verdicts::{ProcessVerdicts, Verify};
use std::sync::Arc;
use tranche_config::approval_network::NetworkSpec;
use tranche_config::generation::GenerationParams;
use tranche_config::Coalescing;
use tranche_distribution::SessionGridTopology;
use tranche_primitives::criteria::Proofs;
use tranche_primitives::{Block, Hash, Session, ValidatorPair};
use tranche_world::World;

/// The shared part of a run.
pub struct Shared {
    pub spec: NetworkSpec,
    pub seed: u64,
    pub model: Model,
    /// Shared by every validator of the process (`NodeSetup::blocks`).
    pub blocks: Arc<[Block]>,
    pub session: Arc<Session>,
    pairs: Vec<ValidatorPair>,
    assignment_pairs: Vec<ValidatorPair>,
    grid: SessionGridTopology,
    /// Who verifies; the process's verdicts behind each worker's own
    /// (`crate::verdicts`).
    pub verify: Verify,
    pub verdicts: ProcessVerdicts,
    /// The simulation stops at this moment (milliseconds of virtual time).
    pub end_ms: u64,
    /// The first block's slot: where the simulation starts.
    pub start_ms: u64,
    /// The cost table of the CPU model (used with the objective's `node`),
    /// scaled by its `cpu_scale`.
    pub costs: Option<CostTable>,
}

impl Shared {
    pub fn new(spec: &NetworkSpec, seed: u64, verify: Verify) -> Shared {
        Shared::with_costs(spec, seed, verify, &CostTable::default())
    }

    /// [`Shared::new`] with the CPU model's cost table (`tranche network
    /// --costs FILE`).
    pub fn with_costs(spec: &NetworkSpec, seed: u64, verify: Verify, costs: &CostTable) -> Shared {
        let params = GenerationParams {
            n_validators: spec.n_validators,
            n_cores: spec.n_cores,
            n_included_candidates: spec.n_cores,
            num_blocks: spec.num_blocks,
            session: spec.session,
            max_validators_per_core: spec.max_validators_per_core,
            // Coalescing is the voting state machine's own here; the
            // generator's law is unused.
            coalesce: Coalescing::Normal {
                mean: 1.0,
                std_dev: 0.0,
            },
            coalesce_tranche_diff: 12,
            enable_assignments_v2: spec.enable_assignments_v2,
            generation_tranche_limit: None,
            blocks_per_session: None,
            seed,
        };
        let world = World::build(&params);
        let mut info = world.session.clone();
        info.max_approval_coalesce_count = spec.max_approval_coalesce_count;
        // The label is part of the draw (the grid of every record): it keeps
        // the crate's old name.
        let randomness =
            Hash::blake2_256(&[b"tranche-network-grid".as_slice(), &seed.to_le_bytes()].concat()).0;
        let grid = SessionGridTopology::from_randomness(&randomness, spec.n_validators as usize);
        let start_ms = slot_ms(&world.blocks[0]);
        let last = slot_ms(world.blocks.last().expect("at least one block"));
        Shared {
            spec: spec.clone(),
            seed,
            model: Model::new(spec, seed),
            blocks: world.blocks.into(),
            session: Arc::new(Session::new(info)),
            pairs: world.pairs,
            assignment_pairs: world.assignment_pairs,
            grid,
            verify,
            verdicts: ProcessVerdicts::default(),
            end_ms: last + spec.run_after_last_block_secs * 1000,
            start_ms,
            costs: spec.node.map(|shape| {
                costs
                    .scaled(shape.cpu_scale)
                    .expect("the objective bounds cpu_scale")
            }),
        }
    }

    /// Validator `v`'s node, fresh.
    pub fn node(&self, v: u32) -> SimNode {
        SimNode::new(self.setup(v), &self.model)
    }

    /// What validator `v`'s protocol is built of.
    pub(crate) fn setup(&self, v: u32) -> NodeSetup {
        NodeSetup {
            index: v,
            n: self.model.n,
            peers: (0..self.model.n).filter(|&p| p != v).collect(),
            behaviour: self.model.behaviours[v as usize],
            checks: Some(self.model.checks(v)),
            assignment: self.assignment_pairs[v as usize].clone(),
            approval: self.pairs[v as usize].clone(),
            session: self.session.clone(),
            grid: self.grid.clone(),
            blocks: self.blocks.clone(),
            routing_seed: self.seed,
            finality: self.spec.finality,
            trigger_all: self.spec.trigger_all_tranches,
            // Nobody checks a certificate under `Verify::Model`, so
            // nobody needs its proof (docs/network.md).
            own_proofs: if self.verify == Verify::Model {
                Proofs::Skipped
            } else {
                Proofs::Made
            },
            cpu: self.spec.node.zip(self.costs.clone()),
            // Every validator is a node here: no test environment.
            environment: false,
        }
    }
}
