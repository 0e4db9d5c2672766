//! One validator's protocol, as the node runs it: its approval-voting and
//! approval-distribution state machines wired through the glue the node
//! uses too (`tranche_validator`), as the node's layouts wire them
//! (`crates/node/src/distribution_worker.rs`, `voting_worker.rs`), in
//! virtual time — with the CPU model (`crate::busy`), every input waits
//! for and takes its threads' time. Distribution checks each new message
//! through its one settle loop (`State::settle`, the verdict from the
//! process's shared `Verdicts`) and hands what passes to voting; voting's
//! own assignments and approvals go back to distribution (`crate::effects`).
//!
//! It is driven in the Ready style: one call a moment
//! ([`Protocol::moment`], `crate::moment`: the moment and what the links
//! delivered in it) returns what the moment made ready as data (the
//! packets to put on the links, the blocks approved), for the caller to
//! carry out: the simulation's member (`crate::member`) and the validator
//! among fixed peers (`crate::fixed`). What the links would otherwise
//! have to answer during a moment is the protocol's own state: its
//! connections (`crate::peers`: who is connected, reputation, reconnects,
//! going offline and back) and the links' seeded loss draw (a pure
//! function of the run's seed and the packet's sequence number, which it
//! numbers itself).

use crate::busy::{Busy, Handled, Handler, Owed};
use crate::costs::CostTable;
use crate::drawn::{CheckDelays, Model};
use crate::finality::{approved_up_to, Finality};
use crate::moment::{Arrival, Ready};
use crate::peers::{Peers, Presence};
use crate::record::{Behaviour, BlockRecord};
use crate::time::{slot_ms, tick_of, tick_start_ms, ticks_ceil};
use crate::verdicts::{Checking, Verdicts};
use std::sync::Arc;
use tranche_config::node_shape::NodeShape;
use tranche_distribution::{Action, Import, Outgoing, PeerId, Settled, State, View};
use tranche_primitives::time::DEFAULT_SLOT_DURATION_MILLIS;
use tranche_primitives::{
    ApprovalDistributionMessage, Block, Hash, Session, ValidatorIndex, ValidatorPair,
};
use tranche_validator::{checked_approval, checked_assignment};
use tranche_voting::{self as voting, ApprovalVoting};

/// What a moment is given besides its deliveries: the process's shared
/// verdicts and, in the simulated network, the run's model, whose links
/// lose notifications (each loss a disconnect, reconnected after a drawn
/// delay) and whose peers are banned by reputation; none among fixed
/// peers, which lose nothing and ban no one.
#[derive(Clone, Copy)]
pub struct Cx<'a> {
    pub verdicts: &'a Verdicts,
    pub network: Option<&'a Model>,
}

/// What a validator's protocol needs to be built.
pub struct NodeSetup {
    pub index: u32,
    /// Validators of the session.
    pub n: u32,
    /// The peers connected from the start, ascending.
    pub peers: Vec<u32>,
    /// Its behaviour (a no-show withholds its approvals).
    pub behaviour: Behaviour,
    /// How long its candidate checks take; `None`: at once (voting's
    /// default, the benchmark's mocked validation).
    pub checks: Option<CheckDelays>,
    pub assignment: ValidatorPair,
    pub approval: ValidatorPair,
    pub session: Arc<Session>,
    pub grid: tranche_distribution::SessionGridTopology,
    /// The chain's blocks, shared by every validator of a process.
    pub blocks: Arc<[Block]>,
    pub routing_seed: u64,
    /// Model finality from the validators' approvals.
    pub finality: bool,
    /// Trigger every tranche's assignment (`trigger_all_tranches`).
    pub trigger_all: bool,
    /// Whether its certificates carry VRF proofs (`Skipped` only where no
    /// certificate is checked: `Verify::Model`).
    pub own_proofs: tranche_primitives::criteria::Proofs,
    /// The CPU model: the node's shape and the cost table, scaled by the
    /// shape's `cpu_scale` (none: every input takes no time).
    pub cpu: Option<(NodeShape, CostTable)>,
    /// With `cpu`: a thread for the benchmark's test environment shares
    /// the cores ([`Protocol::environment_carried`]).
    pub environment: bool,
}

