//! One simulated validator: its approval-voting and approval-distribution
//! state machines wired as the node's parallel layout wires them
//! (`crates/node/src/distribution_worker.rs`, `voting_worker.rs`), on one
//! thread and in virtual time, through the glue the node uses too
//! (`tranche_validator`): distribution checks each new message (the
//! verdict from the process's shared [`Verdicts`]) and hands what passes
//! to voting; voting's own assignments and approvals go back to
//! distribution; distribution's sends are cut into notifications and
//! leave through the validator's egress bandwidth. Its behaviour (no-show,
//! slow, offline) and its record of what happened live here too.

use crate::busy::Busy;
use crate::costs::CostTable;
use crate::drawn::Model;
use crate::peers::{Control, Peers};
use crate::verdicts::Verdicts;
use parity_scale_codec::Encode;
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;
use tranche_config::node_shape::NodeShape;
use tranche_distribution::{batch_notifications, Action, Outgoing, PeerId, State, View};
use tranche_links::RateLimiter;
use tranche_primitives::time::TICK_DURATION_MILLIS;
use tranche_primitives::{
    ApprovalDistributionMessage, Block, Session, Tick, ValidationProtocol, ValidatorIndex,
    ValidatorPair,
};
pub use tranche_report::network::{Behaviour, BlockRecord, NodeRecord};
use tranche_validator::{checked_approval, checked_assignment};
use tranche_voting::{self as voting, ApprovalVoting, CheckedApproval, CheckedAssignment};

/// One notification on its way: who sends it to whom, the sender's
/// sequence number (the order of a moment's inputs), its encoded bytes —
/// or, with `finality` on, a finality vote: the sender has approved every
/// block up to this number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Packet {
    pub to: u32,
    pub from: u32,
    pub seq: u64,
    pub bytes: Vec<u8>,
    pub finality: Option<u32>,
    /// With several processes: the shared verdict of each item, in order
    /// (`Some(tranche)` of a valid assignment, `Some(0)` of a valid
    /// approval; `None` unknown), so that another process need not check
    /// again what was checked where it was made (`crate::verdicts`).
    #[serde(default)]
    pub known: Vec<Option<u32>>,
    /// A message about the connection itself (`crate::peers`).
    #[serde(default)]
    pub control: Option<Control>,
}

/// What a node needs to be built.
pub struct NodeSetup<'a> {
    pub index: u32,
    pub assignment: ValidatorPair,
    pub approval: ValidatorPair,
    pub session: Arc<Session>,
    pub grid: tranche_distribution::SessionGridTopology,
    pub blocks: &'a [Block],
    pub routing_seed: u64,
    /// Model finality from the validators' approvals.
    pub finality: bool,
    /// Trigger every tranche's assignment (`trigger_all_tranches`).
    pub trigger_all: bool,
    /// The CPU model: the node's shape and the cost table, scaled by the
    /// shape's `cpu_scale` (none: every input takes no time).
    pub cpu: Option<(NodeShape, CostTable)>,
}

/// One validator.
pub struct SimNode {
    pub(crate) index: u32,
    pub(crate) n: u32,
    pub(crate) behaviour: Behaviour,
    /// From this moment on the node is silent (offline ones)...
    pub(crate) offline_from_ms: Option<u64>,
    /// ... until this one, if it comes back.
    pub(crate) back_ms: Option<u64>,
    /// Whether it went offline already, and came back.
    pub(crate) gone: bool,
    pub(crate) returned: bool,
    /// Its connections (`crate::peers`).
    pub(crate) peers: Peers,
    pub(crate) voting: ApprovalVoting,
    pub(crate) dist: State,
    pub(crate) session: Arc<Session>,
    pub(crate) blocks: Vec<Block>,
    pub(crate) check_rng: ChaCha20Rng,
    pub(crate) egress: RateLimiter,
    pub(crate) ingress: RateLimiter,
    pub(crate) seq: u64,
    pub(crate) actions: Vec<Action>,
    pub(crate) sends: Vec<(PeerId, Outgoing)>,
    /// Blocks imported so far.
    pub(crate) imported: usize,
    pub(crate) record: NodeRecord,
    /// Finality: every validator's highest block approved with all its
    /// ancestors, as far as this node has heard (`None` without finality).
    pub(crate) votes: Option<Vec<u32>>,
    /// The highest block finalized here (0: none).
    pub(crate) finalized: u32,
    /// The CPU model, if the objective has one (`crate::busy`).
    pub(crate) busy: Option<Busy>,
    /// Per block: candidates known to have enough assignments, in order.
    pub(crate) enough_cursor: Vec<u32>,
}

