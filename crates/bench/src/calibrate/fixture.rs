//! What the measurements of `tranche calibrate` run on: a chain from the
//! benchmark's world generator (`tranche_workload::generate::world`: real
//! validator and assignment keys, the session, blocks), a distribution
//! state machine set up as a validator's is during a block (every other
//! validator a connected peer viewing the block), real assignment
//! certificates of each kind and real approval signatures, and their
//! encoded notifications.

use parity_scale_codec::Encode;
use rayon::prelude::*;
use std::sync::Arc;
use tranche_config::generation::GenerationParams;
use tranche_config::session::SessionParams;
use tranche_config::Coalescing;
use tranche_distribution::{
    Action, AnswerWith, ApprovalCheck, ApprovalVerdict, AssignmentCheck, AssignmentVerdict,
    CheckVerdict, DeferredVerdict, PeerId, SessionGridTopology, Settled, State, Verifier, View,
};
use tranche_primitives::cert::AssignmentCertKind;
use tranche_primitives::criteria::compute_assignments;
use tranche_primitives::time::DEFAULT_TICKS_PER_SLOT;
use tranche_primitives::vote::sign_approval;
use tranche_primitives::{
    ApprovalDistributionMessage, AssignmentCert, AssignmentItem, Block, CandidateBitfield,
    CandidateHash, IndirectAssignmentCert, IndirectSignedApprovalVote, Session, SessionInfo, Tick,
    ValidationProtocol, ValidatorIndex, VrfSignature,
};
use tranche_workload::generate::world::World;

/// The largest approval the measurements coalesce: `approval_per_candidate`
/// is the difference between one covering this many and one covering one.
pub const COALESCED: usize = 6;

/// The sizes of the chain.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    pub validators: u32,
    pub cores: u32,
    pub blocks: u32,
}

/// The chain every measurement shares.
pub struct Fixture {
    pub world: World,
    /// The world's session (v2 assignments), coalescing up to
    /// [`COALESCED`] candidates.
    pub v2: Arc<Session>,
    /// The same validators and keys with v1 assignments (plain
    /// `RelayVRFModulo`).
    pub v1: Arc<Session>,
    pub sizes: Sizes,
}

/// One assignment message, first seen by the node: its sender (the
/// validator itself) and its encoded notification.
pub struct Wire {
    pub peer: PeerId,
    pub bytes: Vec<u8>,
}

/// A notification carrying `msg`, as it comes off the wire.
pub fn encode(msg: ApprovalDistributionMessage) -> Vec<u8> {
    ValidationProtocol::ApprovalDistribution(msg).encode()
}

/// The message of a notification (the node's decode).
pub fn decode(bytes: &[u8]) -> ApprovalDistributionMessage {
    match ValidationProtocol::decode_wire(bytes).expect("our own encoding decodes") {
        ValidationProtocol::ApprovalDistribution(m) => m,
    }
}

impl Fixture {
    pub fn build(sizes: Sizes) -> Fixture {
        let params = GenerationParams {
            n_validators: sizes.validators,
            n_cores: sizes.cores,
            n_included_candidates: sizes.cores,
            num_blocks: sizes.blocks,
            session: SessionParams::default(),
            max_validators_per_core: 5,
            coalesce: Coalescing::Normal {
                mean: 1.0,
                std_dev: 0.0,
            },
            coalesce_tranche_diff: 12,
            enable_assignments_v2: true,
            generation_tranche_limit: None,
            blocks_per_session: None,
            seed: 0,
        };
        let world = World::build(&params);
        let mut info: SessionInfo = world.session.clone();
        info.max_approval_coalesce_count = COALESCED as u32;
        let v2 = Arc::new(Session::new(info.clone()));
        info.assignments_v2 = false;
        let v1 = Arc::new(Session::new(info));
        Fixture {
            world,
            v2,
            v1,
            sizes,
        }
    }

    /// The first block, the one the messages are about.
    pub fn block(&self) -> &Block {
        &self.world.blocks[0]
    }

    /// The tick the messages arrive at: early in the first block's slot.
    pub fn now(&self) -> Tick {
        self.block().slot * DEFAULT_TICKS_PER_SLOT + 1
    }

    /// Validator 0's distribution state (`session`'s), every other
    /// validator a connected peer viewing the first block.
    pub fn distribution(&self, session: &Arc<Session>) -> State {
        let n = self.sizes.validators;
        let mut s = State::new(tranche_distribution::Config::default());
        s.add_session(session.clone());
        let mut out = Vec::new();
        let grid = SessionGridTopology::from_randomness(&[3; 32], n as usize);
        s.new_gossip_topology(
            session.info.session_index,
            grid,
            Some(ValidatorIndex(0)),
            &mut out,
        );
        for v in 1..n {
            s.peer_connected(PeerId(v), Some(ValidatorIndex(v)))
                .expect("a small peer id");
        }
        let block = self.block().clone();
        s.new_blocks(self.now(), vec![block.clone()], &mut out);
        for v in 1..n {
            let view = View {
                heads: vec![block.hash],
                finalized_number: 0,
            };
            s.peer_view_change(self.now(), PeerId(v), view, &mut out);
        }
        s
    }

