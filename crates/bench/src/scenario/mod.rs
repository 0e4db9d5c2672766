//! `tranche scenario`: approval decisions of the voting state machine on
//! timed scenarios, compared with Polkadot's own answers. `schema` reads and
//! validates scenario files; `run` drives the state machine in virtual time
//! and produces the result and a timeline.

pub mod run;
pub mod schema;

pub use run::{render_timeline, run, Run, ScenarioResult};
pub use schema::Scenario;
