//! Behaviour of the emulated network: latency draws, bandwidth queueing,
//! loss, determinism, byte accounting and connectivity, all in virtual
//! time.

use std::time::Duration;

use tranche_links::{
    Bandwidth, Endpoint, Fate, LatencyDirections, LatencyModel, LinkPeer, Network, NetworkConfig,
    NetworkConfigError, Outcome, SendError, SimTime,
};

const NODE: Endpoint = Endpoint::Node;

fn peer(i: u32) -> Endpoint {
    Endpoint::Peer(LinkPeer(i))
}

fn ms(v: u64) -> SimTime {
    Duration::from_millis(v)
}

fn mean_and_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

#[test]
fn normal_latency_has_the_configured_mean_and_spread() {
    let mut config = NetworkConfig::ideal(20_000, 7);
    config.latency = LatencyModel::Normal {
        mean_ms: 50.0,
        std_dev_ms: 12.5,
    };
    let net: Network = Network::new(config).unwrap();
    let lat: Vec<f64> = (0..20_000)
        .map(|i| net.latency(LinkPeer(i)).unwrap().as_secs_f64() * 1000.0)
        .collect();
    // Whole milliseconds, as upstream: truncation lowers the mean by ~0.5.
    assert!(lat.iter().all(|l| l.fract() == 0.0));
    let (mean, sd) = mean_and_sd(&lat);
    assert!((mean - 49.5).abs() < 0.4, "mean {mean}");
    assert!((sd - 12.5).abs() < 0.4, "sd {sd}");
}

#[test]
fn negative_normal_samples_give_zero_latency() {
    let mut config = NetworkConfig::ideal(1_000, 1);
    config.latency = LatencyModel::Normal {
        mean_ms: 0.0,
        std_dev_ms: 10.0,
    };
    let net: Network = Network::new(config).unwrap();
    let zeros = (0..1_000)
        .filter(|&i| net.latency(LinkPeer(i)).unwrap().is_zero())
        .count();
    // Half the samples are negative, plus those in [0, 1) ms.
    assert!((500..=600).contains(&zeros), "{zeros}");
}

#[test]
fn uniform_latency_stays_in_range_and_covers_it() {
    let mut config = NetworkConfig::ideal(10_000, 3);
    config.latency = LatencyModel::Uniform {
        min: ms(1),
        max: ms(100),
    };
    let net: Network = Network::new(config).unwrap();
    let lat: Vec<f64> = (0..10_000)
        .map(|i| net.latency(LinkPeer(i)).unwrap().as_secs_f64() * 1000.0)
        .collect();
    assert!(lat.iter().all(|&l| (1.0..=100.0).contains(&l)));
    let (mean, _) = mean_and_sd(&lat);
    assert!((mean - 50.5).abs() < 1.0, "mean {mean}");
    assert!(lat.iter().any(|&l| l < 2.0) && lat.iter().any(|&l| l > 99.0));
}

#[test]
fn latency_applies_in_both_directions_by_default() {
    let mut config = NetworkConfig::ideal(1, 0);
    config.latency = LatencyModel::Uniform {
        min: ms(40),
        max: ms(40),
    };
    let mut net = Network::new(config.clone()).unwrap();
    net.send(ms(0), peer(0), NODE, 10, "up").unwrap();
    net.send(ms(0), NODE, peer(0), 10, "down").unwrap();
    let out = net.drain();
    assert_eq!(out.len(), 2);
    assert!(out.iter().all(|o| o.at == ms(40)), "{out:?}");

    config.latency_directions = LatencyDirections::PeerToNodeOnly;
    let mut net = Network::new(config).unwrap();
    net.send(ms(0), peer(0), NODE, 10, "up").unwrap();
    net.send(ms(0), NODE, peer(0), 10, "down").unwrap();
    let out = net.drain();
    assert_eq!(out[0].payload, "down");
    assert_eq!(out[0].at, ms(0));
    assert_eq!(out[1].payload, "up");
    assert_eq!(out[1].at, ms(40));
}

