//! The costs on a validator's voting side, measured on
//! `tranche_voting::ApprovalVoting` with the redb store
//! (`tranche_store::RedbStore` in a temporary folder): importing checked
//! assignments and approvals (the stream of `crates/microbench/benches/import.rs`:
//! each assignment at its tranche's tick, its approval two ticks later,
//! wakeups as they fall due; the import and `Store::write` timed, the
//! commits not: they are `db_commit`), a new block without our keys (no
//! VRFs: those are `own_assignment`) in voting and in distribution, and
//! one commit of a small write batch.

use super::fixture::Fixture;
use super::measure::{median_ns, timed, Effort, Round};
use tranche_primitives::time::DEFAULT_TICKS_PER_SLOT;
use tranche_primitives::{
    CandidateBitfield, CandidateHash, Hash, Tick, ValidatorIndex, ValidatorSignature,
};
use tranche_store::RedbStore;
use tranche_voting::{
    ApprovalVoting, CheckedApproval, CheckedAssignment, Config, NewBlock, Store, WriteBatch,
    WriteOp,
};

/// A voting machine with the redb store; commits only when asked.
struct Bed {
    m: ApprovalVoting,
    store: RedbStore,
    _dir: tempfile::TempDir,
}

impl Bed {
    fn new() -> Bed {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mut store = RedbStore::open(dir.path().join("calibrate.redb")).expect("a redb store");
        store.set_write_behind_ops(usize::MAX);
        Bed {
            m: ApprovalVoting::new(Config::default(), None),
            store,
            _dir: dir,
        }
    }

    fn write(&mut self, batch: WriteBatch) {
        self.store.write(batch).expect("the store takes a batch");
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Assignment,
    Approval,
}

/// One block's stream of (validator, candidate, tranche) duties: every
/// validator assigned to every candidate outside its backing group.
fn duties(fx: &Fixture, validators: u32) -> Vec<(u32, u32, u32)> {
    let info = &fx.v2.info;
    let mut out = Vec::new();
    for v in 0..validators {
        for (c, cand) in fx.block().candidates.iter().enumerate() {
            if info.is_in_group(cand.group, ValidatorIndex(v)) {
                continue;
            }
            let c = c as u32;
            let tranche = (v.wrapping_mul(2654435761) ^ c.wrapping_mul(40503)) % 89;
            out.push((v, c, tranche));
        }
    }
    out
}

/// One block's stream; the time spent importing items of `kind`, and how
/// many there were.
fn stream(fx: &Fixture, duties: &[(u32, u32, u32)], kind: Kind) -> Round {
    let mut bed = Bed::new();
    let block = fx.block().clone();
    let hash = block.hash;
    let block_tick = block.slot * DEFAULT_TICKS_PER_SLOT;
    let out = bed.m.import_block(
        block_tick,
        NewBlock {
            block,
            session: fx.v2.clone(),
        },
    );
    bed.write(out.writes);
    let mut events: Vec<(Tick, Kind, (u32, u32, u32))> = Vec::with_capacity(2 * duties.len());
    for &d in duties {
        let at = block_tick + d.2 as Tick;
        events.push((at, Kind::Assignment, d));
        events.push((at + 2, Kind::Approval, d));
    }
    events.sort_by_key(|e| (e.0, e.1 == Kind::Approval));
    let mut now = block_tick;
    let mut round = Round::default();
    for (at, k, (v, c, t)) in events {
        while now < at {
            now += 1;
            let out = bed.m.tick(now);
            bed.write(out.writes);
            bed.store.commit().expect("a commit");
        }
        let (spent, ()) = timed(|| {
            let out = match k {
                Kind::Assignment => bed.m.import_assignment(
                    now,
                    CheckedAssignment {
                        block_hash: hash,
                        validator: ValidatorIndex(v),
                        claimed: CandidateBitfield::from_index(c),
                        tranche: t,
                        cert: None,
                    },
                ),
                Kind::Approval => bed.m.import_approval(
                    now,
                    CheckedApproval {
                        block_hash: hash,
                        validator: ValidatorIndex(v),
                        candidates: CandidateBitfield::from_index(c),
                        signature: ValidatorSignature([0; 64]),
                    },
                ),
            };
            bed.write(out.writes);
        });
        if k == kind {
            round.spent += spent;
            round.items += 1;
        }
    }
    round
}

/// `import_assignment` and `import_approval`, ns.
pub fn imports(fx: &Fixture, effort: &Effort) -> (f64, f64) {
    let duties = duties(fx, effort.items(fx.sizes.validators as usize, 4) as u32);
    let a = median_ns(effort, || stream(fx, &duties, Kind::Assignment));
    let b = median_ns(effort, || stream(fx, &duties, Kind::Approval));
    (a, b)
}

/// A new block of the fixture's cores without our keys: voting's import
/// (and its writes handed to the store) and distribution's, every other
/// validator a connected peer, ns.
pub fn block_import(fx: &Fixture, effort: &Effort) -> f64 {
    let blocks = &fx.world.blocks[1..];
    median_ns(effort, || {
        let mut bed = Bed::new();
        let mut dist = fx.distribution(&fx.v2);
        let mut actions = Vec::new();
        let (spent, ()) = timed(|| {
            for b in blocks {
                let now = b.slot * DEFAULT_TICKS_PER_SLOT;
                let out = bed.m.import_block(
                    now,
                    NewBlock {
                        block: b.clone(),
                        session: fx.v2.clone(),
                    },
                );
                bed.write(out.writes);
                dist.new_blocks(now, vec![b.clone()], &mut actions);
                actions.clear();
            }
        });
        Round {
            spent,
            items: blocks.len() as u64,
        }
    })
}

/// Records per commit: a tick's few imports.
pub const COMMIT_RECORDS: usize = 10;

/// One commit of [`COMMIT_RECORDS`] approval records (each commit fsynced
/// when the last fsync is over a second old, as the node's store does;
/// the fsync's wait is no CPU time), ns.
pub fn db_commit(effort: &Effort) -> f64 {
    let mut bed = Bed::new();
    let per_round = effort.items(100, 3);
    let mut next = 0u32;
    median_ns(effort, || {
        let mut round = Round::default();
        for _ in 0..per_round {
            let mut batch = WriteBatch::default();
            for _ in 0..COMMIT_RECORDS {
                next += 1;
                let candidate = CandidateHash(Hash::blake2_256(&next.to_le_bytes()));
                batch.push(WriteOp::PutApproval(candidate, ValidatorIndex(next % 500)));
            }
            bed.write(batch);
            let (spent, result) = timed(|| bed.store.commit());
            result.expect("a commit");
            round.spent += spent;
            round.items += 1;
        }
        round
    })
}
