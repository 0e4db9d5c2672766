//! Plain records at the bottom of the house: data that several crates
//! share and that needs nothing but serde, so that sharing it links no
//! heavy crate. `record` (what one simulated validator records of a run,
//! gathered by the engine, read by the report), `cost` (what a network
//! run cost, process by process), `layout` (how a validator's two state
//! machines are laid out on threads: the node, the CPU model and the
//! configuration read it), `run` (what a network run hands back: the
//! records, the cost, the CPU model's thread names).

pub mod cost;
pub mod layout;
pub mod record;
pub mod run;
