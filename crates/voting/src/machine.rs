//! `ApprovalVoting`: the approval-voting state machine (spec §4). It owns
//! the block, candidate and approval entries, imports blocks, checked
//! assignments and checked approvals, runs wakeups, triggers and approves
//! our own assignments, decides when candidates and blocks are approved,
//! prunes on finality, and answers the approved-ancestor query. Every call
//! takes `now` and returns an `Output`: actions, the database writes of that
//! input, and the next tick it wants to be called at. It never reads a
//! clock, sleeps or does I/O.

use crate::bits::ValidatorSet;
use crate::approval_rules::{
    check_approval, tranches_to_approve, Check, Clock, RequiredTranches, TrancheEntry,
    TranchesToApprove, APPROVAL_DELAY,
};
use crate::store::{
    ApprovalEntryRecord, AssignmentRecord, BlockRecord, BlockStateRecord, OurApprovalRecord,
    OurAssignmentRecord, Snapshot, StoreError, WriteBatch, WriteOp,
};
use crate::timer_table::{Pair, Timer, TimerKind, TimerTable};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use tranche_primitives::constants::MAX_APPROVAL_COALESCE_WAIT_TICKS;
use tranche_primitives::criteria::compute_assignments;
use tranche_primitives::time::ticks_per_slot;
use tranche_primitives::vote::sign_approval;
use tranche_primitives::{
    AssignmentCert, AssignmentCertKind, BlockNumber, CandidateBitfield, CandidateHash,
    CandidateIndex, CoreIndex, DelayTranche, GroupIndex, Hash, IndirectAssignmentCert,
    IndirectSignedApprovalVote, LeavingCore, RelayVrfStory, Session, SessionIndex, Slot, Tick,
    ValidatorIndex, ValidatorPair, ValidatorSignature,
};

/// Node-side settings of the state machine.
#[derive(Clone, Debug)]
pub struct Config {
    /// Relay-chain slot length (a multiple of 500 ms).
    pub slot_duration_millis: u64,
    /// How long our own check of a candidate takes, in ticks (availability
    /// recovery and validation are modelled as this delay).
    pub check_delay_ticks: Tick,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            slot_duration_millis: tranche_primitives::time::DEFAULT_SLOT_DURATION_MILLIS,
            check_delay_ticks: 0,
        }
    }
}

/// Our validator keys: the pair (used for VRFs and approval signatures) and
/// our index in the sessions we validate in.
#[derive(Clone, Debug)]
pub struct LocalKeys {
    pub pair: ValidatorPair,
    pub index: ValidatorIndex,
}

/// A candidate included by a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IncludedCandidate {
    pub hash: CandidateHash,
    pub core: CoreIndex,
    /// Its backing group.
    pub group: GroupIndex,
}

/// A relay block to import.
#[derive(Clone, Debug)]
pub struct NewBlock {
    pub hash: Hash,
    pub number: BlockNumber,
    pub parent: Hash,
    pub slot: Slot,
    /// The block's session and its parameters.
    pub session: Arc<Session>,
    pub relay_vrf_story: RelayVrfStory,
    /// In candidate-index order.
    pub candidates: Vec<IncludedCandidate>,
}

/// What distribution needs to know about a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockMeta {
    pub hash: Hash,
    pub number: BlockNumber,
    pub parent: Hash,
    pub slot: Slot,
    pub session: SessionIndex,
    pub relay_vrf_story: RelayVrfStory,
    pub candidates: Vec<IncludedCandidate>,
}

/// An assignment whose certificate distribution already checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedAssignment {
    pub block_hash: Hash,
    pub validator: ValidatorIndex,
    /// The candidate indices it claims.
    pub claimed: CandidateBitfield,
    /// The tranche the certificate proves.
    pub tranche: DelayTranche,
    /// The certificate itself; voting does not read it.
    pub cert: Option<AssignmentCert>,
}

/// An approval whose signature distribution already checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedApproval {
    pub block_hash: Hash,
    pub validator: ValidatorIndex,
    pub candidates: CandidateBitfield,
    pub signature: ValidatorSignature,
}

/// Why an assignment was refused (upstream `AssignmentCheckError`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AssignmentCheckError {
    UnknownBlock(Hash),
    UnknownSessionIndex(SessionIndex),
    InvalidCandidateIndex(CandidateIndex),
    InvalidCandidate(CandidateIndex, CandidateHash),
    InvalidCert(ValidatorIndex, String),
    Internal(Hash, CandidateHash),
    InvalidBitfield(usize),
}

/// The import result of an assignment (upstream `AssignmentCheckResult`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AssignmentCheckResult {
    Accepted,
    AcceptedDuplicate,
    /// Distribution's verdict; voting never gives it.
    TooFarInFuture,
    Bad(AssignmentCheckError),
}

/// Why an approval was refused (upstream `ApprovalCheckError`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApprovalCheckError {
    UnknownBlock(Hash),
    UnknownSessionIndex(SessionIndex),
    InvalidCandidateIndex(CandidateIndex),
    InvalidValidatorIndex(ValidatorIndex),
    InvalidCandidate(CandidateIndex, CandidateHash),
    InvalidSignature(ValidatorIndex),
    NoAssignment(ValidatorIndex),
    Internal(Hash, CandidateHash),
}

/// The import result of an approval (upstream `ApprovalCheckResult`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApprovalCheckResult {
    Accepted,
    Bad(ApprovalCheckError),
}

/// What the caller should do or know after an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// The result of an `import_assignment`.
    AssignmentImported {
        block: Hash,
        validator: ValidatorIndex,
        result: AssignmentCheckResult,
    },
    /// The result of an `import_approval`.
    ApprovalImported {
        block: Hash,
        validator: ValidatorIndex,
        result: ApprovalCheckResult,
    },
    /// A block was imported: tell distribution.
    NewBlock(BlockMeta),
    /// Send our assignment.
    DistributeAssignment {
        cert: IndirectAssignmentCert,
        claimed: CandidateBitfield,
    },
    /// Send our (possibly coalesced) approval.
    DistributeApproval(IndirectSignedApprovalVote),
    /// A candidate became approved under a block.
    CandidateApproved {
        block: Hash,
        candidate_index: CandidateIndex,
        candidate: CandidateHash,
        tick: Tick,
        tranche: DelayTranche,
        /// Approved through the one-third rule.
        one_third: bool,
        /// No-shows tolerated (covered by later tranches).
        tolerated_no_shows: usize,
        /// The required tranches at the moment of approval.
        required: Option<RequiredTranches>,
    },
    /// Every candidate of a block is approved: tell chain selection.
    BlockApproved {
        block: Hash,
        number: BlockNumber,
        tick: Tick,
    },
    /// Assignees first seen as no-shows.
    NoShowObserved {
        block: Hash,
        candidate_index: CandidateIndex,
        validators: Vec<ValidatorIndex>,
        tick: Tick,
    },
    /// A block was pruned on finality.
    BlockPruned { block: Hash, number: BlockNumber },
}

