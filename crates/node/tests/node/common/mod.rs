//! A small synthetic network for node tests: validator keys, a session,
//! blocks, every peer's real assignments and approvals, and a virtual-time
//! driver that feeds them to a node in the per-tick order of the scenarios
//! (wakeups, block imports, deliveries, drain).

#![allow(dead_code)]

use parity_scale_codec::Encode;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tranche_distribution::{Outgoing, PeerId, SessionGridTopology, View};
use tranche_node::{Architecture, Clock, Node, NodeConfig, NodeError, NodeEvent, StoreConfig};
use tranche_primitives::criteria::compute_assignments;
use tranche_primitives::time::DEFAULT_TICKS_PER_SLOT;
use tranche_primitives::vote::sign_approval;
use tranche_primitives::{
    ApprovalDistributionMessage, AssignmentCertKind, AssignmentItem, Block, Candidate,
    CandidateBitfield, CandidateHash, CoreIndex, GroupIndex, Hash, IndirectAssignmentCert,
    IndirectSignedApprovalVote, RelayVrfStory, Session, SessionInfo, Tick, ValidationProtocol,
    ValidatorIndex, ValidatorPair,
};
use tranche_store::{ParityDbStore, RedbStore};
use tranche_voting::{LocalKeys, NewBlock, Snapshot, Store, ValidatorSet};

