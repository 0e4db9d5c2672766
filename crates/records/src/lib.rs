//! Plain records at the bottom of the house: data that several crates
//! share and that needs nothing but serde, so that sharing it links no
//! heavy crate. `record` (what one simulated validator records of a run,
//! gathered by the engine, read by the report), `cost` (what a network
//! run cost, process by process), `layout` (how a validator's two state
//! machines are laid out on threads: the node, the CPU model and the
//! configuration read it), `run` (what a network run hands back: the
//! records, the cost, the CPU model's thread names), `network_spec` and
//! `node_shape` (what a network simulation runs, which its report
//! carries); and the vocabulary
//! the configuration shares with the protocol, so that reading a file
//! needs no crypto: `limits` (the bounds on the protocol's sizes),
//! `session_params` (the session's approval parameters), `time` (ticks,
//! slots and the default slot's length).

pub mod cost;
pub mod layout;
pub mod limits;
pub mod network_spec;
pub mod node_shape;
pub mod record;
pub mod run;
pub mod session_params;
pub mod time;
