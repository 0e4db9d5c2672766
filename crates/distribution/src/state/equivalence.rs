//! The equivalence of the grid's answers with listing every send: two state
//! machines, one letting the grid answer for sends along it (`block::GridSent`)
//! and one listing every send as before (`State::listing_every_send`), are
//! driven through the same random inputs — peers connecting, changing
//! identity, view and connection; blocks, topologies, finality with
//! aggression; peers' messages in random order, duplicates included; our
//! own messages; verdicts — and must give the same actions (every send,
//! reputation change, check and import) and the same answers to
//! `peer_knows_assignment` for every peer and message.

use super::{AggressionConfig, Config, State};
use crate::action::{Action, AssignmentItem, Outgoing, PeerId, View};
use crate::check::CheckToken;
use crate::topology::SessionGridTopology;
use proptest::prelude::*;
use std::sync::Arc;
use tranche_primitives::{
    AssignmentCert, AssignmentCertKind, Block, Candidate, CandidateBitfield, CandidateHash,
    CoreIndex, GroupIndex, Hash, IndirectAssignmentCert, IndirectSignedApprovalVote, RelayVrfStory,
    Session, SessionInfo, ValidatorId, ValidatorIndex, ValidatorSignature, VrfSignature,
};

const CORES: u32 = 3;
const BLOCKS: u32 = 4;

#[derive(Debug, Clone)]
enum Op {
    Connect(u32, Option<u32>),
    Disconnect(u32),
    Authority(u32, u32),
    View(u32, u32, u32),
    NewBlock,
    Topology,
    Assignment(u32, u32, u32, u32),
    Approval(u32, u32, u32, Vec<u32>),
    OwnAssignment(u32, u32),
    OwnApproval(u32, Vec<u32>),
    Verdict(usize, bool, bool),
    Finalize(u32),
}

/// Peers 1..=n+1 (one more than the validators); validators 0..n.
fn op(n: u32) -> impl Strategy<Value = Op> {
    let peer = 1..=n + 1;
    let v = 0..n;
    let block = 1..=BLOCKS;
    let cores = proptest::collection::vec(0..CORES, 1..3);
    prop_oneof![
        3 => (peer.clone(), proptest::option::of(v.clone())).prop_map(|(p, a)| Op::Connect(p, a)),
        1 => peer.clone().prop_map(Op::Disconnect),
        1 => (peer.clone(), v.clone()).prop_map(|(p, a)| Op::Authority(p, a)),
        4 => (peer.clone(), block.clone(), 0..BLOCKS).prop_map(|(p, b, f)| Op::View(p, b, f)),
        2 => Just(Op::NewBlock),
        1 => Just(Op::Topology),
        12 => (peer.clone(), block.clone(), v.clone(), 0..CORES)
            .prop_map(|(p, b, v, c)| Op::Assignment(p, b, v, c)),
        8 => (peer, block.clone(), v, cores.clone()).prop_map(|(p, b, v, c)| Op::Approval(p, b, v, c)),
        2 => (block.clone(), 0..CORES).prop_map(|(b, c)| Op::OwnAssignment(b, c)),
        2 => (block, cores).prop_map(|(b, c)| Op::OwnApproval(b, c)),
        10 => (any::<usize>(), any::<bool>(), any::<bool>()).prop_map(|(i, ok, far)| Op::Verdict(i, ok, far)),
        1 => (0..BLOCKS).prop_map(Op::Finalize),
    ]
}

fn hash(number: u32) -> Hash {
    Hash::blake2_256(&number.to_le_bytes())
}

fn block(number: u32) -> Block {
    Block {
        hash: hash(number),
        number,
        parent: hash(number - 1),
        candidates: (0..CORES)
            .map(|c| Candidate {
                hash: CandidateHash(Hash::blake2_256(&[number as u8, c as u8])),
                core: CoreIndex(c),
                group: GroupIndex(c),
            })
            .collect(),
        slot: 0,
        session: 1,
        relay_vrf_story: RelayVrfStory([number as u8; 32]),
    }
}

