//! The emulated network of the tranche benchmark and simulation: it knows
//! bytes, not protocol. One link model — a latency law
//! ([`LatencyModel`]), a loss probability, upstream's token bucket
//! ([`RateLimiter`]) — in two shapes: the star around the node under test
//! ([`Network`], below) and the full mesh of the whole-network simulation
//! ([`mesh`]).
//!
//! # Model
//!
//! The network is a **star** around the node under test
//! ([`Endpoint::Node`]); the emulated peers ([`Endpoint::Peer`]) talk only
//! to it, as in subsystem-bench (`polkadot/node/subsystem-bench/src/lib/network.rs`). A message is a
//! byte count (`bytes`, the SCALE-encoded size of the protocol message,
//! no framing, as upstream counts) plus an opaque payload `T` handed back on delivery.
//! Its path:
//!
//! ```text
//! sender egress limiter ─▶ link: loss, then one-way latency ─▶ receiver ingress limiter ─▶ delivered
//! ```
//!
//! * **Bandwidth.** The node has an egress and an ingress limiter at
//!   `node_bandwidth`; every peer has its own pair at `peer_bandwidth`.
//!   Peer → node charges the peer's egress then the node's ingress;
//!   node → peer the node's egress then the peer's ingress (as upstream). Each
//!   limiter is upstream's token bucket with debt, 10 refills per second,
//!   run in virtual time as a FIFO server (see [`limiter`]): a large
//!   message delays everything queued behind it at the same limiter.
//!   Every endpoint is full duplex: its egress and ingress limiters are
//!   independent. (Upstream runs each peer as one task that awaits either
//!   limiter inline, so a peer waiting on one direction also stalls the
//!   other; this only matters once a peer's limiter actually makes it
//!   wait, which none of the upstream approval configurations do.)
//! * **Latency.** Each peer's link has one latency, drawn once when the
//!   network is built from [`LatencyModel`]: upstream's normal distribution
//!   (whole milliseconds, negative → 0) or the 2023/G1 uniform range. It
//!   applies in **both directions** by default, deliberately unlike
//!   upstream, which delays only peer → node messages (polkadot-sdk#4611);
//!   [`LatencyDirections::PeerToNodeOnly`] restores upstream's behaviour.
//!   There is no jitter and the link itself has no capacity limit, so
//!   messages on one link stay in order.
//! * **Connectivity.** `floor(n_peers × connectivity / 100)` peers, chosen
//!   by a seeded partial shuffle, are connected (as upstream, without upstream's
//!   off-by-one, quirk Q8). Sending to or from a disconnected peer is
//!   refused with [`SendError::NotConnected`]: nothing is charged, nothing
//!   is ever delivered; the refusal is counted on the peer.
//! * **Loss.** With probability `loss_probability` an accepted message is
//!   lost on the link after leaving the sender: the sender has paid its
//!   egress bandwidth and counts the bytes as sent; the receiver never
//!   sees it. The outcome is reported as [`Fate::Lost`].
//! * **Accounting.** Per endpoint ([`TrafficCounters`]): bytes and messages
//!   sent (counted when the message leaves the sender's egress limiter, as
//!   upstream), received (counted on delivery, after the ingress limiter),
//!   lost and refused. The node's counters are the totals of the star.
//! * **Randomness.** One seed; three independent ChaCha20 streams, for
//!   connectivity (stream 0), latencies (stream 1, one draw per peer in
//!   peer order, connected or not) and losses (stream 2, one draw per
//!   accepted message when the loss probability is not zero). The same
//!   configuration and the same calls give the same schedule, bit for bit.
//!
//! # Time and driving it
//!
//! Time is [`SimTime`], a [`std::time::Duration`] offset from the start of
//! the run. The network does no I/O and reads no clock (sans-IO): the
//! caller tells it the time.
//!
//! * [`Network::send`] accepts a message at `now`. Calls must come with
//!   non-decreasing `now` (across `send` and [`Network::advance`]).
//! * [`Network::next_event_time`] says when the network next has something
//!   to do (a lower bound of the next outcome; it may produce none).
//! * [`Network::advance`] processes everything due at or before `now`, in
//!   time order (ties in the order they were scheduled), and returns the
//!   [`Outcome`]s: deliveries and losses, each stamped with its exact time.
//!
//! A virtual-clock driver jumps from event to event (`now =
//! min(next_event_time, its own next event)`); a real-time driver passes
//! `start.elapsed()` and sleeps until the next event. Because a message can
//! only arrive after it was sent, processing in time order up to `now` is
//! exact even though peers with different latencies interleave at the
//! node's ingress limiter.

