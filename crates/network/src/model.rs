//! What the simulation models rather than runs, all drawn from the run's
//! seed so that every worker and every process draws the same: each
//! validator's behaviour (no-show, slow, offline from a block), each link's
//! latency, each notification's loss, each check's duration. Shared
//! read-only by every worker of a process.

use crate::config::NetworkSpec;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rand_distr::{Distribution, Normal};
use serde::{Deserialize, Serialize};

/// How one validator behaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Behaviour {
    /// Checks at the configured speed and sends everything.
    #[default]
    Honest,
    /// Triggers and sends its assignments, never sends an approval.
    NoShow,
    /// Honest, but its checks take `slow_factor` times longer.
    Slow,
    /// Honest until the slot of this block (1-based), then silent: it
    /// handles nothing and sends nothing.
    Offline { at_block: u32 },
}

impl Behaviour {
    /// Whether the validator is expected to approve every block: honest and
    /// slow ones are; no-shows and offline ones are not counted.
    pub fn counts(self) -> bool {
        matches!(self, Behaviour::Honest | Behaviour::Slow)
    }

    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Behaviour::Honest => "honest",
            Behaviour::NoShow => "no-show",
            Behaviour::Slow => "slow",
            Behaviour::Offline { .. } => "offline",
        }
    }
}

/// One stream of random numbers per purpose and subject.
fn rng(seed: u64, purpose: &[u8], subject: u64) -> ChaCha20Rng {
    let mut data = Vec::with_capacity(purpose.len() + 16);
    data.extend_from_slice(purpose);
    data.extend_from_slice(&seed.to_le_bytes());
    data.extend_from_slice(&subject.to_le_bytes());
    ChaCha20Rng::from_seed(tranche_primitives::Hash::blake2_256(&data).0)
}

/// The model of one run: behaviours, latencies, the check-delay law.
#[derive(Debug)]
pub struct Model {
    pub n: u32,
    pub seed: u64,
    pub behaviours: Vec<Behaviour>,
    /// One-way latency of the link between two validators, milliseconds
    /// (at least 1), symmetric, row-major `n × n`.
    latency_ms: Vec<u32>,
    /// Per-validator bandwidth, bytes per second.
    pub bandwidth: u64,
    loss_probability: f64,
    check_mean_ms: f64,
    check_std_dev_ms: f64,
    slow_factor: f64,
}

/// How many of `n` a fraction is: rounded to the nearest whole validator.
fn share(n: u32, fraction: f64) -> usize {
    (f64::from(n) * fraction).round() as usize
}

impl Model {
    pub fn new(spec: &NetworkSpec, seed: u64) -> Model {
        let n = spec.n_validators;
        // Disjoint groups from one seeded permutation: no-shows first,
        // then slow validators, then each offline group.
        let mut order: Vec<u32> = (0..n).collect();
        order.shuffle(&mut rng(seed, b"behaviour", 0));
        let mut behaviours = vec![Behaviour::Honest; n as usize];
        let mut next = order.into_iter();
        let mut assign = |count: usize, b: Behaviour| {
            for v in next.by_ref().take(count) {
                behaviours[v as usize] = b;
            }
        };
        assign(share(n, spec.no_show_fraction), Behaviour::NoShow);
        assign(share(n, spec.slow_fraction), Behaviour::Slow);
        for o in &spec.offline {
            assign(
                share(n, o.fraction),
                Behaviour::Offline {
                    at_block: o.at_block,
                },
            );
        }
        let mut latency_ms = vec![1u32; (n as usize) * (n as usize)];
        if let Some(l) = spec.latency {
            let normal = Normal::new(l.mean_latency_ms, l.std_dev).expect("validated");
            for a in 0..n {
                // Row `a` draws the links to every higher validator.
                let mut r = rng(seed, b"latency", u64::from(a));
                for b in (a + 1)..n {
                    let ms = (normal.sample(&mut r).max(0.0) as u32).max(1);
                    latency_ms[(a * n + b) as usize] = ms;
                    latency_ms[(b * n + a) as usize] = ms;
                }
            }
        }
        Model {
            n,
            seed,
            behaviours,
            latency_ms,
            bandwidth: spec.peer_bandwidth,
            loss_probability: spec.loss_probability,
            check_mean_ms: spec.check_delay_ms.mean,
            check_std_dev_ms: spec.check_delay_ms.std_dev,
            slow_factor: spec.slow_factor,
        }
    }

    /// The one-way latency from `a` to `b`, milliseconds (at least 1).
    pub fn latency_ms(&self, a: u32, b: u32) -> u64 {
        u64::from(self.latency_ms[(a * self.n + b) as usize])
    }

    /// Whether the `seq`-th notification of `from` to `to` is lost: a
    /// hash of the three, so any worker decides the same.
    pub fn lost(&self, from: u32, to: u32, seq: u64) -> bool {
        if self.loss_probability <= 0.0 {
            return false;
        }
        let mut x = self.seed ^ (u64::from(from) << 40) ^ (u64::from(to) << 20) ^ seq;
        // splitmix64
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^= x >> 31;
        (x as f64 / u64::MAX as f64) < self.loss_probability
    }

    /// The random stream of one validator's check durations.
    pub fn check_rng(&self, v: u32) -> ChaCha20Rng {
        rng(self.seed, b"check-delay", u64::from(v))
    }

    /// One check's duration for validator `v`, milliseconds.
    pub fn draw_check_ms(&self, v: u32, r: &mut ChaCha20Rng) -> u64 {
        let base = if self.check_std_dev_ms > 0.0 {
            let z: f64 = r.sample(rand_distr::StandardNormal);
            (self.check_mean_ms + z * self.check_std_dev_ms).max(0.0)
        } else {
            self.check_mean_ms
        };
        let factor = match self.behaviours[v as usize] {
            Behaviour::Slow => self.slow_factor,
            _ => 1.0,
        };
        (base * factor).round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Offline;

    #[test]
    fn groups_are_disjoint_and_sized() {
        let spec = NetworkSpec {
            n_validators: 100,
            no_show_fraction: 0.2,
            slow_fraction: 0.1,
            offline: vec![Offline {
                fraction: 0.05,
                at_block: 2,
            }],
            ..NetworkSpec::default()
        };
        let m = Model::new(&spec, 7);
        let count = |f: fn(&Behaviour) -> bool| m.behaviours.iter().filter(|b| f(b)).count();
        assert_eq!(count(|b| *b == Behaviour::NoShow), 20);
        assert_eq!(count(|b| *b == Behaviour::Slow), 10);
        assert_eq!(count(|b| matches!(b, Behaviour::Offline { .. })), 5);
        assert_eq!(Model::new(&spec, 7).behaviours, m.behaviours);
    }

    #[test]
    fn latency_is_symmetric_and_at_least_one() {
        let m = Model::new(&NetworkSpec::default(), 1);
        for a in 0..10 {
            for b in 0..10 {
                assert_eq!(m.latency_ms(a, b), m.latency_ms(b, a));
                assert!(m.latency_ms(a, b) >= 1);
            }
        }
        assert!((25..=35).contains(&m.latency_ms(3, 4)));
    }
}
