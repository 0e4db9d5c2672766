//! The node's surroundings, answered by the harness: chain API, runtime
//! API, chain selection, the network bridge's sending side, availability
//! recovery and candidate validation, as subsystem-bench's mocks answer
//! them (polkadot/node/subsystem-bench/src/lib/mock/). Everything else in
//! the overseer is Polkadot's `DummySubsystem`, which drops what it gets.
//!
//! Each mock is a plain handler of its subsystem's messages
//! ([`Answer`]) run by one generic subsystem loop ([`Mock`]); what they
//! observe (blocks approved, what the node sent) is shared with the driver
//! through [`Observed`].

use crate::chain::Chain;
use futures::FutureExt;
use parity_scale_codec::Encode;
use polkadot_node_primitives::{AvailableData, BlockData, PoV, ValidationResult};
use polkadot_node_subsystem::messages::{
    AvailabilityRecoveryMessage, CandidateValidationMessage, ChainApiMessage,
    ChainSelectionMessage, NetworkBridgeTxMessage, RuntimeApiMessage, RuntimeApiRequest,
};
use polkadot_node_subsystem::{OverseerSignal, SubsystemError};
use polkadot_overseer::gen::{FromOrchestra, SpawnedSubsystem, Subsystem, SubsystemContext};
use polkadot_primitives::{
    ApprovalVotingParams, AsyncBackingParams, CandidateCommitments, GroupRotationInfo, Hash,
    NodeFeatures, PersistedValidationData, ValidationCode,
};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What the mocks saw, read by the driver.
#[derive(Default)]
pub struct Observed {
    /// When chain selection was told each block (by index) is approved.
    pub approved: Mutex<Vec<Option<Instant>>>,
    /// Messages the node sent to its peers (one per peer it went to).
    pub sent_messages: AtomicU64,
    /// Their encoded bytes.
    pub sent_bytes: AtomicU64,
    /// Requests no mock knows, by name (each reported once).
    pub unanswered: Mutex<BTreeSet<String>>,
    /// Set when the overseer's future ends: it ends when any subsystem
    /// exits or fails, which ends the run.
    pub overseer_stopped: AtomicBool,
}

impl Observed {
    pub fn new(blocks: usize) -> Arc<Self> {
        Arc::new(Observed {
            approved: Mutex::new(vec![None; blocks]),
            ..Default::default()
        })
    }

    fn unanswered(&self, what: String) {
        let mut set = self.unanswered.lock().expect("not poisoned");
        if set.insert(what.clone()) {
            eprintln!("tranche-polkadot: the harness does not answer {what}");
        }
    }
}

/// A mock's answer to one message of its subsystem.
pub trait Answer: Send + 'static {
    type Message: std::fmt::Debug + Send + 'static;
    fn answer(&mut self, message: Self::Message);
}

/// Runs an [`Answer`] as a subsystem: each message answered in turn until
/// the overseer concludes.
pub struct Mock<A>(pub A);

impl<A, Ctx> Subsystem<Ctx, SubsystemError> for Mock<A>
where
    A: Answer,
    Ctx: SubsystemContext<Message = A::Message, Signal = OverseerSignal, Error = SubsystemError>,
{
    fn start(self, mut ctx: Ctx) -> SpawnedSubsystem<SubsystemError> {
        let mut inner = self.0;
        let future = async move {
            loop {
                match ctx.recv().await {
                    Err(_) | Ok(FromOrchestra::Signal(OverseerSignal::Conclude)) => return Ok(()),
                    Ok(FromOrchestra::Signal(_)) => {}
                    Ok(FromOrchestra::Communication { msg }) => inner.answer(msg),
                }
            }
        }
        .boxed();
        // subsystem-bench's name for the harness's own work.
        SpawnedSubsystem {
            name: "test-environment",
            future,
        }
    }
}

/// The chain API: headers, numbers and ancestry of the run's blocks.
pub struct ChainApi {
    pub chain: Arc<Chain>,
    pub observed: Arc<Observed>,
}

