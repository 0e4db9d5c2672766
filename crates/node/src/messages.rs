//! What flows into the node, out of it, and between its workers.

use std::sync::Arc;
use tranche_distribution::{
    ApprovalCheck, ApprovalVerdict, AssignmentCheck, AssignmentVerdict, PeerId,
    SessionGridTopology, View,
};
use tranche_primitives::{
    ApprovalDistributionMessage, Block, BlockNumber, CandidateBitfield, Hash,
    IndirectAssignmentCert, IndirectSignedApprovalVote, SessionIndex, Tick, ValidatorIndex,
};
use tranche_voting::{CheckedApproval, CheckedAssignment, NewBlock};

/// Which node layout runs the state machines ([`Layout`], the one type
/// of the node, the simulation and their configuration), with the
/// parallel layout's distribution workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Architecture {
    pub layout: Layout,
    /// Distribution workers: 1 in the classic layout.
    pub workers: usize,
}

impl Architecture {
    /// `approval-distribution` + `approval-voting`; voting checks crypto
    /// and distribution waits for each verdict.
    pub const CLASSIC: Architecture = Architecture {
        layout: Layout::Classic,
        workers: 1,
    };

    /// A router, `workers` distribution workers that check crypto, one
    /// voting worker.
    pub fn parallel(workers: usize) -> Architecture {
        Architecture {
            layout: Layout::Parallel,
            workers,
        }
    }

    /// `classic` or `parallel`.
    pub fn name(&self) -> &'static str {
        self.layout.name()
    }

    /// The distribution workers it runs: one in the classic layout.
    pub fn distribution_workers(&self) -> usize {
        match self.layout {
            Layout::Classic => 1,
            Layout::Parallel => self.workers,
        }
    }

    /// `classic` or `parallel/N`, as reports name a layout.
    pub fn label(&self) -> String {
        match self.layout {
            Layout::Classic => "classic".to_owned(),
            Layout::Parallel => format!("parallel/{}", self.workers),
        }
    }
}

/// How the parallel layout's distribution workers verify approval
/// signatures (the classic layout checks one by one on the voting thread,
/// as upstream's did before polkadot-sdk#4928).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SignatureCheck {
    /// Each signature alone, as upstream.
    OneByOne,
    /// The approvals a worker drained together as one schnorrkel batch; a
    /// failing batch is bisected, so every verdict (and every peer's
    /// charge) is the one a single check gives. Tranche's choice: the same
    /// decisions for about half the CPU (BENCHMARKS.md).
    #[default]
    Batched,
}

/// In which order a distribution worker checks what waits in its bounded
/// input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Schedule {
    /// Arrival order, as upstream.
    #[default]
    Fifo,
    /// When the backlog holds messages from before the current tick (the
    /// worker is behind), first those that can still change an approval —
    /// for candidates voting has not approved yet — lowest tranche first,
    /// then the rest in arrival order (`crate::backlog`).
    UsefulFirst,
}

/// How the node spends its checking CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckPolicy {
    pub signatures: SignatureCheck,
    pub schedule: Schedule,
    /// `useful-first`: how many messages a worker's backlog holds; `None`:
    /// as many as its bounded input (the default). A larger backlog lets
    /// the worker see further ahead past the messages that can no longer
    /// change an approval.
    pub backlog: Option<usize>,
    /// Parallel layout, `fifo`: how many messages a worker drains at once
    /// to check their certificates back to back (`crate::ahead`); 0: each
    /// certificate when phase 1 asks for it.
    pub ahead: usize,
}

impl Default for CheckPolicy {
    fn default() -> Self {
        CheckPolicy {
            signatures: SignatureCheck::default(),
            schedule: Schedule::default(),
            backlog: None,
            ahead: DEFAULT_AHEAD_BATCH,
        }
    }
}

/// Messages a parallel-layout worker drains into one batch by default to
/// check their certificates back to back (`ahead.rs`).
pub const DEFAULT_AHEAD_BATCH: usize = 256;

pub use tranche_validator::layout::{Layout, DEFAULT_WORKERS};

