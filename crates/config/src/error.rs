//! Errors of the test-sequence loader: one line each, naming the file, the
//! step and the key.

use thiserror::Error;
pub(crate) use tranche_cli::text::one_line;
use tranche_cli::text::{code, code_after, escape_controls};

/// A test-sequence file that cannot be used. Its `Display` is one line:
/// `FILE: step N: problem`, with any control character of a name or value
/// from the file (a quoted key may hold a line break) escaped as `\n`,
/// `\u{1b}`, …, and any key, tag or value from the file cut to a short
/// line (`crate::text`).
#[derive(Debug, Error)]
#[error("{}", escape_controls(&format!("{}: {}{}", .source_name, step_prefix(*.step), .kind)))]
pub struct ConfigError {
    /// The file path as given (or `default.yaml (embedded)`).
    pub source_name: String,
    /// The 1-based step of `TestConfiguration` at fault, if any.
    pub step: Option<usize>,
    /// What is wrong.
    pub kind: ConfigErrorKind,
}

fn step_prefix(step: Option<usize>) -> String {
    step.map(|s| format!("step {s}: ")).unwrap_or_default()
}

/// What is wrong with a test-sequence file. Key paths are relative to the
/// step, dotted (`objective.coalesce_mean`, `latency.min_latency.secs`).
#[derive(Debug, Error)]
pub enum ConfigErrorKind {
    /// The file is another command's objective.
    #[error("{0}")]
    OtherCommand(&'static str),
    /// The file cannot be opened or read (missing, unreadable).
    #[error("cannot read the file: {0}")]
    Read(std::io::Error),
    /// The path is a folder, a device, a FIFO or a socket: not read, not
    /// waited on.
    #[error("cannot read the file: it is {0}, not a regular file")]
    NotRegular(&'static str),
    /// The file is larger than
    /// [`MAX_INPUT_FILE_BYTES`](tranche_cli::input::MAX_INPUT_FILE_BYTES).
    #[error("cannot read the file: larger than {max} bytes, the limit for an input file")]
    TooLarge {
        /// The limit, bytes.
        max: u64,
    },
    /// The file is not UTF-8 text.
    #[error("cannot read the file: not UTF-8 text")]
    NotText,
    /// The text is beyond a bound of every YAML input (nesting, number
    /// or length of values), refused before YAML parsing
    /// ([`yaml::read`](crate::yaml::read)).
    #[error("{0}")]
    Bounds(crate::prescan::OutOfBounds),
    /// The text is not valid YAML.
    #[error("invalid YAML: {0}")]
    Yaml(String),
    /// A key that no generation of this objective's schema knows.
    #[error("unknown key {} {place}{hint}", code(key))]
    UnknownKey {
        /// Path of the key.
        key: String,
        /// Where it was found, e.g. `in a !ApprovalVoting step`.
        place: String,
        /// `: did you mean …` or where the key belongs, or empty.
        hint: String,
    },
    /// A required key (one without an upstream default) is absent.
    #[error("missing key `{key}` ({why})")]
    MissingKey {
        /// Path of the key.
        key: String,
        /// Why it is required.
        why: String,
    },
    /// A value of the wrong type.
    #[error("`{key}` must be {expected}, found {found}")]
    WrongType {
        /// Path of the key.
        key: String,
        /// The type expected.
        expected: &'static str,
        /// What was found, e.g. `string "500"`.
        found: String,
    },
    /// A value of the right type that no run can have.
    #[error("impossible {}: {reason}", code_after(&format!("{key}: "), value))]
    Impossible {
        /// Path of the key.
        key: String,
        /// The value as written.
        value: String,
        /// Why it is impossible.
        reason: String,
    },
    /// Every candidate would be approved as soon as its block is imported
    /// (`crates/voting/src/machine/blocks.rs` `approved_at_import`), so the
    /// run would measure nothing; `tranche run --allow-vacuous` runs it.
    #[error(
        "every candidate is approved at import: nothing would be measured ({reason}; \
         `tranche run --allow-vacuous` runs it anyway)"
    )]
    Vacuous {
        /// Which keys make it so.
        reason: String,
    },
    /// The step's estimated peak memory exceeds what this machine has
    /// available (`crates/config/src/estimate.rs`).
    #[error(
        "too large for this machine: {sizes} is {estimate}, and only {available_mib} MiB \
         are available (MemAvailable)"
    )]
    TooCostly {
        /// The keys that size the run, with their values.
        sizes: String,
        /// The estimate, from [`RunEstimate::describe`](crate::estimate::RunEstimate::describe).
        estimate: String,
        /// `MemAvailable`, MiB.
        available_mib: u64,
    },
    /// An objective tag that subsystem-bench never had.
    #[error(
        "unknown objective {} (approval steps use `!ApprovalVoting` or `!ApprovalsTest`)",
        code(.0)
    )]
    UnknownObjective(String),
    /// The file's shape is not a test sequence.
    #[error("{0}")]
    Structure(String),
}

impl ConfigError {
    pub(crate) fn new(source_name: &str, step: Option<usize>, kind: ConfigErrorKind) -> Self {
        ConfigError {
            source_name: source_name.to_owned(),
            step,
            kind,
        }
    }
}