impl Answer for ChainApi {
    type Message = ChainApiMessage;
    fn answer(&mut self, message: ChainApiMessage) {
        let chain = &self.chain;
        match message {
            ChainApiMessage::BlockHeader(hash, tx) => {
                let _ = tx.send(Ok(chain.block(&hash).map(|(_, b)| b.header.clone())));
            }
            ChainApiMessage::BlockNumber(hash, tx) => {
                let _ = tx.send(Ok(chain.block(&hash).map(|(_, b)| b.header.number)));
            }
            ChainApiMessage::FinalizedBlockNumber(tx) => {
                let _ = tx.send(Ok(0));
            }
            ChainApiMessage::FinalizedBlockHash(number, tx) => {
                let hash = if number == 0 {
                    Some(chain.genesis)
                } else {
                    chain
                        .blocks
                        .iter()
                        .find(|b| b.header.number == number)
                        .map(|b| b.hash)
                };
                let _ = tx.send(Ok(hash));
            }
            ChainApiMessage::Ancestors {
                hash,
                k,
                response_channel,
            } => {
                // Newest first, down to (not including) genesis.
                let mut out = Vec::new();
                let mut at = chain.block(&hash).map(|(i, _)| i);
                while let Some(i) = at {
                    if out.len() >= k || i == 0 {
                        break;
                    }
                    out.push(chain.blocks[i - 1].hash);
                    at = Some(i - 1);
                }
                if out.len() < k && chain.block(&hash).is_some() {
                    out.push(chain.genesis);
                }
                let _ = response_channel.send(Ok(out));
            }
            other => self.observed.unanswered(format!("{other:?}")),
        }
    }
}

/// The runtime API: candidates, session, BABE epoch and parameters.
pub struct RuntimeApi {
    pub chain: Arc<Chain>,
    pub observed: Arc<Observed>,
}

impl Answer for RuntimeApi {
    type Message = RuntimeApiMessage;
    fn answer(&mut self, message: RuntimeApiMessage) {
        let chain = &self.chain;
        let RuntimeApiMessage::Request(at, request) = message;
        match request {
            RuntimeApiRequest::CandidateEvents(tx) => {
                let events = chain
                    .block(&at)
                    .map(|(_, b)| b.events.clone())
                    .unwrap_or_default();
                let _ = tx.send(Ok(events));
            }
            RuntimeApiRequest::SessionIndexForChild(tx) => {
                let _ = tx.send(Ok(chain.session_for_child(&at)));
            }
            RuntimeApiRequest::SessionInfo(_, tx) => {
                let _ = tx.send(Ok(Some(chain.session_info.clone())));
            }
            RuntimeApiRequest::SessionExecutorParams(_, tx) => {
                let _ = tx.send(Ok(Some(Default::default())));
            }
            RuntimeApiRequest::CurrentBabeEpoch(tx) => {
                let _ = tx.send(Ok(chain.babe_epoch.clone()));
            }
            RuntimeApiRequest::NodeFeatures(_, tx) => {
                let mut features = NodeFeatures::EMPTY;
                if chain.assignments_v2 {
                    let bit = polkadot_primitives::node_features::FeatureIndex::EnableAssignmentsV2
                        as usize;
                    features.resize(bit + 1, false);
                    features.set(bit, true);
                }
                let _ = tx.send(Ok(features));
            }
            RuntimeApiRequest::ApprovalVotingParams(_, tx) => {
                let _ = tx.send(Ok(ApprovalVotingParams {
                    max_approval_coalesce_count: chain.max_approval_coalesce_count,
                }));
            }
            RuntimeApiRequest::ValidationCodeByHash(_, tx) => {
                let _ = tx.send(Ok(Some(ValidationCode(vec![0u8; 16]))));
            }
            RuntimeApiRequest::Validators(tx) => {
                let _ = tx.send(Ok(chain.session_info.validators.to_vec()));
            }
            RuntimeApiRequest::DisabledValidators(tx) => {
                let _ = tx.send(Ok(Vec::new()));
            }
            RuntimeApiRequest::Version(tx) => {
                let _ = tx.send(Ok(
                    RuntimeApiRequest::DISABLED_VALIDATORS_RUNTIME_REQUIREMENT,
                ));
            }
            RuntimeApiRequest::AsyncBackingParams(tx) => {
                let _ = tx.send(Ok(AsyncBackingParams {
                    max_candidate_depth: 1,
                    allowed_ancestry_len: 1,
                }));
            }
            RuntimeApiRequest::MinimumBackingVotes(_, tx) => {
                let _ = tx.send(Ok(2));
            }
            RuntimeApiRequest::ValidatorGroups(tx) => {
                let rotation = GroupRotationInfo {
                    session_start_block: 1,
                    group_rotation_frequency: 12,
                    now: 1,
                };
                let groups = chain.session_info.validator_groups.to_vec();
                let _ = tx.send(Ok((groups, rotation)));
            }
            other => self.observed.unanswered(format!("{other:?}")),
        }
    }
}