fn session(n: u32) -> Arc<Session> {
    let keys: Vec<ValidatorId> = (0..n).map(|v| ValidatorId([v as u8; 32])).collect();
    Arc::new(Session::new(SessionInfo {
        session_index: 1,
        n_cores: CORES,
        needed_approvals: 3,
        relay_vrf_modulo_samples: 2,
        n_delay_tranches: 10,
        zeroth_delay_tranche_width: 0,
        no_show_slots: 2,
        validator_groups: (0..CORES).map(|g| vec![ValidatorIndex(g % n)]).collect(),
        assignment_keys: keys.clone(),
        validators: keys,
        assignments_v2: true,
        max_approval_coalesce_count: 8,
    }))
}

fn cert(block: u32, v: u32, core: u32) -> IndirectAssignmentCert {
    IndirectAssignmentCert {
        block_hash: hash(block),
        validator: ValidatorIndex(v),
        cert: AssignmentCert {
            kind: AssignmentCertKind::RelayVRFDelay {
                core_index: CoreIndex(core),
            },
            vrf: VrfSignature {
                pre_output: [0; 32],
                proof: [0; 64],
            },
        },
    }
}

fn vote(block: u32, v: u32, cores: &[u32]) -> IndirectSignedApprovalVote {
    IndirectSignedApprovalVote {
        block_hash: hash(block),
        candidate_indices: CandidateBitfield::from_indices(cores).expect("small"),
        validator: ValidatorIndex(v),
        signature: ValidatorSignature([0; 64]),
    }
}

/// An action as compared: everything but the check's session.
fn summary(a: &Action) -> String {
    match a {
        Action::Send { peer, item } => match item {
            Outgoing::Assignment(i) => format!("send {} a {:?}", peer.0, i),
            Outgoing::Approval(v) => format!("send {} v {:?}", peer.0, v),
        },
        Action::Reputation { peer, rep } => format!("rep {} {:?}", peer.0, rep),
        Action::CheckAssignment(c) => format!("check a {}", c.token.0),
        Action::CheckApproval(c) => format!("check v {}", c.token.0),
        Action::ImportAssignment {
            assignment,
            tranche,
        } => format!("import a {assignment:?} {tranche}"),
        Action::ImportApproval { vote } => format!("import v {vote:?}"),
    }
}

/// One state machine under test and the checks it has asked for.
struct Driven {
    state: State,
    checks: Vec<(CheckToken, bool)>,
}

impl Driven {
    fn new(mut state: State, n: u32) -> Self {
        state.add_session(session(n));
        Driven {
            state,
            checks: Vec::new(),
        }
    }

