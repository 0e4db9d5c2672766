//! Running a scenario on the voting state machine in virtual time, in the
//! README's per-tick order (wakeups; block imports, lowest number first;
//! events in file order; observation; approved-ancestor queries), and the
//! result in the README's schema, with a timeline of what changed and why.

use super::schema::{BlockSpec, EventSpec, Scenario};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use tranche_cli::text::{self, counted};
use tranche_primitives::{
    Block, BlockNumber, Candidate, CandidateBitfield, CandidateHash, CoreIndex, GroupIndex, Hash,
    RelayVrfStory, Session, SessionIndex, SessionInfo, Tick, ValidatorId, ValidatorIndex,
    ValidatorSignature,
};
use tranche_voting::{
    Action, ApprovalCheckResult, ApprovalVoting, AssignmentCheckResult, CheckedApproval,
    CheckedAssignment, Config, NewBlock, RequiredTranches,
};

/// Per-block decision fields.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct BlockResult {
    pub name: String,
    pub number: u32,
    pub hash: String,
    pub block_tick: u64,
    pub import_tick: u64,
    pub imported_tick: Option<u64>,
    pub all_candidates_approved_tick: Option<u64>,
    pub approved_signal_tick: Option<u64>,
    pub approved_ancestor_tick: Option<u64>,
    pub pruned_tick: Option<u64>,
}

/// Per-candidate decision fields.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct CandidateResult {
    pub block: String,
    pub index: u32,
    pub core: u32,
    pub group: u32,
    pub hash: String,
    pub approved_tick: Option<u64>,
    pub approved_tranche: Option<u64>,
}

/// The import result of one event.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct EventResult {
    pub index: usize,
    pub tick: u64,
    pub kind: String,
    pub result: String,
}

/// A block reported approved to chain selection.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Signal {
    pub tick: u64,
    pub block: String,
}

/// The result file.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ScenarioResult {
    pub name: String,
    pub oracle: String,
    pub start_tick: u64,
    pub end_tick: u64,
    pub blocks: Vec<BlockResult>,
    pub candidates: Vec<CandidateResult>,
    pub events: Vec<EventResult>,
    pub chain_selection_approved: Vec<Signal>,
}

/// One line of the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimelineLine {
    pub tick: u64,
    pub text: String,
}

/// A run: the result and the timeline.
#[derive(Clone, Debug)]
pub struct Run {
    pub result: ScenarioResult,
    pub timeline: Vec<TimelineLine>,
}

fn block_hash(name: &str) -> Hash {
    Hash::blake2_256(format!("tranche-scenario-block:{name}").as_bytes())
}

fn candidate_hash(block: &str, index: usize, para: u32, core: u32) -> CandidateHash {
    CandidateHash(Hash::blake2_256(
        format!("tranche-scenario-candidate:{block}:{index}:{para}:{core}").as_bytes(),
    ))
}

/// The relay block a scenario's block describes: hashes derived from the
/// names, the block hash as its relay VRF story, and a parent-less block's
/// parent the finalized block `(finalized)`.
fn relay_block(b: &BlockSpec, session: SessionIndex) -> Block {
    let hash = block_hash(&b.name);
    Block {
        hash,
        number: b.number,
        parent: b
            .parent
            .as_deref()
            .map(block_hash)
            .unwrap_or_else(|| block_hash("(finalized)")),
        slot: b.slot,
        session,
        relay_vrf_story: RelayVrfStory(hash.0),
        candidates: b
            .candidates
            .iter()
            .enumerate()
            .map(|(ci, c)| Candidate {
                hash: candidate_hash(&b.name, ci, c.para.unwrap_or(1000 + c.core), c.core),
                core: CoreIndex(c.core),
                group: GroupIndex(c.group),
            })
            .collect(),
    }
}

/// Candidate indices from here on are answered without building their
/// bitfield (no block has that many candidates or cores).
const MAX_SANE_INDEX: u32 = 1 << 16;

fn bitfield(indices: &[u32]) -> CandidateBitfield {
    // Unknown blocks are answered before the bitfield is read: keep it small.
    let sane: Vec<u32> = indices
        .iter()
        .copied()
        .filter(|i| *i < MAX_SANE_INDEX)
        .collect();
    CandidateBitfield::from_indices(&sane).unwrap_or_else(|_| CandidateBitfield::with_len(0, []))
}