/// Everything one input produced.
#[derive(Clone, Debug, Default)]
pub struct Output {
    pub actions: Vec<Action>,
    /// The database writes of this input: apply them (`Store::write`) before
    /// acting on the actions.
    pub writes: WriteBatch,
    /// The next tick `tick` must be called at, if any.
    pub next_wakeup: Option<Tick>,
}

impl Output {
    /// The assignment import result in this output.
    pub fn assignment_result(&self) -> Option<&AssignmentCheckResult> {
        self.actions.iter().find_map(|a| match a {
            Action::AssignmentImported { result, .. } => Some(result),
            _ => None,
        })
    }

    /// The approval import result in this output.
    pub fn approval_result(&self) -> Option<&ApprovalCheckResult> {
        self.actions.iter().find_map(|a| match a {
            Action::ApprovalImported { result, .. } => Some(result),
            _ => None,
        })
    }
}

/// The approval status of one (block, candidate) pair, for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CandidateStatus {
    pub candidate: CandidateHash,
    pub required: RequiredTranches,
    pub no_shows: Vec<ValidatorIndex>,
    /// Assignments received (entries, duplicates included).
    pub assignments: usize,
    /// Validators that approved the candidate.
    pub approvals: usize,
    pub approved: bool,
}

#[derive(Clone, Debug)]
struct OurAssignment {
    cert: AssignmentCert,
    tranche: DelayTranche,
    validator: ValidatorIndex,
    triggered: bool,
    check_due: Option<Tick>,
}

#[derive(Clone, Debug)]
struct ApprovalEntry {
    block: Hash,
    index: CandidateIndex,
    tranches: Vec<TrancheEntry>,
    assigned: ValidatorSet,
    our: Option<OurAssignment>,
    our_approval: Option<OurApprovalRecord>,
    approved: bool,
    next_seq: u32,
    reported_no_shows: ValidatorSet,
}

impl ApprovalEntry {
    fn new(
        block: Hash,
        index: CandidateIndex,
        n_validators: usize,
        our: Option<OurAssignment>,
    ) -> Self {
        ApprovalEntry {
            block,
            index,
            tranches: Vec::new(),
            assigned: ValidatorSet::new(n_validators),
            our,
            our_approval: None,
            approved: false,
            next_seq: 0,
            reported_no_shows: ValidatorSet::default(),
        }
    }

    /// Add an assignment (upstream `ApprovalEntry::import_assignment` in
    /// `polkadot/node/core/approval-voting/src/persisted_entries.rs`): the
    /// tranche's entry is created even for a validator already assigned, but
    /// the assignment itself is recorded once per validator, in the first
    /// tranche it claimed.
    fn push_assignment(&mut self, tranche: DelayTranche, v: ValidatorIndex, tick: Tick) {
        let duplicate = self.assigned.contains_validator(v);
        let pos = self.tranches.partition_point(|t| t.tranche < tranche);
        if pos == self.tranches.len() || self.tranches[pos].tranche != tranche {
            self.tranches.insert(
                pos,
                TrancheEntry {
                    tranche,
                    assignments: Vec::new(),
                },
            );
        }
        if !duplicate {
            self.tranches[pos].assignments.push((v, tick));
        }
        self.assigned.insert(v.0 as usize);
    }

    fn record(&self) -> ApprovalEntryRecord {
        ApprovalEntryRecord {
            our_assignment: self.our.as_ref().map(|o| OurAssignmentRecord {
                cert: o.cert.clone(),
                tranche: o.tranche,
                validator: o.validator,
                triggered: o.triggered,
                check_due: o.check_due,
            }),
            our_approval: self.our_approval.clone(),
            approved: self.approved,
        }
    }

    fn n_assignments(&self) -> usize {
        self.tranches.iter().map(|t| t.assignments.len()).sum()
    }
}

#[derive(Clone, Debug)]
struct CandidateEntry {
    approvals: ValidatorSet,
    /// One per block that includes the candidate.
    entries: Vec<ApprovalEntry>,
}

impl CandidateEntry {
    fn entry(&self, block: &Hash) -> Option<&ApprovalEntry> {
        self.entries.iter().find(|e| e.block == *block)
    }
    fn entry_mut(&mut self, block: &Hash) -> Option<&mut ApprovalEntry> {
        self.entries.iter_mut().find(|e| e.block == *block)
    }
}

#[derive(Clone, Debug)]
struct BlockEntry {
    record: BlockRecord,
    session: Arc<Session>,
    block_tick: Tick,
    approved: ValidatorSet,
    distributed: ValidatorSet,
    pending_signature: BTreeMap<CandidateIndex, (CandidateHash, Tick)>,
    children: Vec<Hash>,
}

impl BlockEntry {
    fn state_record(&self) -> BlockStateRecord {
        BlockStateRecord {
            approved: self.approved.to_bytes(),
            distributed: self.distributed.to_bytes(),
            pending_signature: self
                .pending_signature
                .iter()
                .map(|(i, (h, t))| (*i, *h, *t))
                .collect(),
        }
    }

    fn no_show_duration(&self, tps: Tick) -> Tick {
        (self.session.info.no_show_slots as Tick).saturating_mul(tps)
    }

    fn clock(&self, now: Tick, tps: Tick) -> Clock {
        Clock {
            tranche_now: now.saturating_sub(self.block_tick) as DelayTranche,
            block_tick: self.block_tick,
            no_show_duration: self.no_show_duration(tps),
        }
    }

