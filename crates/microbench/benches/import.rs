//! Import throughput of already-checked messages on one core with the redb
//! store on: 500 validators, 100 cores, every validator assigned to every
//! candidate outside its backing group across 89 tranches ("all tranches
//! sent"), then every assignee's approval. Reported as messages per second;
//! the per-message cost must not grow with the assignments a candidate holds.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tranche_primitives::time::DEFAULT_TICKS_PER_SLOT;
use tranche_primitives::{
    Block, Candidate, CandidateBitfield, CandidateHash, CoreIndex, GroupIndex, Hash, RelayVrfStory,
    Session, SessionInfo, Tick, ValidatorId, ValidatorIndex, ValidatorSignature,
};
use tranche_store::RedbStore;
use tranche_voting::{ApprovalVoting, CheckedApproval, CheckedAssignment, Config, NewBlock, Store};

const N_VALIDATORS: u32 = 500;
const N_CORES: u32 = 100;
const N_TRANCHES: u32 = 89;

fn session() -> Arc<Session> {
    let keys = vec![ValidatorId([0; 32]); N_VALIDATORS as usize];
    let per = N_VALIDATORS / N_CORES;
    Arc::new(Session::new(SessionInfo {
        session_index: 1,
        n_cores: N_CORES,
        needed_approvals: 30,
        relay_vrf_modulo_samples: 6,
        n_delay_tranches: N_TRANCHES,
        zeroth_delay_tranche_width: 0,
        no_show_slots: 3,
        validator_groups: (0..N_CORES)
            .map(|g| (g * per..(g + 1) * per).map(ValidatorIndex).collect())
            .collect(),
        assignment_keys: keys.clone(),
        validators: keys,
        assignments_v2: true,
        max_approval_coalesce_count: 1,
    }))
}

fn block_hash(n: u32) -> Hash {
    Hash::blake2_256(&n.to_le_bytes())
}

fn block(n: u32, session: &Arc<Session>) -> NewBlock {
    NewBlock {
        block: Block {
            hash: block_hash(n),
            number: n,
            parent: block_hash(n - 1),
            slot: 10 + n as u64,
            session: session.info.session_index,
            relay_vrf_story: RelayVrfStory([n as u8; 32]),
            candidates: (0..N_CORES)
                .map(|c| Candidate {
                    hash: CandidateHash(Hash::blake2_256(
                        &[n.to_le_bytes(), c.to_le_bytes()].concat(),
                    )),
                    core: CoreIndex(c),
                    group: GroupIndex(c),
                })
                .collect(),
        },
        session: session.clone(),
    }
}

/// The messages of one block: (validator, candidate, tranche), interleaved
/// so that candidates fill up together, tranche order roughly by arrival.
fn duties() -> Vec<(u32, u32, u32)> {
    let per = N_VALIDATORS / N_CORES;
    let mut out = Vec::new();
    for v in 0..N_VALIDATORS {
        for c in 0..N_CORES {
            if v / per == c {
                continue;
            }
            let tranche = (v.wrapping_mul(2654435761) ^ c.wrapping_mul(40503)) % N_TRANCHES;
            out.push((v, c, tranche));
        }
    }
    out.sort_by_key(|&(v, c, t)| (t, v, c));
    out
}

struct Bed {
    m: ApprovalVoting,
    store: RedbStore,
    _dir: tempfile::TempDir,
    session: Arc<Session>,
    next_block: u32,
}

impl Bed {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = RedbStore::open(dir.path().join("bench.redb")).unwrap();
        Bed {
            m: ApprovalVoting::new(Config::default(), None),
            store,
            _dir: dir,
            session: session(),
            next_block: 1,
        }
    }

    fn new_block(&mut self) -> (u32, Tick) {
        let n = self.next_block;
        self.next_block += 1;
        let b = block(n, &self.session);
        let tick = b.block.slot * DEFAULT_TICKS_PER_SLOT;
        let out = self.m.import_block(tick, b);
        self.store.write(out.writes).unwrap();
        (n, tick)
    }

    fn assign(&mut self, now: Tick, n: u32, (v, c, t): (u32, u32, u32), persist: bool) {
        let out = self.m.import_assignment(
            now,
            CheckedAssignment {
                block_hash: block_hash(n),
                validator: ValidatorIndex(v),
                claimed: CandidateBitfield::from_index(c),
                tranche: t,
                cert: None,
            },
        );
        if persist {
            self.store.write(out.writes).unwrap();
        }
    }

    fn approve(&mut self, now: Tick, n: u32, (v, c, _): (u32, u32, u32), persist: bool) {
        let out = self.m.import_approval(
            now,
            CheckedApproval {
                block_hash: block_hash(n),
                validator: ValidatorIndex(v),
                candidates: CandidateBitfield::from_index(c),
                signature: ValidatorSignature([0; 64]),
            },
        );
        if persist {
            self.store.write(out.writes).unwrap();
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Assignment,
    Approval,
}

/// Run one block's stream; returns the time spent on imports of `kind` and
/// how many there were.
fn stream(duties: &[(u32, u32, u32)], kind: Kind, persist: bool) -> (Duration, usize) {
    let mut bed = Bed::new();
    let (n, block_tick) = bed.new_block();
    let mut events: Vec<(Tick, Kind, (u32, u32, u32))> = Vec::with_capacity(2 * duties.len());
    for &d in duties {
        let at = block_tick + d.2 as Tick;
        events.push((at, Kind::Assignment, d));
        events.push((at + 2, Kind::Approval, d));
    }
    events.sort_by_key(|e| (e.0, e.1 == Kind::Approval));
    let mut now = block_tick;
    let mut elapsed = Duration::ZERO;
    let mut count = 0;
    for (at, k, d) in events {
        while now < at {
            now += 1;
            let out = bed.m.tick(now);
            if persist {
                bed.store.write(out.writes).unwrap();
            }
        }
        let start = Instant::now();
        match k {
            Kind::Assignment => bed.assign(now, n, d, persist),
            Kind::Approval => bed.approve(now, n, d, persist),
        }
        if k == kind {
            elapsed += start.elapsed();
            count += 1;
        }
    }
    if persist {
        let start = Instant::now();
        bed.store.flush().unwrap();
        elapsed += start.elapsed() / 2;
    }
    (elapsed, count)
}

fn import(c: &mut Criterion) {
    let duties = duties();
    let mut g = c.benchmark_group("import");
    g.throughput(Throughput::Elements(1));
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(10));
    g.warm_up_time(Duration::from_secs(1));

    // Each sample runs one block's whole message stream in virtual time:
    // every assignment arrives at its tranche's tick, its approval two ticks
    // later, wakeups run as they fall due. Only the measured kind of import
    // (the machine's work and `Store::write`, write-behind commits included)
    // is timed; the mean cost per message is scaled to criterion's `iters`.
    for (name, kind, persist) in [
        ("assignment", Kind::Assignment, true),
        ("approval", Kind::Approval, true),
        ("assignment_no_store", Kind::Assignment, false),
        ("approval_no_store", Kind::Approval, false),
    ] {
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let (elapsed, count) = stream(&duties, kind, persist);
                elapsed * iters as u32 / count as u32
            })
        });
    }
    g.finish();
}

criterion_group!(benches, import);
criterion_main!(benches);
