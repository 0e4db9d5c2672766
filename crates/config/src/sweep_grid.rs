//! What a sweep combines, as data: `SweepGrid`, built by the objective's
//! reader (`parse/sweep.rs`) and completed by `approval_sweep` (its base
//! beside the file). Apart from both, so that neither imports the other.

use std::path::PathBuf;

/// An `!ApprovalSweep` file: the lists to combine over a base.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SweepGrid {
    /// The base `!ApprovalNetwork` file, beside the sweep file once read
    /// by `approval_sweep::parse`; the embedded default when `None`.
    pub base: Option<PathBuf>,
    pub n_validators: Vec<u32>,
    pub n_cores: Vec<u32>,
    pub no_show_fraction: Vec<f64>,
    pub slow_fraction: Vec<f64>,
    /// The base's `num_blocks` replaced.
    pub num_blocks: Option<u32>,
}
