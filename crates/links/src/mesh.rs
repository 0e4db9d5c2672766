//! The full-mesh shape of the link model, for the whole-network simulation
//! (`crates/simulation`): every pair of validators is linked, with the same
//! latency law ([`LatencyModel`]), loss probability and token bucket
//! ([`crate::RateLimiter`], one per validator and direction, built by the
//! simulated node) as the star around the node under test
//! ([`crate::Network`]). Its draws are its own and fixed: a link's one-way
//! latency is drawn once per pair from a stream per row (`latency`, row
//! `a` draws the links to every higher validator), truncated to whole
//! milliseconds and at least 1 ms; a notification's loss is a hash of
//! (seed, sender, receiver, sequence), so any worker of any process
//! decides the same without sharing a stream.

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use rand_distr::Distribution;

use crate::config::{LatencyModel, NetworkConfigError};

/// One seeded stream per purpose and subject: ChaCha20 keyed by
/// `blake2b-256(purpose ‖ seed ‖ subject)` (little-endian integers). The
/// simulation draws its behaviours and check durations from it too.
pub fn stream(seed: u64, purpose: &[u8], subject: u64) -> ChaCha20Rng {
    let mut data = Vec::with_capacity(purpose.len() + 16);
    data.extend_from_slice(purpose);
    data.extend_from_slice(&seed.to_le_bytes());
    data.extend_from_slice(&subject.to_le_bytes());
    let digest = blake2b_simd::Params::new().hash_length(32).hash(&data);
    let mut key = [0u8; 32];
    key.copy_from_slice(digest.as_bytes());
    ChaCha20Rng::from_seed(key)
}

/// The links of a full mesh of `n` endpoints.
#[derive(Debug)]
pub struct Mesh {
    n: u32,
    seed: u64,
    /// One-way latency, milliseconds (at least 1), symmetric, row-major
    /// `n × n`.
    latency_ms: Vec<u32>,
    loss_probability: f64,
}

impl Mesh {
    /// Draws every link's latency. `latency` is [`LatencyModel::None`]
    /// (every link 1 ms) or [`LatencyModel::Normal`]; the uniform law of
    /// the star's G1 files has no mesh form.
    pub fn new(
        n: u32,
        seed: u64,
        latency: LatencyModel,
        loss_probability: f64,
    ) -> Result<Mesh, NetworkConfigError> {
        if !(0.0..=1.0).contains(&loss_probability) {
            return Err(NetworkConfigError::LossProbability(loss_probability));
        }
        let mut latency_ms = vec![1u32; (n as usize) * (n as usize)];
        match latency {
            LatencyModel::None => {}
            LatencyModel::Normal {
                mean_ms,
                std_dev_ms,
            } => {
                let normal = LatencyModel::normal(mean_ms, std_dev_ms)?;
                for a in 0..n {
                    let mut r = stream(seed, b"latency", u64::from(a));
                    for b in (a + 1)..n {
                        let ms = (normal.sample(&mut r).max(0.0) as u32).max(1);
                        latency_ms[(a * n + b) as usize] = ms;
                        latency_ms[(b * n + a) as usize] = ms;
                    }
                }
            }
            LatencyModel::Uniform { .. } => return Err(NetworkConfigError::MeshLatency),
        }
        Ok(Mesh {
            n,
            seed,
            latency_ms,
            loss_probability,
        })
    }

    /// The one-way latency from `a` to `b`, milliseconds (at least 1).
    pub fn latency_ms(&self, a: u32, b: u32) -> u64 {
        u64::from(self.latency_ms[(a * self.n + b) as usize])
    }

    /// Whether the `seq`-th notification of `from` to `to` is lost.
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_is_symmetric_and_at_least_one() {
        let normal = LatencyModel::Normal {
            mean_ms: 30.0,
            std_dev_ms: 2.0,
        };
        let m = Mesh::new(100, 1, normal, 0.0).unwrap();
        for a in 0..10 {
            for b in 0..10 {
                assert_eq!(m.latency_ms(a, b), m.latency_ms(b, a));
                assert!(m.latency_ms(a, b) >= 1);
            }
        }
        assert!((25..=35).contains(&m.latency_ms(3, 4)));
        let none = Mesh::new(4, 1, LatencyModel::None, 0.0).unwrap();
        assert_eq!(none.latency_ms(0, 3), 1);
    }

    #[test]
    fn loss_is_a_pure_function_of_the_message() {
        let m = Mesh::new(10, 3, LatencyModel::None, 0.5).unwrap();
        let lost = (0..1000).filter(|&s| m.lost(1, 2, s)).count();
        assert!((400..600).contains(&lost), "{lost}");
        assert_eq!(m.lost(1, 2, 7), m.lost(1, 2, 7));
        assert!(Mesh::new(10, 3, LatencyModel::None, 1.5).is_err());
    }
}
