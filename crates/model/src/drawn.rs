//! What the simulation models rather than runs, all drawn from the run's
//! seed so that every worker and every process draws the same: each
//! validator's behaviour (no-show, slow, offline from a block) and each
//! check's duration; the links (latency, loss, bandwidth) are the link
//! model's full-mesh shape, `tranche_links::mesh`. Shared read-only by
//! every worker of a process.

use crate::record::Behaviour;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha20Rng;
use tranche_config::approval_network::NetworkSpec;
use tranche_links::mesh::{stream as rng, Mesh};
use tranche_links::LatencyModel;

/// The model of one run: behaviours, latencies, the check-delay law.
#[derive(Debug)]
pub struct Model {
    pub n: u32,
    pub seed: u64,
    pub behaviours: Vec<Behaviour>,
    /// Every pair of validators linked: latency and loss.
    pub links: Mesh,
    /// Per-validator bandwidth, bytes per second.
    pub bandwidth: u64,
    /// The reconnect delay law after a failed notification: (mean, sd) ms.
    pub reconnect_ms: (f64, f64),
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
            assign(share(n, o.fraction), Behaviour::Offline(o.span));
        }
        let latency = match spec.latency {
            Some(l) => LatencyModel::Normal {
                mean_ms: l.mean_latency_ms,
                std_dev_ms: l.std_dev,
            },
            None => LatencyModel::None,
        };
        let links = Mesh::new(n, seed, latency, spec.loss_probability).expect("validated");
        Model {
            n,
            seed,
            behaviours,
            links,
            bandwidth: spec.peer_bandwidth,
            reconnect_ms: (
                spec.reconnect_delay_ms.mean,
                spec.reconnect_delay_ms.std_dev,
            ),
            check_mean_ms: spec.check_delay_ms.mean,
            check_std_dev_ms: spec.check_delay_ms.std_dev,
            slow_factor: spec.slow_factor,
        }
    }

    /// Validator `v`'s candidate checks: their law and its random stream.
    pub fn checks(&self, v: u32) -> CheckDelays {
        CheckDelays {
            rng: rng(self.seed, b"check-delay", u64::from(v)),
            mean_ms: self.check_mean_ms,
            std_dev_ms: self.check_std_dev_ms,
            factor: match self.behaviours[v as usize] {
                Behaviour::Slow => self.slow_factor,
                _ => 1.0,
            },
        }
    }
}

/// How long one validator's candidate checks (availability recovery and
/// validation) take: each drawn from the run's law (normal, truncated at
/// zero), times the validator's slow factor.
#[derive(Debug, Clone)]
pub struct CheckDelays {
    rng: ChaCha20Rng,
    mean_ms: f64,
    std_dev_ms: f64,
    factor: f64,
}

impl CheckDelays {
    /// The next check's duration, milliseconds.
    pub fn draw_ms(&mut self) -> u64 {
        let base = if self.std_dev_ms > 0.0 {
            let z: f64 = self.rng.sample(rand_distr::StandardNormal);
            (self.mean_ms + z * self.std_dev_ms).max(0.0)
        } else {
            self.mean_ms
        };
        (base * self.factor).round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tranche_config::approval_network::{Offline, OfflineSpan};

    #[test]
    fn groups_are_disjoint_and_sized() {
        let spec = NetworkSpec {
            n_validators: 100,
            no_show_fraction: 0.2,
            slow_fraction: 0.1,
            offline: vec![Offline {
                fraction: 0.05,
                span: OfflineSpan {
                    at_block: 2,
                    until_block: None,
                },
            }],
            ..NetworkSpec::default()
        };
        let m = Model::new(&spec, 7);
        let count = |f: fn(&Behaviour) -> bool| m.behaviours.iter().filter(|b| f(b)).count();
        assert_eq!(count(|b| *b == Behaviour::NoShow), 20);
        assert_eq!(count(|b| *b == Behaviour::Slow), 10);
        assert_eq!(count(|b| matches!(b, Behaviour::Offline(_))), 5);
        assert_eq!(Model::new(&spec, 7).behaviours, m.behaviours);
    }
}