fn assignment_result(r: &AssignmentCheckResult) -> String {
    match r {
        AssignmentCheckResult::Accepted => "Accepted".into(),
        AssignmentCheckResult::AcceptedDuplicate => "AcceptedDuplicate".into(),
        AssignmentCheckResult::TooFarInFuture => "TooFarInFuture".into(),
        AssignmentCheckResult::Bad(e) => format!("Bad({e:?})"),
    }
}

fn approval_result(r: &ApprovalCheckResult) -> String {
    match r {
        ApprovalCheckResult::Accepted => "Accepted".into(),
        ApprovalCheckResult::Bad(e) => format!("Bad({e:?})"),
    }
}

/// A compact description of the required tranches for change detection
/// (`Pending`'s `considered` moves every tick and is left out).
fn shape(r: &RequiredTranches) -> String {
    match r {
        RequiredTranches::All => {
            "all validators needed (only the one-third rule can approve)".into()
        }
        RequiredTranches::Pending {
            clock_drift,
            maximum_broadcast,
            considered,
            ..
        } => {
            if *clock_drift == 0 {
                "waiting for more assignments (needed_approvals not yet reached)".into()
            } else {
                format!(
                    "covering no-shows: {} more needed, clock drift {}",
                    counted(
                        maximum_broadcast.saturating_sub(*considered),
                        "non-empty tranche"
                    ),
                    counted(*clock_drift, "tick")
                )
            }
        }
        RequiredTranches::Exact {
            needed,
            tolerated_missing,
            ..
        } => format!(
            "tranches 0..={needed} suffice{}",
            if *tolerated_missing > 0 {
                format!(
                    ", {} tolerated",
                    counted(*tolerated_missing, "covered no-show")
                )
            } else {
                String::new()
            }
        ),
    }
}

struct Runner<'a> {
    s: &'a Scenario,
    session: Arc<Session>,
    machine: ApprovalVoting,
    names: HashMap<Hash, usize>,
    finalized: BlockNumber,
    blocks: Vec<BlockResult>,
    candidates: Vec<CandidateResult>,
    cand_of_block: Vec<Vec<usize>>,
    signals: Vec<Signal>,
    timeline: Vec<TimelineLine>,
    shapes: HashMap<(usize, u32), String>,
}

