//! Why a whole-network run's blocks were approved late or never, chosen
//! by the run's own figures ([`SimulationReport::late_causes`], every
//! condition in one place): the no-shows it had (validators that never
//! approve, and the no-shows the others saw — a cause only where some
//! validator withholds its approval, else the symptom of what delayed the
//! approvals), the validators that went offline, a modelled thread that
//! saturated (on how many validators), assignments that were enough only
//! late; only where none of those shows, with coalescing on and the
//! approvals within its wait of the assignments being enough, the
//! approvals' coalescing wait; else slow validators, where the run has
//! them. A run approved in time, or late with none of these in its
//! figures, gets no such note.

use super::{SimulationReport, COALESCING, RUN_DEFAULT_MS};
use crate::network::Behaviour;
use tranche_cli::text::counted;

/// How long voting holds an approval to coalesce it (upstream's
/// MAX_APPROVAL_COALESCE_WAIT_TICKS, 12 ticks of 500 ms).
const COALESCE_WAIT_MS: f64 = 6_000.0;

/// A cause of lateness the run's figures show, as one note line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cause {
    /// Validators that never approve, and the most no-shows one validator
    /// saw for a block.
    NoShows { validators: usize, seen: u32 },
    /// Validators that went offline during the run.
    Offline { validators: usize },
    /// Modelled threads saturated (busy at least a whole slot per block):
    /// each with the validators it saturated on, of `of`; the most
    /// no-shows one validator saw, where none withholds its approval
    /// (the saturation's symptom).
    Saturated {
        threads: Vec<(String, usize)>,
        of: u32,
        no_shows_seen: u32,
    },
    /// Slow validators (`slow_fraction`), their checks `factor` times
    /// longer; when they and the others sent their last approval of a
    /// block (median, ms).
    Slow {
        validators: usize,
        factor: f64,
        slow_sent_ms: Option<u64>,
        sent_ms: Option<u64>,
    },
    /// The validators had enough assignments only late (median, ms).
    LateAssignments { enough_ms: u64, max_tranche: u32 },
    /// None of the above: the approvals' coalescing wait.
    Coalescing,
}

impl Cause {
    fn text(&self) -> String {
        match self {
            Cause::NoShows { validators, seen } => format!(
                "later than `tranche run`'s default: no-shows. {} saw up to {} for a block; a \
                 no-show counts only after no_show_slots and is covered by assignments of later \
                 tranches, whose checks come after it.",
                if *validators > 0 {
                    format!(
                        "{} never {} (`no_show_fraction`), and a validator",
                        counted(*validators, "validator"),
                        if *validators == 1 {
                            "approves"
                        } else {
                            "approve"
                        }
                    )
                } else {
                    "A validator".to_owned()
                },
                counted(*seen, "no-show")
            ),
            Cause::Offline { validators } => format!(
                "later than `tranche run`'s default: {} went offline \
                 (`offline`): their assignments become no-shows to cover, and messages routed \
                 through them in the grid reach others later or not at all.",
                counted(*validators, "validator")
            ),
            Cause::Saturated {
                threads,
                of,
                no_shows_seen,
            } => {
                let on: Vec<String> = threads
                    .iter()
                    .map(|(name, n)| {
                        if u64::try_from(*n).is_ok_and(|n| n == u64::from(*of)) {
                            format!("{name} on every validator ({n} of {of})")
                        } else {
                            format!("{name} on {n} of {of} validators")
                        }
                    })
                    .collect();
                format!(
                    "later than `tranche run`'s default: modelled threads saturated (busy a \
                     whole slot per block or more, in the CPU model's lines above), {}: their \
                     queues grow and their approvals fall behind.{}",
                    on.join(", "),
                    if *no_shows_seen > 0 {
                        format!(
                            " The {} a validator saw for a block are no cause of their \
                             own: no validator withholds its approval (none is a no-show or \
                             offline), so each is an approval that came after its no-show \
                             deadline.",
                            counted(*no_shows_seen, "no-show")
                        )
                    } else {
                        String::new()
                    }
                )
            }
            Cause::Slow {
                validators,
                factor,
                slow_sent_ms,
                sent_ms,
            } => format!(
                "later than `tranche run`'s default: {} slow (`slow_fraction`), each check \
                 {factor} times longer (`slow_factor`); a block waits for their approvals where \
                 they are among those counted{}.",
                counted(*validators, "validator"),
                match (slow_sent_ms, sent_ms) {
                    (Some(slow), Some(honest)) => format!(
                        " (the slow validators sent their last approval of a block at {slow} ms, \
                         the others at {honest} ms; median)"
                    ),
                    _ => String::new(),
                }
            ),
            Cause::LateAssignments {
                enough_ms,
                max_tranche,
            } => format!(
                "later than `tranche run`'s default: the validators had enough assignments \
                 only at {enough_ms} ms (median; `enough ms`), with tranches up to {max_tranche} \
                 needed: the approvals wait for those tranches' checks."
            ),
            Cause::Coalescing => String::new(),
        }
    }
}

