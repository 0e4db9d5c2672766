//! The scenario file (format: `testdata/scenarios/README.md`): its JSON schema,
//! defaults, and the checks that turn a malformed file into a clear error
//! naming the problem (unknown field, wrong type, missing parent, duplicate
//! block name). Invalid *events* are not file errors: they are messages.

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;
use tranche_primitives::limits;
use tranche_primitives::session_params::SessionParams;
use tranche_primitives::time::{self, DEFAULT_SLOT_DURATION_MILLIS, TICK_DURATION_MILLIS};

/// Longest run, in ticks, a scenario may ask for (about 58 days).
pub const MAX_SPAN_TICKS: u64 = 10_000_000;
/// Most events of a scenario.
pub const MAX_EVENTS: u64 = 2_000_000;
/// Most ticks × candidates a scenario may ask for: the runner observes
/// every candidate every tick, so this bounds its time (a few seconds).
pub const MAX_TICK_CANDIDATES: u64 = 5_000_000;

fn default_slot_duration() -> u64 {
    DEFAULT_SLOT_DURATION_MILLIS
}
fn default_session_index() -> u32 {
    1
}
fn default_true() -> bool {
    true
}

/// Session parameters of a scenario.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionSpec {
    pub n_validators: u32,
    pub n_cores: u32,
    pub needed_approvals: u32,
    pub no_show_slots: u32,
    #[serde(default)]
    pub n_delay_tranches: u32,
    #[serde(default)]
    pub zeroth_delay_tranche_width: u32,
    #[serde(default)]
    pub relay_vrf_modulo_samples: u32,
    /// Default: `n_cores` contiguous near-equal groups.
    #[serde(default)]
    pub validator_groups: Option<Vec<Vec<u32>>>,
}

impl SessionSpec {
    /// The five approval parameters as the one type every reader uses
    /// (`tranche_primitives::session_params`); absent keys are the
    /// scenario format's zeros, not that type's defaults.
    pub fn params(&self) -> SessionParams {
        SessionParams {
            needed_approvals: self.needed_approvals,
            zeroth_delay_tranche_width: self.zeroth_delay_tranche_width,
            relay_vrf_modulo_samples: self.relay_vrf_modulo_samples,
            n_delay_tranches: self.n_delay_tranches,
            no_show_slots: self.no_show_slots,
        }
    }
}

/// A candidate included by a block.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CandidateSpec {
    pub core: u32,
    pub group: u32,
    #[serde(default)]
    pub para: Option<u32>,
}

/// A relay block.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockSpec {
    pub name: String,
    pub number: u32,
    pub slot: u64,
    #[serde(default)]
    pub parent: Option<String>,
    #[serde(default)]
    pub import_tick: Option<u64>,
    #[serde(default)]
    pub candidates: Vec<CandidateSpec>,
}

/// A timed message or signal.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum EventSpec {
    Assignment {
        tick: u64,
        validator: u32,
        block: String,
        candidates: Vec<u32>,
        tranche: u32,
    },
    Approval {
        tick: u64,
        validator: u32,
        block: String,
        candidates: Vec<u32>,
    },
    Finalize {
        tick: u64,
        block: String,
    },
}

impl EventSpec {
    pub fn tick(&self) -> u64 {
        match self {
            EventSpec::Assignment { tick, .. }
            | EventSpec::Approval { tick, .. }
            | EventSpec::Finalize { tick, .. } => *tick,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            EventSpec::Assignment { .. } => "assignment",
            EventSpec::Approval { .. } => "approval",
            EventSpec::Finalize { .. } => "finalize",
        }
    }

    pub fn block(&self) -> &str {
        match self {
            EventSpec::Assignment { block, .. }
            | EventSpec::Approval { block, .. }
            | EventSpec::Finalize { block, .. } => block,
        }
    }
}

/// A scenario file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub session: SessionSpec,
    #[serde(default = "default_slot_duration")]
    pub slot_duration_millis: u64,
    #[serde(default = "default_session_index")]
    pub session_index: u32,
    pub blocks: Vec<BlockSpec>,
    #[serde(default)]
    pub events: Vec<EventSpec>,
    #[serde(default)]
    pub end_tick: Option<u64>,
    #[serde(default = "default_true")]
    pub query_approved_ancestor: bool,
}

impl Scenario {
    /// Parse and validate a scenario from JSON text.
    pub fn parse(text: &str) -> Result<Scenario> {
        let s: Scenario = serde_json::from_str(text).context("invalid scenario")?;
        s.validate()?;
        Ok(s)
    }