impl Runner<'_> {
    fn line(&mut self, tick: u64, text: String) {
        self.timeline.push(TimelineLine { tick, text });
    }

    fn name_of(&self, h: &Hash) -> String {
        self.names
            .get(h)
            .map(|&i| self.s.blocks[i].name.clone())
            .unwrap_or_else(|| format!("{h:?}"))
    }

    fn absorb(&mut self, tick: u64, actions: Vec<Action>) {
        for a in actions {
            match a {
                Action::BlockApproved { block, .. } => {
                    let name = self.name_of(&block);
                    if let Some(&i) = self.names.get(&block) {
                        self.blocks[i].approved_signal_tick.get_or_insert(tick);
                    }
                    self.signals.push(Signal {
                        tick,
                        block: name.clone(),
                    });
                    self.line(tick, format!("block {} approved: every candidate is approved; reported to chain selection", text::bare(&name)));
                }
                Action::CandidateApproved {
                    block,
                    candidate_index,
                    tranche,
                    one_third,
                    tolerated_no_shows,
                    required,
                    ..
                } => {
                    let name = text::bare(&self.name_of(&block));
                    // `tranche` is the clock's tranche when the approval
                    // happened; the tranches that sufficed are `needed`'s.
                    let sufficed = match &required {
                        Some(RequiredTranches::Exact { needed, .. }) if !one_third => {
                            format!("; tranches 0..={needed} sufficed")
                        }
                        _ => String::new(),
                    };
                    let why = if one_third {
                        "more than a third of all validators approved (one-third rule)".to_string()
                    } else {
                        match required {
                            Some(RequiredTranches::Exact { needed, last_assignment_tick, .. }) => format!(
                                "every assignee of tranches 0..={needed} approved{}, and the newest counted assignment (tick {}) is at least {} ticks old",
                                if tolerated_no_shows > 0 {
                                    format!(" except {} covered by later tranches", counted(tolerated_no_shows, "no-show"))
                                } else {
                                    String::new()
                                },
                                last_assignment_tick.map_or("-".into(), |t| t.to_string()),
                                tranche_voting::APPROVAL_DELAY
                            ),
                            None => "too few validators outside its backing group to need checking".into(),
                            Some(r) => format!("{r:?}"),
                        }
                    };
                    self.line(tick, format!("candidate {name}#{candidate_index} approved at clock tranche {tranche}{sufficed}: {why}"));
                }
                Action::NoShowObserved {
                    block,
                    candidate_index,
                    validators,
                    ..
                } => {
                    let name = text::bare(&self.name_of(&block));
                    let list: Vec<String> = validators.iter().map(|v| v.0.to_string()).collect();
                    self.line(
                        tick,
                        format!(
                            "no-show on {name}#{candidate_index}: {} {} assigned but no approval within {}",
                            if list.len() == 1 { "validator" } else { "validators" },
                            list.join(", "),
                            counted(self.s.session.no_show_slots, "slot")
                        ),
                    );
                }
                Action::BlockPruned { block, .. } => {
                    let name = text::bare(&self.name_of(&block));
                    self.line(tick, format!("block {name} pruned after finality"));
                }
                _ => {}
            }
        }
    }

    /// Import block `i`, after its unknown ancestors (oldest first).
    fn import(&mut self, tick: u64, i: usize) {
        let mut chain = vec![i];
        let mut cur = i;
        while let Some(p) = &self.s.blocks[cur].parent {
            let pi = self
                .s
                .blocks
                .iter()
                .position(|b| &b.name == p)
                .expect("validated parent");
            if self.machine.has_block(&block_hash(p)) || self.s.blocks[pi].number <= self.finalized
            {
                break;
            }
            chain.push(pi);
            cur = pi;
        }
        for &bi in chain.iter().rev() {
            let b = &self.s.blocks[bi];
            let hash = block_hash(&b.name);
            if self.machine.has_block(&hash) || b.number <= self.finalized {
                continue;
            }
            let nb = NewBlock {
                block: relay_block(b, self.session.info.session_index),
                session: self.session.clone(),
            };
            let out = self.machine.import_block(tick, nb);
            if self.machine.has_block(&hash) {
                let name = text::bare(&b.name);
                let n = b.candidates.len();
                self.line(
                    tick,
                    format!(
                        "block {name} (#{}, slot {}) imported with {}",
                        b.number,
                        b.slot,
                        counted(n, "candidate")
                    ),
                );
            }
            self.absorb(tick, out.actions);
        }
    }

    fn event(&mut self, tick: u64, index: usize, e: &EventSpec) -> String {
        let hash = block_hash(e.block());
        if let Some(r) = self.absurd_index(hash, e) {
            self.line(
                tick,
                format!(
                    "event {index}: {} naming candidate index beyond any block: {r}",
                    e.kind()
                ),
            );
            return r;
        }
        match e {
            EventSpec::Assignment {
                validator,
                candidates,
                tranche,
                ..
            } => {
                let out = self.machine.import_assignment(
                    tick,
                    CheckedAssignment {
                        block_hash: hash,
                        validator: ValidatorIndex(*validator),
                        claimed: bitfield(candidates),
                        tranche: *tranche,
                        cert: None,
                    },
                );
                let r = out
                    .assignment_result()
                    .map(assignment_result)
                    .unwrap_or_default();
                self.line(tick, format!("event {index}: assignment from validator {validator} for {}{candidates:?} in tranche {tranche}: {r}", text::bare(e.block())));
                self.absorb(tick, out.actions);
                r
            }
            EventSpec::Approval {
                validator,
                candidates,
                ..
            } => {
                let out = self.machine.import_approval(
                    tick,
                    CheckedApproval {
                        block_hash: hash,
                        validator: ValidatorIndex(*validator),
                        candidates: bitfield(candidates),
                        signature: ValidatorSignature([0; 64]),
                    },
                );
                let r = out
                    .approval_result()
                    .map(approval_result)
                    .unwrap_or_default();
                self.line(tick, format!("event {index}: approval from validator {validator} for {}{candidates:?}: {r}", text::bare(e.block())));
                self.absorb(tick, out.actions);
                r
            }
            EventSpec::Finalize { block, .. } => {
                if let Some(b) = self.s.blocks.iter().find(|b| &b.name == block) {
                    let number = b.number;
                    self.finalized = self.finalized.max(number);
                    let out = self.machine.finalize(tick, hash, number);
                    self.line(
                        tick,
                        format!(
                            "event {index}: block {} (#{number}) finalized",
                            text::bare(block)
                        ),
                    );
                    self.absorb(tick, out.actions);
                } else {
                    self.line(
                        tick,
                        format!(
                            "event {index}: finality of unknown block {} ignored",
                            text::bare(block)
                        ),
                    );
                }
                "Signalled".into()
            }
        }
    }

    /// The result of a message naming a candidate index so large that its
    /// bitfield is not worth building (what the machine would answer).
    fn absurd_index(&self, hash: Hash, e: &EventSpec) -> Option<String> {
        let (candidates, assignment) = match e {
            EventSpec::Assignment { candidates, .. } => (candidates, true),
            EventSpec::Approval { candidates, .. } => (candidates, false),
            EventSpec::Finalize { .. } => return None,
        };
        let max = *candidates.iter().max()?;
        if max < MAX_SANE_INDEX || !self.machine.has_block(&hash) {
            return None;
        }
        Some(if assignment {
            format!("Bad(InvalidBitfield({}))", max as u64 + 1)
        } else {
            let first_bad = candidates
                .iter()
                .copied()
                .filter(|i| self.machine.is_candidate_approved(&hash, *i).is_none())
                .min()
                .unwrap_or(max);
            format!("Bad(InvalidCandidateIndex({first_bad}))")
        })
    }

    fn observe(&mut self, tick: u64) {
        for (bi, b) in self.s.blocks.iter().enumerate() {
            let hash = block_hash(&b.name);
            let r = &mut self.blocks[bi];
            if self.machine.has_block(&hash) {
                r.imported_tick.get_or_insert(tick);
                if self.machine.is_block_approved(&hash) == Some(true) {
                    r.all_candidates_approved_tick.get_or_insert(tick);
                }
                for (ci, &cr) in self.cand_of_block[bi].iter().enumerate() {
                    if self.machine.is_candidate_approved(&hash, ci as u32) == Some(true) {
                        let c = &mut self.candidates[cr];
                        if c.approved_tick.is_none() {
                            c.approved_tick = Some(tick);
                            c.approved_tranche = Some(tick.saturating_sub(self.s.block_tick(b)));
                        }
                    }
                }
            } else if r.imported_tick.is_some() {
                r.pruned_tick.get_or_insert(tick);
            }
        }
        // Changes in what each unapproved candidate requires.
        for (bi, b) in self.s.blocks.iter().enumerate() {
            let hash = block_hash(&b.name);
            for ci in 0..b.candidates.len() as u32 {
                let Some(st) = self.machine.candidate_status(tick, &hash, ci) else {
                    continue;
                };
                if st.approved {
                    continue;
                }
                let sh = shape(&st.required);
                if self.shapes.get(&(bi, ci)) != Some(&sh) {
                    self.shapes.insert((bi, ci), sh.clone());
                    let text = format!(
                        "candidate {}#{ci}: {sh} ({}, {})",
                        text::bare(&b.name),
                        counted(st.assignments, "assignment"),
                        counted(st.approvals, "approval")
                    );
                    self.timeline.push(TimelineLine { tick, text });
                }
            }
        }
    }

    /// What our rule counts for one candidate at `tick`.
    fn explain(&mut self, tick: u64, block: &str, index: u32) {
        let shown = text::bare(block);
        let Some(st) = self
            .machine
            .candidate_status(tick, &block_hash(block), index)
        else {
            self.line(
                tick,
                format!("explain {shown}#{index}: the node does not know this candidate now"),
            );
            return;
        };
        let counted = match st.required {
            RequiredTranches::Exact { needed, .. } => format!("tranches 0..={needed}"),
            RequiredTranches::Pending { considered, .. } => {
                format!("tranches 0..={considered}, still pending")
            }
            RequiredTranches::All => "every tranche (all validators needed)".into(),
        };
        let no_shows: Vec<String> = st.no_shows.iter().map(|v| v.0.to_string()).collect();
        let text = format!(
            "explain {shown}#{index}: {}; counted {counted}; no-shows [{}]; {}, {}; approved: {}",
            shape(&st.required),
            no_shows.join(", "),
            text::counted(st.assignments, "assignment"),
            text::counted(st.approvals, "approval"),
            st.approved
        );
        self.line(tick, text);
    }

    fn query_ancestors(&mut self, tick: u64) {
        for (leaf, _) in self.machine.leaves() {
            let Some((best, _)) = self.machine.approved_ancestor(&leaf, self.finalized) else {
                continue;
            };
            let mut cur = self.names.get(&best).copied();
            while let Some(i) = cur {
                let b = &self.s.blocks[i];
                // Every ancestor counts, a finalized (and pruned) one too:
                // the query returned one of its descendants.
                if self.blocks[i].approved_ancestor_tick.is_none() {
                    self.blocks[i].approved_ancestor_tick = Some(tick);
                    let name = text::bare(&b.name);
                    let text = if b.number <= self.finalized {
                        format!("approved-ancestor query now returns a descendant of finalized block {name}")
                    } else {
                        format!("approved-ancestor query now reaches {name}: it and its unfinalized ancestors are approved")
                    };
                    self.timeline.push(TimelineLine { tick, text });
                }
                cur = b
                    .parent
                    .as_ref()
                    .and_then(|p| self.s.blocks.iter().position(|x| &x.name == p));
            }
        }
    }
}

