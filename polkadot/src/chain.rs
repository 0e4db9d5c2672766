//! The relay chain as Polkadot's subsystems see it, made from tranche's
//! world.
//!
//! tranche's world (`tranche_world::World`) names its blocks, candidates
//! and relay VRF stories by BLAKE2b hashes of the seed. Polkadot's
//! approval-voting derives them instead: a block's hash is its header's
//! hash, a candidate's hash is its receipt's hash and the relay VRF story
//! comes from the BABE VRF pre-output in the header's pre-digest. So the
//! harness makes a header and receipts for every block, asks Polkadot's own
//! code for the values, writes them back into the world, and only then has
//! tranche generate the peers' messages on that world: the assignments'
//! VRFs and the approvals' signatures then check on Polkadot's side.
//!
//! The header's VRF signature is made over a fixed transcript, not the
//! BABE slot claim: nothing on the approval path verifies it (subsystem-bench
//! does the same), only its pre-output feeds the story.

use polkadot_node_network_protocol::PeerId;
use polkadot_node_primitives::approval::v1::{babe_unsafe_vrf_info, RelayVRFStory};
use polkadot_primitives::{
    AssignmentId, AuthorityDiscoveryId, BlockNumber, CandidateCommitments, CandidateDescriptorV2,
    CandidateEvent, CandidateReceiptV2, CoreIndex, GroupIndex, Hash, HeadData, Header,
    Id as ParaId, IndexedVec, SessionIndex, SessionInfo, ValidationCodeHash, ValidatorId,
    ValidatorIndex,
};
use sp_consensus_babe::digests::{CompatibleDigestItem, PreDigest, SecondaryVRFPreDigest};
use sp_consensus_babe::{AllowedSlots, BabeEpochConfiguration, Epoch as BabeEpoch};
use sp_core::crypto::{Pair as _, VrfSecret};
use sp_core::sr25519;
use sp_runtime::{Digest, DigestItem};
use tranche_world::World;

/// The candidate receipt type approval-voting works on.
pub type CandidateReceipt = CandidateReceiptV2<Hash>;

/// What the mocked chain API and runtime API answer, per block.
#[derive(Clone)]
pub struct ChainBlock {
    pub hash: Hash,
    pub header: Header,
    pub session: SessionIndex,
    pub receipts: Vec<CandidateReceipt>,
    pub events: Vec<CandidateEvent>,
}

/// The Polkadot view of a run's chain, keys and peers.
#[derive(Clone)]
pub struct Chain {
    pub blocks: Vec<ChainBlock>,
    /// The hash the first block builds on.
    pub genesis: Hash,
    pub babe_epoch: BabeEpoch,
    /// Sessions in index order from `first_session`; they differ only in
    /// their index, as tranche's world makes them.
    pub session_info: SessionInfo,
    pub first_session: SessionIndex,
    /// The node under test's keys' seeds (validator key, assignment key).
    pub node_seeds: ([u8; 32], [u8; 32]),
    /// One emulated peer per validator (index 0 is the node under test).
    pub peer_ids: Vec<PeerId>,
    pub discovery_keys: Vec<AuthorityDiscoveryId>,
    /// Whether the session enables v2 (compact tranche-0) assignments.
    pub assignments_v2: bool,
    /// The runtime's `max_approval_coalesce_count`: 36.0.0's distribution
    /// rejects approvals that coalesce more candidates. The harness sets
    /// it to the most any generated approval coalesces.
    pub max_approval_coalesce_count: u32,
}

impl Chain {
    /// The block whose hash is `hash`.
    pub fn block(&self, hash: &Hash) -> Option<(usize, &ChainBlock)> {
        self.blocks
            .iter()
            .enumerate()
            .find(|(_, b)| &b.hash == hash)
    }

    /// The session of a block built on `parent`.
    pub fn session_for_child(&self, parent: &Hash) -> SessionIndex {
        if let Some(b) = self.blocks.iter().find(|b| &b.header.parent_hash == parent) {
            return b.session;
        }
        // A leaf or an unknown block: the last session the chain knows.
        self.block(parent)
            .map(|(_, b)| b.session)
            .unwrap_or(self.first_session)
    }
}

fn public(bytes: [u8; 32]) -> sr25519::Public {
    sr25519::Public::from_raw(bytes)
}

/// The BABE authority whose VRF pre-output the headers carry.
fn babe_pair() -> sr25519::Pair {
    sr25519::Pair::from_seed(&tranche_primitives::ValidatorPair::seed_from_label(
        "tranche-polkadot-babe",
    ))
}

fn babe_epoch(first_slot: u64) -> BabeEpoch {
    BabeEpoch {
        epoch_index: 1,
        start_slot: first_slot.saturating_sub(1).into(),
        duration: 2_400,
        authorities: vec![(babe_pair().public().into(), 1)],
        randomness: [0x7e; 32],
        config: BabeEpochConfiguration {
            c: (1, 4),
            allowed_slots: AllowedSlots::PrimaryAndSecondaryVRFSlots,
        },
    }
}

