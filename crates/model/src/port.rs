//! One validator's end of the simulated links: its egress and ingress
//! bandwidth (the token bucket of `crates/links/src/limiter.rs`), the
//! sequence numbers of what it sends (they order a moment's deliveries at
//! the receiver), the link's latency and loss (`tranche_links::mesh`,
//! through the run's [`Model`]) and the bytes and notifications it counts.
//! It knows packets and bytes, not the protocol.

use crate::drawn::Model;
use crate::packet::{Control, Packet};
use crate::time::{ms_ceil, sim};
use parity_scale_codec::Encode;
use tranche_links::RateLimiter;

/// What a validator's links counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counted {
    pub bytes_out: u64,
    pub bytes_in: u64,
    pub notifications_out: u64,
    pub notifications_in: u64,
}

/// A validator's end of the links.
pub(crate) struct Port {
    me: u32,
    egress: RateLimiter,
    ingress: RateLimiter,
    seq: u64,
    pub counted: Counted,
}

impl Port {
    pub fn new(me: u32, egress: RateLimiter, ingress: RateLimiter) -> Port {
        Port {
            me,
            egress,
            ingress,
            seq: 0,
            counted: Counted::default(),
        }
    }

    fn next_seq(&mut self) -> u64 {
        let seq = self.seq;
        self.seq += 1;
        seq
    }

    /// A packet reaches us at `now_ms`: when it has passed our ingress
    /// bandwidth (a disconnect and a finality vote are not bytes of ours).
    pub fn arrive(&mut self, now_ms: u64, packet: &Packet) -> u64 {
        if packet.finality.is_some() {
            return now_ms;
        }
        match &packet.control {
            Some(Control::Disconnect { .. }) => return now_ms,
            Some(_) => {}
            None => self.counted.notifications_in += 1,
        }
        self.counted.bytes_in += packet.bytes.len() as u64;
        ms_ceil(self.ingress.reap(sim(now_ms), packet.bytes.len() as u64))
    }

    /// A notification's bytes to `to`, through our egress: `Err(seq)` if
    /// the link lost it (the sender then disconnects the pair).
    pub fn notify(
        &mut self,
        now_ms: u64,
        to: u32,
        bytes: Vec<u8>,
        known: Vec<Option<u32>>,
        model: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) -> Result<(), u64> {
        self.counted.notifications_out += 1;
        self.through_egress(now_ms, to, bytes, known, None, model, out)
    }

    /// A control message to `to` over the link: its bytes through our
    /// egress, never lost.
    pub fn control(
        &mut self,
        now_ms: u64,
        to: u32,
        control: Control,
        model: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let bytes = match &control {
            Control::Disconnect { .. } => Vec::new(),
            Control::Hello { heads, finalized } | Control::View { heads, finalized } => {
                (heads, finalized).encode()
            }
        };
        let sent = self.through_egress(now_ms, to, bytes, Vec::new(), Some(control), model, out);
        debug_assert!(sent.is_ok(), "control messages are never lost");
    }

    /// Bytes to `to` through our egress, then the link's latency; a
    /// notification (no `control`) may be lost on the way: `Err(seq)`.
    #[allow(clippy::too_many_arguments)]
    fn through_egress(
        &mut self,
        now_ms: u64,
        to: u32,
        bytes: Vec<u8>,
        known: Vec<Option<u32>>,
        control: Option<Control>,
        model: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) -> Result<(), u64> {
        let len = bytes.len() as u64;
        self.counted.bytes_out += len;
        let left = ms_ceil(self.egress.reap(sim(now_ms), len));
        let seq = self.next_seq();
        if control.is_none() && model.links.lost(self.me, to, seq) {
            return Err(seq);
        }
        let packet = Packet {
            to,
            from: self.me,
            seq,
            bytes,
            finality: None,
            known,
            control,
        };
        out.push((left + model.links.latency_ms(self.me, to), packet));
        Ok(())
    }

    /// Outside the bandwidth and never lost, over the link's latency: a
    /// finality vote, or the news that we went away (the transport's
    /// bytes, not counted).
    pub fn beyond_bandwidth(
        &mut self,
        now_ms: u64,
        to: u32,
        finality: Option<u32>,
        control: Option<Control>,
        model: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let seq = self.next_seq();
        let packet = Packet {
            to,
            from: self.me,
            seq,
            bytes: Vec::new(),
            finality,
            known: Vec::new(),
            control,
        };
        out.push((now_ms + model.links.latency_ms(self.me, to), packet));
    }
}