    /// Read, parse and validate a scenario file (a regular file of at most
    /// `MAX_INPUT_FILE_BYTES`).
    pub fn load(path: &Path) -> Result<Scenario> {
        let text = tranche_cli::input::read_text(path, tranche_cli::input::MAX_INPUT_FILE_BYTES)?;
        // A YAML input of another command: say which, not how JSON reads it.
        let other = match tranche_config::file_kind(&text) {
            tranche_config::FileKind::TestSequence => Some(("a test sequence", "run")),
            tranche_config::FileKind::ApprovalNetwork => {
                Some(("an !ApprovalNetwork file", "network"))
            }
            tranche_config::FileKind::ApprovalSweep => {
                Some(("an !ApprovalSweep file", "sweep network"))
            }
            tranche_config::FileKind::Unknown => None,
        };
        if let Some((what, command)) = other {
            bail!(
                "{}: this is {what}, not a scenario (testdata/scenarios/README.md); run it \
                 with `tranche {command} {}`",
                tranche_cli::text::path(path),
                tranche_cli::text::path(path)
            );
        }
        Self::parse(&text).with_context(|| format!("scenario {}", tranche_cli::text::path(path)))
    }

    /// Sizes within the tool's bounds, so that a run ends in seconds.
    fn validate_sizes(&self) -> Result<()> {
        let s = &self.session;
        if let Some((key, value, b)) = s.params().above_bound() {
            bail!(
                "session.{key} is {value}, above the bound of {} ({})",
                b.max,
                b.why
            );
        }
        let checks: [(&str, u64, u64); 4] = [
            (
                "session.n_validators",
                s.n_validators.into(),
                limits::MAX_VALIDATORS.into(),
            ),
            (
                "session.n_cores",
                s.n_cores.into(),
                limits::MAX_CORES.into(),
            ),
            (
                "blocks",
                self.blocks.len() as u64,
                limits::MAX_BLOCKS.into(),
            ),
            ("events", self.events.len() as u64, MAX_EVENTS),
        ];
        for (key, value, max) in checks {
            if value > max {
                bail!("{key} is {value}, above the bound of {max}");
            }
        }
        for b in &self.blocks {
            if b.candidates.len() as u64 > limits::MAX_CORES.into() {
                bail!(
                    "block {:?} has {} candidates, above the bound of {}",
                    b.name,
                    b.candidates.len(),
                    limits::MAX_CORES
                );
            }
        }
        if let Some(groups) = &s.validator_groups {
            if groups.len() as u64 > limits::MAX_CORES.into() {
                bail!(
                    "session.validator_groups has {} groups, above the bound of {}",
                    groups.len(),
                    limits::MAX_CORES
                );
            }
        }
        Ok(())
    }

    fn validate(&self) -> Result<()> {
        self.validate_sizes()?;
        if self.slot_duration_millis == 0
            || !self
                .slot_duration_millis
                .is_multiple_of(TICK_DURATION_MILLIS)
        {
            bail!(
                "slot_duration_millis {} is not a positive multiple of {TICK_DURATION_MILLIS}",
                self.slot_duration_millis
            );
        }
        if self.session.n_validators == 0 {
            bail!("session.n_validators must be at least 1");
        }
        if let Some(groups) = &self.session.validator_groups {
            for (g, members) in groups.iter().enumerate() {
                for v in members {
                    if *v >= self.session.n_validators {
                        bail!(
                            "session.validator_groups[{g}] names validator {v}, but there are only {} validators",
                            self.session.n_validators
                        );
                    }
                }
            }
        }
        if self.blocks.is_empty() {
            bail!("a scenario needs at least one block");
        }
        let mut by_name: HashMap<&str, &BlockSpec> = HashMap::new();
        for b in &self.blocks {
            if by_name.insert(b.name.as_str(), b).is_some() {
                bail!("duplicate block name {:?}", b.name);
            }
        }
        for b in &self.blocks {
            if let Some(p) = &b.parent {
                let Some(parent) = by_name.get(p.as_str()) else {
                    bail!("block {:?}: parent {:?} is not among the blocks", b.name, p);
                };
                if b.number != parent.number + 1 {
                    bail!(
                        "block {:?}: number {} is not its parent {:?}'s number {} + 1",
                        b.name,
                        b.number,
                        p,
                        parent.number
                    );
                }
            }
            if b.number == 0 {
                bail!(
                    "block {:?}: number 0 is the genesis, which is always finalized",
                    b.name
                );
            }
        }
        let (start, end) = (self.start_tick(), self.end_tick());
        if end < start {
            bail!("end_tick {end} is before the first tick {start}");
        }
        if end - start > MAX_SPAN_TICKS {
            bail!("the run spans {} ticks (from {start} to {end}); at most {MAX_SPAN_TICKS} are allowed", end - start);
        }
        let candidates: u64 = self.blocks.iter().map(|b| b.candidates.len() as u64).sum();
        let work = (end - start + 1).saturating_mul(candidates.max(1));
        if work > MAX_TICK_CANDIDATES {
            bail!(
                "the run spans {} ticks over {candidates} candidates ({work} tick-candidates); at most {MAX_TICK_CANDIDATES} are allowed",
                end - start + 1
            );
        }
        Ok(())
    }