pub mod config;
pub mod limiter;
pub mod mesh;
mod time;

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::time::Duration;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rand_distr::Distribution;
use thiserror::Error;

pub use config::{
    Bandwidth, LatencyDirections, LatencyModel, NetworkConfig, NetworkConfigError, Side,
};
pub use limiter::RateLimiter;
pub use mesh::Mesh;

use time::{add_sat, from_nanos_sat};

/// A point in virtual (or real) time: the offset from the start of the run.
pub type SimTime = Duration;

/// An emulated peer, `0..n_peers`: an end of the star's links, numbered
/// by the star (the benchmark's peer `i` is validator `i + 1`, the node
/// under test being validator 0). Not distribution's
/// `tranche_distribution::PeerId`, which a runtime picks for the
/// protocol's own bookkeeping and which knows no links: the two
/// numberings differ, and their types keep them from being mixed up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkPeer(pub u32);

/// One end of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Endpoint {
    /// The node under test, the centre of the star.
    Node,
    /// An emulated peer.
    Peer(LinkPeer),
}

/// Identifies one accepted message; ids count up from 0 in `send` order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SendId(pub u64);

/// What became of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// It passed the receiver's ingress limiter at [`Outcome::at`].
    Delivered,
    /// It was lost on the link; [`Outcome::at`] is when it left the sender.
    Lost,
}

/// A delivery or a loss, reported by [`Network::advance`].
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome<T> {
    /// The message.
    pub id: SendId,
    /// Its sender.
    pub from: Endpoint,
    /// Its receiver.
    pub to: Endpoint,
    /// Its size in bytes.
    pub bytes: u64,
    /// When it was handed to [`Network::send`].
    pub sent_at: SimTime,
    /// When it was delivered, or when it was lost.
    pub at: SimTime,
    /// Delivered or lost.
    pub fate: Fate,
    /// The caller's payload, unchanged.
    pub payload: T,
}

/// Traffic of one endpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrafficCounters {
    /// Bytes that left this endpoint's egress limiter (lost ones included).
    pub bytes_sent: u64,
    /// Messages that left this endpoint's egress limiter.
    pub messages_sent: u64,
    /// Bytes delivered to this endpoint.
    pub bytes_received: u64,
    /// Messages delivered to this endpoint.
    pub messages_received: u64,
    /// Bytes this endpoint sent that were lost on the link.
    pub bytes_lost: u64,
    /// Messages this endpoint sent that were lost on the link.
    pub messages_lost: u64,
    /// Messages to or from this (disconnected) peer that were refused.
    pub messages_refused: u64,
}

impl TrafficCounters {
    fn add(&mut self, other: &TrafficCounters) {
        self.bytes_sent += other.bytes_sent;
        self.messages_sent += other.messages_sent;
        self.bytes_received += other.bytes_received;
        self.messages_received += other.messages_received;
        self.bytes_lost += other.bytes_lost;
        self.messages_lost += other.messages_lost;
        self.messages_refused += other.messages_refused;
    }
}

/// Why [`Network::send`] refused a message. A refused message is not
/// charged, not counted as sent and never delivered.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum SendError {
    /// `now` is earlier than a time already passed to the network.
    #[error("time went backwards: send at {now:?} after the network reached {reached:?}")]
    TimeWentBackwards {
        /// The time given.
        now: SimTime,
        /// The latest time seen before.
        reached: SimTime,
    },
    /// The peer index is not below `n_peers`.
    #[error("unknown peer {0:?}")]
    UnknownPeer(LinkPeer),
    /// The peer is not connected to the node.
    #[error("peer {0:?} is not connected to the node")]
    NotConnected(LinkPeer),
    /// Neither or both ends are the node: the star has no such link.
    #[error("no link from {from:?} to {to:?}: every message goes to or from the node")]
    NoSuchLink {
        /// The sender given.
        from: Endpoint,
        /// The receiver given.
        to: Endpoint,
    },
}