/// The shared verdicts of a notification's items, to travel with it.
fn known_verdicts(v: &Verdicts, m: &ApprovalDistributionMessage) -> Vec<Option<u32>> {
    match m {
        ApprovalDistributionMessage::Assignments(items) => {
            items.iter().map(|i| v.known_assignment(i)).collect()
        }
        ApprovalDistributionMessage::Approvals(votes) => votes
            .iter()
            .map(|vote| v.known_approval(vote).then_some(0))
            .collect(),
    }
}

/// Take the verdicts that came with a notification into this process's
/// cache (a packet from this process carries none).
fn learn_verdicts(v: &Verdicts, m: &ApprovalDistributionMessage, known: &[Option<u32>]) {
    if known.is_empty() {
        return;
    }
    match m {
        ApprovalDistributionMessage::Assignments(items) => {
            for (item, k) in items.iter().zip(known) {
                if let Some(t) = k {
                    v.learn_assignment(item, *t);
                }
            }
        }
        ApprovalDistributionMessage::Approvals(votes) => {
            for (vote, k) in votes.iter().zip(known) {
                if k.is_some() {
                    v.learn_approval(vote);
                }
            }
        }
    }
}

/// Milliseconds of virtual time as the links crate's `SimTime`.
pub(crate) fn sim(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

/// A `SimTime` rounded up to whole milliseconds.
pub(crate) fn ms_ceil(t: Duration) -> u64 {
    t.as_micros().div_ceil(1000).min(u128::from(u64::MAX)) as u64
}

/// The protocol tick of a moment.
pub fn tick_of(ms: u64) -> Tick {
    ms / TICK_DURATION_MILLIS
}

/// The start of a block's slot, milliseconds.
pub fn slot_ms(block: &Block) -> u64 {
    block.slot * tranche_primitives::time::DEFAULT_SLOT_DURATION_MILLIS
}

impl SimNode {
    pub fn new(setup: NodeSetup<'_>, model: &Model) -> SimNode {
        let index = setup.index;
        let behaviour = model.behaviours[index as usize];
        let (offline_from_ms, back_ms) = match behaviour {
            Behaviour::Offline {
                at_block,
                until_block,
            } => (
                setup.blocks.get(at_block as usize - 1).map(slot_ms),
                until_block.and_then(|u| setup.blocks.get(u as usize - 1).map(slot_ms)),
            ),
            _ => (None, None),
        };
        let keys = voting::LocalKeys {
            assignment: setup.assignment,
            approval: setup.approval,
            index: ValidatorIndex(index),
        };
        let config = voting::Config {
            trigger_all_tranches: setup.trigger_all,
            ..voting::Config::default()
        };
        let voting = ApprovalVoting::new(config, Some(keys));
        let mut dist = State::new(tranche_distribution::Config {
            routing_seed: setup.routing_seed ^ u64::from(index),
            ..Default::default()
        });
        dist.add_session(setup.session.clone());
        for p in (0..model.n).filter(|&p| p != index) {
            dist.peer_connected(PeerId(p), Some(ValidatorIndex(p)))
                .expect("validator counts are bounded below MAX_PEER_ID");
        }
        let mut out = Vec::new();
        dist.new_gossip_topology(
            setup.session.info.session_index,
            setup.grid,
            Some(ValidatorIndex(index)),
            &mut out,
        );
        SimNode {
            index,
            n: model.n,
            behaviour,
            offline_from_ms,
            back_ms,
            gone: false,
            returned: false,
            peers: Peers::new(model.n, index),
            voting,
            dist,
            session: setup.session,
            blocks: setup.blocks.to_vec(),
            check_rng: model.check_rng(index),
            egress: RateLimiter::new(model.bandwidth),
            ingress: RateLimiter::new(model.bandwidth),
            seq: 0,
            actions: out,
            sends: Vec::new(),
            imported: 0,
            votes: setup.finality.then(|| vec![0; model.n as usize]),
            finalized: 0,
            busy: setup.cpu.map(|(shape, costs)| Busy::new(&shape, costs)),
            enough_cursor: vec![0; setup.blocks.len()],
            record: NodeRecord {
                validator: index,
                behaviour,
                blocks: vec![BlockRecord::default(); setup.blocks.len()],
                ..NodeRecord::default()
            },
        }
    }

    pub fn index(&self) -> u32 {
        self.index
    }

    pub(crate) fn is_offline(&self, now_ms: u64) -> bool {
        self.offline_from_ms.is_some_and(|t| now_ms >= t)
            && !matches!(self.back_ms, Some(b) if now_ms >= b)
    }

    /// The head of our view: the latest block imported.
    pub(crate) fn latest_head(&self) -> Option<tranche_primitives::Hash> {
        self.imported.checked_sub(1).map(|i| self.blocks[i].hash)
    }

    /// The highest block finalized here (0: none).
    pub(crate) fn finalized_number(&self) -> u32 {
        self.finalized
    }

    /// The next moment this node has something to do by itself (a block
    /// to import, a voting timer), if any before it goes offline.
    pub fn next_event_ms(&self) -> Option<u64> {
        let block = self.blocks.get(self.imported).map(slot_ms);
        let timer = self
            .voting
            .next_wakeup()
            .map(|t| t.saturating_mul(TICK_DURATION_MILLIS));
        let cpu = self.busy.as_ref().and_then(Busy::next_ms);
        let reconnect = self.peers.next_ms();
        let next = [block, timer, cpu, reconnect].into_iter().flatten().min();
        match self.offline_from_ms {
            // Wake to go offline at the latest.
            Some(off) if !self.gone => [next, Some(off)].into_iter().flatten().min(),
            // Offline: wake only to come back.
            Some(_) if !self.returned => self.back_ms,
            _ => next,
        }
    }

    /// A notification reaches this node at `now_ms`: when does it pass the
    /// node's ingress bandwidth? Counted here.
    pub fn arrive(&mut self, now_ms: u64, packet: &Packet) -> u64 {
        if self.is_offline(now_ms) {
            // Lost on the way to a node that is gone; `moment` drops it.
            return now_ms;
        }
        if packet.finality.is_some() {
            return now_ms;
        }
        if let Some(control) = &packet.control {
            if matches!(control, Control::Disconnect { .. }) {
                return now_ms;
            }
            self.record.bytes_in += packet.bytes.len() as u64;
            return ms_ceil(self.ingress.reap(sim(now_ms), packet.bytes.len() as u64));
        }
        self.record.bytes_in += packet.bytes.len() as u64;
        self.record.notifications_in += 1;
        ms_ceil(self.ingress.reap(sim(now_ms), packet.bytes.len() as u64))
    }

    /// Everything due at `now_ms`: due timers first, then blocks whose slot
    /// starts, then the notifications delivered now, in (sender, sequence)
    /// order (the caller sorts them). Sends go to `out` as
    /// (arrival moment, packet).
    pub fn moment(
        &mut self,
        now_ms: u64,
        delivered: &[Packet],
        verdicts: &Verdicts,
        model: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let mut back = false;
        if let Some(off) = self.offline_from_ms {
            if !self.gone && now_ms >= off {
                self.gone = true;
                self.go_offline(now_ms, self.back_ms, model, out);
            }
            if self.gone && !self.returned {
                match self.back_ms {
                    Some(b) if now_ms >= b => {
                        self.returned = true;
                        back = true;
                    }
                    _ => return,
                }
            }
        }
        if self.busy.is_some() {
            self.drive(now_ms, verdicts, model, out);
        }
        self.run_timers(now_ms, verdicts, model, out);
        while self
            .blocks
            .get(self.imported)
            .is_some_and(|b| slot_ms(b) <= now_ms)
        {
            self.import_block(now_ms, verdicts, model, out);
            self.run_timers(now_ms, verdicts, model, out);
        }
        // After the blocks (those missed offline too): views carry them.
        self.reconnect_due(now_ms, back, model, out);
        for p in delivered {
            if let Some(up_to) = p.finality {
                self.finality_vote(now_ms, p.from, up_to, verdicts, model, out);
                continue;
            }
            if let Some(control) = &p.control {
                self.control(now_ms, p.from, control, verdicts, model, out);
                continue;
            }
            let Ok(ValidationProtocol::ApprovalDistribution(m)) =
                ValidationProtocol::decode_wire(&p.bytes)
            else {
                continue;
            };
            self.record.items_in += m.len() as u64;
            learn_verdicts(verdicts, &m, &p.known);
            if self.busy.is_some() {
                self.enqueue(p.from, m);
                continue;
            }
            let mut work = std::mem::take(&mut self.actions);
            self.dist
                .handle_peer_message(tick_of(now_ms), PeerId(p.from), m, &mut work);
            self.settle(now_ms, work, verdicts, model, out);
            self.run_timers(now_ms, verdicts, model, out);
        }
        if self.busy.is_some() {
            self.drive(now_ms, verdicts, model, out);
        }
    }

    /// Voting's due timers one at a time (`tick_one`, as the node on a
    /// real clock runs them), each with a fresh check duration drawn
    /// first: a wakeup launches at most one check, so every check gets its
    /// own draw.
    pub(crate) fn run_timers(
        &mut self,
        now_ms: u64,
        v: &Verdicts,
        m: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let now = tick_of(now_ms);
        while self.voting.next_wakeup().is_some_and(|t| t <= now) {
            self.draw_check_delay(m);
            let (o, _) = self.voting.tick_one(now);
            self.apply_voting(now_ms, o, v, m, out);
        }
    }

    pub(crate) fn draw_check_delay(&mut self, model: &Model) {
        let ms = model.draw_check_ms(self.index, &mut self.check_rng);
        self.voting
            .set_check_delay_ticks(ms.div_ceil(TICK_DURATION_MILLIS));
    }

    pub(crate) fn import_block(
        &mut self,
        now_ms: u64,
        v: &Verdicts,
        m: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let block = self.blocks[self.imported].clone();
        self.imported += 1;
        if let Some(busy) = self.busy.as_mut() {
            // Our assignments' VRFs: one compact modulo (v2) or one per
            // sample (v1), and one delay per core.
            let info = &self.session.info;
            let modulo = if info.assignments_v2 {
                1
            } else {
                u64::from(info.relay_vrf_modulo_samples)
            };
            let vrfs = modulo + block.candidates.len() as u64;
            busy.owed_voting += busy.costs.block_import() + vrfs * busy.costs.own_assignment();
        }
        let hash = block.hash;
        // The oldest block distribution still holds: the first one after
        // the last finalized.
        let lowest = self.blocks[0].number.max(self.finalized + 1);
        if let Some(l1) = self.dist.config().aggression.l1_threshold {
            if block.number - lowest >= l1 {
                self.record.aggression += 1;
            }
        }
        // Distribution learns our view first (as `crates/node/src/fanout.rs`).
        self.dist.our_view_change(&[hash]);
        let o = self.voting.import_block(
            tick_of(now_ms),
            voting::NewBlock {
                block,
                session: self.session.clone(),
            },
        );
        self.apply_voting(now_ms, o, v, m, out);
        // Every peer imports the block at its slot too: their views now
        // hold it (views travel outside the simulated links).
        let mut work = std::mem::take(&mut self.actions);
        let connected: Vec<u32> = (0..self.n).filter(|&p| self.is_connected(p)).collect();
        for p in connected {
            let view = View {
                heads: vec![hash],
                finalized_number: self.finalized,
            };
            self.dist
                .peer_view_change(tick_of(now_ms), PeerId(p), view, &mut work);
        }
        self.settle(now_ms, work, v, m, out);
    }

    pub(crate) fn block_index(&self, hash: &tranche_primitives::Hash) -> Option<usize> {
        self.blocks.iter().position(|b| &b.hash == hash)
    }

    /// Run distribution's checks until none are left, hand what passes to
    /// voting, then send.
    pub(crate) fn settle(
        &mut self,
        now_ms: u64,
        work: Vec<Action>,
        v: &Verdicts,
        m: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let done = self.run_checks(now_ms, work, v, false);
        if let Some(busy) = self.busy.as_mut() {
            busy.owed_distribution += done.cost;
        }
        self.sends.extend(done.sends);
        self.flush_sends(now_ms, v, m, out);
        self.apply_imports(now_ms, done.imports, v, m, out);
    }

    /// Carry out distribution's actions until none are left: run its
    /// checks (verdicts from `v`; with `defer`, hand them back instead, as
    /// the classic layout leaves them to voting), collect its sends and the
    /// imports for voting; with the CPU model, what the checks cost.
    pub(crate) fn run_checks(
        &mut self,
        now_ms: u64,
        mut work: Vec<Action>,
        v: &Verdicts,
        defer: bool,
    ) -> Settled {
        let now = tick_of(now_ms);
        let mut done = Settled::default();
        while !work.is_empty() {
            for action in std::mem::take(&mut work) {
                match action {
                    Action::CheckAssignment(_) | Action::CheckApproval(_) if defer => {
                        done.deferred.push(action)
                    }
                    Action::CheckAssignment(check) => {
                        done.checked += 1;
                        if let Some(busy) = &self.busy {
                            done.cost += busy.costs.assignment(&check.assignment.cert.cert.kind);
                        }
                        let verdict = v.assignment(&check);
                        self.dist
                            .assignment_checked(now, check.token, verdict, &mut work);
                    }
                    Action::CheckApproval(check) => {
                        done.checked += 1;
                        if let Some(busy) = &self.busy {
                            done.cost += busy
                                .costs
                                .approval_covering(check.vote.candidate_indices.count_ones());
                        }
                        let verdict = v.approval(&check);
                        self.dist
                            .approval_checked(now, check.token, verdict, &mut work);
                    }
                    other => self.sort_action(other, &mut done.sends, &mut done.imports),
                }
            }
        }
        self.actions = work;
        done
    }

    /// An action that is no check: a send, an import for voting (recorded
    /// by block and tranche), or a reputation change (dropped).
    pub(crate) fn sort_action(
        &mut self,
        action: Action,
        sends: &mut Vec<(PeerId, Outgoing)>,
        imports: &mut Vec<ImportItem>,
    ) {
        match action {
            Action::ImportAssignment {
                assignment,
                tranche,
            } => imports.push(ImportItem::Assignment(checked_assignment(
                &assignment,
                tranche,
            ))),
            Action::ImportApproval { vote } => {
                imports.push(ImportItem::Approval(checked_approval(&vote)))
            }
            Action::Send { peer, item } => sends.push((peer, item)),
            Action::Reputation { peer, rep } => self.reputation(peer, rep.value),
            Action::CheckAssignment(_) | Action::CheckApproval(_) => {
                unreachable!("checks are run by the caller")
            }
        }
    }

    /// Voting imports checked items, in order, and what that causes is
    /// carried out.
    pub(crate) fn apply_imports(
        &mut self,
        now_ms: u64,
        imports: Vec<ImportItem>,
        v: &Verdicts,
        m: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let now = tick_of(now_ms);
        for item in imports {
            let block_hash = match &item {
                ImportItem::Assignment(a) => a.block_hash,
                ImportItem::Approval(a) => a.block_hash,
            };
            let o = match item {
                ImportItem::Assignment(a) => {
                    if let Some(i) = self.block_index(&a.block_hash) {
                        let r = &mut self.record.blocks[i];
                        r.max_tranche = r.max_tranche.max(a.tranche);
                        let t = a.tranche as usize;
                        if r.by_tranche.len() <= t {
                            r.by_tranche.resize(t + 1, 0);
                        }
                        r.by_tranche[t] += a.claimed.count_ones() as u32;
                    }
                    self.voting.import_assignment(now, a)
                }
                ImportItem::Approval(a) => self.voting.import_approval(now, a),
            };
            self.apply_voting(now_ms, o, v, m, out);
            self.note_enough(now_ms, &block_hash);
        }
    }

    /// Whether every candidate of a block has enough assignments now (its
    /// required tranches known, or approved): candidates are checked in
    /// order from the first not yet seen with enough, so each import costs
    /// one status look-up or a few.
    pub(crate) fn note_enough(&mut self, now_ms: u64, hash: &tranche_primitives::Hash) {
        let Some(i) = self.block_index(hash) else {
            return;
        };
        if self.record.blocks[i].enough_after_ms.is_some() {
            return;
        }
        let n = self.blocks[i].candidates.len() as u32;
        while self.enough_cursor[i] < n {
            let status = self
                .voting
                .candidate_status(tick_of(now_ms), hash, self.enough_cursor[i]);
            let enough = status.is_some_and(|s| {
                s.approved || matches!(s.required, voting::RequiredTranches::Exact { .. })
            });
            if !enough {
                return;
            }
            self.enough_cursor[i] += 1;
        }
        let start = slot_ms(&self.blocks[i]);
        self.record.blocks[i].enough_after_ms = Some(now_ms.saturating_sub(start));
    }

    /// Cut the pending sends into notifications and put them on the links.
    pub(crate) fn flush_sends(
        &mut self,
        now_ms: u64,
        v: &Verdicts,
        model: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        if self.sends.is_empty() {
            return;
        }
        let mut failed = Vec::new();
        for (peer, message) in batch_notifications(self.sends.drain(..)) {
            let known = if v.across_processes() {
                known_verdicts(v, &message)
            } else {
                Vec::new()
            };
            let bytes = ValidationProtocol::ApprovalDistribution(message).encode();
            let len = bytes.len() as u64;
            self.record.bytes_out += len;
            self.record.notifications_out += 1;
            let left = ms_ceil(self.egress.reap(sim(now_ms), len));
            let seq = self.seq;
            self.seq += 1;
            if model.links.lost(self.index, peer.0, seq) {
                failed.push((peer.0, seq));
                continue;
            }
            let arrival = left + model.links.latency_ms(self.index, peer.0);
            out.push((
                arrival,
                Packet {
                    to: peer.0,
                    from: self.index,
                    seq,
                    bytes,
                    finality: None,
                    known,
                    control: None,
                },
            ));
        }
        for (peer, seq) in failed {
            self.notification_failed(now_ms, peer, seq, model, out);
        }
    }

    /// The record, at the end.
    pub fn record(&self) -> NodeRecord {
        let mut r = self.record.clone();
        if let Some(busy) = &self.busy {
            r.cpu_busy_ms = busy.busy_ms();
        }
        r
    }
}

/// What carrying out distribution's actions left ([`SimNode::run_checks`]).
#[derive(Default)]
pub(crate) struct Settled {
    pub(crate) sends: Vec<(PeerId, Outgoing)>,
    pub(crate) imports: Vec<ImportItem>,
    /// Checks deferred to voting (classic).
    pub(crate) deferred: Vec<Action>,
    /// Checks run, and their CPU cost (0 without the CPU model).
    pub(crate) checked: u64,
    pub(crate) cost: u64,
}

pub(crate) enum ImportItem {
    Assignment(CheckedAssignment),
    Approval(CheckedApproval),
}