    pub fn ticks_per_slot(&self) -> u64 {
        time::ticks_per_slot(self.slot_duration_millis)
    }

    pub fn block_tick(&self, b: &BlockSpec) -> u64 {
        b.slot.saturating_mul(self.ticks_per_slot())
    }

    pub fn import_tick(&self, b: &BlockSpec) -> u64 {
        b.import_tick.unwrap_or_else(|| self.block_tick(b))
    }

    /// Validator groups, explicit or the default contiguous split.
    pub fn validator_groups(&self) -> Vec<Vec<u32>> {
        if let Some(g) = &self.session.validator_groups {
            return g.clone();
        }
        let n = self.session.n_validators;
        let k = self.session.n_cores.max(1);
        let (base, extra) = (n / k, n % k);
        let mut out = Vec::new();
        let mut next = 0;
        for g in 0..k {
            let size = base + u32::from(g < extra);
            out.push((next..next + size).collect());
            next += size;
        }
        out
    }

    /// First tick of the run: the earliest import or event tick.
    pub fn start_tick(&self) -> u64 {
        let imports = self.blocks.iter().map(|b| self.import_tick(b));
        let events = self.events.iter().map(|e| e.tick());
        imports.chain(events).min().unwrap_or(0)
    }

    /// Last tick of the run.
    pub fn end_tick(&self) -> u64 {
        if let Some(t) = self.end_tick {
            return t;
        }
        let imports = self.blocks.iter().map(|b| self.import_tick(b));
        let events = self.events.iter().map(|e| e.tick());
        let last = imports.chain(events).max().unwrap_or(0);
        last.saturating_add(
            (2 * self.session.no_show_slots as u64).saturating_mul(self.ticks_per_slot()),
        )
        .saturating_add(40)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"{"name":"x","session":{"n_validators":10,"n_cores":2,"needed_approvals":3,"no_show_slots":2},
        "blocks":[{"name":"A","number":1,"slot":10,"candidates":[{"core":0,"group":0}]}],
        "events":[{"tick":120,"kind":"assignment","validator":5,"block":"A","candidates":[0],"tranche":0}]}"#;

    fn err(text: &str) -> String {
        format!("{:#}", Scenario::parse(text).unwrap_err())
    }

    #[test]
    fn defaults_and_groups() {
        let s = Scenario::parse(OK).unwrap();
        assert_eq!(s.slot_duration_millis, DEFAULT_SLOT_DURATION_MILLIS);
        assert_eq!(s.session_index, 1);
        assert_eq!(
            s.validator_groups(),
            vec![vec![0, 1, 2, 3, 4], vec![5, 6, 7, 8, 9]]
        );
        assert_eq!(s.start_tick(), 120);
        assert_eq!(s.end_tick(), 120 + 48 + 40);
    }

    #[test]
    fn file_errors_name_the_problem() {
        assert!(err(&OK.replace("\"slot\":10", "\"slot\":10,\"colour\":1"))
            .contains("unknown field `colour`"));
        assert!(err(&OK.replace("\"slot\":10", "\"slot\":\"ten\"")).contains("invalid type"));
        assert!(
            err(&OK.replace("\"slot\":10", "\"slot\":10,\"parent\":\"Z\""))
                .contains("parent \"Z\"")
        );
        let dup = OK.replace(
            "\"blocks\":[",
            "\"blocks\":[{\"name\":\"A\",\"number\":1,\"slot\":11},",
        );
        assert!(err(&dup).contains("duplicate block name \"A\""));
        assert!(
            err(&OK.replace("\"kind\":\"assignment\"", "\"kind\":\"vote\""))
                .contains("unknown variant")
        );
        assert!(
            err(&OK.replace("\"tranche\":0", "\"tranche\":0,\"extra\":true"))
                .contains("unknown field `extra`")
        );
    }
}
