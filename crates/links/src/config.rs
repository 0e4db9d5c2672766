//! Configuration of the emulated network: peer count, bandwidth of the node
//! and of every peer, the latency model, connectivity, loss and the seed.
//!
//! Every value is checked by [`NetworkConfig::validate`] (called by
//! [`crate::Network::new`]); a bad value is a [`NetworkConfigError`], never a panic.

use std::time::Duration;

use thiserror::Error;

use crate::limiter::TICK_RATE;

/// A bandwidth limit, in bytes per second, enforced by upstream's token
/// bucket (see [`crate::limiter`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bandwidth {
    /// No limiter at all: every message passes at once.
    Unlimited,
    /// A limit in bytes per second. Must be at least [`TICK_RATE`] (10):
    /// the bucket refills `bytes_per_second / 10` bytes every 100 ms, and a
    /// refill of zero would never repay a debt.
    BytesPerSecond(u64),
}

/// How the one-way latency of each peer's link is drawn. It is drawn once
/// per peer when the network is built and stays constant for the whole run
/// (as upstream: no jitter).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LatencyModel {
    /// Zero latency.
    None,
    /// Upstream G2/G3 (`latency: {mean_latency_ms, std_dev}`): a sample of
    /// `Normal(mean_ms, std_dev_ms)` truncated to whole milliseconds;
    /// negative samples give 0 ms (upstream casts the `f64` sample to an
    /// integer, which saturates at 0).
    Normal {
        /// Mean, in milliseconds.
        mean_ms: f64,
        /// Standard deviation, in milliseconds.
        std_dev_ms: f64,
    },
    /// Upstream's 2023 / G1 schema (`min_latency`, `max_latency`): uniform,
    /// with nanosecond resolution, in `[min, max]` (both inclusive).
    Uniform {
        /// Smallest latency.
        min: Duration,
        /// Largest latency.
        max: Duration,
    },
}

impl LatencyModel {
    /// The normal law of [`LatencyModel::Normal`], for both shapes' draws.
    pub(crate) fn normal(
        mean_ms: f64,
        std_dev_ms: f64,
    ) -> Result<rand_distr::Normal<f64>, NetworkConfigError> {
        rand_distr::Normal::new(mean_ms, std_dev_ms)
            .map_err(|_| NetworkConfigError::LatencyStdDev(std_dev_ms))
    }
}

/// Which directions of a link the peer's latency applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LatencyDirections {
    /// Node → peer and peer → node each take the peer's full latency, so a
    /// round trip takes twice the drawn value. The default, deliberately
    /// unlike upstream (polkadot-sdk#4611): the node's own gossip and
    /// its own assignments and approvals reach the peers late as well.
    #[default]
    Both,
    /// Upstream's model: only peer → node messages are delayed.
    PeerToNodeOnly,
}

/// Everything [`crate::Network::new`] needs.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkConfig {
    /// Number of emulated peers, addressed as `LinkPeer(0..n_peers)`. The node
    /// under test is not one of them (it is [`crate::Endpoint::Node`]).
    /// Upstream models validators `1..N` as peers; the bench maps them.
    pub n_peers: u32,
    /// Limit of the node under test, applied separately to its egress and
    /// its ingress (upstream's `bandwidth`).
    pub node_bandwidth: Bandwidth,
    /// Limit of every peer, applied separately to its egress and its ingress
    /// (upstream's `peer_bandwidth`).
    pub peer_bandwidth: Bandwidth,
    /// Per-peer one-way latency model.
    pub latency: LatencyModel,
    /// Directions the latency applies to.
    pub latency_directions: LatencyDirections,
    /// Percentage (0..=100) of the peers connected to the node:
    /// `floor(n_peers × connectivity / 100)` peers, chosen by a seeded
    /// partial shuffle.
    pub connectivity_percent: u8,
    /// Probability (0.0..=1.0) that an accepted message is lost on the link,
    /// after it left the sender (the sender still pays its bandwidth and
    /// counts its bytes as sent).
    pub loss_probability: f64,
    /// Seed of every random draw (connectivity, latencies, losses).
    pub seed: u64,
}

