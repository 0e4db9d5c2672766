//! The session's approval parameters — upstream `SessionInfo`'s
//! `needed_approvals`, `zeroth_delay_tranche_width`,
//! `relay_vrf_modulo_samples`, `n_delay_tranches`, `no_show_slots`
//! (`polkadot/primitives/src/v8/mod.rs`) — as one type, with their
//! defaults and bounds in one place. Every reader uses it: the
//! `!ApprovalVoting` steps and the `!ApprovalNetwork` objective hold it
//! (`tranche_config`, one field reader for both), message
//! generation and the simulation build the session from it
//! (`GenerationParams::session`), and the conformance scenarios' `session`
//! is checked against its bounds (`tranche_conformance::scenario::schema`).
//! The YAML keys are the field names. Plain data in `tranche_records`,
//! re-exported as `tranche_primitives::session_params`, so the
//! configuration reads it without the protocol's crypto.

use crate::limits::{MAX_CORES, MAX_DELAY_TRANCHES, MAX_NO_SHOW_SLOTS, MAX_VALIDATORS};
use serde::{Deserialize, Serialize};

/// The session's approval parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionParams {
    /// Approvals a candidate needs (default 30).
    pub needed_approvals: u32,
    /// Delay tranches merged into tranche 0 (default 0).
    pub zeroth_delay_tranche_width: u32,
    /// RelayVRFModulo samples per validator (default 6).
    pub relay_vrf_modulo_samples: u32,
    /// Delay tranches (default 89).
    pub n_delay_tranches: u32,
    /// Slots before an assignee without approval is a no-show (default 3).
    pub no_show_slots: u32,
}

impl SessionParams {
    /// Polkadot's and Kusama's values, the defaults of both objectives.
    pub const DEFAULT: SessionParams = SessionParams {
        needed_approvals: 30,
        zeroth_delay_tranche_width: 0,
        relay_vrf_modulo_samples: 6,
        n_delay_tranches: 89,
        no_show_slots: 3,
    };

    /// Every parameter: its key and value, in key order of the docs.
    pub fn entries(&self) -> [(&'static str, u32); 5] {
        [
            ("needed_approvals", self.needed_approvals),
            (
                "zeroth_delay_tranche_width",
                self.zeroth_delay_tranche_width,
            ),
            ("relay_vrf_modulo_samples", self.relay_vrf_modulo_samples),
            ("n_delay_tranches", self.n_delay_tranches),
            ("no_show_slots", self.no_show_slots),
        ]
    }
}

impl Default for SessionParams {
    fn default() -> Self {
        SessionParams::DEFAULT
    }
}

/// Why the validator-sized and tranche-sized bounds are what they are, as
/// errors name them.
pub const VALIDATORS_BOUND: &str = "the most validators of a session, limits::MAX_VALIDATORS";
pub const TRANCHES_BOUND: &str = "the most delay tranches, limits::MAX_DELAY_TRANCHES";

/// The largest value a parameter may take, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    pub key: &'static str,
    pub max: u32,
    pub why: &'static str,
}

/// The bound of every parameter (`crates/records/src/limits.rs`).
pub const BOUNDS: [Bound; 5] = [
    Bound {
        key: "needed_approvals",
        max: MAX_VALIDATORS,
        why: VALIDATORS_BOUND,
    },
    Bound {
        key: "zeroth_delay_tranche_width",
        max: MAX_DELAY_TRANCHES,
        why: TRANCHES_BOUND,
    },
    Bound {
        key: "relay_vrf_modulo_samples",
        max: MAX_CORES,
        why: "a sample draws a core: limits::MAX_CORES",
    },
    Bound {
        key: "n_delay_tranches",
        max: MAX_DELAY_TRANCHES,
        why: TRANCHES_BOUND,
    },
    Bound {
        key: "no_show_slots",
        max: MAX_NO_SHOW_SLOTS,
        why: "the most no-show slots, limits::MAX_NO_SHOW_SLOTS",
    },
];

impl SessionParams {
    /// The first parameter above its bound: `(key, value, bound)`.
    pub fn above_bound(&self) -> Option<(&'static str, u32, &'static Bound)> {
        self.entries()
            .into_iter()
            .map(|(key, value)| (key, value, bound(key)))
            .find(|(_, value, b)| *value > b.max)
    }
}

/// The bound of `key` (one of the five).
pub fn bound(key: &str) -> &'static Bound {
    BOUNDS
        .iter()
        .find(|b| b.key == key)
        .expect("a session parameter")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_parameter_has_one_bound_and_the_defaults_are_within() {
        let d = SessionParams::default();
        for (key, value) in d.entries() {
            assert!(value <= bound(key).max, "{key}");
        }
        assert_eq!(BOUNDS.len(), d.entries().len());
        assert_eq!(d.above_bound(), None);
    }

    #[test]
    fn the_first_parameter_above_its_bound_is_named() {
        let p = SessionParams {
            n_delay_tranches: MAX_DELAY_TRANCHES + 1,
            no_show_slots: MAX_NO_SHOW_SLOTS + 1,
            ..SessionParams::DEFAULT
        };
        let (key, value, b) = p.above_bound().unwrap();
        assert_eq!(
            (key, value, b.max),
            (
                "n_delay_tranches",
                MAX_DELAY_TRANCHES + 1,
                MAX_DELAY_TRANCHES
            )
        );
    }
}
