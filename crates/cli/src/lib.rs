//! What every command of the `tranche` binary shares, below the
//! configuration and the report: terminal text that shows user input on
//! one short line (`text`), the one way user files are read (`input`),
//! writes to stdout and stderr that never panic (`stream`, `errln!`),
//! progress on stderr (`progress`), and output files checked before any
//! work and written atomically (`outputs`). It knows no protocol, result
//! or configuration: the kinds of result an output may replace come from
//! the report (`tranche_report::results::writes`).

pub mod input;
pub mod outputs;
pub mod progress;
pub mod stream;
pub mod text;