/// The folder the tests' databases go in: `/dev/shm` where it is a
/// writable tmpfs (Linux), else the system's temporary folder. What the
/// fault and crash tests check (every announcement in the database after
/// a store fault or a SIGKILL, neither of which loses the kernel's page
/// cache) holds alike on either; on a disk, every ParityDB flush waits on
/// fsyncs of its table files (the fault points took 76 s instead of 5 s
/// on a busy machine).
pub fn scratch() -> std::path::PathBuf {
    let shm = std::path::Path::new("/dev/shm");
    if shm.is_dir() && tempfile::tempdir_in(shm).is_ok() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

pub struct Net {
    pub n: u32,
    /// Validator keys (votes).
    pub pairs: Vec<ValidatorPair>,
    /// Assignment keys (certificates), different from the validator keys
    /// as on a real network.
    pub assignment_pairs: Vec<ValidatorPair>,
    /// The first session (the one the node is started with).
    pub session: Arc<Session>,
    /// Every session the blocks are in, by index from 1.
    pub sessions: Vec<Arc<Session>>,
    pub blocks: Vec<NewBlock>,
    /// (tick, sender, encoded notification)
    pub schedule: Vec<(Tick, u32, Arc<[u8]>)>,
}

pub fn net(n: u32, n_cores: u32, n_blocks: u32, needed: u32) -> Net {
    net_with_sessions(n, n_cores, n_blocks, needed, n_blocks.max(1))
}

/// [`net`] with a new session (index 1, 2, ...: same validators and keys)
/// every `blocks_per_session` blocks.
pub fn net_with_sessions(
    n: u32,
    n_cores: u32,
    n_blocks: u32,
    needed: u32,
    blocks_per_session: u32,
) -> Net {
    let pairs: Vec<ValidatorPair> = (0..n)
        .map(|i| ValidatorPair::from_label(&format!("validator-{i}")))
        .collect();
    let keys: Vec<_> = pairs.iter().map(|p| p.id()).collect();
    let assignment_pairs: Vec<ValidatorPair> = (0..n)
        .map(|i| ValidatorPair::from_label(&format!("assignment-{i}")))
        .collect();
    let assignment_keys: Vec<_> = assignment_pairs.iter().map(|p| p.id()).collect();
    let per_group = (n / n_cores).max(1);
    let info = SessionInfo {
        session_index: 1,
        n_cores,
        needed_approvals: needed,
        relay_vrf_modulo_samples: 2,
        n_delay_tranches: 12,
        zeroth_delay_tranche_width: 0,
        no_show_slots: 2,
        validator_groups: (0..n_cores)
            .map(|g| {
                (g * per_group..((g + 1) * per_group).min(n))
                    .map(ValidatorIndex)
                    .collect()
            })
            .collect(),
        assignment_keys,
        validators: keys,
        assignments_v2: true,
        max_approval_coalesce_count: 1,
    };
    let n_sessions = n_blocks.max(1).div_ceil(blocks_per_session.max(1));
    let sessions: Vec<Arc<Session>> = (1..=n_sessions)
        .map(|index| {
            Arc::new(Session::new(SessionInfo {
                session_index: index,
                ..info.clone()
            }))
        })
        .collect();
    let mut blocks = Vec::new();
    let mut schedule = Vec::new();
    let mut parent = Hash([0xde; 32]);
    for b in 1..=n_blocks {
        let hash = Hash::blake2_256(&[b"block".as_slice(), &b.to_le_bytes()].concat());
        let story =
            RelayVrfStory(Hash::blake2_256(&[b"story".as_slice(), &b.to_le_bytes()].concat()).0);
        let slot = 100 + u64::from(b);
        let candidates: Vec<Candidate> = (0..n_cores)
            .map(|c| Candidate {
                hash: CandidateHash(Hash::blake2_256(
                    &[hash.0.as_slice(), &c.to_le_bytes()].concat(),
                )),
                core: CoreIndex(c),
                group: GroupIndex(c),
            })
            .collect();
        let block_tick = slot * DEFAULT_TICKS_PER_SLOT;
        let session = &sessions[((b - 1) / blocks_per_session.max(1)) as usize];
        let session_index = session.info.session_index;
        for v in 1..n {
            let ours = compute_assignments(
                &assignment_pairs[v as usize],
                ValidatorIndex(v),
                &story,
                &session.info,
                &candidates,
            );
            let mut seen = Vec::new();
            for (core, a) in &ours {
                let cores: Vec<u32> = match &a.cert.kind {
                    AssignmentCertKind::RelayVRFModuloCompact { core_bitfield } => {
                        core_bitfield.iter_ones().collect()
                    }
                    _ => vec![core.0],
                };
                if seen.contains(&cores) {
                    continue;
                }
                seen.push(cores.clone());
                let claimed = CandidateBitfield::from_indices(&cores).unwrap();
                let msg = ApprovalDistributionMessage::assignments([AssignmentItem {
                    cert: IndirectAssignmentCert {
                        block_hash: hash,
                        validator: ValidatorIndex(v),
                        cert: a.cert.clone(),
                    },
                    claimed,
                }]);
                let t = block_tick + Tick::from(a.tranche);
                schedule.push((
                    t,
                    v,
                    ValidationProtocol::ApprovalDistribution(msg)
                        .encode()
                        .into(),
                ));
                for c in cores {
                    let sig = sign_approval(
                        &pairs[v as usize],
                        &[candidates[c as usize].hash],
                        session_index,
                    );
                    let vote =
                        ApprovalDistributionMessage::approvals([IndirectSignedApprovalVote {
                            block_hash: hash,
                            candidate_indices: CandidateBitfield::from_index(c),
                            validator: ValidatorIndex(v),
                            signature: sig,
                        }]);
                    schedule.push((
                        t + 1,
                        v,
                        ValidationProtocol::ApprovalDistribution(vote)
                            .encode()
                            .into(),
                    ));
                }
            }
        }
        blocks.push(NewBlock {
            block: Block {
                hash,
                number: b,
                parent,
                slot,
                session: session.info.session_index,
                relay_vrf_story: story,
                candidates: candidates.into(),
            },
            session: session.clone(),
        });
        parent = hash;
    }
    schedule.sort_by_key(|(t, v, _)| (*t, *v));
    Net {
        n,
        pairs,
        assignment_pairs,
        session: sessions[0].clone(),
        sessions,
        blocks,
        schedule,
    }
}

pub fn config(net: &Net, architecture: Architecture, clock: Clock) -> NodeConfig {
    NodeConfig {
        architecture,
        clock,
        local: Some(LocalKeys {
            assignment: net.assignment_pairs[0].clone(),
            approval: net.pairs[0].clone(),
            index: ValidatorIndex(0),
        }),
        sessions: vec![net.session.clone()],
        voting: tranche_voting::Config::default(),
        distribution: tranche_distribution::Config {
            routing_seed: 7,
            ..Default::default()
        },
        store: StoreConfig::Memory,
        checks: Default::default(),
    }
}

/// [`config`] with the store in the redb file `db`.
pub fn config_with_db(
    net: &Net,
    architecture: Architecture,
    clock: Clock,
    db: &std::path::Path,
) -> NodeConfig {
    let mut cfg = config(net, architecture, clock);
    cfg.store = StoreConfig::Redb(db.into());
    cfg
}

/// An outgoing item without its proof or signature bytes (the node's own
/// certificates and votes are randomised).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum ItemKey {
    Assignment {
        block: Hash,
        validator: u32,
        claimed: Vec<u32>,
        pre_output: [u8; 32],
    },
    Approval {
        block: Hash,
        validator: u32,
        candidates: Vec<u32>,
    },
}