/// Where approval voting keeps its state.
#[derive(Debug, Clone)]
pub enum StoreConfig {
    /// In memory; gone when the node stops.
    Memory,
    /// An embedded redb database file (its path, and the configuration
    /// its owner's marker records).
    Redb(tranche_store::Place),
    /// A ParityDB database (a folder), as Polkadot's node keeps its
    /// parachains data.
    ParityDb(tranche_store::Place),
    /// The inner store, failing on purpose at `fault` (tests of what the
    /// node does when its store fails; docs/durability.md).
    Faulty(Box<StoreConfig>, tranche_voting::Fault),
}

/// Something the node tells its user.
#[derive(Debug, Clone)]
pub enum NodeEvent {
    /// One notification for one peer: SCALE of a v3 `ValidationProtocol`
    /// message (no framing), and how many items it carries.
    Send {
        peer: PeerId,
        bytes: Arc<[u8]>,
        items: usize,
    },
    /// A peer's reputation changes since the last report, summed (see
    /// `reputation.rs`: sent every 30 s of ticks, malicious ones at once).
    Reputation { peer: PeerId, change: i32 },
    /// A peer sent bytes that do not decode.
    Malformed { peer: PeerId, error: String },
    /// Chain selection is told the block is approved.
    BlockApproved {
        hash: Hash,
        number: BlockNumber,
        tick: Tick,
    },
}

/// Input of a distribution worker.
pub(crate) enum DistMsg {
    /// Raw bytes from a peer (classic: distribution decodes them itself).
    PeerBytes {
        peer: PeerId,
        bytes: Arc<[u8]>,
    },
    /// One item of a peer's notification whose items go to several
    /// workers (parallel: the router read where each item lies, this
    /// worker decodes its own); `range` is the item's bytes.
    PeerItem {
        peer: PeerId,
        bytes: Arc<[u8]>,
        kind: tranche_primitives::wire_skim::ItemKind,
        range: std::ops::Range<usize>,
    },
    /// A decoded message from a peer (decoded ahead of handling by a
    /// worker that looks at its input before it handles it).
    Peer {
        peer: PeerId,
        message: ApprovalDistributionMessage,
    },
    /// A peer or topology event (every distribution worker gets it).
    Network(NetworkEvent),
    /// New blocks, with the sessions they are in: distribution learns a
    /// session from the first block of it (upstream fetches the session's
    /// info on demand).
    NewBlocks {
        blocks: Vec<Block>,
        sessions: Vec<Arc<tranche_primitives::Session>>,
    },
    /// `useful-first`: voting approved this candidate (priority path);
    /// messages about it no longer go ahead.
    CandidateApproved {
        block: Hash,
        candidate: tranche_primitives::CandidateIndex,
    },
    /// The node's own view (its leaves) changed: messages for these blocks
    /// are held until the blocks are known.
    OurView(Vec<Hash>),
    DistributeAssignment {
        cert: IndirectAssignmentCert,
        claimed: CandidateBitfield,
    },
    DistributeApproval(IndirectSignedApprovalVote),
    Finalized(BlockNumber),
    GetApprovalSignatures {
        indices: Vec<(Hash, tranche_primitives::CandidateIndex)>,
        reply: crossbeam_channel::Sender<ApprovalSignatures>,
    },
    Control(WorkerControl),
}

/// Input of the router.
pub(crate) enum RouterMsg {
    PeerBytes {
        peer: tranche_distribution::PeerId,
        bytes: Arc<[u8]>,
    },
    Input(Input),
    /// From the voting worker: new blocks (for every worker) and our own
    /// assignments and approvals (for the worker of their validator),
    /// forwarded on the workers' bounded inputs.
    FromVoting(DistMsg),
    Control(WorkerControl),
}

/// Input of the voting worker.
pub(crate) enum VoteMsg {
    Block(NewBlock),
    /// Parallel: an assignment a distribution worker already checked.
    Assignment(CheckedAssignment),
    /// Parallel: an approval a distribution worker already checked.
    Approval(CheckedApproval),
    /// Classic: check this certificate, import it if valid, and answer.
    CheckAssignment {
        check: AssignmentCheck,
        reply: crossbeam_channel::Sender<AssignmentVerdict>,
    },
    /// Classic: check this signature, import it if valid, and answer.
    CheckApproval {
        check: ApprovalCheck,
        reply: crossbeam_channel::Sender<ApprovalVerdict>,
    },
    Finalized {
        hash: Hash,
        number: BlockNumber,
    },
    /// Virtual clock: the tick moved; run due wakeups.
    Tick(Tick),
    Control(WorkerControl),
}

