//! The session's approval parameters, their defaults and bounds: one type
//! for every reader, in `tranche_primitives::session_params`.

pub use tranche_primitives::session_params::*;