/// One validator's protocol.
pub struct Protocol {
    pub(crate) index: u32,
    /// Validators of the session.
    pub(crate) n: u32,
    behaviour: Behaviour,
    pub(crate) voting: ApprovalVoting,
    pub(crate) dist: State,
    pub(crate) session: Arc<Session>,
    pub(crate) blocks: Arc<[Block]>,
    /// Blocks imported so far.
    imported: usize,
    checks: Option<CheckDelays>,
    /// Distribution's actions, and what they settled to (reused).
    pub(crate) actions: Vec<Action>,
    /// Voting's output for imports, emptied after each (reused).
    voted: voting::Output,
    /// The notifications of a flush of `sends` (reused).
    pub(crate) batched: Vec<(PeerId, ApprovalDistributionMessage)>,
    settled: Settled,
    /// Sends waiting to be cut into notifications.
    pub(crate) sends: Vec<(PeerId, Outgoing)>,
    /// What it saw of each block, in block order.
    pub(crate) records: Vec<BlockRecord>,
    /// Blocks imported while the unfinalized chain was at least the
    /// aggression L1 threshold long.
    aggression: u32,
    /// Per block: candidates known to have enough assignments, in order.
    enough_cursor: Vec<u32>,
    /// Its connections, and when it is offline.
    pub(crate) peers: Peers,
    pub(crate) presence: Presence,
    /// The sequence number of the next packet it sends (every packet
    /// takes one: they order a moment's deliveries at the receiver and
    /// seed the link's loss draw).
    pub(crate) seq: u64,
    /// What the moment so far made ready for the caller (reused).
    pub(crate) ready: Ready,
    /// Checks run so far (each a certificate or a signature).
    checked: u64,
    /// With finality on: the votes heard and the block finalized.
    finality: Option<Finality>,
    /// The best block's number when our vote was last reconsidered.
    best_seen: u32,
    /// With the CPU model: its cost table, the CPU time its own work owes,
    /// and the CPU.
    pub(crate) costs: Option<CostTable>,
    pub(crate) owed: Owed,
    busy: Option<Busy>,
    /// The parallel layout's workers verify approval signatures in
    /// batches, as the node does by default.
    batched_signatures: bool,
}

impl Protocol {
    pub fn new(setup: NodeSetup) -> Protocol {
        let index = setup.index;
        let keys = voting::LocalKeys {
            assignment: setup.assignment,
            approval: setup.approval,
            index: ValidatorIndex(index),
        };
        let config = voting::Config {
            trigger_all_tranches: setup.trigger_all,
            own_proofs: setup.own_proofs,
            ..voting::Config::default()
        };
        let voting = ApprovalVoting::new(config, Some(keys));
        let mut dist = State::new(tranche_distribution::Config {
            routing_seed: setup.routing_seed ^ u64::from(index),
            ..Default::default()
        });
        dist.add_session(setup.session.clone());
        for &p in &setup.peers {
            dist.peer_connected(PeerId(p), Some(ValidatorIndex(p)))
                .expect("validator counts are bounded below MAX_PEER_ID");
        }
        // What the topology asks for is carried out with the first input.
        let mut actions = Vec::new();
        dist.new_gossip_topology(
            setup.session.info.session_index,
            setup.grid,
            Some(ValidatorIndex(index)),
            &mut actions,
        );
        let batched_signatures = setup
            .cpu
            .as_ref()
            .is_some_and(|(shape, _)| shape.layout == tranche_config::node_shape::Layout::Parallel);
        let (costs, busy) = match setup.cpu {
            Some((shape, costs)) => (
                Some(costs.clone()),
                Some(Busy::new(&shape, costs, setup.environment)),
            ),
            None => (None, None),
        };
        Protocol {
            index,
            n: setup.n,
            peers: Peers::new(setup.n, &setup.peers),
            presence: Presence::new(setup.behaviour, &setup.blocks),
            seq: 0,
            ready: Ready::default(),
            behaviour: setup.behaviour,
            voting,
            dist,
            session: setup.session,
            imported: 0,
            checks: setup.checks,
            actions,
            voted: voting::Output::default(),
            batched: Vec::new(),
            settled: Settled::default(),
            sends: Vec::new(),
            records: vec![BlockRecord::default(); setup.blocks.len()],
            aggression: 0,
            enough_cursor: vec![0; setup.blocks.len()],
            checked: 0,
            finality: setup.finality.then(|| Finality::new(setup.n, index)),
            best_seen: 0,
            costs,
            owed: Owed::default(),
            busy,
            batched_signatures,
            blocks: setup.blocks,
        }
    }