pub fn item_keys(bytes: &[u8]) -> Vec<ItemKey> {
    match ValidationProtocol::decode_wire(bytes).expect("the node sends valid messages") {
        ValidationProtocol::ApprovalDistribution(ApprovalDistributionMessage::Assignments(
            items,
        )) => items
            .iter()
            .map(|i| &**i)
            .map(|AssignmentItem { cert: a, claimed }| ItemKey::Assignment {
                block: a.block_hash,
                validator: a.validator.0,
                claimed: claimed.iter_ones().collect(),
                pre_output: a.cert.vrf.pre_output,
            })
            .collect(),
        ValidationProtocol::ApprovalDistribution(ApprovalDistributionMessage::Approvals(items)) => {
            items
                .into_iter()
                .map(|v| ItemKey::Approval {
                    block: v.block_hash,
                    validator: v.validator.0,
                    candidates: v.candidate_indices.iter_ones().collect(),
                })
                .collect()
        }
    }
}

/// What a run produced, per tick.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// Block number → tick approved.
    pub approved: BTreeMap<u32, Tick>,
    /// Tick → sorted (peer, item) pairs sent during it.
    pub sent: BTreeMap<Tick, Vec<(u32, ItemKey)>>,
    pub notifications: usize,
    /// Tick → every notification sent during it: (peer, its items in
    /// order), sorted.
    pub groups: BTreeMap<Tick, Vec<(u32, Vec<ItemKey>)>>,
}

fn drain(node: &Node, tick: Tick, trace: &mut Trace) {
    while let Ok(e) = node.events().try_recv() {
        match e {
            NodeEvent::Send { peer, bytes, .. } => {
                trace.notifications += 1;
                let keys = item_keys(&bytes);
                let list = trace.sent.entry(tick).or_default();
                for k in &keys {
                    list.push((peer.0, k.clone()));
                }
                trace.groups.entry(tick).or_default().push((peer.0, keys));
            }
            NodeEvent::BlockApproved { number, tick, .. } => {
                trace.approved.entry(number).or_insert(tick);
            }
            _ => {}
        }
    }
}

const IDLE: Duration = Duration::from_secs(60);

/// Connect every peer, set the identity grid, and run the schedule in
/// virtual time until `end`.
pub fn run_virtual(net: &Net, node: &mut Node, end: Tick) -> Trace {
    run_virtual_with(net, node, end, false)
}

/// [`run_virtual`]; with `late_authority`, peers connect without a
/// validator identity and learn it right after (`Node::peer_authority`).
pub fn run_virtual_with(net: &Net, node: &mut Node, end: Tick, late_authority: bool) -> Trace {
    let mut trace = Trace::default();
    let first = net.blocks[0].block.slot * DEFAULT_TICKS_PER_SLOT;
    assert!(net.schedule.iter().all(|(t, _, _)| *t >= first));
    connect(net, node, first, late_authority);
    drive_ticks(net, node, first, end, |node, tick| {
        drain(node, tick, &mut trace)
    });
    for list in trace.sent.values_mut() {
        list.sort();
    }
    for list in trace.groups.values_mut() {
        list.sort();
    }
    trace
}

/// Set the tick, connect every peer (with `late_authority`: without an
/// identity, learnt right after) and set the identity grid.
pub fn connect(net: &Net, node: &mut Node, tick: Tick, late_authority: bool) {
    node.set_tick(tick).unwrap();
    for v in 1..net.n {
        let authority = (!late_authority).then_some(ValidatorIndex(v));
        node.peer_connected(PeerId(v), authority).unwrap();
        if late_authority {
            node.peer_authority(PeerId(v), ValidatorIndex(v)).unwrap();
        }
    }
    // The first session's topology, and that of every session begun before
    // `tick` (a restarted node hears them again).
    let mut begun = vec![net.session.info.session_index];
    for b in net.blocks.iter().filter(|b| slot_tick(b) < tick) {
        if !begun.contains(&b.block.session) {
            begun.push(b.block.session);
        }
    }
    for session in begun {
        set_topology(net, node, session);
    }
    node.wait_idle(IDLE).unwrap();
}

