//! The `!ApprovalSweep` file (`tranche sweep network`), read with the
//! same field reader as the other objectives: every key checked against
//! the file's list (with a "did you mean" hint), every list item read with
//! its type, errors naming the key or the item (`n_validators[1]`).

use std::path::PathBuf;

use super::fields::Fields;
use crate::error::ConfigErrorKind as Kind;
use crate::sweep_grid::SweepGrid;

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

/// A list of the grid's values: absent is none (the base's value); an
/// empty list or one holding a value twice is refused (it would fall back
/// to the base silently, or run equal cells).
fn cells<T: PartialEq + std::fmt::Display>(
    key: &str,
    list: Option<Vec<T>>,
) -> Result<Vec<T>, Kind> {
    let Some(list) = list else {
        return Ok(Vec::new());
    };
    if list.is_empty() {
        return Err(Kind::Structure(format!(
            "`{key}` is an empty list: give at least one value, or leave `{key}` out for the \
             base's"
        )));
    }
    for (i, v) in list.iter().enumerate() {
        if let Some(j) = list[..i].iter().position(|u| u == v) {
            return Err(Kind::Structure(format!(
                "`{key}` holds {v} twice ({key}[{j}] and {key}[{i}]): each value is one cell \
                 of the grid"
            )));
        }
    }
    Ok(list)
}

/// Reads the file's tag and keys; `base` as written (not yet beside the
/// file).
pub(crate) fn read_sweep(text: &str) -> Result<SweepGrid, Kind> {
    let map = super::read_tagged(text, "ApprovalSweep")?;
    let f = Fields::new(&map, "");
    f.check_keys(KEYS, PLACE, None)?;
    let counts = |key| {
        f.list(key, "a list of unsigned integers", |l, k| l.u32(k))
            .and_then(|v| cells(key, v))
    };
    let fractions = |key| {
        f.list(key, "a list of numbers", |l, k| l.f64(k))
            .and_then(|v| cells(key, v))
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
