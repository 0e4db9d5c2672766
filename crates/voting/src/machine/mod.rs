//! The approval-voting state machine (upstream
//! `polkadot/node/core/approval-voting/src/lib.rs`): the `ApprovalVoting`
//! type, its fields and the plumbing every input shares (`Out`, `finish`,
//! the wakeups an input schedules). Its methods live by concern in the
//! submodules: `blocks`, `votes`, `timers`, `queries`, `restore`; the types
//! that cross its boundary in `interface`, its entries in `entries`.

mod activation;
mod blocks;
mod entries;
mod interface;
mod queries;
mod restore;
mod timers;
mod votes;

pub use interface::{
    Action, ApprovalCheckError, ApprovalCheckResult, AssignmentCheckError, AssignmentCheckResult,
    CandidateStatus, CheckedApproval, CheckedAssignment, Config, LocalKeys, NewBlock, Output,
};

use self::entries::{ApprovalEntry, BlockEntry, CandidateEntry, RunningCheck};
use crate::bits::ValidatorSet;
use crate::maps::{Map, Set};
use crate::store::{WriteBatch, WriteOp};
use crate::timer_table::{Pair, TimerTable};
use std::collections::BTreeMap;
use std::sync::Arc;
use tranche_primitives::time::ticks_per_slot;
use tranche_primitives::{
    BlockNumber, CandidateHash, CandidateIndex, Hash, Session, SessionIndex, Tick,
};

/// What one input has produced so far.
#[derive(Default)]
struct Out {
    actions: Vec<Action>,
    writes: WriteBatch,
    /// Wakeups to schedule once the input's work is done (upstream's
    /// `ScheduleWakeup` actions).
    wakeups: Vec<(Pair, Tick)>,
}

/// The approval-voting state machine, sans IO: it never reads a clock,
/// sleeps or does I/O. Every input takes the current tick `now` and returns
/// an [`Output`]: the [`Action`]s to carry out, the database writes of that
/// input (apply them with `Store::write` before acting), and the next tick
/// at which [`tick`](Self::tick) must be called.
///
/// # Method families
///
/// * **Setting up**: [`new`](Self::new) for a fresh machine, or
///   [`restore`](Self::restore) from a store's `Snapshot` after a restart;
///   `keys` make it a validator that checks and approves, without them it
///   only follows others' votes.
/// * **Blocks**: [`import_block`](Self::import_block) for each new relay
///   block, parents first; [`finalize`](Self::finalize) when a block is
///   finalized, which prunes everything at or below its height and the
///   forks it abandons.
/// * **Votes**: [`import_assignment`](Self::import_assignment) and
///   [`import_approval`](Self::import_approval) for assignments and
///   approvals whose certificates and signatures distribution has already
///   checked. The result is the first action of the output
///   ([`Output::assignment_result`], [`Output::approval_result`]).
/// * **Time**: [`tick`](Self::tick) runs what is due: candidate wakeups
///   (no-shows, tranches coming due, our own assignments to trigger), our
///   finished checks, and the deadlines of our coalesced approvals.
///   [`next_wakeup`](Self::next_wakeup) (also in every `Output`) says when.
/// * **Queries**, read-only: [`approved_ancestor`](Self::approved_ancestor)
///   for GRANDPA, [`is_block_approved`](Self::is_block_approved),
///   [`is_candidate_approved`](Self::is_candidate_approved),
///   [`candidate_status`](Self::candidate_status), [`leaves`](Self::leaves),
///   [`has_block`](Self::has_block), [`sizes`](Self::sizes).
///
/// # Order of calls
///
/// Within one tick, call `tick(now)` first, when `now` has reached the last
/// `next_wakeup`: due timers run before any message of that tick, as
/// upstream's wakeups do. Then feed that tick's inputs in arrival order;
/// the rules are not order-free within a tick. Apply each output's writes
/// before the next input, and call `tick(now)` again if an output's
/// `next_wakeup` is at or before `now`. Never let `now` go backwards.
pub struct ApprovalVoting {
    config: Config,
    tps: Tick,
    keys: Option<LocalKeys>,
    sessions: Map<SessionIndex, Arc<Session>>,
    blocks: Map<Hash, BlockEntry>,
    blocks_at_height: BTreeMap<BlockNumber, Vec<Hash>>,
    candidates: Map<CandidateHash, CandidateEntry>,
    finalized: Option<BlockNumber>,
    /// Lowest height the store may still hold (upstream's stored range start).
    range_start: Option<BlockNumber>,
    /// Wakeups, our checks' completions and signing deadlines.
    timers: TimerTable,
    checks: Map<CandidateHash, RunningCheck>,
    checked: Set<CandidateHash>,
    /// An import's lists, empty between inputs, kept for their capacity.
    scratch: Out,
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
            sessions: Map::default(),
            blocks: Map::default(),
            blocks_at_height: BTreeMap::new(),
            candidates: Map::default(),
            finalized: None,
            range_start: None,
            timers: TimerTable::default(),
            checks: Map::default(),
            checked: Set::default(),
            scratch: Out::default(),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Set how long the checks launched from now on take, in ticks: a
    /// runtime that models each check's duration as a random draw (the
    /// whole-network simulation, crate `tranche-simulation`) sets it before
    /// the inputs that may launch one. Checks already in flight keep their
    /// completion tick.
    pub fn set_check_delay_ticks(&mut self, ticks: Tick) {
        self.config.check_delay_ticks = ticks;
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

    /// A pair's block entry, candidate hash and candidate entry; `None` when
    /// the pair is not known (pruned, or never imported).
    fn pair_mut(
        &mut self,
        block: &Hash,
        idx: CandidateIndex,
    ) -> Option<(&mut BlockEntry, CandidateHash, &mut CandidateEntry)> {
        let entry = self.blocks.get_mut(block)?;
        let chash = entry.candidate(idx)?.hash;
        let cand = self.candidates.get_mut(&chash)?;
        Some((entry, chash, cand))
    }

    /// File a block's approval entry under its candidate, creating the
    /// candidate's entry when the candidate is new.
    fn add_approval_entry(
        &mut self,
        candidate: CandidateHash,
        n_validators: usize,
        ae: ApprovalEntry,
    ) {
        self.candidates
            .entry(candidate)
            .or_insert_with(|| CandidateEntry {
                approvals: ValidatorSet::new(n_validators),
                entries: Vec::new(),
            })
            .entries
            .push(ae);
    }

    fn schedule_wakeup(&mut self, out: &mut Out, pair: Pair, tick: Tick) {
        out.wakeups.push((pair, tick));
    }

    fn apply_wakeups(&mut self, out: &mut Out) {
        for (pair, tick) in out.wakeups.drain(..) {
            if self.timers.schedule_wakeup(pair, tick) {
                out.writes.push(WriteOp::PutWakeup(pair.0, pair.1, tick));
            }
        }
    }
}