    /// The test environment carried `messages` more to or from this node:
    /// its thread of the modelled cores is charged for them (nothing
    /// without the CPU model or that thread).
    pub fn environment_carried(&mut self, messages: u64) {
        if let Some(busy) = self.busy.as_mut() {
            busy.environment_carried(messages);
        }
    }

    /// The modelled CPU's threads, in the order of [`Protocol::busy_ms`]
    /// (none without the CPU model).
    pub fn thread_names(&self) -> Vec<String> {
        self.busy
            .as_ref()
            .map(Busy::thread_names)
            .unwrap_or_default()
    }

    /// What it saw of each block.
    pub fn records(&self) -> &[BlockRecord] {
        &self.records
    }

    /// Blocks imported so far.
    pub fn imported(&self) -> usize {
        self.imported
    }

    /// Checks (certificates and signatures) run so far.
    pub fn checked(&self) -> u64 {
        self.checked
    }

    /// Blocks imported with the unfinalized chain at aggression's length.
    pub fn aggression(&self) -> u32 {
        self.aggression
    }

    /// With the CPU model: CPU each thread used so far, ms, in thread
    /// order (empty without it).
    pub fn busy_ms(&self) -> Vec<u64> {
        self.busy.as_ref().map(Busy::busy_ms).unwrap_or_default()
    }

    /// Our view as peers see it: the latest block imported, the finalized
    /// number.
    pub fn view(&self) -> View {
        View {
            heads: self
                .imported
                .checked_sub(1)
                .map(|i| self.blocks[i].hash)
                .into_iter()
                .collect(),
            finalized_number: self.finalized(),
        }
    }

    /// The highest block finalized here (0: none).
    pub fn finalized(&self) -> u32 {
        self.finality.as_ref().map_or(0, |f| f.finalized)
    }

    /// Times a peer was connected again after a disconnect.
    pub fn reconnects(&self) -> u32 {
        self.peers.reconnects
    }

    /// Whether it is offline at `now_ms` (what reaches it then is lost).
    pub fn is_offline(&self, now_ms: u64) -> bool {
        self.presence.is_offline(now_ms)
    }

    /// The next moment it has something to do by itself (a block to
    /// import, a voting timer, a CPU event, a reconnect), if any before
    /// it goes offline; offline, only the moment it comes back.
    pub fn next_event_ms(&self) -> Option<u64> {
        let block = self.blocks.get(self.imported).map(slot_ms);
        let timer = self.voting.next_wakeup().map(tick_start_ms);
        let cpu = self.busy.as_ref().and_then(Busy::next_ms);
        let reconnect = self.peers.next_ms();
        let vote = self.next_vote_ms();
        let next = [block, timer, cpu, reconnect, vote]
            .into_iter()
            .flatten()
            .min();
        self.presence.next_ms(next)
    }

    /// The best block's number at `now_ms`: the last block imported, and
    /// after the run's last generated block one more a slot (the chain
    /// goes on with blocks that are not modelled; see `crate::finality`).
    fn best_number(&self, now_ms: u64) -> u32 {
        let Some(last) = self.imported.checked_sub(1).map(|i| &self.blocks[i]) else {
            return 0;
        };
        let beyond = if self.imported == self.blocks.len() {
            now_ms.saturating_sub(slot_ms(last)) / DEFAULT_SLOT_DURATION_MILLIS
        } else {
            0
        };
        last.number + u32::try_from(beyond).unwrap_or(u32::MAX - last.number)
    }