impl NetworkConfig {
    /// An ideal network of `n_peers` peers: unlimited bandwidth, no latency,
    /// every peer connected, no loss.
    pub fn ideal(n_peers: u32, seed: u64) -> Self {
        NetworkConfig {
            n_peers,
            node_bandwidth: Bandwidth::Unlimited,
            peer_bandwidth: Bandwidth::Unlimited,
            latency: LatencyModel::None,
            latency_directions: LatencyDirections::Both,
            connectivity_percent: 100,
            loss_probability: 0.0,
            seed,
        }
    }

    /// Number of connected peers: `floor(n_peers × connectivity / 100)`,
    /// in exact integer arithmetic.
    ///
    /// Upstream computes `floor((N − 1) / (100 / connectivity))` in floating
    /// point (which can round one below the exact value, e.g. 100 peers at
    /// 30 % give 29) and then connects one peer more than that (quirk Q8 of
    /// the spec); both are deliberately not copied.
    pub fn connected_count(&self) -> u32 {
        let pct = u64::from(self.connectivity_percent.min(100));
        (u64::from(self.n_peers) * pct / 100) as u32
    }

    /// Checks every value.
    pub fn validate(&self) -> Result<(), NetworkConfigError> {
        for (which, bw) in [
            (Side::Node, self.node_bandwidth),
            (Side::Peer, self.peer_bandwidth),
        ] {
            if let Bandwidth::BytesPerSecond(b) = bw {
                if b < TICK_RATE {
                    return Err(NetworkConfigError::BandwidthTooLow {
                        which,
                        bytes_per_second: b,
                    });
                }
            }
        }
        match self.latency {
            LatencyModel::None => {}
            LatencyModel::Normal {
                mean_ms,
                std_dev_ms,
            } => {
                if !mean_ms.is_finite() {
                    return Err(NetworkConfigError::LatencyMean(mean_ms));
                }
                if !std_dev_ms.is_finite() || std_dev_ms < 0.0 {
                    return Err(NetworkConfigError::LatencyStdDev(std_dev_ms));
                }
            }
            LatencyModel::Uniform { min, max } => {
                if min > max {
                    return Err(NetworkConfigError::LatencyRange { min, max });
                }
            }
        }
        if self.connectivity_percent > 100 {
            return Err(NetworkConfigError::Connectivity(self.connectivity_percent));
        }
        if !(0.0..=1.0).contains(&self.loss_probability) {
            return Err(NetworkConfigError::LossProbability(self.loss_probability));
        }
        Ok(())
    }
}

/// Which side of the star a bandwidth limit belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The node under test.
    Node,
    /// The emulated peers.
    Peer,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Side::Node => f.write_str("node"),
            Side::Peer => f.write_str("peer"),
        }
    }
}

/// An impossible network configuration.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum NetworkConfigError {
    /// A limit below 10 B/s: the bucket would refill 0 bytes per tick.
    #[error("{which} bandwidth {bytes_per_second} B/s is below the minimum of 10 B/s (the limiter refills bandwidth/10 bytes every 100 ms)")]
    BandwidthTooLow {
        /// Node or peer limit.
        which: Side,
        /// The rejected value.
        bytes_per_second: u64,
    },
    /// A mean latency that is not a finite number.
    #[error("latency mean {0} ms is not a finite number")]
    LatencyMean(f64),
    /// A standard deviation that is negative or not finite.
    #[error("latency standard deviation {0} ms must be a finite number >= 0")]
    LatencyStdDev(f64),
    /// A uniform range whose minimum exceeds its maximum.
    #[error("latency range is empty: min {min:?} > max {max:?}")]
    LatencyRange {
        /// Lower bound given.
        min: Duration,
        /// Upper bound given.
        max: Duration,
    },
    /// Connectivity above 100 %.
    #[error("connectivity {0}% is above 100%")]
    Connectivity(u8),
    /// Loss probability outside `0.0..=1.0`.
    #[error("a full mesh draws normal latencies only, not a uniform range")]
    MeshLatency,
    #[error("loss probability {0} is outside 0.0..=1.0")]
    LossProbability(f64),
}