/// Chain selection: records when each block is reported approved.
pub struct ChainSelection {
    pub chain: Arc<Chain>,
    pub observed: Arc<Observed>,
}

impl Answer for ChainSelection {
    type Message = ChainSelectionMessage;
    fn answer(&mut self, message: ChainSelectionMessage) {
        match message {
            ChainSelectionMessage::Approved(hash) => {
                if let Some((i, _)) = self.chain.block(&hash) {
                    let mut approved = self.observed.approved.lock().expect("not poisoned");
                    if approved[i].is_none() {
                        approved[i] = Some(Instant::now());
                    }
                }
            }
            ChainSelectionMessage::Leaves(tx) => {
                let _ = tx.send(
                    self.chain
                        .blocks
                        .last()
                        .map(|b| b.hash)
                        .into_iter()
                        .collect(),
                );
            }
            ChainSelectionMessage::BestLeafContaining(_, tx) => {
                let _ = tx.send(self.chain.blocks.last().map(|b| b.hash));
            }
            ChainSelectionMessage::RevertBlocks(_) => {}
        }
    }
}

/// The network bridge's sending side: counts what the node sends.
pub struct NetworkBridgeTx {
    pub observed: Arc<Observed>,
}

impl Answer for NetworkBridgeTx {
    type Message = NetworkBridgeTxMessage;
    fn answer(&mut self, message: NetworkBridgeTxMessage) {
        let count = |peers: usize, bytes: usize| {
            self.observed
                .sent_messages
                .fetch_add(peers as u64, Ordering::Relaxed);
            self.observed
                .sent_bytes
                .fetch_add((peers * bytes) as u64, Ordering::Relaxed);
        };
        match message {
            NetworkBridgeTxMessage::SendValidationMessage(peers, message) => {
                count(peers.len(), wire_size(&message));
            }
            NetworkBridgeTxMessage::SendValidationMessages(list) => {
                for (peers, message) in list {
                    count(peers.len(), wire_size(&message));
                }
            }
            // Reputation changes and the rest: nothing to do.
            _ => {}
        }
    }
}

fn wire_size(message: &polkadot_node_network_protocol::VersionedValidationProtocol) -> usize {
    match message {
        polkadot_node_network_protocol::ValidationProtocols::V3(m) => m.encoded_size(),
    }
}

/// Availability recovery: every candidate's data is available at once.
pub struct AvailabilityRecovery;

impl Answer for AvailabilityRecovery {
    type Message = AvailabilityRecoveryMessage;
    fn answer(&mut self, message: AvailabilityRecoveryMessage) {
        let AvailabilityRecoveryMessage::RecoverAvailableData(_, _, _, _, tx) = message;
        let _ = tx.send(Ok(AvailableData {
            pov: Arc::new(PoV {
                block_data: BlockData(Vec::new()),
            }),
            validation_data: PersistedValidationData::default(),
        }));
    }
}

/// Candidate validation: every candidate is valid (as subsystem-bench).
pub struct CandidateValidation;

impl Answer for CandidateValidation {
    type Message = CandidateValidationMessage;
    fn answer(&mut self, message: CandidateValidationMessage) {
        if let CandidateValidationMessage::ValidateFromExhaustive {
            response_sender, ..
        } = message
        {
            let _ = response_sender.send(Ok(ValidationResult::Valid(
                CandidateCommitments::default(),
                PersistedValidationData::default(),
            )));
        }
    }
}

/// Always true: every block of the run is a parachains block.
pub struct AlwaysSupportsParachains;

#[async_trait::async_trait]
impl polkadot_overseer::HeadSupportsParachains for AlwaysSupportsParachains {
    async fn head_supports_parachains(&self, _head: &Hash) -> bool {
        true
    }
}

/// The node is never syncing.
pub struct NeverSyncing;

impl sp_consensus::SyncOracle for NeverSyncing {
    fn is_major_syncing(&self) -> bool {
        false
    }
    fn is_offline(&self) -> bool {
        false
    }
}