    /// In the run's tail (every generated block imported), with approved
    /// blocks our vote may not reach yet: the slot at which the best block
    /// is far enough ahead for GRANDPA's voting rules to let it.
    fn next_vote_ms(&self) -> Option<u64> {
        let f = self.finality.as_ref()?;
        let last = self.blocks.last()?;
        if self.imported < self.blocks.len() {
            return None;
        }
        let approved = approved_up_to(&self.blocks, &self.records)?;
        if approved <= f.own_last_vote().max(f.finalized) {
            return None;
        }
        let beyond = f.best_needed(approved).checked_sub(last.number)?;
        Some(slot_ms(last) + u64::from(beyond) * DEFAULT_SLOT_DURATION_MILLIS)
    }

    /// Reconsider our finality vote once the best block moved on (a block
    /// imported, or a slot of the run's tail begun).
    fn best_moved(&mut self, now_ms: u64, cx: Cx<'_>) {
        if self.finality.is_none() {
            return;
        }
        let best = self.best_number(now_ms);
        if best > self.best_seen {
            self.best_seen = best;
            self.announce_approved(now_ms, cx);
        }
    }

    /// The moment `now_ms` with what the links delivered in it, in order:
    /// going offline (if this is the moment; away, nothing else), the CPU
    /// up to the moment, voting's due timers, the blocks whose slot has
    /// come, the reconnects due (after the blocks, those missed offline
    /// too: views carry them), the deliveries, then the CPU up to the
    /// moment's end. What it made ready is returned for the caller to
    /// carry out (and drain: the buffers are reused).
    pub fn moment(
        &mut self,
        now_ms: u64,
        deliveries: impl IntoIterator<Item = Arrival>,
        cx: Cx<'_>,
    ) -> &mut Ready {
        self.ready.transmits.clear();
        self.ready.approved.clear();
        let turn = self.presence.turn(now_ms);
        if let Some(until_ms) = turn.leaves_until {
            self.go_offline(until_ms);
        }
        let Some(back) = turn.here else {
            return &mut self.ready;
        };
        self.advance(now_ms, cx);
        self.run_timers(now_ms, cx);
        self.import_due_blocks(now_ms, cx);
        self.best_moved(now_ms, cx);
        self.reconnect_due(now_ms, back);
        for delivery in deliveries {
            match delivery {
                Arrival::Notification { from, message } => {
                    self.peer_message(now_ms, from, message, cx)
                }
                Arrival::FinalityVote { from, up_to } => {
                    self.finality_vote(now_ms, from, up_to, cx)
                }
                Arrival::Connection { from, message } => self.connection(now_ms, from, message, cx),
            }
        }
        self.advance(now_ms, cx);
        &mut self.ready
    }

    pub(crate) fn block_index(&self, hash: &Hash) -> Option<usize> {
        self.blocks.iter().position(|b| &b.hash == hash)
    }

    /// With the CPU model: run it up to the end of moment `now_ms`.
    pub(crate) fn advance(&mut self, now_ms: u64, cx: Cx<'_>) {
        if let Some(mut busy) = self.busy.take() {
            busy.drive(now_ms, &mut Hands { protocol: self, cx });
            self.busy = Some(busy);
        }
    }

    /// A peer's notification: handled now, or (with the CPU model) queued
    /// for its threads.
    pub(crate) fn peer_message(
        &mut self,
        now_ms: u64,
        from: u32,
        msg: ApprovalDistributionMessage,
        cx: Cx<'_>,
    ) {
        if let Some(busy) = self.busy.as_mut() {
            busy.enqueue(from, msg);
            return;
        }
        let mut work = std::mem::take(&mut self.actions);
        self.dist
            .handle_peer_message(tick_of(now_ms), PeerId(from), msg, &mut work);
        self.settle(now_ms, work, cx);
        self.run_timers(now_ms, cx);
    }

