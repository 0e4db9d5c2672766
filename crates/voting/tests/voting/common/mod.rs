//! Helpers shared by the voting tests: sessions, blocks, messages, and a
//! driver that applies every output's writes to a store and keeps the
//! actions.

#![allow(dead_code)]

use std::sync::Arc;
use tranche_primitives::{
    Block, Candidate, CandidateBitfield, CandidateHash, CoreIndex, GroupIndex, Hash, RelayVrfStory,
    Session, SessionInfo, Tick, ValidatorId, ValidatorIndex, ValidatorPair, ValidatorSignature,
};
use tranche_voting::{
    Action, ApprovalVoting, CheckedApproval, CheckedAssignment, NewBlock, Output, Store,
};

pub struct SessionSpec {
    pub n_validators: u32,
    pub n_cores: u32,
    pub needed: u32,
    pub no_show_slots: u32,
    pub coalesce: u32,
    pub n_delay_tranches: u32,
    pub real_keys: bool,
    /// RelayVRFModulo samples; 0: one per core.
    pub samples: u32,
}

impl Default for SessionSpec {
    fn default() -> Self {
        SessionSpec {
            n_validators: 10,
            n_cores: 2,
            needed: 3,
            no_show_slots: 2,
            coalesce: 1,
            n_delay_tranches: 40,
            real_keys: false,
            samples: 0,
        }
    }
}

pub fn pair(i: u32) -> ValidatorPair {
    ValidatorPair::from_label(&format!("validator-{i}"))
}

/// Validator `i`'s assignment key, different from its validator key.
pub fn assignment_pair(i: u32) -> ValidatorPair {
    ValidatorPair::from_label(&format!("assignment-{i}"))
}

/// Validator `i`'s two keys, as the node holds them.
pub fn local_keys(i: u32) -> tranche_voting::LocalKeys {
    tranche_voting::LocalKeys {
        assignment: assignment_pair(i),
        approval: pair(i),
        index: ValidatorIndex(i),
    }
}

/// Contiguous groups of two validators per core, the rest in no group.
pub fn session(spec: SessionSpec) -> Arc<Session> {
    let keys_of = |f: fn(u32) -> ValidatorPair| -> Vec<ValidatorId> {
        (0..spec.n_validators)
            .map(|i| {
                if spec.real_keys {
                    f(i).id()
                } else {
                    ValidatorId([0; 32])
                }
            })
            .collect()
    };
    let keys = keys_of(pair);
    let assignment_keys = keys_of(assignment_pair);
    let groups = (0..spec.n_cores)
        .map(|c| {
            (2 * c..2 * c + 2)
                .filter(|v| *v < spec.n_validators)
                .map(ValidatorIndex)
                .collect()
        })
        .collect();
    Arc::new(Session::new(SessionInfo {
        session_index: 1,
        n_cores: spec.n_cores,
        needed_approvals: spec.needed,
        relay_vrf_modulo_samples: if spec.samples == 0 {
            spec.n_cores
        } else {
            spec.samples
        },
        n_delay_tranches: spec.n_delay_tranches,
        zeroth_delay_tranche_width: 0,
        no_show_slots: spec.no_show_slots,
        validator_groups: groups,
        assignment_keys,
        validators: keys,
        assignments_v2: true,
        max_approval_coalesce_count: spec.coalesce,
    }))
}

pub fn hash(name: &str) -> Hash {
    Hash::blake2_256(name.as_bytes())
}

pub fn cand(name: &str, i: u32) -> CandidateHash {
    CandidateHash(Hash::blake2_256(format!("{name}/{i}").as_bytes()))
}

pub fn block(
    name: &str,
    number: u32,
    parent: &str,
    slot: u64,
    session: &Arc<Session>,
    n: u32,
) -> NewBlock {
    NewBlock {
        block: Block {
            hash: hash(name),
            number,
            parent: hash(parent),
            slot,
            session: session.info.session_index,
            relay_vrf_story: RelayVrfStory(hash(name).0),
            candidates: (0..n)
                .map(|i| Candidate {
                    hash: cand(name, i),
                    core: CoreIndex(i),
                    group: GroupIndex(i),
                })
                .collect(),
        },
        session: session.clone(),
    }
}

pub fn bits(c: &[u32]) -> CandidateBitfield {
    CandidateBitfield::from_indices(c).unwrap()
}

pub fn assignment(b: &str, v: u32, c: &[u32], tranche: u32) -> CheckedAssignment {
    CheckedAssignment {
        block_hash: hash(b),
        validator: ValidatorIndex(v),
        claimed: bits(c),
        tranche,
        cert: None,
    }
}

pub fn approval(b: &str, v: u32, c: &[u32]) -> CheckedApproval {
    CheckedApproval {
        block_hash: hash(b),
        validator: ValidatorIndex(v),
        candidates: bits(c),
        signature: ValidatorSignature([0; 64]),
    }
}

/// Drives a machine, applying writes to a store and keeping the actions.
pub struct Driver<S: Store> {
    pub m: ApprovalVoting,
    pub store: S,
    pub log: Vec<(Tick, Action)>,
    pub now: Tick,
}

impl<S: Store> Driver<S> {
    pub fn new(m: ApprovalVoting, store: S) -> Self {
        Driver {
            m,
            store,
            log: Vec::new(),
            now: 0,
        }
    }

    pub fn take(&mut self, now: Tick, out: Output) -> Output {
        self.store.write(out.writes.clone()).unwrap();
        for a in &out.actions {
            self.log.push((now, a.clone()));
        }
        out
    }

    /// Run every tick from the last one up to `t`.
    pub fn advance_to(&mut self, t: Tick) {
        while self.now < t {
            self.now += 1;
            let out = self.m.tick(self.now);
            self.take(self.now, out);
        }
    }

    /// Run what is due at the current tick again (after an input).
    pub fn poll(&mut self) {
        let now = self.now;
        let out = self.m.tick(now);
        self.take(now, out);
    }

    pub fn at(&mut self, t: Tick) -> &mut Self {
        if t > self.now {
            self.advance_to(t);
        }
        self
    }

    pub fn block(&mut self, b: NewBlock) -> Output {
        let now = self.now;
        let out = self.m.import_block(now, b);
        self.take(now, out)
    }

    pub fn assign(&mut self, a: CheckedAssignment) -> Output {
        let now = self.now;
        let out = self.m.import_assignment(now, a);
        self.take(now, out)
    }

    pub fn approve(&mut self, a: CheckedApproval) -> Output {
        let now = self.now;
        let out = self.m.import_approval(now, a);
        self.take(now, out)
    }

    pub fn finalize(&mut self, name: &str, number: u32) -> Output {
        let now = self.now;
        let out = self.m.finalize(now, hash(name), number);
        self.take(now, out)
    }

    /// Tick at which candidate `i` of `b` was approved.
    pub fn candidate_approved_at(&self, b: &str, i: u32) -> Option<Tick> {
        self.log.iter().find_map(|(t, a)| match a {
            Action::CandidateApproved {
                block,
                candidate_index,
                ..
            } if *block == hash(b) && *candidate_index == i => Some(*t),
            _ => None,
        })
    }

    pub fn block_approved_at(&self, b: &str) -> Option<Tick> {
        self.log.iter().find_map(|(t, a)| match a {
            Action::BlockApproved { block, .. } if *block == hash(b) => Some(*t),
            _ => None,
        })
    }
}
