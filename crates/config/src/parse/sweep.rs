//! The `!ApprovalSweep` file (`tranche sweep network`), read with the
//! same field reader as the other objectives: every key checked against
//! the file's list (with a "did you mean" hint), every list item read with
//! its type, errors naming the key or the item (`n_validators[1]`).

use std::path::PathBuf;

use super::fields::Fields;
use crate::approval_sweep::SweepGrid;
use crate::error::ConfigErrorKind as Kind;

/// Every key of the file.
const KEYS: &[&str] = &[
    "base",
    "n_validators",
    "n_cores",
    "no_show_fraction",
    "slow_fraction",
    "num_blocks",
];

const PLACE: &str = "in an !ApprovalSweep file";

/// Reads the file's tag and keys; `base` as written (not yet beside the
/// file).
pub(crate) fn read_sweep(text: &str) -> Result<SweepGrid, Kind> {
    let map = super::read_tagged(text, "ApprovalSweep")?;
    let f = Fields::new(&map, "");
    f.check_keys(KEYS, PLACE, None)?;
    let counts = |key| {
        f.list(key, "a list of unsigned integers", |l, k| l.u32(k))
            .map(Option::unwrap_or_default)
    };
    let fractions = |key| {
        f.list(key, "a list of numbers", |l, k| l.f64(k))
            .map(Option::unwrap_or_default)
    };
    let base = match f.string("base")? {
        Some(b) if b.is_empty() => {
            return Err(Kind::Structure(
                "`base` is empty: name an !ApprovalNetwork file, or leave `base` out for the \
                 embedded default"
                    .into(),
            ))
        }
        b => b.map(PathBuf::from),
    };
    Ok(SweepGrid {
        base,
        n_validators: counts("n_validators")?,
        n_cores: counts("n_cores")?,
        no_show_fraction: fractions("no_show_fraction")?,
        slow_fraction: fractions("slow_fraction")?,
        num_blocks: f.u32("num_blocks")?,
    })
}