/// What the node's user feeds it, but peers' bytes (each layout handles
/// those its own way): a layout hands it on with [`crate::fanout`].
pub(crate) enum Input {
    Block(NewBlock),
    Network(NetworkEvent),
    Finalized {
        hash: Hash,
        number: BlockNumber,
    },
    /// Virtual clock: the tick moved.
    Tick(Tick),
    /// `GetApprovalSignatures`: every distribution worker answers on
    /// `reply` with the signatures it holds for these (block, candidate)
    /// pairs.
    GetApprovalSignatures {
        indices: Vec<(Hash, tranche_primitives::CandidateIndex)>,
        reply: crossbeam_channel::Sender<ApprovalSignatures>,
    },
}

/// A peer or topology event, for every distribution worker.
#[derive(Clone)]
pub(crate) enum NetworkEvent {
    PeerConnected {
        peer: PeerId,
        authority: Option<ValidatorIndex>,
    },
    PeerDisconnected(PeerId),
    PeerView {
        peer: PeerId,
        view: View,
    },
    Topology {
        session: SessionIndex,
        grid: SessionGridTopology,
        local: Option<ValidatorIndex>,
    },
    /// A connected peer's validator identity became known or changed
    /// (upstream `PeerAuthorityUpdated`); a disconnect keeps it.
    PeerAuthority {
        peer: PeerId,
        authority: ValidatorIndex,
    },
}

/// The approval signatures a distribution worker holds, by validator:
/// `(block, candidate indices the vote covers, signature)`.
pub type ApprovalSignatures = std::collections::BTreeMap<
    ValidatorIndex,
    (
        Hash,
        Vec<tranche_primitives::CandidateIndex>,
        tranche_primitives::ValidatorSignature,
    ),
>;

/// Lifecycle messages every worker understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WorkerControl {
    /// Finish: flush and exit.
    Stop,
    /// Fail on purpose (tests of failure handling).
    Fault,
}

/// An item handed from distribution to voting in the parallel layout.
/// Report bytes from `peer` that do not decode: at once, not aggregated.
pub(crate) fn report_malformed(
    peer: PeerId,
    error: String,
    events: &crossbeam_channel::Sender<NodeEvent>,
) {
    let _ = events.send(NodeEvent::Malformed { peer, error });
    let _ = events.send(NodeEvent::Reputation {
        peer,
        change: tranche_distribution::reputation::COST_INVALID_MESSAGE.value,
    });
}

/// A peer's bytes (or one item of them) decoded ahead of handling, for a
/// worker that looks at what it drained before handling it; what does not
/// decode stays as it came and is reported when handled.
pub(crate) fn decoded(m: DistMsg) -> DistMsg {
    use tranche_primitives::ValidationProtocol;
    match m {
        DistMsg::PeerBytes { peer, bytes } => match ValidationProtocol::decode_wire(&bytes) {
            Ok(ValidationProtocol::ApprovalDistribution(message)) => {
                DistMsg::Peer { peer, message }
            }
            Err(_) => DistMsg::PeerBytes { peer, bytes },
        },
        DistMsg::PeerItem {
            peer,
            bytes,
            kind,
            range,
        } => match tranche_primitives::wire_skim::decode_item(kind, &bytes[range.clone()]) {
            Ok(message) => DistMsg::Peer { peer, message },
            Err(_) => DistMsg::PeerItem {
                peer,
                bytes,
                kind,
                range,
            },
        },
        other => other,
    }
}

/// Decode one notification from a peer; bytes that do not decode are
/// reported (with the invalid-message cost) instead.
pub(crate) fn decode_peer_bytes(
    peer: PeerId,
    bytes: &[u8],
    events: &crossbeam_channel::Sender<NodeEvent>,
) -> Option<ApprovalDistributionMessage> {
    match tranche_primitives::ValidationProtocol::decode_wire(bytes) {
        Ok(tranche_primitives::ValidationProtocol::ApprovalDistribution(m)) => Some(m),
        Err(e) => {
            report_malformed(peer, e.to_string(), events);
            None
        }
    }
}
