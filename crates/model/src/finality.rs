//! Finality in the simulation, GRANDPA reduced to its rule: a validator
//! tells every other one (over the links' latency, never lost, outside
//! distribution's bytes and bandwidth) the highest block it approved with
//! all its ancestors, and finalizes the highest block more than two thirds
//! of the validators voted for; voting and distribution prune it and the
//! connected peers' views carry the new finalized number.

use tranche_distribution::{PeerId, View};

use crate::drawn::Model;
use crate::member::{slot_ms, tick_of, Packet, SimNode};
use crate::verdicts::Verdicts;

impl SimNode {
    /// Finality: with every ancestor approved up to a new height, tell
    /// every other validator (over the links' latency, never lost, outside
    /// distribution's bandwidth and bytes).
    pub(crate) fn announce_approved(
        &mut self,
        now_ms: u64,
        v: &Verdicts,
        model: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let Some(votes) = self.votes.as_ref() else {
            return;
        };
        let prefix = self
            .record
            .blocks
            .iter()
            .take_while(|b| b.approved_after_ms.is_some() || b.finalized_after_ms.is_some())
            .count() as u32;
        if prefix == 0 {
            return;
        }
        let up_to = self.blocks[prefix as usize - 1].number;
        if up_to <= votes[self.index as usize] {
            return;
        }
        for to in (0..self.n).filter(|&p| p != self.index) {
            let seq = self.seq;
            self.seq += 1;
            out.push((
                now_ms + model.links.latency_ms(self.index, to),
                Packet {
                    to,
                    from: self.index,
                    seq,
                    bytes: Vec::new(),
                    finality: Some(up_to),
                    known: Vec::new(),
                    control: None,
                },
            ));
        }
        self.finality_vote(now_ms, self.index, up_to, v, model, out);
    }

    /// Record a validator's vote; say whether finality moved.
    pub(crate) fn tally(&mut self, from: u32, up_to: u32) -> Option<u32> {
        let votes = self.votes.as_mut()?;
        let v = &mut votes[from as usize];
        *v = (*v).max(up_to);
        // The highest block more than two thirds of the validators voted
        // for (GRANDPA's supermajority), their votes sorted high to low.
        let mut sorted = votes.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let needed = (self.n as usize * 2) / 3 + 1;
        let best = sorted[needed - 1];
        (best > self.finalized).then_some(best)
    }

    /// A finality vote from a peer: finalize what has a supermajority.
    pub(crate) fn finality_vote(
        &mut self,
        now_ms: u64,
        from: u32,
        up_to: u32,
        v: &Verdicts,
        m: &Model,
        out: &mut Vec<(u64, Packet)>,
    ) {
        let Some(number) = self.tally(from, up_to) else {
            return;
        };
        self.finalized = number;
        let i = number as usize - 1;
        let hash = self.blocks[i].hash;
        for (b, r) in self.blocks.iter().zip(self.record.blocks.iter_mut()) {
            if b.number <= number && r.finalized_after_ms.is_none() {
                r.finalized_after_ms = Some(now_ms.saturating_sub(slot_ms(b)));
            }
        }
        let o = self.voting.finalize(tick_of(now_ms), hash, number);
        self.apply_voting(now_ms, o, v, m, out);
        let mut work = std::mem::take(&mut self.actions);
        self.dist.block_finalized(number, &mut work);
        let head = self.blocks[self.imported.max(1) - 1].hash;
        let connected: Vec<u32> = (0..self.n).filter(|&p| self.is_connected(p)).collect();
        for p in connected {
            let view = View {
                heads: vec![head],
                finalized_number: number,
            };
            self.dist
                .peer_view_change(tick_of(now_ms), PeerId(p), view, &mut work);
        }
        self.settle(now_ms, work, v, m, out);
        // Blocks finalized unapproved count as done for our own vote.
        self.announce_approved(now_ms, v, m, out);
    }
}
