//! Where a distribution worker's crypto checks run — the node's
//! [`Verifier`] for distribution's one settle loop (`State::settle`):
//! here on the worker's thread (parallel layout), taken from the
//! certificates checked ahead (`crate::ahead`), deferred into a batch of
//! approval signatures verified together ([`SignatureBatch`],
//! `--signatures batched`; the settle loop takes the batch's verdicts when
//! it is due, `Verifier::due`), or handed to the voting thread, which
//! imports what passes, and waited for (classic layout).

use crate::ahead::Ahead;
use crate::channel::{Tx, Unfinished};
use crate::messages::VoteMsg;
use crate::worker::WorkerStats;
use std::sync::Arc;
use tranche_distribution::{
    ApprovalCheck, ApprovalVerdict, AssignmentCheck, AssignmentVerdict, CheckVerdict,
    DeferredVerdict, Verifier,
};
use tranche_metrics::ProtocolCounters;

/// Where crypto checks run.
#[derive(Clone, Copy)]
pub(crate) enum CheckMode {
    /// Here, on this thread (parallel layout); checked messages are then
    /// handed to voting.
    Inline,
    /// On the voting thread, which imports what passes; this worker waits
    /// for each verdict (classic layout).
    ViaVoting,
}

/// Most approval checks deferred into one batch: past this the batch is
/// verified at once (the gain per signature flattens out by 64–256).
pub(crate) const MAX_APPROVAL_BATCH: usize = 256;

/// Approval checks waiting to be verified as one batch, each with the
/// number of the message it came from (what it causes is sent with that
/// message's group). While any wait, the node's in-flight count is held
/// up, so that a virtual-time driver does not take the node for idle.
pub(crate) struct SignatureBatch {
    checks: Vec<ApprovalCheck>,
    from: Vec<u64>,
    unfinished: Arc<Unfinished>,
    holding: bool,
}

impl SignatureBatch {
    pub fn new(unfinished: Arc<Unfinished>) -> SignatureBatch {
        SignatureBatch {
            checks: Vec::new(),
            from: Vec::new(),
            unfinished,
            holding: false,
        }
    }

    fn push(&mut self, check: ApprovalCheck, message: u64) {
        if !self.holding {
            self.holding = true;
            self.unfinished.add();
        }
        self.checks.push(check);
        self.from.push(message);
    }

    pub fn is_empty(&self) -> bool {
        self.checks.is_empty()
    }

    /// Whether the batch is to be verified now: full, or `flush` (the
    /// drained batch of messages is over).
    fn is_due(&self, flush: bool) -> bool {
        !self.checks.is_empty() && (flush || self.checks.len() >= MAX_APPROVAL_BATCH)
    }

    /// Verify every waiting check as one batch: each verdict, in order,
    /// grouped by the message its check came from.
    fn verify(&mut self, stats: &WorkerStats, due: &mut Vec<DeferredVerdict>) {
        let checks = std::mem::take(&mut self.checks);
        let from = std::mem::take(&mut self.from);
        stats.add_verifications(checks.len() as u64);
        let verdicts = ApprovalCheck::check_batch(&checks);
        due.extend(
            checks
                .iter()
                .zip(from)
                .zip(verdicts)
                .map(|((check, message), verdict)| DeferredVerdict {
                    token: check.token,
                    verdict: CheckVerdict::Approval(verdict),
                    group: message,
                }),
        );
    }

    /// Once nothing waits and what it caused is out, the node may look
    /// idle again.
    pub fn release_if_empty(&mut self) {
        if self.holding && self.checks.is_empty() {
            self.holding = false;
            self.unfinished.done();
        }
    }
}

/// A distribution worker's verifier for one settle.
pub(crate) struct NodeVerifier<'a> {
    pub mode: CheckMode,
    pub ahead: Option<&'a mut Ahead>,
    /// Approval checks deferred into a batch (`None`: each checked now).
    pub batch: Option<&'a mut SignatureBatch>,
    /// The number of the message being handled.
    pub message: u64,
    /// The drained batch of messages is over: a batch of signatures
    /// waiting is due whatever its size.
    pub flush: bool,
    pub to_voting: &'a Tx<VoteMsg>,
    /// The node is stopping (see `run`).
    pub stopping: &'a std::sync::atomic::AtomicBool,
    pub counters: &'a ProtocolCounters,
    pub stats: &'a WorkerStats,
}

impl NodeVerifier<'_> {
    /// Run here, or hand to the voting thread and wait for its verdict.
    fn run<C, V>(
        &self,
        check: C,
        run: fn(&C) -> V,
        ask: impl FnOnce(C, crossbeam_channel::Sender<V>) -> VoteMsg,
    ) -> Result<V, String> {
        match self.mode {
            CheckMode::Inline => {
                self.stats.add_verifications(1);
                Ok(run(&check))
            }
            CheckMode::ViaVoting => {
                let (tx, rx) = crossbeam_channel::bounded(1);
                let started = std::time::Instant::now();
                self.to_voting
                    .send(ask(check, tx))
                    .map_err(|e| e.to_string())?;
                // A request queued when the voting worker stopped (a store
                // fault) keeps its reply sender alive as long as the
                // channel lives, which the distribution side holds: so
                // wait in slices, and give up once the node is stopping.
                let verdict = loop {
                    match rx.recv_timeout(std::time::Duration::from_millis(50)) {
                        Ok(v) => break Ok(v),
                        Err(crossbeam_channel::RecvTimeoutError::Timeout)
                            if !self.stopping.load(std::sync::atomic::Ordering::Acquire) =>
                        {
                            continue
                        }
                        Err(_) => break Err("voting stopped before answering a check".to_owned()),
                    }
                };
                self.counters.waited_for_verdict(started.elapsed());
                verdict
            }
        }
    }
}

impl Verifier for NodeVerifier<'_> {
    type Error = String;

    fn assignment(&mut self, check: AssignmentCheck) -> Result<Option<AssignmentVerdict>, String> {
        if let Some(v) = self
            .ahead
            .as_mut()
            .and_then(|a| a.verdict(&check.assignment))
        {
            self.stats.add_verifications(1);
            return Ok(Some(v));
        }
        self.run(check, AssignmentCheck::check, |check, reply| {
            VoteMsg::CheckAssignment { check, reply }
        })
        .map(Some)
    }

    fn approval(&mut self, check: ApprovalCheck) -> Result<Option<ApprovalVerdict>, String> {
        if let Some(batch) = self.batch.as_mut() {
            batch.push(check, self.message);
            return Ok(None);
        }
        self.run(check, ApprovalCheck::check, |check, reply| {
            VoteMsg::CheckApproval { check, reply }
        })
        .map(Some)
    }

    /// The batch of signatures, verified once it is full or `flush` says
    /// the drained batch of messages is over.
    fn due(&mut self, due: &mut Vec<DeferredVerdict>) -> Result<(), String> {
        if let Some(batch) = self.batch.as_mut().filter(|b| b.is_due(self.flush)) {
            batch.verify(self.stats, due);
        }
        Ok(())
    }
}