/// Run a scenario (no local keys, check delay 0).
pub fn run(s: &Scenario) -> Run {
    run_probed(s, &[])
}

/// A candidate to explain at a tick: block name, candidate index, tick.
pub type Probe = (String, u32, u64);

/// Run a scenario and, at each probe's tick (after observation), add a
/// timeline line saying what our rule counted for that candidate: the
/// required tranches, the no-shows, the assignments and approvals.
pub fn run_probed(s: &Scenario, probes: &[Probe]) -> Run {
    let groups = s.validator_groups();
    let info = SessionInfo {
        session_index: s.session_index,
        n_cores: s.session.n_cores,
        needed_approvals: s.session.needed_approvals,
        relay_vrf_modulo_samples: s.session.relay_vrf_modulo_samples,
        n_delay_tranches: s.session.n_delay_tranches,
        zeroth_delay_tranche_width: s.session.zeroth_delay_tranche_width,
        no_show_slots: s.session.no_show_slots,
        validator_groups: groups
            .iter()
            .map(|g| g.iter().map(|v| ValidatorIndex(*v)).collect())
            .collect(),
        assignment_keys: (0..s.session.n_validators)
            .map(|_| ValidatorId([0; 32]))
            .collect(),
        validators: (0..s.session.n_validators)
            .map(|_| ValidatorId([0; 32]))
            .collect(),
        assignments_v2: true,
        max_approval_coalesce_count: 1,
    };
    let config = Config {
        slot_duration_millis: s.slot_duration_millis,
        check_delay_ticks: 0,
        trigger_all_tranches: false,
        ..Config::default()
    };
    let names = s
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (block_hash(&b.name), i))
        .collect();
    let mut candidates = Vec::new();
    let mut cand_of_block = Vec::new();
    for b in &s.blocks {
        let mut list = Vec::new();
        for (ci, c) in b.candidates.iter().enumerate() {
            list.push(candidates.len());
            candidates.push(CandidateResult {
                block: b.name.clone(),
                index: ci as u32,
                core: c.core,
                group: c.group,
                hash: format!(
                    "0x{}",
                    candidate_hash(&b.name, ci, c.para.unwrap_or(1000 + c.core), c.core)
                ),
                approved_tick: None,
                approved_tranche: None,
            });
        }
        cand_of_block.push(list);
    }
    let blocks = s
        .blocks
        .iter()
        .map(|b| BlockResult {
            name: b.name.clone(),
            number: b.number,
            hash: format!("0x{}", block_hash(&b.name)),
            block_tick: s.block_tick(b),
            import_tick: s.import_tick(b),
            imported_tick: None,
            all_candidates_approved_tick: None,
            approved_signal_tick: None,
            approved_ancestor_tick: None,
            pruned_tick: None,
        })
        .collect();
    let min_number = s.blocks.iter().map(|b| b.number).min().unwrap_or(1);
    let mut r = Runner {
        s,
        session: Arc::new(Session::new(info)),
        machine: ApprovalVoting::new(config, None),
        names,
        finalized: min_number.saturating_sub(1),
        blocks,
        candidates,
        cand_of_block,
        signals: Vec::new(),
        timeline: Vec::new(),
        shapes: HashMap::new(),
    };
    let mut imports: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (i, b) in s.blocks.iter().enumerate() {
        imports.entry(s.import_tick(b)).or_default().push(i);
    }
    let mut events: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (i, e) in s.events.iter().enumerate() {
        events.entry(e.tick()).or_default().push(i);
    }
    let mut results: Vec<Option<String>> = vec![None; s.events.len()];
    let (start, end) = (s.start_tick(), s.end_tick());
    for tick in start..=end {
        // 1. wakeups due at or before this tick.
        let out = r.machine.tick(tick as Tick);
        r.absorb(tick, out.actions);
        // 2. blocks, lowest number first.
        if let Some(list) = imports.get(&tick) {
            let mut list = list.clone();
            list.sort_by_key(|&i| s.blocks[i].number);
            for i in list {
                r.import(tick, i);
            }
        }
        // 3. events in file order.
        if let Some(list) = events.get(&tick) {
            for &i in list {
                results[i] = Some(r.event(tick, i, &s.events[i]));
            }
        }
        // 4. observation; 5. approved-ancestor queries.
        r.observe(tick);
        for (block, index, _) in probes.iter().filter(|p| p.2 == tick) {
            r.explain(tick, block, *index);
        }
        if s.query_approved_ancestor {
            r.query_ancestors(tick);
        }
    }
    let events = s
        .events
        .iter()
        .enumerate()
        .map(|(i, e)| EventResult {
            index: i,
            tick: e.tick(),
            kind: e.kind().into(),
            result: results[i].clone().unwrap_or_else(|| "NotDelivered".into()),
        })
        .collect();
    Run {
        result: ScenarioResult {
            name: s.name.clone(),
            oracle: "tranche-voting".into(),
            start_tick: start,
            end_tick: end,
            blocks: r.blocks,
            candidates: r.candidates,
            events,
            chain_selection_approved: r.signals,
        },
        timeline: r.timeline,
    }
}