    /// Up to `want` first-seen assignment messages of `kind` (a
    /// [`AssignmentCertKind::name`]) for the first block, from distinct
    /// validators, computed with their real assignment keys (v1 kinds in
    /// the v1 session). Computed on every core.
    pub fn assignments(&self, kind: &str, want: usize) -> Vec<Wire> {
        let session = if kind == "RelayVRFModulo" {
            &self.v1
        } else {
            &self.v2
        };
        let block = self.block();
        // The compact certificate claims its sampled cores among those
        // passed: half the cores keep it likely and halve the delay VRFs.
        // Other kinds take every core, and up to 4 certificates (of
        // distinct cores: distinct messages) from each validator.
        let (leaving, per_validator) = match kind {
            "RelayVRFModuloCompact" => (&block.candidates[..block.candidates.len().div_ceil(2)], 1),
            _ => (&block.candidates[..], 4),
        };
        // Validators in chunks, on every core, until there are enough.
        let chunk = (want.div_ceil(per_validator) * 2).max(8) as u32;
        let mut wires: Vec<Wire> = Vec::new();
        let mut first = 1;
        while wires.len() < want && first < self.sizes.validators {
            let last = (first + chunk).min(self.sizes.validators);
            wires.extend(self.assignments_of(first..last, kind, session, leaving, per_validator));
            first = last;
        }
        wires.truncate(want);
        assert!(!wires.is_empty(), "no {kind} certificate found");
        wires
    }

    /// The assignment messages of `kind` of `validators`, at most
    /// `per_validator` each.
    fn assignments_of(
        &self,
        validators: std::ops::Range<u32>,
        kind: &str,
        session: &Arc<Session>,
        leaving: &[tranche_primitives::Candidate],
        per_validator: usize,
    ) -> Vec<Wire> {
        let block = self.block();
        validators
            .into_par_iter()
            .flat_map_iter(|v| {
                let pair = &self.world.assignment_pairs[v as usize];
                let ours = compute_assignments(
                    pair,
                    ValidatorIndex(v),
                    &block.relay_vrf_story,
                    &session.info,
                    leaving,
                );
                let mut certs: Vec<AssignmentCert> = Vec::new();
                for a in ours.values() {
                    if a.cert.kind.name() == kind && !certs.contains(&a.cert) {
                        certs.push(a.cert.clone());
                    }
                }
                certs.truncate(per_validator);
                certs.into_iter().map(move |cert| {
                    let claimed = match &cert.kind {
                        AssignmentCertKind::RelayVRFModuloCompact { core_bitfield } => {
                            let cores: Vec<u32> = core_bitfield.iter_ones().collect();
                            CandidateBitfield::from_indices(&cores).expect("claimed cores")
                        }
                        AssignmentCertKind::RelayVRFModulo { .. } => {
                            let core = ours
                                .iter()
                                .find(|(_, a)| a.cert == cert)
                                .map(|(c, _)| c.0)
                                .expect("its core");
                            CandidateBitfield::from_index(core)
                        }
                        AssignmentCertKind::RelayVRFDelay { core_index } => {
                            CandidateBitfield::from_index(core_index.0)
                        }
                    };
                    let item = IndirectAssignmentCert {
                        block_hash: block.hash,
                        validator: ValidatorIndex(v),
                        cert,
                    };
                    Wire {
                        peer: PeerId(v),
                        bytes: encode(ApprovalDistributionMessage::assignments([AssignmentItem {
                            cert: item,
                            claimed,
                        }])),
                    }
                })
            })
            .collect()
    }

    /// Validator `v`'s approval of the first block's first `candidates`
    /// candidates, really signed.
    pub fn approval(&self, v: u32, candidates: usize) -> IndirectSignedApprovalVote {
        let block = self.block();
        let hashes: Vec<CandidateHash> = block.candidates[..candidates]
            .iter()
            .map(|c| c.hash)
            .collect();
        let indices: Vec<u32> = (0..candidates as u32).collect();
        IndirectSignedApprovalVote {
            block_hash: block.hash,
            candidate_indices: CandidateBitfield::from_indices(&indices).expect("candidates"),
            validator: ValidatorIndex(v),
            signature: sign_approval(
                &self.world.pairs[v as usize],
                &hashes,
                self.v2.info.session_index,
            ),
        }
    }