fn slot_tick(b: &NewBlock) -> Tick {
    b.block.slot * DEFAULT_TICKS_PER_SLOT
}

/// The identity grid for `session`, with the node as validator 0.
pub fn set_topology(net: &Net, node: &mut Node, session: u32) {
    node.topology(
        session,
        SessionGridTopology::identity(net.n as usize),
        Some(ValidatorIndex(0)),
    )
    .unwrap();
}

/// Every peer shows the node a view with these heads.
pub fn show_heads(net: &Net, node: &mut Node, heads: &[Hash]) {
    for v in 1..net.n {
        let view = View {
            heads: heads.to_vec(),
            finalized_number: 0,
        };
        node.peer_view(PeerId(v), view).unwrap();
    }
}

/// Ticks `from..=to`: set the tick, import the tick's blocks (each shown to
/// every peer), deliver the schedule's messages of the tick, let the node
/// settle, then `after(node, tick)`.
pub fn drive_ticks(
    net: &Net,
    node: &mut Node,
    from: Tick,
    to: Tick,
    after: impl FnMut(&Node, Tick),
) {
    try_drive_ticks(net, node, from, to, after).unwrap()
}

/// [`drive_ticks`], stopping at the node's first error (a failed worker).
pub fn try_drive_ticks(
    net: &Net,
    node: &mut Node,
    from: Tick,
    to: Tick,
    mut after: impl FnMut(&Node, Tick),
) -> Result<(), NodeError> {
    for tick in from..=to {
        node.set_tick(tick)?;
        node.wait_idle(IDLE)?;
        for (i, b) in net
            .blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| slot_tick(b) == tick)
        {
            // A session's topology arrives with its first block.
            if i > 0 && net.blocks[i - 1].block.session != b.block.session {
                set_topology(net, node, b.block.session);
                node.wait_idle(IDLE)?;
            }
            node.import_block(b.clone())?;
            node.wait_idle(IDLE)?;
            for v in 1..net.n {
                let view = View {
                    heads: vec![b.block.hash],
                    finalized_number: 0,
                };
                node.peer_view(PeerId(v), view)?;
            }
            node.wait_idle(IDLE)?;
        }
        for (_, v, bytes) in net.schedule.iter().filter(|(t, _, _)| *t == tick) {
            node.peer_message(PeerId(*v), bytes.clone())?;
        }
        node.wait_idle(IDLE)?;
        after(node, tick);
    }
    Ok(())
}

pub fn outgoing_kind(o: &Outgoing) -> &'static str {
    match o {
        Outgoing::Assignment(_) => "assignment",
        Outgoing::Approval(_) => "approval",
    }
}

/// Run the schedule's ticks `from..=to` only, as a node restarted at `from`
/// would see them: peers connect and (with `restarted`) show their view of
/// the blocks imported before `from`, which are not imported again; the
/// schedule's messages of earlier ticks are not sent again.
pub fn run_virtual_span(
    net: &Net,
    node: &mut Node,
    from: Tick,
    to: Tick,
    restarted: bool,
) -> Trace {
    let mut trace = Trace::default();
    connect(net, node, from, false);
    if restarted {
        let heads: Vec<Hash> = net
            .blocks
            .iter()
            .filter(|b| b.block.slot * DEFAULT_TICKS_PER_SLOT < from)
            .map(|b| b.block.hash)
            .collect();
        show_heads(net, node, &heads);
        node.wait_idle(IDLE).unwrap();
    }
    drive_ticks(net, node, from, to, |node, tick| {
        drain(node, tick, &mut trace)
    });
    trace
}

/// Real clock: where a feed of the schedule stands.
#[derive(Default)]
pub struct RealFeed {
    /// Blocks imported so far.
    pub imported: usize,
    /// The next schedule entry to deliver.
    pub next: usize,
}

