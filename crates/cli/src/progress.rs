//! What a long command tells on stderr while it goes (`tranche run`'s
//! generation, run and floor; `tranche network`'s simulation; the sweeps):
//! in a terminal one bar per phase with done/total, elapsed and — once it
//! means something — the ETA, drawn again every second; otherwise (a log, CI) plain lines — one when
//! a phase starts and ends, and one per block, `block N approved after M
//! ms`, as upstream's benchmark logs "Chain selection approved after N ms"
//! (`polkadot/node/subsystem-bench/src/lib/approval/mod.rs`). `--quiet`
//! keeps stderr for warnings and errors.

use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// The time left of a phase, once it can be told: not before 5 % of the
/// work or 2 s have passed (indicatif's own ETA starts at "0 s" and grows
/// while it has nothing to go by).
pub fn eta(done: u64, total: u64, elapsed: Duration) -> Option<Duration> {
    if done == 0 || done >= total || done * 20 < total || elapsed < Duration::from_secs(2) {
        return None;
    }
    Some(elapsed.mul_f64((total - done) as f64 / done as f64))
}

/// The `{eta_known}` key of a bar: `, ETA 12s`, or nothing.
fn eta_key(state: &ProgressState, w: &mut dyn std::fmt::Write) {
    let total = state.len().unwrap_or(0);
    if let Some(left) = eta(state.pos(), total, state.elapsed()) {
        let _ = write!(w, ", ETA {}s", left.as_secs());
    }
}

/// How often a bar is drawn again when nothing moves (its elapsed time
/// goes on): a real-clock run can wait half a minute with no block to
/// count.
pub const TERMINAL_REFRESH: Duration = Duration::from_secs(1);

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Nothing (`--quiet`).
    Quiet,
    /// Bars (stderr is a terminal).
    Bars,
    /// Plain lines (stderr is not a terminal).
    Lines,
}

impl Progress {
    /// Bars in a terminal, lines elsewhere, nothing with `quiet`.
    pub fn detect(quiet: bool) -> Progress {
        if quiet {
            Progress::Quiet
        } else if std::io::stderr().is_terminal() {
            Progress::Bars
        } else {
            Progress::Lines
        }
    }

    /// Start a phase whose bar is drawn elsewhere (message generation draws
    /// its own, `tranche_workload::generate`): the lines only.
    pub fn phase_without_bar(self, name: &str) -> Phase {
        if self == Progress::Lines {
            crate::errln!("{name}: started");
        }
        Phase {
            mode: self,
            name: name.to_owned(),
            bar: ProgressBar::hidden(),
            start: Instant::now(),
        }
    }

    /// Start a phase of `total` `unit`s.
    pub fn phase(self, name: &str, unit: &str, total: u64) -> Phase {
        let bar = match self {
            Progress::Bars => {
                let bar = ProgressBar::new(total);
                let template = format!(
                    "{{msg}} {{bar:30}} {{pos}}/{{len}} {unit}, {{elapsed}} elapsed{{eta_known}}"
                );
                bar.set_style(
                    ProgressStyle::with_template(&template)
                        .map(|s| s.with_key("eta_known", eta_key))
                        .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
                bar.set_message(name.to_owned());
                bar.enable_steady_tick(TERMINAL_REFRESH);
                bar
            }
            Progress::Lines => {
                let unit = match total {
                    1 => unit.strip_suffix('s').unwrap_or(unit),
                    _ => unit,
                };
                crate::errln!("{name}: started ({total} {unit})");
                ProgressBar::hidden()
            }
            Progress::Quiet => ProgressBar::hidden(),
        };
        Phase {
            mode: self,
            name: name.to_owned(),
            bar,
            start: Instant::now(),
        }
    }
}

/// One phase in progress.
pub struct Phase {
    mode: Progress,
    name: String,
    bar: ProgressBar,
    start: Instant,
}

impl Phase {
    /// `done` units of the phase are done.
    pub fn set(&self, done: u64) {
        self.bar.set_position(done);
    }

    /// Block `number` was approved `ms` after its slot started.
    pub fn block_approved(&self, number: u32, ms: Option<u64>) {
        let line = match ms {
            Some(ms) => format!("block {number} approved after {ms} ms"),
            None => format!("block {number} approved"),
        };
        match self.mode {
            Progress::Lines => crate::errln!("{line}"),
            Progress::Bars => self.bar.println(line),
            Progress::Quiet => {}
        }
    }

    /// What the phase waits for now, where nothing else would be told
    /// for a while: a line, or the bar's message.
    pub fn waiting(&self, what: &str) {
        match self.mode {
            Progress::Lines => crate::errln!("{}: {what}", self.name),
            Progress::Bars => self.bar.set_message(format!("{}: {what}", self.name)),
            Progress::Quiet => {}
        }
    }

    /// The phase ended; `what` says how (e.g. `3 of 3 blocks approved`).
    pub fn finish(self, what: &str) {
        let s = self.start.elapsed().as_secs_f64();
        match self.mode {
            Progress::Lines => crate::errln!("{}: done in {s:.2} s, {what}", self.name),
            Progress::Bars => {
                self.bar.finish_and_clear();
                crate::errln!("{}: done in {s:.2} s, {what}", self.name);
            }
            Progress::Quiet => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_eta_until_it_means_something() {
        let s = Duration::from_secs;
        assert_eq!(eta(0, 100, s(0)), None, "nothing done: no \"0 s\"");
        assert_eq!(eta(1, 100, s(30)), None, "under 5 % done");
        assert_eq!(eta(50, 100, s(1)), None, "under 2 s elapsed");
        assert_eq!(eta(50, 100, s(10)), Some(s(10)));
        assert_eq!(eta(100, 100, s(10)), None, "done");
    }
}