    /// Voting's due timers one at a time (`tick_one`, as the node on a
    /// real clock runs them), each with a fresh check duration drawn
    /// first (with drawn checks): a wakeup launches at most one check, so
    /// every check gets its own draw.
    pub(crate) fn run_timers(&mut self, now_ms: u64, cx: Cx<'_>) {
        let now = tick_of(now_ms);
        while self.voting.next_wakeup().is_some_and(|t| t <= now) {
            if let Some(checks) = self.checks.as_mut() {
                let ms = checks.draw_ms();
                self.voting.set_check_delay_ticks(ticks_ceil(ms));
            }
            let (mut o, _) = self.voting.tick_one(now);
            self.apply_voting(now_ms, &mut o, cx);
        }
    }

    /// Import every block whose slot has started, each followed by the
    /// timers it makes due.
    pub(crate) fn import_due_blocks(&mut self, now_ms: u64, cx: Cx<'_>) {
        while self
            .blocks
            .get(self.imported)
            .is_some_and(|b| slot_ms(b) <= now_ms)
        {
            self.import_block(now_ms, cx);
            self.run_timers(now_ms, cx);
        }
    }

    fn import_block(&mut self, now_ms: u64, cx: Cx<'_>) {
        let block = self.blocks[self.imported].clone();
        self.imported += 1;
        if let Some(costs) = &self.costs {
            // Our assignments' VRFs: one compact modulo (v2) or one per
            // sample (v1), and one delay per core.
            let info = &self.session.info;
            let modulo = if info.assignments_v2 {
                1
            } else {
                u64::from(info.relay_vrf_modulo_samples)
            };
            let vrfs = modulo + block.candidates.len() as u64;
            self.owed.voting += costs.block_import() + vrfs * costs.own_assignment();
        }
        let hash = block.hash;
        // The oldest block distribution still holds: the first one after
        // the last finalized.
        let lowest = self.blocks[0].number.max(self.finalized() + 1);
        if let Some(l1) = self.dist.config().aggression.l1_threshold {
            if block.number - lowest >= l1 {
                self.aggression += 1;
            }
        }
        // Distribution learns our view first (as `crates/node/src/fanout.rs`).
        self.dist.our_view_change(&[hash]);
        let mut o = self.voting.import_block(
            tick_of(now_ms),
            voting::NewBlock {
                block,
                session: self.session.clone(),
            },
        );
        self.apply_voting(now_ms, &mut o, cx);
        // Every peer imports the block at its slot too: their views now
        // hold it (views travel outside the simulated links).
        let view = View {
            heads: vec![hash],
            finalized_number: self.finalized(),
        };
        let mut work = std::mem::take(&mut self.actions);
        self.connected_view(now_ms, view, &mut work);
        self.settle(now_ms, work, cx);
    }

    /// Every connected peer's view is now `view`: distribution's actions
    /// to `work`.
    fn connected_view(&mut self, now_ms: u64, view: View, work: &mut Vec<Action>) {
        for p in self.peers.connected() {
            self.dist
                .peer_view_change(tick_of(now_ms), PeerId(p), view.clone(), work);
        }
    }

    /// A peer's view reached us.
    pub(crate) fn peer_view(&mut self, now_ms: u64, peer: u32, view: View, cx: Cx<'_>) {
        let mut work = std::mem::take(&mut self.actions);
        self.dist
            .peer_view_change(tick_of(now_ms), PeerId(peer), view, &mut work);
        self.settle(now_ms, work, cx);
    }

    /// A peer is connected again.
    pub(crate) fn peer_connected(&mut self, peer: u32) {
        self.dist
            .peer_connected(PeerId(peer), Some(ValidatorIndex(peer)))
            .expect("validator counts are bounded below MAX_PEER_ID");
    }

    /// A peer is gone.
    pub(crate) fn peer_disconnected(&mut self, peer: u32) {
        self.dist.peer_disconnected(PeerId(peer));
    }

