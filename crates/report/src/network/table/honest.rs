//! Notes for figures that puzzle in a run where nobody misbehaves (at
//! small sizes above all: 40 validators x 8 cores), each chosen by the
//! run's own figures: later tranches triggered because tranche 0 held
//! fewer assignments than the candidates need (`max tr` well past 0), and
//! no-shows seen where no validator withholds its approval (none is a
//! no-show or offline, and no modelled thread saturated, which has its own
//! note). A run without those figures gets neither note.

use crate::network::table::late::LateNotes;
#[cfg(test)]
mod tests;

use super::SimulationReport;
use crate::network::Behaviour;
use tranche_cli::text::counted;

/// A note the run's figures call for, with the figures it names.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Honest {
    /// Tranche 0 held `first` candidate claims, fewer than `needed` for
    /// each of `cores` candidates: later tranches up to `max_tranche`.
    Tranches {
        block: u32,
        first: u32,
        needed: u32,
        cores: u32,
        max_tranche: u32,
    },
    /// No-shows seen (`seen` the most for a block) with nobody withholding.
    NoShows { seen: u32 },
}

impl Honest {
    fn text(&self, r: &SimulationReport) -> String {
        let size = format!(
            "At {} x {}",
            counted(r.n_validators, "validator"),
            counted(r.n_cores, "core")
        );
        match self {
            Honest::Tranches {
                block,
                first,
                needed,
                cores,
                max_tranche,
            } => format!(
                "max tr: {size}, {}tranche 0 held {first} candidate claims, fewer than \
                 needed_approvals ({needed}) for each of the {cores} candidates ({}), so later \
                 tranches were triggered, up to tranche {max_tranche}.",
                if r.blocks.len() > 1 {
                    format!("block {block}'s ")
                } else {
                    String::new()
                },
                u64::from(*needed) * u64::from(*cores)
            ),
            Honest::NoShows { seen } => format!(
                "no-shows: {size}, nobody withholds an approval (no no-show or offline \
                 validator, no saturated thread), yet a validator saw up to {} for a block: a \
                 validator counts an assignee as a no-show when, evaluating a candidate, it \
                 finds that assignee's approval missing past its deadline (no_show_slots after \
                 the assignment's tick, sooner where later tranches already cover no-shows), \
                 also in evaluations after the candidate was approved; an approval that came \
                 late counts so.",
                counted(*seen, "no-show")
            ),
        }
    }
}

/// The notes of an honest run's puzzling figures.
pub(crate) trait HonestNotes {
    /// The notes of an honest run's puzzling figures (see the module).
    fn honest_notes(&self) -> Vec<Honest>;
    /// The legend's lines for [`SimulationReport::honest_notes`].
    fn honest_note(&self) -> String;
}

impl HonestNotes for SimulationReport {
    /// The notes of an honest run's puzzling figures (see the module).
    fn honest_notes(&self) -> Vec<Honest> {
        let mut notes = Vec::new();
        let needed = self.spec.session.needed_approvals;
        for b in &self.blocks {
            let first = b.by_tranche.first().copied().unwrap_or(0);
            let wanted = u64::from(needed) * u64::from(self.n_cores);
            if b.max_tranche > 0 && u64::from(first) < wanted && !b.by_tranche.is_empty() {
                notes.push(Honest::Tranches {
                    block: b.number,
                    first,
                    needed,
                    cores: self.n_cores,
                    max_tranche: b.max_tranche,
                });
                break;
            }
        }
        let withholds = self
            .validators
            .iter()
            .any(|v| matches!(v.behaviour, Behaviour::NoShow | Behaviour::Offline(_)));
        let seen = self.no_shows_seen();
        if seen > 0 && !withholds && self.saturated_threads().is_empty() {
            notes.push(Honest::NoShows { seen });
        }
        notes
    }

    /// The legend's lines for [`SimulationReport::honest_notes`].
    fn honest_note(&self) -> String {
        self.honest_notes()
            .iter()
            .map(|n| format!("  {}", crate::table::wrap(&n.text(self))))
            .collect()
    }
}
