//! The session's approval parameters, their defaults and bounds: one type
//! for every reader, in `tranche_records::session_params`.

pub use tranche_records::session_params::*;