/// One emulated peer.
#[derive(Debug)]
struct Peer {
    connected: bool,
    latency: Duration,
    egress: Option<RateLimiter>,
    ingress: Option<RateLimiter>,
    counters: TrafficCounters,
}

/// Where a scheduled message is on its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Leaving the sender's egress limiter: count as sent, maybe lose it,
    /// else put it on the link.
    LeftSender,
    /// Reaching the receiver's ingress limiter.
    Arrived,
    /// Leaving the receiver's ingress limiter: delivered.
    Delivered,
}

#[derive(Debug)]
struct Message<T> {
    id: SendId,
    from: Endpoint,
    to: Endpoint,
    bytes: u64,
    sent_at: SimTime,
    lost: bool,
    payload: T,
}

/// A scheduled step of a message; the heap pops the smallest (time, seq).
#[derive(Debug)]
struct Event<T> {
    at: SimTime,
    seq: u64,
    stage: Stage,
    msg: Message<T>,
}

impl<T> PartialEq for Event<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}

impl<T> Eq for Event<T> {}

impl<T> PartialOrd for Event<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T> Ord for Event<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap.
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// The emulated network (see the crate documentation for the model).
#[derive(Debug)]
pub struct Network<T = ()> {
    config: NetworkConfig,
    peers: Vec<Peer>,
    node_egress: Option<RateLimiter>,
    node_ingress: Option<RateLimiter>,
    node_counters: TrafficCounters,
    loss_rng: ChaCha20Rng,
    events: BinaryHeap<Event<T>>,
    next_seq: u64,
    next_id: u64,
    reached: SimTime,
}

const STREAM_CONNECTIVITY: u64 = 0;
const STREAM_LATENCY: u64 = 1;
const STREAM_LOSS: u64 = 2;

fn rng(seed: u64, stream: u64) -> ChaCha20Rng {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    rng
}

fn limiter(bw: Bandwidth) -> Option<RateLimiter> {
    match bw {
        Bandwidth::Unlimited => None,
        Bandwidth::BytesPerSecond(b) => Some(RateLimiter::new(b)),
    }
}

fn reap(limiter: &mut Option<RateLimiter>, now: SimTime, bytes: u64) -> SimTime {
    match limiter {
        Some(l) => l.reap(now, bytes),
        None => now,
    }
}

/// Draws one latency per peer, in peer order.
fn draw_latencies(config: &NetworkConfig) -> Result<Vec<Duration>, NetworkConfigError> {
    let n = config.n_peers as usize;
    let mut rng = rng(config.seed, STREAM_LATENCY);
    Ok(match config.latency {
        LatencyModel::None => vec![Duration::ZERO; n],
        LatencyModel::Normal {
            mean_ms,
            std_dev_ms,
        } => {
            let normal = LatencyModel::normal(mean_ms, std_dev_ms)?;
            (0..n)
                .map(|_| Duration::from_millis(normal.sample(&mut rng) as u64))
                .collect()
        }
        LatencyModel::Uniform { min, max } => {
            let (lo, hi) = (min.as_nanos(), max.as_nanos());
            (0..n)
                .map(|_| from_nanos_sat(rng.gen_range(lo..=hi)))
                .collect()
        }
    })
}

impl<T> Network<T> {
    /// Builds the network: checks the configuration, chooses the connected
    /// peers and draws every peer's latency.
    pub fn new(config: NetworkConfig) -> Result<Self, NetworkConfigError> {
        config.validate()?;
        let n = config.n_peers as usize;
        let mut order: Vec<u32> = (0..config.n_peers).collect();
        let mut connectivity_rng = rng(config.seed, STREAM_CONNECTIVITY);
        let (chosen, _) =
            order.partial_shuffle(&mut connectivity_rng, config.connected_count() as usize);
        let mut connected = vec![false; n];
        for &p in chosen.iter() {
            connected[p as usize] = true;
        }
        let latencies = draw_latencies(&config)?;
        let peers = connected
            .into_iter()
            .zip(latencies)
            .map(|(connected, latency)| Peer {
                connected,
                latency,
                egress: limiter(config.peer_bandwidth),
                ingress: limiter(config.peer_bandwidth),
                counters: TrafficCounters::default(),
            })
            .collect();
        Ok(Network {
            node_egress: limiter(config.node_bandwidth),
            node_ingress: limiter(config.node_bandwidth),
            node_counters: TrafficCounters::default(),
            loss_rng: rng(config.seed, STREAM_LOSS),
            config,
            peers,
            events: BinaryHeap::new(),
            next_seq: 0,
            next_id: 0,
            reached: SimTime::ZERO,
        })
    }