#[test]
fn back_to_back_large_messages_queue_at_the_sender() {
    // 1 MB/s: 100 000 bytes per 100 ms tick.
    let mut config = NetworkConfig::ideal(2, 0);
    config.peer_bandwidth = Bandwidth::BytesPerSecond(1_000_000);
    let mut net = Network::new(config).unwrap();
    let size = 500_000;
    net.send(ms(0), peer(0), NODE, size, 1).unwrap();
    net.send(ms(0), peer(0), NODE, size, 2).unwrap();
    let out = net.drain();
    assert_eq!(out.len(), 2);
    // The first overdraws the initial 100 000 credits: 4 refills, the last
    // at 400 ms. The second starts then: 5 refills, the last at 900 ms.
    assert_eq!(out[0].at, ms(400));
    assert_eq!(out[1].at, ms(900));
    // The second arrives later by size / rate.
    assert_eq!(out[1].at - out[0].at, ms(size * 1000 / 1_000_000));
    // Another peer has its own limiter: not held up.
    net.send(ms(900), peer(1), NODE, 1_000, 3).unwrap();
    assert_eq!(net.drain()[0].at, ms(900));
}

#[test]
fn the_node_ingress_limiter_is_shared_by_all_peers() {
    let mut config = NetworkConfig::ideal(2, 0);
    config.node_bandwidth = Bandwidth::BytesPerSecond(1_000_000);
    let mut net = Network::new(config).unwrap();
    net.send(ms(0), peer(0), NODE, 500_000, 'a').unwrap();
    net.send(ms(0), peer(1), NODE, 500_000, 'b').unwrap();
    let out = net.drain();
    assert_eq!((out[0].payload, out[0].at), ('a', ms(400)));
    assert_eq!((out[1].payload, out[1].at), ('b', ms(900)));
}

#[test]
fn the_node_ingress_serves_messages_in_arrival_order() {
    // A far peer sends first, but a near peer's later message reaches the
    // node first and must not wait behind the far one's.
    let mut config = NetworkConfig::ideal(50, 0);
    config.node_bandwidth = Bandwidth::BytesPerSecond(1_000_000);
    config.latency = LatencyModel::Uniform {
        min: ms(1),
        max: ms(100),
    };
    let mut net = Network::new(config).unwrap();
    let mut by_latency: Vec<LinkPeer> = (0..50).map(LinkPeer).collect();
    by_latency.sort_by_key(|&p| net.latency(p).unwrap());
    let (near, far) = (by_latency[0], by_latency[49]);
    let (l_near, l_far) = (net.latency(near).unwrap(), net.latency(far).unwrap());
    assert!(l_far > l_near + ms(20));
    // Far peer sends a big message at 0, near peer a small one at 1 ms.
    net.send(ms(0), Endpoint::Peer(far), NODE, 300_000, "far")
        .unwrap();
    net.send(ms(1), Endpoint::Peer(near), NODE, 1_000, "near")
        .unwrap();
    let out = net.drain();
    assert_eq!(out[0].payload, "near");
    assert_eq!(out[0].at, ms(1) + l_near);
    // The far one arrives second and overdraws what is left (99 000
    // credits): 300 000 - 99 000 → 3 refills, the first at its arrival or
    // 100 ms after the bucket's creation, whichever is later.
    assert_eq!(out[1].payload, "far");
    assert_eq!(out[1].at, l_far.max(ms(100)) + ms(200));
}

#[test]
fn loss_rate_matches_the_configuration() {
    let mut config = NetworkConfig::ideal(10, 11);
    config.loss_probability = 0.1;
    let mut net = Network::new(config).unwrap();
    let n = 100_000u64;
    for i in 0..n {
        let p = peer((i % 10) as u32);
        let (from, to) = if i % 2 == 0 { (p, NODE) } else { (NODE, p) };
        net.send(ms(i), from, to, 100, ()).unwrap();
    }
    let out = net.drain();
    assert_eq!(out.len() as u64, n);
    let lost = out.iter().filter(|o| o.fate == Fate::Lost).count() as f64;
    let rate = lost / n as f64;
    assert!((rate - 0.1).abs() < 0.005, "loss rate {rate}");
    // The sender counts lost bytes as sent; the receiver never sees them.
    let node = *net.node_counters();
    let peers = net.peers_total();
    assert_eq!(node.messages_lost + peers.messages_lost, lost as u64);
    assert_eq!(
        node.bytes_received + peers.bytes_received + node.bytes_lost + peers.bytes_lost,
        node.bytes_sent + peers.bytes_sent
    );
}

