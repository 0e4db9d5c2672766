//! Protocol counters of a running node, the twins of upstream's
//! approval-voting and approval-distribution Prometheus metrics
//! (`polkadot_parachain_*`): plain atomics bumped by the workers as they
//! carry out the state machines' actions, read by whoever exports them.
//! Recording is a relaxed `fetch_add` or two: no locks on the hot path.

use std::sync::atomic::{AtomicU64, Ordering};
use tranche_primitives::AssignmentCertKind;

/// Bucket upper bounds (ticks) of upstream's
/// `polkadot_parachain_approvals_{candidate,block}approval_time_ticks`.
pub const APPROVAL_TIME_BUCKETS: [u64; 9] = [6, 12, 18, 24, 30, 36, 72, 100, 144];

/// Bucket upper bounds (nanoseconds) of upstream's time-of-flight
/// histograms: 0.0001, 0.0004, 0.0016, 0.0064, 0.0256, 0.1024, 0.4096,
/// 1.6384, 3.2768, 4.9152, 6.5536 s.
pub const TOF_BUCKETS_NANOS: [u64; 11] = [
    100_000,
    400_000,
    1_600_000,
    6_400_000,
    25_600_000,
    102_400_000,
    409_600_000,
    1_638_400_000,
    3_276_800_000,
    4_915_200_000,
    6_553_600_000,
];

/// A histogram over integer observations with fixed bucket bounds, kept in
/// atomics. Buckets are not cumulative here; [`AtomicHistogram::snapshot`]
/// makes them so.
#[derive(Debug)]
pub struct AtomicHistogram {
    bounds: &'static [u64],
    /// One counter per bound, then the overflow (`+Inf`) counter.
    buckets: Box<[AtomicU64]>,
    sum: AtomicU64,
    count: AtomicU64,
}

/// A histogram read at one moment: cumulative counts per finite bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistogramSnapshot {
    /// `(upper bound, observations <= bound)`, ascending.
    pub cumulative: Vec<(u64, u64)>,
    pub sum: u64,
    pub count: u64,
}