    fn candidate(&self, i: CandidateIndex) -> Option<&(CandidateHash, CoreIndex, GroupIndex)> {
        self.record.candidates.get(i as usize)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Transition {
    Remote(ValidatorIndex),
    Local(ValidatorIndex),
    Wakeup,
}

impl Transition {
    fn validator(self) -> Option<ValidatorIndex> {
        match self {
            Transition::Remote(v) | Transition::Local(v) => Some(v),
            Transition::Wakeup => None,
        }
    }
}

/// A check of one candidate in progress.
#[derive(Clone, Debug)]
struct InFlight {
    validator: ValidatorIndex,
    blocks: Vec<Hash>,
}

#[derive(Default)]
struct Out {
    actions: Vec<Action>,
    writes: WriteBatch,
    /// Wakeups to schedule once the input's work is done (upstream's
    /// `ScheduleWakeup` actions).
    wakeups: Vec<(Pair, Tick)>,
}

/// The approval-voting state machine.
pub struct ApprovalVoting {
    config: Config,
    tps: Tick,
    keys: Option<LocalKeys>,
    sessions: HashMap<SessionIndex, Arc<Session>>,
    blocks: HashMap<Hash, BlockEntry>,
    blocks_at_height: BTreeMap<BlockNumber, Vec<Hash>>,
    candidates: HashMap<CandidateHash, CandidateEntry>,
    finalized: Option<BlockNumber>,
    /// Lowest height the store may still hold (upstream's stored range start).
    range_start: Option<BlockNumber>,
    /// Wakeups, our checks' completions and signing deadlines.
    timers: TimerTable,
    checks: HashMap<CandidateHash, InFlight>,
    checked: HashSet<CandidateHash>,
}

impl ApprovalVoting {
    /// A fresh state machine. `keys` makes it a validator that checks and
    /// approves; without them it only follows others' votes.
    pub fn new(config: Config, keys: Option<LocalKeys>) -> Self {
        let tps = ticks_per_slot(config.slot_duration_millis).max(1);
        ApprovalVoting {
            config,
            tps,
            keys,
            sessions: HashMap::new(),
            blocks: HashMap::new(),
            blocks_at_height: BTreeMap::new(),
            candidates: HashMap::new(),
            finalized: None,
            range_start: None,
            timers: TimerTable::default(),
            checks: HashMap::new(),
            checked: HashSet::new(),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The last finalized block number, if any.
    pub fn finalized_number(&self) -> Option<BlockNumber> {
        self.finalized
    }

    fn finish(&mut self, mut out: Out) -> Output {
        self.apply_wakeups(&mut out);
        Output {
            actions: out.actions,
            writes: out.writes,
            next_wakeup: self.next_wakeup(),
        }
    }

    /// The next tick at which something is due.
    pub fn next_wakeup(&self) -> Option<Tick> {
        self.timers.next_timeout()
    }

    fn schedule_wakeup(&mut self, out: &mut Out, pair: Pair, tick: Tick) {
        out.wakeups.push((pair, tick));
    }

    fn apply_wakeups(&mut self, out: &mut Out) {
        for (pair, tick) in std::mem::take(&mut out.wakeups) {
            if self.timers.schedule_wakeup(pair, tick) {
                out.writes.push(WriteOp::PutWakeup(pair.0, pair.1, tick));
            }
        }
    }

    // ------------------------------------------------------------------
    // Blocks.

    /// Import a relay block (spec §4.3). Ancestors must be imported first;
    /// a known block or one at or below the finalized height is ignored.
    pub fn import_block(&mut self, now: Tick, block: NewBlock) -> Output {
        let mut out = Out::default();
        self.import_block_inner(now, block, &mut out);
        self.finish(out)
    }

    fn import_block_inner(&mut self, now: Tick, nb: NewBlock, out: &mut Out) {
        if self.blocks.contains_key(&nb.hash) {
            return;
        }
        if self.finalized.is_some_and(|f| nb.number <= f) {
            return;
        }
        let info = &nb.session.info;
        let session_index = info.session_index;
        if let std::collections::hash_map::Entry::Vacant(e) = self.sessions.entry(session_index) {
            e.insert(nb.session.clone());
            out.writes.push(WriteOp::PutSession(info.clone()));
        }
        let session = self.sessions[&session_index].clone();
        let info = &session.info;
        let n_validators = info.n_validators();
        let n_candidates = nb.candidates.len();

        let mut approved = ValidatorSet::new(n_candidates);
        for (i, c) in nb.candidates.iter().enumerate() {
            let group_len = info
                .validator_groups
                .get(c.group.0 as usize)
                .map_or(0, |g| g.len());
            if info.needed_approvals == 0
                || (n_validators.saturating_sub(group_len) as u64) < info.needed_approvals as u64
            {
                approved.insert(i);
            }
        }
        let block_tick = nb.slot.saturating_mul(self.tps);

        // Our assignments, per core.
        let ours = match &self.keys {
            Some(k)
                if info
                    .validators
                    .get(k.index.0 as usize)
                    .is_some_and(|id| *id == k.pair.id()) =>
            {
                let leaving: Vec<LeavingCore> = nb
                    .candidates
                    .iter()
                    .map(|c| LeavingCore {
                        candidate_hash: c.hash,
                        core: c.core,
                        group: c.group,
                    })
                    .collect();
                compute_assignments(&k.pair, k.index, &nb.relay_vrf_story, info, &leaving)
            }
            _ => BTreeMap::new(),
        };

        let record = BlockRecord {
            hash: nb.hash,
            number: nb.number,
            parent: nb.parent,
            slot: nb.slot,
            session: session_index,
            relay_vrf_story: nb.relay_vrf_story.0,
            candidates: nb
                .candidates
                .iter()
                .map(|c| (c.hash, c.core, c.group))
                .collect(),
        };
        let entry = BlockEntry {
            record: record.clone(),
            session: session.clone(),
            block_tick,
            approved,
            distributed: ValidatorSet::new(n_candidates),
            pending_signature: BTreeMap::new(),
            children: Vec::new(),
        };
        out.writes.push(WriteOp::PutBlock(record));
        out.writes
            .push(WriteOp::PutBlockState(nb.hash, entry.state_record()));
        self.range_start = Some(self.range_start.map_or(nb.number, |r| r.min(nb.number)));
        out.writes
            .push(WriteOp::PutFinalized(self.finalized, self.range_start));
        self.blocks_at_height
            .entry(nb.number)
            .or_default()
            .push(nb.hash);
        if let Some(parent) = self.blocks.get_mut(&nb.parent) {
            parent.children.push(nb.hash);
        }

        let mut our_wakeups = Vec::new();
        for (i, c) in nb.candidates.iter().enumerate() {
            let our = ours.get(&c.core).map(|a| OurAssignment {
                cert: a.cert.clone(),
                tranche: a.tranche,
                validator: a.validator_index,
                triggered: false,
                check_due: None,
            });
            if let Some(o) = &our {
                our_wakeups.push((
                    (nb.hash, i as CandidateIndex),
                    block_tick.saturating_add(o.tranche as Tick),
                ));
            }
            let ae = ApprovalEntry::new(nb.hash, i as CandidateIndex, n_validators, our);
            out.writes.push(WriteOp::PutApprovalEntry(
                nb.hash,
                i as CandidateIndex,
                ae.record(),
            ));
            let cand = self
                .candidates
                .entry(c.hash)
                .or_insert_with(|| CandidateEntry {
                    approvals: ValidatorSet::new(n_validators),
                    entries: Vec::new(),
                });
            cand.entries.push(ae);
        }
        let fully = entry.approved.is_full();
        for i in entry.approved.iter() {
            out.actions.push(Action::CandidateApproved {
                block: nb.hash,
                candidate_index: i as CandidateIndex,
                candidate: nb.candidates[i].hash,
                tick: now,
                tranche: now.saturating_sub(block_tick) as DelayTranche,
                one_third: false,
                tolerated_no_shows: 0,
                required: None,
            });
        }
        self.blocks.insert(nb.hash, entry);
        if fully {
            out.actions.push(Action::BlockApproved {
                block: nb.hash,
                number: nb.number,
                tick: now,
            });
        }
        out.actions.push(Action::NewBlock(BlockMeta {
            hash: nb.hash,
            number: nb.number,
            parent: nb.parent,
            slot: nb.slot,
            session: session_index,
            relay_vrf_story: nb.relay_vrf_story,
            candidates: nb.candidates,
        }));
        for (pair, tick) in our_wakeups {
            self.schedule_wakeup(out, pair, tick);
        }
    }

    /// Block `hash` was finalized at height `number` (spec §4.14): prune
    /// everything below it, every block at its height (itself included, as
    /// upstream) and the descendants of the other blocks at that height.
    pub fn finalize(&mut self, _now: Tick, hash: Hash, number: BlockNumber) -> Output {
        let mut out = Out::default();
        self.finalized = Some(number);
        let proceed = self.range_start.is_some_and(|r| r <= number);
        if proceed {
            let mut doomed: Vec<Hash> = Vec::new();
            let heights: Vec<BlockNumber> = self
                .blocks_at_height
                .range(..=number)
                .map(|(n, _)| *n)
                .collect();
            let mut frontier = Vec::new();
            for h in heights {
                let list = self.blocks_at_height.remove(&h).unwrap_or_default();
                for b in list {
                    if h == number && b != hash {
                        if let Some(e) = self.blocks.get(&b) {
                            frontier.extend(e.children.iter().copied());
                        }
                    }
                    doomed.push(b);
                }
            }
            let mut seen: HashSet<Hash> = HashSet::new();
            while let Some(b) = frontier.pop() {
                if !seen.insert(b) {
                    continue;
                }
                if let Some(e) = self.blocks.get(&b) {
                    frontier.extend(e.children.iter().copied());
                    if let Some(list) = self.blocks_at_height.get_mut(&e.record.number) {
                        list.retain(|x| *x != b);
                        if list.is_empty() {
                            self.blocks_at_height.remove(&e.record.number);
                        }
                    }
                    doomed.push(b);
                }
            }
            for b in doomed {
                self.remove_block(&b, &mut out);
            }
            self.range_start = Some(number.saturating_add(1));
        }
        out.writes
            .push(WriteOp::PutFinalized(self.finalized, self.range_start));
        self.finish(out)
    }

    fn remove_block(&mut self, hash: &Hash, out: &mut Out) {
        let Some(entry) = self.blocks.remove(hash) else {
            return;
        };
        let mut dropped = Vec::new();
        for (c, _, _) in &entry.record.candidates {
            if let Some(cand) = self.candidates.get_mut(c) {
                cand.entries.retain(|e| e.block != *hash);
                if cand.entries.is_empty() {
                    self.candidates.remove(c);
                    self.checked.remove(c);
                    self.checks.remove(c);
                    dropped.push(*c);
                    out.writes.push(WriteOp::DeleteCandidate(*c));
                }
            }
        }
        self.timers
            .remove_block(hash, entry.record.candidates.len() as u32, &dropped);
        if let Some(p) = self.blocks.get_mut(&entry.record.parent) {
            p.children.retain(|x| x != hash);
        }
        out.writes.push(WriteOp::DeleteBlock(*hash));
        out.actions.push(Action::BlockPruned {
            block: *hash,
            number: entry.record.number,
        });
    }

    // ------------------------------------------------------------------
    // Assignments and approvals.

    /// Import an assignment already checked by distribution (spec §4.4).
    pub fn import_assignment(&mut self, now: Tick, a: CheckedAssignment) -> Output {
        let mut out = Out::default();
        let result = self.import_assignment_inner(now, &a, &mut out);
        out.actions.insert(
            0,
            Action::AssignmentImported {
                block: a.block_hash,
                validator: a.validator,
                result,
            },
        );
        self.finish(out)
    }

    fn import_assignment_inner(
        &mut self,
        now: Tick,
        a: &CheckedAssignment,
        out: &mut Out,
    ) -> AssignmentCheckResult {
        use AssignmentCheckError as E;
        use AssignmentCheckResult as R;
        let Some(block) = self.blocks.get(&a.block_hash) else {
            return R::Bad(E::UnknownBlock(a.block_hash));
        };
        let info = &block.session.info;
        if a.claimed.len() > info.n_cores as usize {
            return R::Bad(E::InvalidBitfield(a.claimed.len()));
        }
        let mut claimed: Vec<(CandidateIndex, CandidateHash)> =
            Vec::with_capacity(a.claimed.count_ones());
        for i in a.claimed.iter_ones() {
            let Some((h, _, _)) = block.candidate(i) else {
                return R::Bad(E::InvalidCandidateIndex(i));
            };
            match self.candidates.get(h) {
                None => return R::Bad(E::InvalidCandidate(i, *h)),
                Some(c) if c.entry(&a.block_hash).is_none() => {
                    return R::Bad(E::Internal(a.block_hash, *h))
                }
                Some(_) => claimed.push((i, *h)),
            }
        }
        if claimed.is_empty() {
            return R::Bad(E::InvalidCert(a.validator, "NullAssignment".into()));
        }
        if a.validator.0 as usize >= info.n_validators() {
            return R::Bad(E::InvalidCert(
                a.validator,
                "ValidatorIndexOutOfBounds".into(),
            ));
        }
        let block_hash = a.block_hash;
        let mut duplicate = true;
        for (i, h) in claimed {
            let block = &self.blocks[&block_hash];
            let cand = self.candidates.get_mut(&h).expect("checked above");
            let approvals = &cand.approvals;
            let ae = cand
                .entries
                .iter_mut()
                .find(|e| e.block == block_hash)
                .expect("checked above");
            duplicate &= ae.assigned.contains_validator(a.validator);
            let seq = ae.next_seq;
            ae.next_seq += 1;
            ae.push_assignment(a.tranche, a.validator, now);
            out.writes.push(WriteOp::PutAssignment(
                block_hash,
                i,
                seq,
                AssignmentRecord {
                    validator: a.validator,
                    tranche: a.tranche,
                    tick: now,
                },
            ));
            let status = status_of(block, ae, approvals, now, self.tps);
            note_no_shows(ae, &status, now, out);
            let wake = schedule_wakeup_action(ae, block.block_tick, now, status.required);
            if let Some(t) = wake {
                self.schedule_wakeup(out, (block_hash, i), t);
            }
        }
        if duplicate {
            R::AcceptedDuplicate
        } else {
            R::Accepted
        }
    }

    /// Import an approval already checked by distribution (spec §4.11).
    pub fn import_approval(&mut self, now: Tick, v: CheckedApproval) -> Output {
        let mut out = Out::default();
        let result = self.import_approval_inner(now, &v, &mut out);
        out.actions.insert(
            0,
            Action::ApprovalImported {
                block: v.block_hash,
                validator: v.validator,
                result,
            },
        );
        self.finish(out)
    }

    fn import_approval_inner(
        &mut self,
        now: Tick,
        v: &CheckedApproval,
        out: &mut Out,
    ) -> ApprovalCheckResult {
        use ApprovalCheckError as E;
        use ApprovalCheckResult as R;
        let Some(block) = self.blocks.get(&v.block_hash) else {
            return R::Bad(E::UnknownBlock(v.block_hash));
        };
        let mut targets = Vec::with_capacity(v.candidates.count_ones());
        for i in v.candidates.iter_ones() {
            match block.candidate(i) {
                Some((h, _, _)) => targets.push((i, *h)),
                None => return R::Bad(E::InvalidCandidateIndex(i)),
            }
        }
        // Actions of earlier candidates are dropped when a later one fails
        // (their state changes stay), as upstream.
        let mut actions = Vec::new();
        let mut wakeups = Vec::new();
        for (i, h) in targets {
            let Some(cand) = self.candidates.get(&h) else {
                return R::Bad(E::InvalidCandidate(i, h));
            };
            match cand.entry(&v.block_hash) {
                None => return R::Bad(E::Internal(v.block_hash, h)),
                Some(e) if !e.assigned.contains_validator(v.validator) => {
                    return R::Bad(E::NoAssignment(v.validator));
                }
                Some(_) => {}
            }
            let mut sub = Out::default();
            self.advance(
                &mut sub,
                now,
                v.block_hash,
                i,
                Transition::Remote(v.validator),
            );
            actions.extend(sub.actions);
            wakeups.extend(sub.wakeups);
            out.writes.ops.extend(sub.writes.ops);
        }
        out.actions.extend(actions);
        out.wakeups.extend(wakeups);
        R::Accepted
    }

    /// Recompute a pair's approval after a vote, a local approval or a
    /// wakeup (upstream `advance_approval_state`).
    fn advance(
        &mut self,
        out: &mut Out,
        now: Tick,
        block_hash: Hash,
        idx: CandidateIndex,
        tr: Transition,
    ) {
        let tps = self.tps;
        let Some(block) = self.blocks.get_mut(&block_hash) else {
            return;
        };
        let Some(&(chash, _, _)) = block.candidate(idx) else {
            return;
        };
        let Some(cand) = self.candidates.get_mut(&chash) else {
            return;
        };
        let v = tr.validator();
        let was_set = v.map(|v| cand.approvals.insert(v.0 as usize));
        if !matches!(tr, Transition::Local(_)) && block.approved.contains(idx as usize) {
            // Upstream drops the updated candidate entry here: the vote is
            // not recorded.
            if let (Some(v), Some(false)) = (v, was_set) {
                cand.approvals.remove(v.0 as usize);
            }
            return;
        }
        let approvals = &cand.approvals;
        let Some(ae) = cand.entries.iter_mut().find(|e| e.block == block_hash) else {
            return;
        };
        let status = status_of(block, ae, approvals, now, tps);
        note_no_shows(ae, &status, now, out);
        let n_validators = ae.assigned.len();
        let check = check_approval(&ae.tranches, approvals, n_validators, status.required);
        let approved = check.is_approved(now.saturating_sub(APPROVAL_DELAY));
        if approved {
            let was_full = block.approved.is_full();
            let already = block.approved.insert(idx as usize);
            if !already {
                out.actions.push(Action::CandidateApproved {
                    block: block_hash,
                    candidate_index: idx,
                    candidate: chash,
                    tick: now,
                    tranche: now.saturating_sub(block.block_tick) as DelayTranche,
                    one_third: check == Check::ApprovedOneThird,
                    tolerated_no_shows: check.known_no_shows(),
                    required: Some(status.required),
                });
            }
            if block.approved.is_full() && !was_full {
                out.actions.push(Action::BlockApproved {
                    block: block_hash,
                    number: block.record.number,
                    tick: now,
                });
            }
            out.writes
                .push(WriteOp::PutBlockState(block_hash, block.state_record()));
        } else if matches!(tr, Transition::Local(_)) {
            out.writes
                .push(WriteOp::PutBlockState(block_hash, block.state_record()));
        }
        let newly = approved && !ae.approved;
        if approved {
            ae.approved = true;
        }
        if newly || matches!(tr, Transition::Local(_)) {
            out.writes
                .push(WriteOp::PutApprovalEntry(block_hash, idx, ae.record()));
        }
        let wake = schedule_wakeup_action(ae, block.block_tick, now, status.required);
        let mut forks = Vec::new();
        if approved {
            if let Transition::Remote(v) = tr {
                for e in cand.entries.iter().filter(|e| e.block != block_hash) {
                    if !e.approved && e.assigned.contains_validator(v) {
                        forks.push((e.block, e.index));
                    }
                }
            }
        }
        if let (Some(v), Some(false)) = (v, was_set) {
            out.writes.push(WriteOp::PutApproval(chash, v));
        }
        if let Some(t) = wake {
            self.schedule_wakeup(out, (block_hash, idx), t);
        }
        for pair in forks {
            if self.timers.wakeup(&pair).is_none() && self.blocks.contains_key(&pair.0) {
                self.schedule_wakeup(out, pair, now.saturating_add(1));
            }
        }
    }

    // ------------------------------------------------------------------
    // Time.

    /// Run everything due at or before `now`: wakeups, our finished checks,
    /// our coalescing deadlines.
    pub fn tick(&mut self, now: Tick) -> Output {
        let mut out = Out::default();
        loop {
            let mut progressed = false;
            for kind in TimerKind::PROCESSING_ORDER {
                while let Some(timer) = self.timers.pop_due(kind, now) {
                    progressed = true;
                    self.fire(&mut out, now, timer);
                }
            }
            if !progressed {
                break;
            }
        }
        self.finish(out)
    }

    /// Run one due timer.
    fn fire(&mut self, out: &mut Out, now: Tick, timer: Timer) {
        match timer {
            Timer::Wakeup(pair) => {
                out.writes.push(WriteOp::DeleteWakeup(pair.0, pair.1));
                self.process_wakeup(out, now, pair);
                self.apply_wakeups(out);
            }
            Timer::CheckDone(c) => {
                self.complete_check(out, now, c);
                self.apply_wakeups(out);
            }
            Timer::Signing(b) => {
                if let Some(k) = self.keys.clone() {
                    if let Some(t) = self.maybe_create_signature(out, now, b, k.index) {
                        self.timers.schedule_signing(b, t);
                    }
                }
            }
        }
    }

    fn process_wakeup(&mut self, out: &mut Out, now: Tick, (block_hash, idx): Pair) {
        let tps = self.tps;
        let Some(block) = self.blocks.get_mut(&block_hash) else {
            return;
        };
        let Some(&(chash, _, _)) = block.candidate(idx) else {
            return;
        };
        let Some(cand) = self.candidates.get_mut(&chash) else {
            return;
        };
        let approvals = &cand.approvals;
        let Some(ae) = cand.entries.iter_mut().find(|e| e.block == block_hash) else {
            return;
        };
        let clock = block.clock(now, tps);
        let status = tranches_to_approve(
            &ae.tranches,
            approvals,
            ae.assigned.len(),
            clock,
            block.session.info.needed_approvals as usize,
        );
        let trigger = should_trigger(ae, approvals, status.required, clock.tranche_now);
        let mut launch = None;
        if trigger {
            let our = ae
                .our
                .as_mut()
                .expect("should_trigger needs our assignment");
            our.triggered = true;
            let (cert, tranche, validator) = (our.cert.clone(), our.tranche, our.validator);
            let seq = ae.next_seq;
            ae.next_seq += 1;
            ae.push_assignment(tranche, validator, now);
            out.writes.push(WriteOp::PutAssignment(
                block_hash,
                idx,
                seq,
                AssignmentRecord {
                    validator,
                    tranche,
                    tick: now,
                },
            ));
            out.writes
                .push(WriteOp::PutApprovalEntry(block_hash, idx, ae.record()));
            let this_core = block.record.candidates[idx as usize].1;
            let cores: Vec<CoreIndex> = match &cert.kind {
                AssignmentCertKind::RelayVRFModuloCompact { core_bitfield } => {
                    core_bitfield.iter_ones().map(CoreIndex).collect()
                }
                AssignmentCertKind::RelayVRFDelay { core_index } => vec![*core_index],
                AssignmentCertKind::RelayVRFModulo { .. } => vec![this_core],
            };
            let mut indices: Vec<u32> = Vec::new();
            for c in cores {
                if let Some(p) = block
                    .record
                    .candidates
                    .iter()
                    .position(|(_, core, _)| *core == c)
                {
                    indices.push(p as u32);
                }
            }
            if let Ok(claimed) = CandidateBitfield::from_indices(&indices) {
                let distribute = if claimed.count_ones() > 1 {
                    let mut changed = false;
                    for i in claimed.iter_ones() {
                        changed |= !block.distributed.insert(i as usize);
                    }
                    changed
                } else {
                    true
                };
                out.writes
                    .push(WriteOp::PutBlockState(block_hash, block.state_record()));
                launch = Some((cert, validator, claimed, distribute));
            }
        }
        self.advance(out, now, block_hash, idx, Transition::Wakeup);
        if let Some((cert, validator, claimed, distribute)) = launch {
            if distribute {
                out.actions.push(Action::DistributeAssignment {
                    cert: IndirectAssignmentCert {
                        block_hash,
                        validator,
                        cert,
                    },
                    claimed,
                });
            }
            self.launch_check(out, now, chash, block_hash, idx, validator);
        }
    }

    fn launch_check(
        &mut self,
        out: &mut Out,
        now: Tick,
        chash: CandidateHash,
        block_hash: Hash,
        idx: CandidateIndex,
        validator: ValidatorIndex,
    ) {
        if self.checked.contains(&chash) {
            self.issue_approval(out, now, chash, block_hash, validator);
            return;
        }
        match self.checks.get_mut(&chash) {
            Some(f) => {
                if !f.blocks.contains(&block_hash) {
                    f.blocks.push(block_hash);
                }
            }
            None => {
                self.checks.insert(
                    chash,
                    InFlight {
                        validator,
                        blocks: vec![block_hash],
                    },
                );
                let due = now.saturating_add(self.config.check_delay_ticks);
                self.timers.schedule_check(chash, due);
            }
        }
        let due = self
            .timers
            .check_due(&chash)
            .expect("a check in flight has its completion timer");
        if let Some(ae) = self
            .candidates
            .get_mut(&chash)
            .and_then(|c| c.entry_mut(&block_hash))
        {
            if let Some(o) = ae.our.as_mut() {
                o.check_due = Some(due);
                out.writes
                    .push(WriteOp::PutApprovalEntry(block_hash, idx, ae.record()));
            }
        }
    }

    fn complete_check(&mut self, out: &mut Out, now: Tick, chash: CandidateHash) {
        let Some(f) = self.checks.remove(&chash) else {
            return;
        };
        self.checked.insert(chash);
        for b in f.blocks {
            self.issue_approval(out, now, chash, b, f.validator);
        }
    }

    /// Count our own approval and sign it now or by its coalescing deadline
    /// (spec §3.4–§3.5).
    fn issue_approval(
        &mut self,
        out: &mut Out,
        now: Tick,
        chash: CandidateHash,
        block_hash: Hash,
        validator: ValidatorIndex,
    ) {
        let tps = self.tps;
        let Some(block) = self.blocks.get_mut(&block_hash) else {
            return;
        };
        let Some(idx) = block
            .record
            .candidates
            .iter()
            .position(|(h, _, _)| *h == chash)
        else {
            return;
        };
        let idx = idx as CandidateIndex;
        let Some(cand) = self.candidates.get_mut(&chash) else {
            return;
        };
        let Some(ae) = cand.entry_mut(&block_hash) else {
            return;
        };
        let our_tranche = ae.our.as_ref().map_or(0, |o| o.tranche);
        if let Some(o) = ae.our.as_mut() {
            o.check_due = None;
        }
        let deadline = now.saturating_add(MAX_APPROVAL_COALESCE_WAIT_TICKS).min(
            block
                .block_tick
                .saturating_add(our_tranche as Tick)
                .saturating_add(block.no_show_duration(tps) / 2),
        );
        block.pending_signature.insert(idx, (chash, deadline));
        self.advance(out, now, block_hash, idx, Transition::Local(validator));
        if let Some(t) = self.maybe_create_signature(out, now, block_hash, validator) {
            self.timers.schedule_signing(block_hash, t);
        }
    }

    fn maybe_create_signature(
        &mut self,
        out: &mut Out,
        now: Tick,
        block_hash: Hash,
        validator: ValidatorIndex,
    ) -> Option<Tick> {
        let block = self.blocks.get_mut(&block_hash)?;
        let earliest = block.pending_signature.values().map(|(_, t)| *t).min()?;
        let max = block.session.info.max_approval_coalesce_count as usize;
        if earliest > now && block.pending_signature.len() < max {
            return Some(earliest);
        }
        let keys = self.keys.as_ref()?;
        let indices: Vec<CandidateIndex> = block.pending_signature.keys().copied().collect();
        let hashes: Vec<CandidateHash> =
            block.pending_signature.values().map(|(h, _)| *h).collect();
        let signature = sign_approval(&keys.pair, &hashes, block.record.session);
        block.pending_signature.clear();
        out.writes
            .push(WriteOp::PutBlockState(block_hash, block.state_record()));
        let record = OurApprovalRecord {
            signature: signature.0,
            candidate_indices: indices.clone(),
        };
        for (i, h) in indices.iter().zip(hashes.iter()) {
            if let Some(ae) = self
                .candidates
                .get_mut(h)
                .and_then(|c| c.entry_mut(&block_hash))
            {
                ae.our_approval = Some(record.clone());
                out.writes
                    .push(WriteOp::PutApprovalEntry(block_hash, *i, ae.record()));
            }
        }
        let candidate_indices = CandidateBitfield::from_indices(&indices).ok()?;
        out.actions
            .push(Action::DistributeApproval(IndirectSignedApprovalVote {
                block_hash,
                candidate_indices,
                validator,
                signature,
            }));
        None
    }

    // ------------------------------------------------------------------
    // Queries.

    /// The highest block `H` on `target`'s chain such that every block from
    /// `lower_bound + 1` up to `H` is approved (spec §4.13); `None` means
    /// "vote on the lower bound", also when part of the chain is unknown.
    pub fn approved_ancestor(
        &self,
        target: &Hash,
        lower_bound: BlockNumber,
    ) -> Option<(Hash, BlockNumber)> {
        let mut cur = self.blocks.get(target)?;
        let target_number = cur.record.number;
        if target_number <= lower_bound {
            return None;
        }
        let mut best = None;
        loop {
            if cur.approved.is_full() {
                if best.is_none() {
                    best = Some((cur.record.hash, cur.record.number));
                }
            } else {
                best = None;
            }
            if cur.record.number <= lower_bound.saturating_add(1) {
                break;
            }
            let parent = self.blocks.get(&cur.record.parent)?;
            if parent.record.number >= cur.record.number {
                return None;
            }
            cur = parent;
        }
        best
    }

    /// Whether a block is known (imported and not pruned).
    pub fn has_block(&self, hash: &Hash) -> bool {
        self.blocks.contains_key(hash)
    }

    /// Whether every candidate of a block is approved.
    pub fn is_block_approved(&self, hash: &Hash) -> Option<bool> {
        self.blocks.get(hash).map(|b| b.approved.is_full())
    }

    /// Whether a candidate is approved under a block.
    pub fn is_candidate_approved(&self, hash: &Hash, idx: CandidateIndex) -> Option<bool> {
        let b = self.blocks.get(hash)?;
        (idx < b.record.candidates.len() as u32).then(|| b.approved.contains(idx as usize))
    }

    /// Known blocks that have no known child.
    pub fn leaves(&self) -> Vec<(Hash, BlockNumber)> {
        let mut v: Vec<_> = self
            .blocks
            .values()
            .filter(|b| b.children.iter().all(|c| !self.blocks.contains_key(c)))
            .map(|b| (b.record.hash, b.record.number))
            .collect();
        v.sort();
        v
    }

    /// The approval status of a pair as of `now` (read-only).
    pub fn candidate_status(
        &self,
        now: Tick,
        hash: &Hash,
        idx: CandidateIndex,
    ) -> Option<CandidateStatus> {
        let block = self.blocks.get(hash)?;
        let (chash, _, _) = block.candidate(idx)?;
        let cand = self.candidates.get(chash)?;
        let ae = cand.entry(hash)?;
        let status = status_of(block, ae, &cand.approvals, now, self.tps);
        Some(CandidateStatus {
            candidate: *chash,
            required: status.required,
            no_shows: status.no_show_validators,
            assignments: ae.n_assignments(),
            approvals: cand.approvals.count(),
            approved: block.approved.contains(idx as usize),
        })
    }

    /// Number of known blocks and candidates.
    pub fn sizes(&self) -> (usize, usize) {
        (self.blocks.len(), self.candidates.len())
    }

    // ------------------------------------------------------------------
    // Restoring.

    /// Rebuild a state machine from what a store holds: the same entries,
    /// approvals, our pending work and wakeups as before it was dropped.
    pub fn restore(
        config: Config,
        keys: Option<LocalKeys>,
        snap: Snapshot,
    ) -> Result<Self, StoreError> {
        let corrupt = |s: String| StoreError::Corrupt(s);
        let mut m = ApprovalVoting::new(config, keys);
        for info in snap.sessions {
            m.sessions
                .insert(info.session_index, Arc::new(Session::new(info)));
        }
        (m.finalized, m.range_start) = snap.finalized;
        let mut states: HashMap<Hash, BlockStateRecord> = snap.block_states.into_iter().collect();
        let mut metas: HashMap<(Hash, CandidateIndex), ApprovalEntryRecord> = snap
            .approval_entries
            .into_iter()
            .map(|(h, i, r)| ((h, i), r))
            .collect();
        for record in snap.blocks {
            let session = m.sessions.get(&record.session).cloned().ok_or_else(|| {
                corrupt(format!(
                    "block {} refers to unknown session {}",
                    record.hash, record.session
                ))
            })?;
            let n = record.candidates.len();
            let n_validators = session.info.n_validators();
            let state = states
                .remove(&record.hash)
                .ok_or_else(|| corrupt(format!("block {} has no state record", record.hash)))?;
            let approved = ValidatorSet::from_bytes(n, &state.approved)
                .ok_or_else(|| corrupt(format!("block {}: bad approved bits", record.hash)))?;
            let distributed = ValidatorSet::from_bytes(n, &state.distributed)
                .ok_or_else(|| corrupt(format!("block {}: bad distributed bits", record.hash)))?;
            if let Some((i, _, _)) = state
                .pending_signature
                .iter()
                .find(|(i, _, _)| *i as usize >= n)
            {
                return Err(corrupt(format!(
                    "block {}: pending signature for candidate {i} of {n}",
                    record.hash
                )));
            }
            let pending_signature = state
                .pending_signature
                .iter()
                .map(|(i, h, t)| (*i, (*h, *t)))
                .collect();
            for (i, (c, _, _)) in record.candidates.iter().enumerate() {
                let meta = metas.remove(&(record.hash, i as u32)).ok_or_else(|| {
                    corrupt(format!(
                        "block {} candidate {i} has no approval entry",
                        record.hash
                    ))
                })?;
                let mut ae = ApprovalEntry::new(record.hash, i as u32, n_validators, None);
                ae.approved = meta.approved;
                ae.our_approval = meta.our_approval;
                ae.our = meta.our_assignment.map(|o| OurAssignment {
                    cert: o.cert,
                    tranche: o.tranche,
                    validator: o.validator,
                    triggered: o.triggered,
                    check_due: o.check_due,
                });
                let cand = m.candidates.entry(*c).or_insert_with(|| CandidateEntry {
                    approvals: ValidatorSet::new(n_validators),
                    entries: Vec::new(),
                });
                cand.entries.push(ae);
            }
            m.blocks_at_height
                .entry(record.number)
                .or_default()
                .push(record.hash);
            let block_tick = record.slot.saturating_mul(m.tps);
            m.blocks.insert(
                record.hash,
                BlockEntry {
                    record,
                    session,
                    block_tick,
                    approved,
                    distributed,
                    pending_signature,
                    children: Vec::new(),
                },
            );
        }
        if let Some(((h, i), _)) = metas.into_iter().next() {
            return Err(corrupt(format!("approval entry {h} {i} without a block")));
        }
        let links: Vec<(Hash, Hash)> = m
            .blocks
            .values()
            .map(|b| (b.record.parent, b.record.hash))
            .collect();
        for (parent, child) in links {
            if let Some(p) = m.blocks.get_mut(&parent) {
                p.children.push(child);
            }
        }
        for (h, i, seq, r) in snap.assignments {
            let chash = m
                .blocks
                .get(&h)
                .and_then(|b| b.candidate(i))
                .map(|c| c.0)
                .ok_or_else(|| {
                    corrupt(format!("assignment for unknown block {h} candidate {i}"))
                })?;
            let ae = m
                .candidates
                .get_mut(&chash)
                .and_then(|c| c.entry_mut(&h))
                .ok_or_else(|| corrupt(format!("assignment without approval entry {h} {i}")))?;
            if r.validator.0 as usize >= ae.assigned.len() {
                return Err(corrupt(format!(
                    "assignment from validator {} out of range",
                    r.validator
                )));
            }
            ae.push_assignment(r.tranche, r.validator, r.tick);
            ae.next_seq = ae.next_seq.max(seq.saturating_add(1));
        }
        for (c, v) in snap.approvals {
            let cand = m
                .candidates
                .get_mut(&c)
                .ok_or_else(|| corrupt(format!("approval for unknown candidate {c}")))?;
            if v.0 as usize >= cand.approvals.len() {
                return Err(corrupt(format!("approval from validator {v} out of range")));
            }
            cand.approvals.insert(v.0 as usize);
        }
        for (h, i, t) in snap.wakeups {
            if !m.blocks.contains_key(&h) {
                return Err(corrupt(format!("wakeup for unknown block {h}")));
            }
            m.timers.schedule_wakeup((h, i), t);
        }
        // Our checks in flight and approvals waiting to be signed.
        let mut in_flight = Vec::new();
        for (chash, cand) in &m.candidates {
            for ae in &cand.entries {
                if let Some(o) = &ae.our {
                    if let Some(due) = o.check_due {
                        in_flight.push((*chash, ae.block, o.validator, due));
                    }
                }
            }
        }
        for (chash, block, validator, due) in in_flight {
            let f = m.checks.entry(chash).or_insert_with(|| {
                m.timers.schedule_check(chash, due);
                InFlight {
                    validator,
                    blocks: Vec::new(),
                }
            });
            f.blocks.push(block);
        }
        let timers: Vec<(Hash, Tick)> = m
            .blocks
            .values()
            .filter_map(|b| {
                b.pending_signature
                    .values()
                    .map(|(_, t)| *t)
                    .min()
                    .map(|t| (b.record.hash, t))
            })
            .collect();
        for (b, t) in timers {
            m.timers.schedule_signing(b, t);
        }
        Ok(m)
    }
}

fn status_of(
    block: &BlockEntry,
    ae: &ApprovalEntry,
    approvals: &ValidatorSet,
    now: Tick,
    tps: Tick,
) -> TranchesToApprove {
    tranches_to_approve(
        &ae.tranches,
        approvals,
        ae.assigned.len(),
        block.clock(now, tps),
        block.session.info.needed_approvals as usize,
    )
}

fn note_no_shows(ae: &mut ApprovalEntry, status: &TranchesToApprove, now: Tick, out: &mut Out) {
    if status.no_show_validators.is_empty() {
        return;
    }
    if ae.reported_no_shows.is_empty() {
        ae.reported_no_shows = ValidatorSet::new(ae.assigned.len());
    }
    let fresh: Vec<ValidatorIndex> = status
        .no_show_validators
        .iter()
        .copied()
        .filter(|v| !ae.reported_no_shows.insert(v.0 as usize))
        .collect();
    if !fresh.is_empty() {
        out.actions.push(Action::NoShowObserved {
            block: ae.block,
            candidate_index: ae.index,
            validators: fresh,
            tick: now,
        });
    }
}

/// When a pair next needs looking at (upstream `schedule_wakeup_action`).
fn schedule_wakeup_action(
    ae: &ApprovalEntry,
    block_tick: Tick,
    now: Tick,
    required: RequiredTranches,
) -> Option<Tick> {
    if ae.approved {
        return None;
    }
    let min = |a: Option<Tick>, b: Option<Tick>| match (a, b) {
        (None, x) | (x, None) => x,
        (Some(x), Some(y)) => Some(x.min(y)),
    };
    match required {
        RequiredTranches::All => None,
        RequiredTranches::Exact {
            next_no_show,
            last_assignment_tick,
            ..
        } => min(
            last_assignment_tick
                .map(|t| t.saturating_add(APPROVAL_DELAY))
                .filter(|t| *t > now),
            next_no_show,
        ),
        RequiredTranches::Pending {
            considered,
            next_no_show,
            clock_drift,
            ..
        } => {
            let announced = ae
                .tranches
                .iter()
                .map(|t| t.tranche)
                .find(|t| *t > considered);
            let ours = ae
                .our
                .as_ref()
                .filter(|o| !o.triggered && o.tranche > considered)
                .map(|o| o.tranche);
            let next_tranche = match (announced, ours) {
                (None, x) | (x, None) => x,
                (Some(a), Some(b)) => Some(a.min(b)),
            };
            min(
                next_tranche.map(|t| {
                    (t as Tick)
                        .saturating_add(block_tick)
                        .saturating_add(clock_drift)
                }),
                next_no_show,
            )
        }
    }
}

/// Whether our untriggered assignment should be triggered now (spec §4.9).
fn should_trigger(
    ae: &ApprovalEntry,
    approvals: &ValidatorSet,
    required: RequiredTranches,
    tranche_now: DelayTranche,
) -> bool {
    let Some(our) = &ae.our else { return false };
    if our.triggered {
        return false;
    }
    if our.tranche == 0 {
        return true;
    }
    match required {
        RequiredTranches::All => !check_approval(
            &ae.tranches,
            approvals,
            ae.assigned.len(),
            RequiredTranches::All,
        )
        .is_approved(Tick::MAX),
        RequiredTranches::Pending {
            maximum_broadcast,
            clock_drift,
            ..
        } => {
            let drifted = tranche_now.saturating_sub(clock_drift as DelayTranche);
            our.tranche <= maximum_broadcast && our.tranche <= drifted
        }
        RequiredTranches::Exact { .. } => false,
    }
}