    /// Run distribution's checks until none are left, hand what passes to
    /// voting, then send.
    pub(crate) fn settle(&mut self, now_ms: u64, work: Vec<Action>, cx: Cx<'_>) {
        let done = self.settle_work(now_ms, work, cx, false);
        if self.costs.is_some() {
            self.owed.distribution += done.cost;
        }
        // The sends and imports are carried out from the reused lists
        // (taken: what the imports cause settles into lists of its own).
        self.sends.append(&mut self.settled.sends);
        let mut imports = std::mem::take(&mut self.settled.imports);
        self.flush_sends(now_ms, cx);
        self.apply_imports(now_ms, imports.drain(..), cx);
        if self.settled.imports.capacity() == 0 {
            self.settled.imports = imports;
        }
    }

    /// [`Protocol::settle_work`], with the sends and imports handed over
    /// in lists of their own (for the CPU model's jobs, which carry them
    /// until the job is done).
    fn run_checks(&mut self, now_ms: u64, work: Vec<Action>, cx: Cx<'_>, defer: bool) -> Handled {
        let mut done = self.settle_work(now_ms, work, cx, defer);
        done.sends = self.settled.sends.drain(..).collect();
        done.imports = self.settled.imports.drain(..).collect();
        done
    }

    /// Carry out distribution's actions until none are left: run its
    /// checks (verdicts from the shared verdicts; with `defer`, hand them
    /// back instead, as the classic layout leaves them to voting), collect
    /// its sends and the imports for voting (left in `self.settled`); with
    /// the CPU model, what the checks cost. Reputation changes are summed
    /// per peer (in the simulated network: a peer banned by them is
    /// disconnected).
    fn settle_work(
        &mut self,
        now_ms: u64,
        mut work: Vec<Action>,
        cx: Cx<'_>,
        defer: bool,
    ) -> Handled {
        let mut checking = Checking::new(
            cx.verdicts,
            self.costs.as_ref(),
            defer,
            self.batched_signatures,
        );
        let mut settled = std::mem::take(&mut self.settled);
        match self
            .dist
            .settle(tick_of(now_ms), &mut work, &mut checking, &mut settled)
        {
            Ok(()) => {}
            Err(never) => match never {},
        }
        self.actions = work;
        for (peer, rep) in settled.reputations.drain(..) {
            // Only the simulated network bans (fixed peers are kept, as
            // the benchmark's real node keeps them).
            if cx.network.is_some() && self.peers.banned_by(peer.0, rep.value) {
                self.dist.peer_disconnected(peer);
            }
        }
        self.checked += checking.checked;
        self.settled = settled;
        Handled {
            sends: Vec::new(),
            imports: Vec::new(),
            deferred: checking.deferred,
            checked: checking.checked,
            cost: checking.cost,
        }
    }

    /// Voting imports checked items, in order, and what that causes is
    /// carried out.
    fn apply_imports(
        &mut self,
        now_ms: u64,
        imports: impl IntoIterator<Item = Import>,
        cx: Cx<'_>,
    ) {
        let now = tick_of(now_ms);
        // One output's lists for every import (taken: a nested import, from
        // what this one causes, starts its own).
        let mut o = std::mem::take(&mut self.voted);
        for item in imports {
            let block_hash = item.block_hash();
            match item {
                Import::Assignment {
                    assignment,
                    tranche,
                } => {
                    let a = checked_assignment(&assignment, tranche);
                    if let Some(i) = self.block_index(&a.block_hash) {
                        let r = &mut self.records[i];
                        r.max_tranche = r.max_tranche.max(a.tranche);
                        let t = a.tranche as usize;
                        if r.by_tranche.len() <= t {
                            r.by_tranche.resize(t + 1, 0);
                        }
                        r.by_tranche[t] += a.claimed.count_ones() as u32;
                    }
                    self.voting.import_assignment_into(now, a, &mut o)
                }
                Import::Approval { vote } => {
                    self.voting
                        .import_approval_into(now, checked_approval(&vote), &mut o)
                }
            }
            self.apply_voting(now_ms, &mut o, cx);
            self.note_enough(now_ms, &block_hash);
        }
        self.voted = o;
    }