impl RealFeed {
    /// Import every block whose slot has come (each shown to every peer)
    /// and deliver every message whose tick has come.
    pub fn feed(&mut self, net: &Net, node: &mut Node, now: Tick) {
        while self.imported < net.blocks.len() && slot_tick(&net.blocks[self.imported]) <= now {
            let b = net.blocks[self.imported].clone();
            let hash = b.block.hash;
            node.import_block(b).unwrap();
            show_heads(net, node, &[hash]);
            self.imported += 1;
        }
        while self.next < net.schedule.len() && net.schedule[self.next].0 <= now {
            let (_, v, bytes) = &net.schedule[self.next];
            node.peer_message(PeerId(*v), bytes.clone()).unwrap();
            self.next += 1;
        }
    }
}

/// Two traces are equal; if not, the message names the first tick that
/// differs and what only one side sent there (not the whole traces).
pub fn assert_same_trace(a: &Trace, b: &Trace, what: &str) {
    assert_eq!(a.approved, b.approved, "{what}: approval ticks");
    let ticks: std::collections::BTreeSet<_> = a.sent.keys().chain(b.sent.keys()).collect();
    for t in ticks {
        let (x, y) = (a.sent.get(t), b.sent.get(t));
        if x != y {
            let x = x.cloned().unwrap_or_default();
            let y = y.cloned().unwrap_or_default();
            let only_a: Vec<_> = x.iter().filter(|i| !y.contains(i)).take(5).collect();
            let only_b: Vec<_> = y.iter().filter(|i| !x.contains(i)).take(5).collect();
            panic!(
                "{what}: sends differ at tick {t} ({} vs {} items); only first: {only_a:?}; only second: {only_b:?}",
                x.len(),
                y.len()
            );
        }
    }
    assert_eq!(a.notifications, b.notifications, "{what}: notifications");
}

/// Items of the node's own (validator 0's assignments and approvals) that
/// `trace` saw leave it.
pub fn own_items_sent(trace: &Trace) -> usize {
    trace
        .sent
        .values()
        .flatten()
        .filter(|(_, k)| {
            matches!(
                k,
                ItemKey::Assignment { validator: 0, .. } | ItemKey::Approval { validator: 0, .. }
            )
        })
        .count()
}

/// A hash in hex, as announcement lines write it.
pub fn hex(h: &Hash) -> String {
    h.0.iter().map(|b| format!("{b:02x}")).collect()
}

/// Our own item as an announcement line (`A block c,c` / `V block c,c`).
pub fn ours(k: ItemKey) -> Option<String> {
    match k {
        ItemKey::Assignment {
            block,
            validator: 0,
            claimed,
            ..
        } => Some(format!("A {} {claimed:?}", hex(&block))),
        ItemKey::Approval {
            block,
            validator: 0,
            candidates,
        } => Some(format!("V {} {candidates:?}", hex(&block))),
        _ => None,
    }
}

/// Whether the database holds `line`'s announcement.
pub fn recorded(snap: &tranche_voting::Snapshot, line: &str) -> bool {
    let mut parts = line.splitn(3, ' ');
    let (kind, block, cands) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    );
    let Some(b) = snap.blocks.iter().find(|b| hex(&b.hash) == block) else {
        return false;
    };
    let cands: Vec<u32> = cands
        .trim_matches(|c| c == '[' || c == ']')
        .split(", ")
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    match kind {
        "A" => cands.iter().all(|c| {
            snap.approval_entries.iter().any(|(h, i, e)| {
                *h == b.hash && i == c && e.our_assignment.as_ref().is_some_and(|o| o.triggered)
            })
        }),
        "V" => cands.iter().all(|c| {
            let chash = b.candidates[*c as usize].hash;
            snap.approvals.contains(&(chash, ValidatorIndex(0)))
        }),
        "B" => snap.block_states.iter().any(|(h, st)| {
            *h == b.hash
                && ValidatorSet::from_bytes(b.candidates.len(), &st.approved)
                    .is_some_and(|s| s.is_full())
        }),
        _ => panic!("unknown line {line}"),
    }
}

/// The store of `kind` (`redb` or `parity-db`) at `db`.
pub fn store_config(kind: &str, db: &std::path::Path) -> StoreConfig {
    match kind {
        "parity-db" => StoreConfig::ParityDb(db.into()),
        _ => StoreConfig::Redb(db.into()),
    }
}

/// What the `kind` database at `db` holds.
pub fn stored(kind: &str, db: &std::path::Path) -> Snapshot {
    match kind {
        "parity-db" => ParityDbStore::open(db).unwrap().load().unwrap(),
        _ => RedbStore::open(db).unwrap().load().unwrap(),
    }
}