fn schedule(seed: u64) -> Vec<Outcome<u32>> {
    let config = NetworkConfig {
        n_peers: 20,
        node_bandwidth: Bandwidth::BytesPerSecond(200_000),
        peer_bandwidth: Bandwidth::BytesPerSecond(50_000),
        latency: LatencyModel::Normal {
            mean_ms: 30.0,
            std_dev_ms: 10.0,
        },
        latency_directions: LatencyDirections::Both,
        connectivity_percent: 80,
        loss_probability: 0.05,
        seed,
    };
    let mut net = Network::new(config).unwrap();
    let mut out = Vec::new();
    for i in 0..2_000u32 {
        let now = ms(u64::from(i) * 3);
        out.extend(net.advance(now));
        let p = peer(i % 20);
        let (from, to) = if i % 3 == 0 { (NODE, p) } else { (p, NODE) };
        let _ = net.send(now, from, to, u64::from(100 + i % 700), i);
    }
    out.extend(net.drain());
    out
}

#[test]
fn the_same_seed_gives_the_same_schedule() {
    let a = schedule(42);
    let b = schedule(42);
    assert!(a.len() > 1_000);
    assert_eq!(a, b);
    assert_ne!(a, schedule(43));
    // Outcomes come in time order.
    assert!(a.windows(2).all(|w| w[0].at <= w[1].at));
}

#[test]
fn byte_counters_are_exact() {
    let mut net = Network::new(NetworkConfig::ideal(3, 0)).unwrap();
    net.send(ms(0), peer(0), NODE, 100, ()).unwrap();
    net.send(ms(0), peer(0), NODE, 23, ()).unwrap();
    net.send(ms(1), peer(2), NODE, 1_000, ()).unwrap();
    net.send(ms(2), NODE, peer(0), 7, ()).unwrap();
    net.send(ms(2), NODE, peer(1), 50, ()).unwrap();
    net.send(ms(3), NODE, peer(1), 51, ()).unwrap();
    // Nothing counted before the network is advanced to the sends.
    assert_eq!(net.node_counters().bytes_received, 0);
    assert_eq!(net.advance(ms(3)).len(), 6);

    let node = net.node_counters();
    assert_eq!((node.bytes_received, node.messages_received), (1_123, 3));
    assert_eq!((node.bytes_sent, node.messages_sent), (108, 3));
    let p0 = net.peer_counters(LinkPeer(0)).unwrap();
    assert_eq!((p0.bytes_sent, p0.bytes_received), (123, 7));
    assert_eq!((p0.messages_sent, p0.messages_received), (2, 1));
    let p1 = net.peer_counters(LinkPeer(1)).unwrap();
    assert_eq!((p1.bytes_sent, p1.bytes_received), (0, 101));
    let p2 = net.peer_counters(LinkPeer(2)).unwrap();
    assert_eq!((p2.bytes_sent, p2.bytes_received), (1_000, 0));
    let total = net.peers_total();
    assert_eq!(total.bytes_sent, node.bytes_received);
    assert_eq!(total.bytes_received, node.bytes_sent);
}

#[test]
fn counters_follow_the_limiters() {
    // Sent is counted when the message leaves the egress limiter, received
    // when it leaves the ingress limiter.
    let mut config = NetworkConfig::ideal(1, 0);
    config.peer_bandwidth = Bandwidth::BytesPerSecond(1_000);
    let mut net = Network::new(config).unwrap();
    net.send(ms(0), peer(0), NODE, 300, ()).unwrap();
    assert!(net.advance(ms(199)).is_empty());
    assert_eq!(net.peer_counters(LinkPeer(0)).unwrap().bytes_sent, 0);
    assert_eq!(net.next_event_time(), Some(ms(200)));
    let out = net.advance(ms(200));
    assert_eq!(out.len(), 1);
    assert_eq!(net.peer_counters(LinkPeer(0)).unwrap().bytes_sent, 300);
    assert_eq!(net.node_counters().bytes_received, 300);
    assert_eq!(net.in_flight(), 0);
    assert_eq!(net.next_event_time(), None);
}