/// Why blocks were late, for the legend.
pub(crate) trait LateNotes {
    /// Whether some block was approved later than `tranche run`'s default
    /// (median over the validators) or not by every expected validator.
    fn late(&self) -> bool;
    /// The most no-shows one validator saw for a block.
    fn no_shows_seen(&self) -> u32;
    /// The modelled threads that saturated, each with on how many
    /// validators (none without the CPU model).
    fn saturated_threads(&self) -> Vec<(String, usize)>;
    /// The causes of lateness this run's figures show; empty where no
    /// block was late.
    fn late_causes(&self) -> Vec<Cause>;
    /// Whether the late blocks' approvals came within what coalescing can
    /// hold them after the assignments were enough: the wait (12 ticks,
    /// 6 s), two checks and a tick. Blocks without the `enough` moment
    /// (older files) are not held against it.
    fn coalescing_fits(&self) -> bool;
    /// The legend's lines on why blocks came late; empty where none did
    /// or the figures show no cause.
    fn late_note(&self) -> String;
}

impl LateNotes for SimulationReport {
    /// Whether some block was approved later than `tranche run`'s default
    /// (median over the validators) or not by every expected validator.
    fn late(&self) -> bool {
        self.blocks
            .iter()
            .any(|b| b.p50_ms.is_some_and(|ms| ms > RUN_DEFAULT_MS) || (b.expected > b.approved))
    }

    /// The most no-shows one validator saw for a block.
    fn no_shows_seen(&self) -> u32 {
        self.blocks
            .iter()
            .map(|b| b.no_shows_max)
            .max()
            .unwrap_or(0)
    }

    /// The modelled threads that saturated, each with on how many
    /// validators (none without the CPU model).
    fn saturated_threads(&self) -> Vec<(String, usize)> {
        self.cpu.as_ref().map_or(Vec::new(), |cpu| {
            cpu.threads
                .iter()
                .filter(|t| !t.saturated.is_empty())
                .map(|t| (t.name.clone(), t.saturated.len()))
                .collect()
        })
    }

    /// The causes of lateness this run's figures show; empty where no
    /// block was late.
    fn late_causes(&self) -> Vec<Cause> {
        if !self.late() {
            return Vec::new();
        }
        let count =
            |f: fn(&Behaviour) -> bool| self.validators.iter().filter(|r| f(&r.behaviour)).count();
        let mut causes = Vec::new();
        let no_show = count(|b| *b == Behaviour::NoShow);
        let seen = self.no_shows_seen();
        let offline = count(|b| matches!(b, Behaviour::Offline(_)));
        let saturated = self.saturated_threads();
        // No-shows are a cause where validators withhold approvals (never
        // approve, or went offline); without them, and with a saturated
        // thread, they are what the saturation did.
        let withheld = no_show > 0 || offline > 0;
        if no_show > 0 || (seen > 0 && (withheld || saturated.is_empty())) {
            causes.push(Cause::NoShows {
                validators: no_show,
                seen,
            });
        }
        if offline > 0 {
            causes.push(Cause::Offline {
                validators: offline,
            });
        }
        if !saturated.is_empty() {
            causes.push(Cause::Saturated {
                threads: saturated,
                of: self.n_validators,
                no_shows_seen: if withheld { 0 } else { seen },
            });
        }
        if !causes.is_empty() {
            return causes;
        }
        let late_enough = self
            .blocks
            .iter()
            .filter(|b| b.enough_p50_ms.is_some_and(|ms| ms > RUN_DEFAULT_MS))
            .max_by_key(|b| b.enough_p50_ms);
        let slow = count(|b| *b == Behaviour::Slow);
        if let Some(b) = late_enough {
            causes.push(Cause::LateAssignments {
                enough_ms: b.enough_p50_ms.unwrap_or(0),
                max_tranche: b.max_tranche,
            });
        } else if self.spec.max_approval_coalesce_count > 1 && self.coalescing_fits() {
            causes.push(Cause::Coalescing);
        } else if slow > 0 {
            causes.push(Cause::Slow {
                validators: slow,
                factor: self.spec.slow_factor,
                slow_sent_ms: tranche_results::sweep::sent_p50(self, Behaviour::Slow),
                sent_ms: tranche_results::sweep::sent_p50(self, Behaviour::Honest),
            });
        }
        causes
    }

    /// Whether the late blocks' approvals came within what coalescing can
    /// hold them after the assignments were enough: the wait (12 ticks,
    /// 6 s), two checks and a tick. Blocks without the `enough` moment
    /// (older files) are not held against it.
    fn coalescing_fits(&self) -> bool {
        let most = COALESCE_WAIT_MS + 2.0 * self.spec.check_delay_ms.mean + 500.0;
        self.blocks
            .iter()
            .all(|b| match (b.p50_ms, b.enough_p50_ms) {
                (Some(at), Some(enough)) if at > RUN_DEFAULT_MS => {
                    at.saturating_sub(enough) as f64 <= most
                }
                _ => true,
            })
    }

    /// The legend's lines on why blocks came late; empty where none did
    /// or the figures show no cause.
    fn late_note(&self) -> String {
        self.late_causes()
            .iter()
            .map(|c| match c {
                // Already laid out, indented as the legend's notes.
                Cause::Coalescing => COALESCING.to_owned(),
                c => format!("  {}", crate::table::wrap(&c.text())),
            })
            .collect()
    }
}
