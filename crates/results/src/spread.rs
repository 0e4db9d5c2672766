//! A figure over repeated runs: its median and range ([`Spread`]) and a
//! run's CPU over its repeats ([`Repeats`], `tranche run --repeat N`).
//! How repeats are folded into one run and shown is
//! `tranche_report::repeat`'s.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The median and range of one figure over the repeats.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    /// Of a non-empty list (the median of an even count: the mean of the
    /// two middle values).
    pub fn of(values: &[f64]) -> Spread {
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n == 0 {
            0.0
        } else if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Spread {
            median,
            min: v.first().copied().unwrap_or(0.0),
            max: v.last().copied().unwrap_or(0.0),
        }
    }

    /// All zero: a figure not produced (a floor with `--floor off`), left
    /// out of the JSON.
    pub fn is_zero(&self) -> bool {
        *self == Spread::default()
    }

    /// Every bound divided by `d` (run totals to per-block figures).
    pub fn per(self, d: f64) -> Spread {
        Spread {
            median: self.median / d,
            min: self.min / d,
            max: self.max / d,
        }
    }
}

/// How a run's CPU varied over its repeats (CPU seconds of the run; the
/// floor's and the ratios' spreads are 0 in files written before them).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Repeats {
    /// Measured runs.
    pub runs: usize,
    /// Unmeasured runs before them.
    pub warmup: usize,
    pub node_cpu_s: Spread,
    /// By thread row (`RunReport::cpu[].name`): its `total_s`.
    pub cpu_s: BTreeMap<String, Spread>,
    pub wall_time_s: Spread,
    /// `crypto_floor.cpu_s` (one by one) and `.batched_cpu_s` (absent
    /// without a floor, `--floor off`, as in `crypto_floor`).
    #[serde(skip_serializing_if = "Spread::is_zero")]
    pub floor_cpu_s: Spread,
    #[serde(skip_serializing_if = "Spread::is_zero")]
    pub batched_floor_cpu_s: Spread,
    /// `crypto_floor.node_ratio` and `.node_ratio_batched`: each run's
    /// node CPU ÷ that run's floor.
    #[serde(skip_serializing_if = "Spread::is_zero")]
    pub node_ratio: Spread,
    #[serde(skip_serializing_if = "Spread::is_zero")]
    pub node_ratio_batched: Spread,
}