/// The timeline as text, grouped by tick.
pub fn render_timeline(s: &Scenario, run: &Run) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "scenario {}: {}\n",
        text::bare(&s.name),
        text::one_line(&s.description)
    ));
    out.push_str(&format!(
        "session: {}, {}, needed_approvals {}, no-show after {} ({} ticks); one tick = {} ms\n",
        counted(s.session.n_validators, "validator"),
        counted(s.session.n_cores, "core"),
        s.session.needed_approvals,
        counted(s.session.no_show_slots, "slot"),
        s.session.no_show_slots as u64 * s.ticks_per_slot(),
        tranche_primitives::time::TICK_DURATION_MILLIS,
    ));
    let mut last = None;
    for l in &run.timeline {
        if last != Some(l.tick) {
            out.push_str(&format!("tick {}\n", l.tick));
            last = Some(l.tick);
        }
        out.push_str(&format!("  {}\n", l.text));
    }
    out.push_str("summary\n");
    for b in &run.result.blocks {
        let at = |t: Option<u64>, yes: &str, no: &str| {
            t.map_or_else(|| no.to_owned(), |t| format!("{yes} at tick {t}"))
        };
        out.push_str(&format!(
            "  block {}: {}; {}; {}; {}\n",
            text::bare(&b.name),
            at(
                b.all_candidates_approved_tick,
                "every candidate approved",
                "not every candidate approved"
            ),
            at(
                b.approved_signal_tick,
                "approval signalled to chain selection",
                "approval never signalled"
            ),
            at(
                b.approved_ancestor_tick,
                "the approved ancestor",
                "never the approved ancestor"
            ),
            at(b.pruned_tick, "pruned", "not pruned")
        ));
    }
    out
}