impl AtomicHistogram {
    pub fn new(bounds: &'static [u64]) -> Self {
        AtomicHistogram {
            bounds,
            buckets: (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect(),
            sum: AtomicU64::new(0),
            count: AtomicU64::new(0),
        }
    }

    pub fn observe(&self, value: u64) {
        let i = self.bounds.partition_point(|b| *b < value);
        self.buckets[i].fetch_add(1, Ordering::Relaxed);
        self.sum.fetch_add(value, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    pub fn sum(&self) -> u64 {
        self.sum.load(Ordering::Relaxed)
    }

    /// Add `earlier`'s observations (of the same bounds) to these.
    pub fn absorb(&self, earlier: &AtomicHistogram) {
        for (into, from) in self.buckets.iter().zip(earlier.buckets.iter()) {
            add(into, get(from));
        }
        add(&self.sum, earlier.sum());
        add(&self.count, earlier.count());
    }

    pub fn snapshot(&self) -> HistogramSnapshot {
        let mut acc = 0;
        let cumulative = self
            .bounds
            .iter()
            .zip(self.buckets.iter())
            .map(|(b, c)| {
                acc += c.load(Ordering::Relaxed);
                (*b, acc)
            })
            .collect();
        HistogramSnapshot {
            cumulative,
            sum: self.sum(),
            count: self.count(),
        }
    }
}

/// Assignment certificate kinds, with upstream's metric label values.
pub const ASSIGNMENT_KINDS: [&str; 3] = ["VRF Delay", "VRF Modulo", "VRF Modulo Compact"];

fn kind_index(kind: &AssignmentCertKind) -> usize {
    match kind {
        AssignmentCertKind::RelayVRFDelay { .. } => 0,
        AssignmentCertKind::RelayVRFModulo { .. } => 1,
        AssignmentCertKind::RelayVRFModuloCompact { .. } => 2,
    }
}

/// What the node's state machines did, counted as upstream counts it.
#[derive(Debug)]
pub struct ProtocolCounters {
    imported_candidates: AtomicU64,
    assignments_imported: [AtomicU64; 3],
    approvals_imported: AtomicU64,
    no_shows: AtomicU64,
    observed_no_shows: AtomicU64,
    approved_by_one_third: AtomicU64,
    candidates_approved: AtomicU64,
    blocks_approved: AtomicU64,
    wakeups: AtomicU64,
    db_commits: AtomicU64,
    db_fsyncs: AtomicU64,
    db_nanos: AtomicU64,
    /// Classic: checks distribution handed to voting, the time voting spent
    /// checking them, and the time distribution waited for the verdicts.
    round_trips: AtomicU64,
    round_trip_check_nanos: AtomicU64,
    round_trip_wait_nanos: AtomicU64,
    /// Certificates checked ahead that the in-order pass took, and those
    /// it never asked for.
    ahead_taken: AtomicU64,
    ahead_unused: AtomicU64,
    /// Reputation changes by kind, in `reputation::ALL` order.
    reputation: [AtomicU64; 7],
    /// Ticks since the block's slot start when a candidate was approved.
    pub candidate_approval_ticks: AtomicHistogram,
    /// Ticks since the block's slot start when a block was approved.
    pub block_approval_ticks: AtomicHistogram,
}

impl Default for ProtocolCounters {
    fn default() -> Self {
        ProtocolCounters {
            imported_candidates: AtomicU64::new(0),
            assignments_imported: Default::default(),
            approvals_imported: AtomicU64::new(0),
            no_shows: AtomicU64::new(0),
            observed_no_shows: AtomicU64::new(0),
            approved_by_one_third: AtomicU64::new(0),
            candidates_approved: AtomicU64::new(0),
            blocks_approved: AtomicU64::new(0),
            wakeups: AtomicU64::new(0),
            db_commits: AtomicU64::new(0),
            db_fsyncs: AtomicU64::new(0),
            db_nanos: AtomicU64::new(0),
            round_trips: AtomicU64::new(0),
            round_trip_check_nanos: AtomicU64::new(0),
            round_trip_wait_nanos: AtomicU64::new(0),
            ahead_taken: AtomicU64::new(0),
            ahead_unused: AtomicU64::new(0),
            reputation: Default::default(),
            candidate_approval_ticks: AtomicHistogram::new(&APPROVAL_TIME_BUCKETS),
            block_approval_ticks: AtomicHistogram::new(&APPROVAL_TIME_BUCKETS),
        }
    }
}

fn get(a: &AtomicU64) -> u64 {
    a.load(Ordering::Relaxed)
}

fn add(a: &AtomicU64, n: u64) {
    a.fetch_add(n, Ordering::Relaxed);
}

impl ProtocolCounters {
    /// Add the counts of `earlier` — the node's before a restart — to
    /// these, so that they cover the whole run. The candidates imported
    /// and approved are not added: a restored node counts those of its
    /// store as its own (its activation announces every stored block,
    /// [`ProtocolCounters::restored`] counts the stored approvals), so a
    /// candidate whose approval the crash lost and the node made again
    /// counts once. The other counts are of events (messages, checks,
    /// commits, no-shows seen) and are added. Call it once the node has
    /// stopped: its voting worker sets the database's figures as the store
    /// counts them, it does not add to them.
    pub fn absorb(&self, earlier: &ProtocolCounters) {
        let pairs = [
            (&self.approvals_imported, &earlier.approvals_imported),
            (&self.no_shows, &earlier.no_shows),
            (&self.observed_no_shows, &earlier.observed_no_shows),
            (&self.approved_by_one_third, &earlier.approved_by_one_third),
            (&self.wakeups, &earlier.wakeups),
            (&self.db_commits, &earlier.db_commits),
            (&self.db_fsyncs, &earlier.db_fsyncs),
            (&self.db_nanos, &earlier.db_nanos),
            (&self.round_trips, &earlier.round_trips),
            (
                &self.round_trip_check_nanos,
                &earlier.round_trip_check_nanos,
            ),
            (&self.round_trip_wait_nanos, &earlier.round_trip_wait_nanos),
            (&self.ahead_taken, &earlier.ahead_taken),
            (&self.ahead_unused, &earlier.ahead_unused),
        ];
        let kinds = self
            .assignments_imported
            .iter()
            .zip(&earlier.assignments_imported);
        let reputation = self.reputation.iter().zip(&earlier.reputation);
        for (into, from) in pairs.into_iter().chain(kinds).chain(reputation) {
            add(into, get(from));
        }
        self.candidate_approval_ticks
            .absorb(&earlier.candidate_approval_ticks);
        self.block_approval_ticks
            .absorb(&earlier.block_approval_ticks);
    }

    /// A node restored from its store holds `approved` candidates approved
    /// before it stopped: counted as approved by this node.
    pub fn restored(&self, approved: u64) {
        add(&self.candidates_approved, approved);
    }

    pub fn candidates_imported_with_block(&self, n: usize) {
        add(&self.imported_candidates, n as u64);
    }

    pub fn assignment_imported(&self, kind: &AssignmentCertKind) {
        add(&self.assignments_imported[kind_index(kind)], 1);
    }

    pub fn approval_imported(&self) {
        add(&self.approvals_imported, 1);
    }

    pub fn candidate_approved(&self, ticks: u64, one_third: bool, no_shows: usize) {
        add(&self.candidates_approved, 1);
        add(&self.no_shows, no_shows as u64);
        if one_third {
            add(&self.approved_by_one_third, 1);
        }
        self.candidate_approval_ticks.observe(ticks);
    }

    pub fn block_approved(&self, ticks: u64) {
        add(&self.blocks_approved, 1);
        self.block_approval_ticks.observe(ticks);
    }

    pub fn no_shows_observed(&self, n: usize) {
        add(&self.observed_no_shows, n as u64);
    }

    pub fn wakeup(&self) {
        add(&self.wakeups, 1);
    }

    /// `polkadot_parachain_imported_candidates_total`.
    pub fn imported_candidates(&self) -> u64 {
        get(&self.imported_candidates)
    }

    /// `polkadot_parachain_assignments_imported_total{kind}`, by
    /// [`ASSIGNMENT_KINDS`].
    pub fn assignments_imported(&self) -> [u64; 3] {
        [
            get(&self.assignments_imported[0]),
            get(&self.assignments_imported[1]),
            get(&self.assignments_imported[2]),
        ]
    }

    /// `polkadot_parachain_approvals_imported_total`.
    pub fn approvals_imported(&self) -> u64 {
        get(&self.approvals_imported)
    }

    /// `polkadot_parachain_approvals_no_shows_total`: no-shows tolerated
    /// when a candidate got approved.
    pub fn no_shows(&self) -> u64 {
        get(&self.no_shows)
    }

    /// `polkadot_parachain_approvals_observed_no_shows_total`.
    pub fn observed_no_shows(&self) -> u64 {
        get(&self.observed_no_shows)
    }

    /// `polkadot_parachain_approved_by_one_third`.
    pub fn approved_by_one_third(&self) -> u64 {
        get(&self.approved_by_one_third)
    }

    pub fn candidates_approved(&self) -> u64 {
        get(&self.candidates_approved)
    }

    pub fn blocks_approved(&self) -> u64 {
        get(&self.blocks_approved)
    }

    /// `polkadot_parachain_approvals_wakeups_total`.
    pub fn wakeups(&self) -> u64 {
        get(&self.wakeups)
    }

    /// The database's commits and fsyncs so far, and the time the voting
    /// thread spent in it (the voting worker keeps them current).
    pub fn set_database(&self, commits: u64, fsyncs: u64, nanos: u64) {
        self.db_commits.store(commits, Ordering::Relaxed);
        self.db_fsyncs.store(fsyncs, Ordering::Relaxed);
        self.db_nanos.store(nanos, Ordering::Relaxed);
    }

    /// Classic: voting checked one certificate or signature for
    /// distribution in `took`.
    pub fn checked_for_distribution(&self, took: std::time::Duration) {
        add(&self.round_trip_check_nanos, took.as_nanos() as u64);
    }

    /// Classic: distribution waited `took` for one verdict from voting.
    pub fn waited_for_verdict(&self, took: std::time::Duration) {
        add(&self.round_trips, 1);
        add(&self.round_trip_wait_nanos, took.as_nanos() as u64);
    }

    /// Classic: how many checks went to voting and back, and what the trip
    /// itself cost per check (distribution's wait for the verdict less
    /// voting's time checking), in microseconds.
    pub fn round_trip(&self) -> (u64, f64) {
        let n = get(&self.round_trips);
        let wait = get(&self.round_trip_wait_nanos) as f64;
        let check = get(&self.round_trip_check_nanos) as f64;
        let per = if n == 0 {
            0.0
        } else {
            (wait - check).max(0.0) / n as f64 / 1e3
        };
        (n, per)
    }

    /// A worker stopped: of the certificates it checked ahead, the
    /// in-order pass took `taken` and never asked for `unused`.
    pub fn checked_ahead(&self, taken: u64, unused: u64) {
        add(&self.ahead_taken, taken);
        add(&self.ahead_unused, unused);
    }

    /// Certificates checked back to back ahead of the in-order pass that
    /// it then took (summed as the workers stop).
    pub fn checked_ahead_taken(&self) -> u64 {
        get(&self.ahead_taken)
    }

    /// Certificates checked back to back ahead of the in-order pass that
    /// it never asked for (wasted checks; 0 unless blocks were finalized
    /// while a batch waited).
    pub fn ahead_unused(&self) -> u64 {
        get(&self.ahead_unused)
    }

    /// Seconds the voting thread spent in the database: buffering writes,
    /// committing and fsyncing.
    pub fn db_seconds(&self) -> f64 {
        get(&self.db_nanos) as f64 / 1e9
    }

    /// One reputation change of this kind was reported about a peer.
    pub fn reputation_change(&self, rep: &tranche_primitives::reputation::Rep) {
        if let Some(i) = tranche_primitives::reputation::ALL
            .iter()
            .position(|r| r.name == rep.name)
        {
            self.reputation[i].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Reputation changes reported so far, by kind (name, count).
    pub fn reputation_changes(&self) -> Vec<(&'static str, u64)> {
        tranche_primitives::reputation::ALL
            .iter()
            .zip(&self.reputation)
            .map(|(r, n)| (r.name, get(n)))
            .collect()
    }

    /// Database transactions committed (each survives a process crash).
    pub fn db_commits(&self) -> u64 {
        get(&self.db_commits)
    }

    /// Of those, the ones fsynced (each survives a power loss).
    pub fn db_fsyncs(&self) -> u64 {
        get(&self.db_fsyncs)
    }
}

/// What `--schedule useful-first` did: how long messages waited in the
/// workers' backlogs from receipt to being handled (and forwarded), for the
/// messages taken ahead because they could change an approval and for the
/// rest, and the longest backlog.
#[derive(Debug, Default)]
pub struct ScheduleStats {
    /// Microseconds from receipt to handling: [taken ahead, the rest].
    waits: std::sync::Mutex<[Vec<u32>; 2]>,
    backlog_peak: AtomicU64,
}

/// p50 and p99 of one class of [`ScheduleStats`], in milliseconds, and how
/// many messages it holds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WaitQuantiles {
    pub count: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
}

impl ScheduleStats {
    /// Add a worker's waits (`[ahead, rest]`, microseconds) and the
    /// longest backlog it saw.
    pub fn add(&self, waits: &mut [Vec<u32>; 2], backlog_peak: u64) {
        let mut all = self.waits.lock().unwrap_or_else(|e| e.into_inner());
        for (into, from) in all.iter_mut().zip(waits.iter_mut()) {
            into.append(from);
        }
        self.backlog_peak.fetch_max(backlog_peak, Ordering::Relaxed);
    }

    /// Add `earlier`'s waits and longest backlog (the node's before a
    /// restart) to these.
    pub fn absorb(&self, earlier: &ScheduleStats) {
        let mut from = earlier
            .waits
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        self.add(&mut from, earlier.backlog_peak());
    }

    pub fn backlog_peak(&self) -> u64 {
        get(&self.backlog_peak)
    }

    /// [taken ahead, the rest].
    pub fn quantiles(&self) -> [WaitQuantiles; 2] {
        let all = self.waits.lock().unwrap_or_else(|e| e.into_inner());
        let q = |v: &Vec<u32>| {
            let mut v = v.clone();
            v.sort_unstable();
            let at = |p: f64| {
                v.get(((v.len() as f64 - 1.0) * p).round() as usize)
                    .map_or(0.0, |us| f64::from(*us) / 1e3)
            };
            WaitQuantiles {
                count: v.len() as u64,
                p50_ms: at(0.5),
                p99_ms: at(0.99),
            }
        };
        [q(&all[0]), q(&all[1])]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_cumulative_and_bounds_inclusive() {
        let h = AtomicHistogram::new(&APPROVAL_TIME_BUCKETS);
        for v in [0, 6, 7, 144, 145, 1000] {
            h.observe(v);
        }
        let s = h.snapshot();
        assert_eq!(s.count, 6);
        assert_eq!(s.sum, 6 + 7 + 144 + 145 + 1000);
        assert_eq!(s.cumulative[0], (6, 2));
        assert_eq!(s.cumulative[1], (12, 3));
        assert_eq!(*s.cumulative.last().unwrap(), (144, 4));
    }

    /// A restarted node's counters with those before the restart added
    /// cover the whole run: the events, the database's, the histograms and
    /// `useful-first`'s waits added; the candidates imported and approved
    /// those of the restored node, each candidate once.
    #[test]
    fn counters_before_a_restart_are_added() {
        let (before, after) = (ProtocolCounters::default(), ProtocolCounters::default());
        before.candidates_imported_with_block(12);
        before.candidate_approved(8, true, 1);
        before.candidate_approved(8, false, 0);
        before.approval_imported();
        before.set_database(5, 2, 1_000);
        // The store kept one of the two approvals; the restored node
        // announces the stored block again and approves the other again.
        after.restored(1);
        after.candidates_imported_with_block(12);
        after.candidates_imported_with_block(24);
        after.candidate_approved(9, false, 0);
        after.candidate_approved(30, false, 0);
        after.approval_imported();
        after.set_database(7, 1, 500);
        after.absorb(&before);
        assert_eq!(after.imported_candidates(), 36);
        assert_eq!(after.candidates_approved(), 3);
        assert_eq!(after.approvals_imported(), 2);
        assert_eq!(after.approved_by_one_third(), 1);
        assert_eq!(after.no_shows(), 1);
        assert_eq!((after.db_commits(), after.db_fsyncs()), (12, 3));
        assert_eq!(after.candidate_approval_ticks.count(), 4);
        assert_eq!(after.candidate_approval_ticks.sum(), 8 + 8 + 9 + 30);
        let (early, late) = (ScheduleStats::default(), ScheduleStats::default());
        early.add(&mut [vec![1_000], vec![]], 9);
        late.add(&mut [vec![3_000], vec![2_000]], 4);
        late.absorb(&early);
        let [ahead, rest] = late.quantiles();
        assert_eq!((ahead.count, rest.count), (2, 1));
        assert_eq!(late.backlog_peak(), 9);
    }
}