    /// An assignment of validator `v` claiming `claimed`, with a
    /// certificate that is never checked (for what has to be known first).
    pub fn unchecked_assignment(&self, v: u32, claimed: CandidateBitfield) -> Vec<u8> {
        let cores: Vec<u32> = claimed.iter_ones().collect();
        let core_bitfield =
            tranche_primitives::CoreBitfield::from_indices(&cores).expect("claimed cores");
        let item = IndirectAssignmentCert {
            block_hash: self.block().hash,
            validator: ValidatorIndex(v),
            cert: AssignmentCert {
                kind: AssignmentCertKind::RelayVRFModuloCompact { core_bitfield },
                vrf: VrfSignature {
                    pre_output: [0; 32],
                    proof: [0; 64],
                },
            },
        };
        encode(ApprovalDistributionMessage::assignments([AssignmentItem {
            cert: item,
            claimed,
        }]))
    }
}

/// A verifier that keeps every approval check for one batch, verified
/// together (`ApprovalCheck::check_batch`) when the settle loop asks once
/// the batch is `due`, and answers certificates as valid (their checks are
/// not what is timed).
struct DeferApprovals {
    checks: Vec<ApprovalCheck>,
    due: bool,
    /// Signatures verified so far.
    checked: usize,
}

impl Verifier for DeferApprovals {
    type Error = std::convert::Infallible;

    fn assignment(&mut self, _: AssignmentCheck) -> Result<Option<AssignmentVerdict>, Self::Error> {
        Ok(Some(Ok(0)))
    }

    fn approval(&mut self, check: ApprovalCheck) -> Result<Option<ApprovalVerdict>, Self::Error> {
        self.checks.push(check);
        Ok(None)
    }

    fn due(&mut self, due: &mut Vec<DeferredVerdict>) -> Result<(), Self::Error> {
        if !self.due || self.checks.is_empty() {
            return Ok(());
        }
        let verdicts = ApprovalCheck::check_batch(&self.checks);
        self.checked += verdicts.len();
        for (check, verdict) in self.checks.drain(..).zip(verdicts) {
            assert!(verdict.is_ok(), "a real signature checks: {verdict:?}");
            due.push(DeferredVerdict {
                token: check.token,
                verdict: CheckVerdict::Approval(verdict),
                group: 0,
            });
        }
        Ok(())
    }
}

/// Handle approval notifications the way a parallel worker does with
/// `--signatures batched`: each decoded and handled, their signature
/// checks deferred and verified together (`ApprovalCheck::check_batch`,
/// at most `batch` at a time), the verdicts fed back by the settle loop.
/// Returns the checks run.
pub fn handle_batched(
    s: &mut State,
    now: Tick,
    messages: &[(PeerId, &[u8])],
    batch: usize,
    out: &mut Vec<Action>,
) -> usize {
    let mut settled = Settled::default();
    let mut verifier = DeferApprovals {
        checks: Vec::new(),
        due: false,
        checked: 0,
    };
    for chunk in messages.chunks(batch.max(1)) {
        verifier.due = false;
        for (peer, bytes) in chunk {
            s.handle_peer_message(now, *peer, decode(bytes), out);
            match s.settle(now, out, &mut verifier, &mut settled) {
                Ok(()) => {}
                Err(never) => match never {},
            }
        }
        verifier.due = true;
        match s.settle(now, out, &mut verifier, &mut settled) {
            Ok(()) => {}
            Err(never) => match never {},
        }
        settled.clear();
    }
    verifier.checked
}

/// Handle one notification the way a validator does: decode it, hand it
/// to distribution, run the checks it asks for (really, with `check`;
/// otherwise the verdict is injected as valid) until none are left.
/// Returns the checks run.
pub fn handle(
    s: &mut State,
    now: Tick,
    peer: PeerId,
    bytes: &[u8],
    check: bool,
    out: &mut Vec<Action>,
) -> usize {
    let msg = decode(bytes);
    s.handle_peer_message(now, peer, msg, out);
    let mut verifier = AnswerWith::new(
        |c: &AssignmentCheck| {
            if !check {
                return Ok(0);
            }
            let v = c.check();
            assert!(v.is_ok(), "a real certificate checks: {v:?}");
            v
        },
        |c: &ApprovalCheck| {
            if !check {
                return Ok(());
            }
            let v = c.check();
            assert!(v.is_ok(), "a real signature checks: {v:?}");
            v
        },
    );
    let mut settled = Settled::default();
    match s.settle(now, out, &mut verifier, &mut settled) {
        Ok(()) => {}
        Err(never) => match never {},
    }
    verifier.checked as usize
}
