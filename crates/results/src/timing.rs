//! Which figures of a run vary with thread timing even under the virtual
//! clock: one list that the table, its legend, the docs and `compare` all
//! read, so that nobody shows a timing-dependent figure as exact.
//!
//! Under the virtual clock the driver drains the node to idle every tick,
//! so what the protocol decides — approval ticks, bytes, message counts,
//! signature checks, protocol counters — is exactly reproducible for a
//! seed. How the node's threads interleave within a tick is not: the
//! voting worker commits its database once per tick *and* before each
//! announcement (how many announcements fall into one commit depends on
//! when they arrive), a parallel worker checks ahead the certificates
//! that happen to be queued when it drains its input, and
//! `--schedule useful-first` takes ahead what is behind when it looks.
//! Two runs of one configuration and seed gave, for instance,
//! `database.commits` 49 and 50 and `checks.checked_ahead` 639 and 641
//! (issue 31).

/// The timing-dependent figures, as JSON paths of a `RunReport`
/// (`samples.*` are fields of each sample).
pub const TIMING_DEPENDENT: &[&str] = &[
    "database.commits",
    "database.fsyncs",
    "database.commits_per_block",
    "checks.checked_ahead",
    "checks.ahead_unused",
    "schedule.ahead_messages",
    "schedule.rest_messages",
    "schedule.backlog_peak",
    "samples.queue_depth",
    "samples.queue_depth_by_kind",
];

/// The words a table row gives the figure at `path` (one of
/// [`TIMING_DEPENDENT`]); the path itself for any other.
pub fn label(path: &str) -> &str {
    match path {
        "database.commits" => "database commits",
        "database.fsyncs" => "database fsyncs",
        "database.commits_per_block" => "database commits per block",
        "checks.checked_ahead" => "certificates checked ahead",
        "checks.ahead_unused" => "certificates checked ahead, never asked for",
        "schedule.ahead_messages" => "useful-first: messages taken ahead",
        "schedule.rest_messages" => "useful-first: messages in arrival order",
        "schedule.backlog_peak" => "useful-first: longest backlog",
        "samples.queue_depth" => "queue depth",
        "samples.queue_depth_by_kind" => "queue depth by kind",
        other => other,
    }
}

/// Whether the figure at `path` (a JSON path as in [`TIMING_DEPENDENT`])
/// varies with thread timing under the virtual clock.
pub fn is_timing_dependent(path: &str) -> bool {
    TIMING_DEPENDENT.contains(&path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every listed path names a field a report has: a renamed field
    /// cannot leave a stale entry behind.
    #[test]
    fn every_listed_figure_is_a_field_of_a_report() {
        let mut run = crate::fixture::run();
        run.schedule = Some(crate::ScheduleReport::default());
        run.samples = vec![crate::Sample::default()];
        let v = serde_json::to_value(&run).unwrap();
        for path in TIMING_DEPENDENT {
            let (head, field) = path.split_once('.').unwrap();
            let parent = match head {
                "samples" => &v["samples"][0],
                other => &v[other],
            };
            assert!(!parent[field].is_null(), "{path} is not a report field");
        }
        for path in TIMING_DEPENDENT {
            assert!(!label(path).contains('.'), "{path} has no words");
        }
        assert!(is_timing_dependent("database.commits"));
        assert!(!is_timing_dependent("counts.deliveries"));
    }
}