fn header(parent: Hash, number: BlockNumber, slot: u64) -> Header {
    let transcript = sp_core::sr25519::vrf::VrfTranscript::new(
        b"tranche-polkadot-header",
        &[(b"number", &number.to_le_bytes())],
    );
    let vrf_signature = babe_pair().vrf_sign(&transcript.into());
    let mut digest = Digest::default();
    digest.push(DigestItem::babe_pre_digest(PreDigest::SecondaryVRF(
        SecondaryVRFPreDigest {
            authority_index: 0,
            slot: slot.into(),
            vrf_signature,
        },
    )));
    Header {
        parent_hash: parent,
        number,
        state_root: Default::default(),
        extrinsics_root: Default::default(),
        digest,
    }
}

fn receipt(relay_parent: Hash, core: u32, session: SessionIndex) -> CandidateReceipt {
    let tag = |t: u8| {
        let mut h = [t; 32];
        h[..4].copy_from_slice(&core.to_le_bytes());
        Hash::from(h)
    };
    let descriptor = CandidateDescriptorV2::new(
        ParaId::from(core + 1),
        relay_parent,
        CoreIndex(core),
        session,
        tag(1),
        tag(2),
        tag(3),
        tag(4),
        ValidationCodeHash::from(tag(5)),
    );
    CandidateReceiptV2 {
        descriptor,
        commitments_hash: CandidateCommitments::default().hash(),
    }
}

/// Make the Polkadot chain of `world` and rewrite the world's block hashes,
/// parents, candidate hashes and relay VRF stories to Polkadot's. Call it
/// before generating messages on the world.
pub fn polkadot_chain(world: &mut World) -> Chain {
    let first_slot = world.blocks.first().map(|b| b.slot).unwrap_or(0);
    let epoch = babe_epoch(first_slot);
    let genesis = Hash::repeat_byte(0xde);
    let mut parent = genesis;
    let mut blocks = Vec::with_capacity(world.blocks.len());
    for block in world.blocks.iter_mut() {
        let header = header(parent, block.number, block.slot);
        let hash = header.hash();
        let story: RelayVRFStory = babe_unsafe_vrf_info(&header)
            .expect("the header carries a BABE VRF pre-digest")
            .compute_randomness(&epoch.authorities, &epoch.randomness, epoch.epoch_index)
            .expect("authority 0 is in the epoch");
        let mut receipts = Vec::with_capacity(block.candidates.len());
        let mut events = Vec::with_capacity(block.candidates.len());
        let mut candidates = Vec::with_capacity(block.candidates.len());
        for candidate in block.candidates.iter() {
            let r = receipt(parent, candidate.core.0, block.session);
            let mut candidate = *candidate;
            candidate.hash =
                tranche_primitives::CandidateHash(tranche_primitives::Hash(r.hash().0 .0));
            events.push(CandidateEvent::CandidateIncluded(
                r.clone(),
                HeadData::default(),
                CoreIndex(candidate.core.0),
                GroupIndex(candidate.group.0),
            ));
            receipts.push(r);
            candidates.push(candidate);
        }
        block.candidates = candidates.into();
        block.parent = tranche_primitives::Hash(parent.0);
        block.hash = tranche_primitives::Hash(hash.0);
        block.relay_vrf_story = tranche_primitives::RelayVrfStory(story.0);
        blocks.push(ChainBlock {
            hash,
            header,
            session: block.session,
            receipts,
            events,
        });
        parent = hash;
    }

    let s = &world.session;
    let n = s.validators.len();
    let discovery_keys: Vec<AuthorityDiscoveryId> =
        s.validators.iter().map(|v| public(v.0).into()).collect();
    let session_info = SessionInfo {
        active_validator_indices: (0..n as u32).map(ValidatorIndex).collect(),
        random_seed: [0u8; 32],
        dispute_period: 6,
        validators: IndexedVec::from(
            s.validators
                .iter()
                .map(|v| ValidatorId::from(public(v.0)))
                .collect::<Vec<_>>(),
        ),
        discovery_keys: discovery_keys.clone(),
        assignment_keys: s
            .assignment_keys
            .iter()
            .map(|v| AssignmentId::from(public(v.0)))
            .collect(),
        validator_groups: IndexedVec::from(
            s.validator_groups
                .iter()
                .map(|g| g.iter().map(|v| ValidatorIndex(v.0)).collect::<Vec<_>>())
                .collect::<Vec<_>>(),
        ),
        n_cores: s.n_cores,
        zeroth_delay_tranche_width: s.zeroth_delay_tranche_width,
        relay_vrf_modulo_samples: s.relay_vrf_modulo_samples,
        n_delay_tranches: s.n_delay_tranches,
        no_show_slots: s.no_show_slots,
        needed_approvals: s.needed_approvals,
    };
    let node = tranche_world::NODE_UNDER_TEST.0;
    let node_seeds = (
        tranche_primitives::ValidatorPair::seed_from_label(&format!("validator-{node}")),
        tranche_primitives::ValidatorPair::seed_from_label(&format!("assignment-{node}")),
    );
    Chain {
        blocks,
        genesis,
        babe_epoch: epoch,
        session_info,
        first_session: tranche_world::BENCH_SESSION,
        node_seeds,
        peer_ids: (0..n).map(|_| PeerId::random()).collect(),
        discovery_keys,
        assignments_v2: s.assignments_v2,
        max_approval_coalesce_count: 1,
    }
}
