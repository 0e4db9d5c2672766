//! `tranche scenario`: approval decisions of the voting state machine on
//! timed scenarios, compared with Polkadot's own answers. `schema` reads and
//! validates scenario files; `run` drives the state machine in virtual time
//! and produces the result and a timeline; `verdict` compares a result
//! with Polkadot's recorded answer; `command` is `tranche scenario`.

pub mod command;
pub mod run;
pub mod schema;
pub mod verdict;

pub use run::{render_timeline, run, run_probed, Probe, Run, ScenarioResult};
pub use schema::Scenario;