    /// The configuration the network was built from.
    pub fn config(&self) -> &NetworkConfig {
        &self.config
    }

    /// Number of peers (connected or not).
    pub fn n_peers(&self) -> u32 {
        self.config.n_peers
    }

    /// Whether `peer` exists and is connected to the node.
    pub fn is_connected(&self, peer: LinkPeer) -> bool {
        self.peers.get(peer.0 as usize).is_some_and(|p| p.connected)
    }

    /// The connected peers, in increasing order.
    pub fn connected_peers(&self) -> impl Iterator<Item = LinkPeer> + '_ {
        self.peers
            .iter()
            .enumerate()
            .filter(|(_, p)| p.connected)
            .map(|(i, _)| LinkPeer(i as u32))
    }

    /// The one-way latency drawn for `peer`'s link (`None` for an unknown
    /// peer). With [`LatencyDirections::PeerToNodeOnly`] node → peer
    /// messages do not pay it.
    pub fn latency(&self, peer: LinkPeer) -> Option<Duration> {
        self.peers.get(peer.0 as usize).map(|p| p.latency)
    }

    /// Counters of the node under test (the totals of the star).
    pub fn node_counters(&self) -> &TrafficCounters {
        &self.node_counters
    }

    /// Counters of `peer` (`None` for an unknown peer).
    pub fn peer_counters(&self, peer: LinkPeer) -> Option<&TrafficCounters> {
        self.peers.get(peer.0 as usize).map(|p| &p.counters)
    }

    /// Counters of every peer added together.
    pub fn peers_total(&self) -> TrafficCounters {
        let mut total = TrafficCounters::default();
        for p in &self.peers {
            total.add(&p.counters);
        }
        total
    }

    /// The latest time passed to [`Network::send`] or [`Network::advance`].
    pub fn now(&self) -> SimTime {
        self.reached
    }

    /// Messages accepted but not yet delivered or lost.
    pub fn in_flight(&self) -> usize {
        self.events.len()
    }

    /// When the network next has something to do: a lower bound of the
    /// time of the next [`Outcome`] (`None` when nothing is in flight).
    pub fn next_event_time(&self) -> Option<SimTime> {
        self.events.peek().map(|e| e.at)
    }

    fn peer_index(&self, peer: LinkPeer) -> Result<usize, SendError> {
        let i = peer.0 as usize;
        if i >= self.peers.len() {
            return Err(SendError::UnknownPeer(peer));
        }
        Ok(i)
    }

    /// Accepts `bytes` from `from` to `to` at `now`. Exactly one end must be
    /// [`Endpoint::Node`] and the other a connected peer. The outcome comes
    /// later from [`Network::advance`].
    pub fn send(
        &mut self,
        now: SimTime,
        from: Endpoint,
        to: Endpoint,
        bytes: u64,
        payload: T,
    ) -> Result<SendId, SendError> {
        if now < self.reached {
            return Err(SendError::TimeWentBackwards {
                now,
                reached: self.reached,
            });
        }
        let peer = match (from, to) {
            (Endpoint::Node, Endpoint::Peer(p)) | (Endpoint::Peer(p), Endpoint::Node) => p,
            _ => return Err(SendError::NoSuchLink { from, to }),
        };
        let index = self.peer_index(peer)?;
        if !self.peers[index].connected {
            self.peers[index].counters.messages_refused += 1;
            return Err(SendError::NotConnected(peer));
        }
        self.reached = now;
        let left = match from {
            Endpoint::Node => reap(&mut self.node_egress, now, bytes),
            Endpoint::Peer(_) => reap(&mut self.peers[index].egress, now, bytes),
        };
        let p = self.config.loss_probability;
        let lost = p > 0.0 && self.loss_rng.gen_bool(p);
        let id = SendId(self.next_id);
        self.next_id += 1;
        let msg = Message {
            id,
            from,
            to,
            bytes,
            sent_at: now,
            lost,
            payload,
        };
        self.schedule(left, Stage::LeftSender, msg);
        Ok(id)
    }

    fn schedule(&mut self, at: SimTime, stage: Stage, msg: Message<T>) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.events.push(Event {
            at,
            seq,
            stage,
            msg,
        });
    }

    fn counters_mut(&mut self, end: Endpoint) -> &mut TrafficCounters {
        match end {
            Endpoint::Node => &mut self.node_counters,
            Endpoint::Peer(p) => &mut self.peers[p.0 as usize].counters,
        }
    }

    /// Processes everything due at or before `now` and returns the outcomes
    /// in time order. A `now` earlier than one already seen processes
    /// nothing new.
    pub fn advance(&mut self, now: SimTime) -> Vec<Outcome<T>> {
        let mut out = Vec::new();
        self.advance_into(now, &mut out);
        out
    }

    /// [`Network::advance`], appending to `out`.
    pub fn advance_into(&mut self, now: SimTime, out: &mut Vec<Outcome<T>>) {
        self.reached = self.reached.max(now);
        while self.events.peek().is_some_and(|e| e.at <= now) {
            let Some(Event { at, stage, msg, .. }) = self.events.pop() else {
                break;
            };
            self.step(at, stage, msg, out);
        }
    }

    /// Runs until nothing is in flight and returns every outcome; the
    /// network's time moves to the last one.
    pub fn drain(&mut self) -> Vec<Outcome<T>> {
        let mut out = Vec::new();
        while let Some(Event { at, stage, msg, .. }) = self.events.pop() {
            self.reached = self.reached.max(at);
            self.step(at, stage, msg, &mut out);
        }
        out
    }

    fn step(&mut self, at: SimTime, stage: Stage, msg: Message<T>, out: &mut Vec<Outcome<T>>) {
        match stage {
            Stage::LeftSender => {
                let bytes = msg.bytes;
                let sender = self.counters_mut(msg.from);
                sender.bytes_sent += bytes;
                sender.messages_sent += 1;
                if msg.lost {
                    sender.bytes_lost += bytes;
                    sender.messages_lost += 1;
                    out.push(outcome(msg, at, Fate::Lost));
                    return;
                }
                let latency = match (msg.to, self.config.latency_directions) {
                    (Endpoint::Peer(_), LatencyDirections::PeerToNodeOnly) => Duration::ZERO,
                    _ => self.link_latency(&msg),
                };
                self.schedule(add_sat(at, latency), Stage::Arrived, msg);
            }
            Stage::Arrived => {
                let bytes = msg.bytes;
                let delivered = match msg.to {
                    Endpoint::Node => reap(&mut self.node_ingress, at, bytes),
                    Endpoint::Peer(p) => reap(&mut self.peers[p.0 as usize].ingress, at, bytes),
                };
                self.schedule(delivered, Stage::Delivered, msg);
            }
            Stage::Delivered => {
                let bytes = msg.bytes;
                let receiver = self.counters_mut(msg.to);
                receiver.bytes_received += bytes;
                receiver.messages_received += 1;
                out.push(outcome(msg, at, Fate::Delivered));
            }
        }
    }

    /// The latency of the peer end of `msg`'s link.
    fn link_latency(&self, msg: &Message<T>) -> Duration {
        match (msg.from, msg.to) {
            (Endpoint::Peer(p), _) | (_, Endpoint::Peer(p)) => self.peers[p.0 as usize].latency,
            _ => Duration::ZERO,
        }
    }
}

fn outcome<T>(msg: Message<T>, at: SimTime, fate: Fate) -> Outcome<T> {
    Outcome {
        id: msg.id,
        from: msg.from,
        to: msg.to,
        bytes: msg.bytes,
        sent_at: msg.sent_at,
        at,
        fate,
        payload: msg.payload,
    }
}