    /// Whether every candidate of a block has enough assignments now (its
    /// required tranches known, or approved): candidates are checked in
    /// order from the first not yet seen with enough, so each import costs
    /// one status look-up or a few.
    fn note_enough(&mut self, now_ms: u64, hash: &Hash) {
        let Some(i) = self.block_index(hash) else {
            return;
        };
        if self.records[i].enough_after_ms.is_some() {
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
        self.records[i].enough_after_ms = Some(now_ms.saturating_sub(start));
    }

    /// Whether it withholds its approvals.
    pub(crate) fn no_show(&self) -> bool {
        self.behaviour == Behaviour::NoShow
    }

    /// Finality: with every ancestor approved up to a new height that
    /// GRANDPA's voting rules allow, tell every other validator, and count
    /// our own vote.
    pub(crate) fn announce_approved(&mut self, now_ms: u64, cx: Cx<'_>) {
        let best = self.best_number(now_ms);
        let Some(up_to) = self
            .finality
            .as_ref()
            .and_then(|f| f.own_vote(&self.blocks, &self.records, best))
        else {
            return;
        };
        self.transmit_finality_vote(up_to);
        self.finality_vote(now_ms, self.index, up_to, cx);
    }

    /// A finality vote: finalize what has a supermajority now — voting and
    /// distribution prune it, the connected peers' views carry it.
    pub(crate) fn finality_vote(&mut self, now_ms: u64, from: u32, up_to: u32, cx: Cx<'_>) {
        let Some(number) = self.finality.as_mut().and_then(|f| f.tally(from, up_to)) else {
            return;
        };
        let hash = self.blocks[number as usize - 1].hash;
        for (b, r) in self.blocks.iter().zip(self.records.iter_mut()) {
            if b.number <= number && r.finalized_after_ms.is_none() {
                r.finalized_after_ms = Some(now_ms.saturating_sub(slot_ms(b)));
            }
        }
        let mut o = self.voting.finalize(tick_of(now_ms), hash, number);
        self.apply_voting(now_ms, &mut o, cx);
        let mut work = std::mem::take(&mut self.actions);
        self.dist.block_finalized(number, &mut work);
        let head = self.blocks[self.imported.max(1) - 1].hash;
        let view = View {
            heads: vec![head],
            finalized_number: number,
        };
        self.connected_view(now_ms, view, &mut work);
        self.settle(now_ms, work, cx);
        // Blocks finalized unapproved count as done for our own vote.
        self.announce_approved(now_ms, cx);
    }
}

/// The validator's protocol as its CPU drives it.
struct Hands<'p, 'c> {
    protocol: &'p mut Protocol,
    cx: Cx<'c>,
}

impl Handler for Hands<'_, '_> {
    fn handle_items(
        &mut self,
        now_ms: u64,
        from: u32,
        msg: ApprovalDistributionMessage,
        defer: bool,
    ) -> Handled {
        let p = &mut *self.protocol;
        let mut work = std::mem::take(&mut p.actions);
        p.dist
            .handle_peer_message(tick_of(now_ms), PeerId(from), msg, &mut work);
        p.run_checks(now_ms, work, self.cx, defer)
    }

    fn run_checks(&mut self, now_ms: u64, work: Vec<Action>) -> Handled {
        self.protocol.run_checks(now_ms, work, self.cx, false)
    }

    fn send(&mut self, now_ms: u64, sends: Vec<(PeerId, Outgoing)>) {
        self.protocol.sends.extend(sends);
        self.protocol.flush_sends(now_ms, self.cx);
    }

    fn import(&mut self, now_ms: u64, imports: Vec<Import>) {
        self.protocol.apply_imports(now_ms, imports, self.cx);
    }

    fn take_owed(&mut self) -> Owed {
        std::mem::take(&mut self.protocol.owed)
    }
}