#[test]
fn disconnected_peers_never_deliver() {
    let mut config = NetworkConfig::ideal(100, 5);
    config.connectivity_percent = 37;
    let mut net = Network::new(config).unwrap();
    let connected: Vec<LinkPeer> = net.connected_peers().collect();
    assert_eq!(connected.len(), 37);
    let mut accepted = 0;
    for i in 0..100 {
        let p = LinkPeer(i);
        let up = net.send(ms(0), Endpoint::Peer(p), NODE, 10, i);
        let down = net.send(ms(0), NODE, Endpoint::Peer(p), 10, i);
        if net.is_connected(p) {
            assert!(up.is_ok() && down.is_ok());
            accepted += 2;
        } else {
            assert_eq!(up, Err(SendError::NotConnected(p)));
            assert_eq!(down, Err(SendError::NotConnected(p)));
            let c = net.peer_counters(p).unwrap();
            assert_eq!(c.messages_refused, 2);
        }
    }
    let out = net.drain();
    assert_eq!(out.len(), accepted);
    assert!(out.iter().all(|o| {
        let p = match (o.from, o.to) {
            (Endpoint::Peer(p), _) | (_, Endpoint::Peer(p)) => p,
            _ => unreachable!(),
        };
        net.is_connected(p)
    }));
    for p in (0..100).map(LinkPeer).filter(|&p| !net.is_connected(p)) {
        let c = net.peer_counters(p).unwrap();
        assert_eq!((c.bytes_sent, c.bytes_received), (0, 0));
    }
}

#[test]
fn connectivity_choice_depends_on_the_seed_only() {
    let pick = |seed| {
        let mut config = NetworkConfig::ideal(50, seed);
        config.connectivity_percent = 50;
        let net: Network = Network::new(config).unwrap();
        net.connected_peers().collect::<Vec<_>>()
    };
    assert_eq!(pick(1), pick(1));
    assert_ne!(pick(1), pick(2));
}

#[test]
fn invalid_sends_are_typed_errors() {
    let mut net = Network::new(NetworkConfig::ideal(2, 0)).unwrap();
    assert!(matches!(
        net.send(ms(0), NODE, NODE, 1, ()),
        Err(SendError::NoSuchLink { .. })
    ));
    assert!(matches!(
        net.send(ms(0), peer(0), peer(1), 1, ()),
        Err(SendError::NoSuchLink { .. })
    ));
    assert_eq!(
        net.send(ms(0), NODE, peer(2), 1, ()),
        Err(SendError::UnknownPeer(LinkPeer(2)))
    );
    net.advance(ms(10));
    assert!(matches!(
        net.send(ms(9), NODE, peer(0), 1, ()),
        Err(SendError::TimeWentBackwards { .. })
    ));
    assert_eq!(net.in_flight(), 0);
}

#[test]
fn impossible_configurations_are_rejected() {
    let base = NetworkConfig::ideal(4, 0);
    let bad = |f: fn(&mut NetworkConfig)| {
        let mut c = base.clone();
        f(&mut c);
        Network::<()>::new(c).unwrap_err()
    };
    assert!(matches!(
        bad(|c| c.node_bandwidth = Bandwidth::BytesPerSecond(9)),
        NetworkConfigError::BandwidthTooLow { .. }
    ));
    assert_eq!(
        bad(|c| c.connectivity_percent = 101),
        NetworkConfigError::Connectivity(101)
    );
    assert!(matches!(
        bad(|c| c.loss_probability = 1.5),
        NetworkConfigError::LossProbability(_)
    ));
    assert!(matches!(
        bad(|c| c.latency = LatencyModel::Normal {
            mean_ms: 1.0,
            std_dev_ms: -1.0
        }),
        NetworkConfigError::LatencyStdDev(_)
    ));
    assert!(matches!(
        bad(|c| c.latency = LatencyModel::Normal {
            mean_ms: f64::NAN,
            std_dev_ms: 1.0
        }),
        NetworkConfigError::LatencyMean(_)
    ));
    assert!(matches!(
        bad(|c| c.latency = LatencyModel::Uniform {
            min: ms(2),
            max: ms(1)
        }),
        NetworkConfigError::LatencyRange { .. }
    ));
}

#[test]
fn unlimited_everything_delivers_at_send_time_plus_latency() {
    let mut net = Network::new(NetworkConfig::ideal(3, 0)).unwrap();
    for i in 0..3 {
        net.send(ms(5), peer(i), NODE, 1 << 30, i).unwrap();
    }
    let out = net.advance(ms(5));
    assert_eq!(out.iter().map(|o| o.payload).collect::<Vec<_>>(), [0, 1, 2]);
    assert!(out.iter().all(|o| o.at == ms(5) && o.sent_at == ms(5)));
}