    fn apply(&mut self, o: &Op, grid: &SessionGridTopology, tick: &mut u32) -> Vec<String> {
        let mut out = Vec::new();
        let s = &mut self.state;
        match o {
            Op::Connect(p, a) => {
                s.peer_connected(PeerId(*p), a.map(ValidatorIndex))
                    .expect("small peer ids");
            }
            Op::Disconnect(p) => s.peer_disconnected(PeerId(*p)),
            Op::Authority(p, a) => {
                s.peer_authority_updated(PeerId(*p), ValidatorIndex(*a), &mut out)
            }
            Op::View(p, b, f) => {
                let view = View {
                    heads: vec![hash(*b)],
                    finalized_number: *f,
                };
                s.peer_view_change(0, PeerId(*p), view, &mut out);
            }
            Op::NewBlock => {
                *tick += 1;
                if *tick <= BLOCKS {
                    s.new_blocks(0, vec![block(*tick)], &mut out);
                }
            }
            Op::Topology => {
                s.new_gossip_topology(1, grid.clone(), Some(ValidatorIndex(0)), &mut out)
            }
            Op::Assignment(p, b, v, c) => {
                let item = AssignmentItem {
                    cert: cert(*b, *v, *c),
                    claimed: CandidateBitfield::from_index(*c),
                };
                s.handle_peer_message(0, PeerId(*p), assignments(item), &mut out);
            }
            Op::Approval(p, b, v, cores) => {
                let msg = tranche_primitives::ApprovalDistributionMessage::approvals(vec![vote(
                    *b, *v, cores,
                )]);
                s.handle_peer_message(0, PeerId(*p), msg, &mut out);
            }
            Op::OwnAssignment(b, c) => s.distribute_assignment(
                cert(*b, 0, *c),
                CandidateBitfield::from_index(*c),
                &mut out,
            ),
            Op::OwnApproval(b, cores) => s.distribute_approval(vote(*b, 0, cores), &mut out),
            Op::Verdict(i, ok, far) => {
                if !self.checks.is_empty() {
                    let (token, assignment) = self.checks.remove(i % self.checks.len());
                    if assignment {
                        let verdict = if *ok {
                            Ok(if *far { 1_000 } else { 0 })
                        } else {
                            Err(tranche_primitives::criteria::InvalidAssignmentReason::ValidatorIndexOutOfBounds)
                        };
                        s.assignment_checked(0, token, verdict, &mut out);
                    } else {
                        let verdict = if *ok {
                            Ok(())
                        } else {
                            Err(crate::check::InvalidVote::InvalidKey)
                        };
                        s.approval_checked(0, token, verdict, &mut out);
                    }
                }
            }
            Op::Finalize(f) => s.block_finalized(*f, &mut out),
        }
        for a in &out {
            match a {
                Action::CheckAssignment(c) => self.checks.push((c.token, true)),
                Action::CheckApproval(c) => self.checks.push((c.token, false)),
                _ => {}
            }
        }
        out.iter().map(summary).collect()
    }

    /// Which peers the state says know each assignment subject.
    fn knowledge(&self, n: u32) -> Vec<bool> {
        let mut all = Vec::new();
        for b in 1..=BLOCKS {
            for v in 0..n {
                for c in 0..CORES {
                    let claimed = CandidateBitfield::from_index(c);
                    for p in 1..=n + 1 {
                        all.push(self.state.peer_knows_assignment(
                            &hash(b),
                            PeerId(p),
                            ValidatorIndex(v),
                            &claimed,
                        ));
                    }
                }
            }
        }
        all
    }
}

fn assignments(item: AssignmentItem) -> tranche_primitives::ApprovalDistributionMessage {
    tranche_primitives::ApprovalDistributionMessage::assignments(vec![item])
}

fn config(aggressive: bool) -> Config {
    let aggression = if aggressive {
        AggressionConfig {
            l1_threshold: Some(1),
            l2_threshold: Some(2),
            resend_unfinalized_period: Some(1),
        }
    } else {
        AggressionConfig::default()
    };
    Config {
        aggression,
        ..Config::default()
    }
}

fn case() -> impl Strategy<Value = (u32, bool, bool, Vec<Op>)> {
    (4u32..14, any::<bool>(), any::<bool>()).prop_flat_map(|(n, random_grid, aggressive)| {
        (
            Just(n),
            Just(random_grid),
            Just(aggressive),
            proptest::collection::vec(op(n), 1..250),
        )
    })
}

/// 32 random histories by default (each up to 250 inputs, about 0.15 s a
/// history in a debug build); `PROPTEST_CASES=1000` for a deeper search.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]
    #[test]
    fn the_grid_answers_as_the_lists_did((n, random_grid, aggressive, ops) in case()) {
        let grid = if random_grid {
            SessionGridTopology::from_randomness(&[n as u8; 32], n as usize)
        } else {
            SessionGridTopology::identity(n as usize)
        };
        let mut derived = Driven::new(State::new(config(aggressive)), n);
        let mut listed = Driven::new(State::listing_every_send(config(aggressive)), n);
        let (mut tick_d, mut tick_l) = (0, 0);
        for (i, o) in ops.iter().enumerate() {
            let got = derived.apply(o, &grid, &mut tick_d);
            let want = listed.apply(o, &grid, &mut tick_l);
            prop_assert_eq!(got, want, "op {} {:?}", i, o);
            prop_assert_eq!(derived.knowledge(n), listed.knowledge(n), "op {} {:?}", i, o);
        }
    }
}
