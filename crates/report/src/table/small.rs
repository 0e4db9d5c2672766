//! Notes for figures that puzzle at small sizes, each chosen by the run's
//! own figures: every candidate approved at import by the one-third rule
//! (the peers send each approval with its assignment, so where the first
//! tranches alone hold more than a third of the validators the block is
//! approved as it is imported), no-shows observed that held no approval
//! back (the counter counts at every evaluation), a block never approved
//! with no stalled candidate to name.

use crate::RunReport;
use tranche_cli::text::counted;

/// A block approved within its slot's first tick (500 ms) is early (the
/// legend's "why" line says so too).
pub(super) const EARLY_MS: u64 = 500;

/// Every candidate approved by the one-third rule, and blocks approved as
/// they came in: all of them (the run measures the handling only), or
/// only some, named (the others came later, for reasons of their own).
fn at_import(r: &RunReport) -> Option<String> {
    let p = &r.protocol;
    let early: Vec<String> = r
        .blocks
        .iter()
        .filter(|b| b.approved_after_ms.is_some_and(|ms| ms < EARLY_MS))
        .map(|b| b.number.to_string())
        .collect();
    let by_rule = p.candidates_approved > 0 && p.approved_by_one_third == p.candidates_approved;
    if early.is_empty() || !by_rule {
        return None;
    }
    let why = format!(
        "the peers send each approval with its assignment (as upstream's generated peers), and \
         the first tranches' approvals were already from more than a third of the {}, so no \
         later tranche and no check of the node's own was waited for",
        counted(r.n_validators, "validator")
    );
    Some(if early.len() == r.blocks.len() {
        format!(
            "At this size every candidate was approved by the one-third rule as its block came \
             in: {why}; the run measures the messages' handling, not the tranches' timing \
             (larger sizes, 100 x 20 and up, approve seconds into the slot)."
        )
    } else {
        let (blocks, it) = match early.as_slice() {
            [one] => (format!("block {one}"), "it"),
            [head @ .., last] => (format!("blocks {} and {last}", head.join(", ")), "each"),
            [] => unreachable!("early is not empty"),
        };
        format!(
            "At this size the candidates of {blocks} were approved by the one-third rule as \
             {it} came in: {why} there (the other blocks came later)."
        )
    })
}

/// No-shows observed that held no approval back.
fn observed_only(r: &RunReport) -> Option<String> {
    let p = &r.protocol;
    (p.observed_no_shows > 0 && p.no_shows == 0 && r.counts.withheld_approvals == 0).then(|| {
        format!(
            "The {} observed held no approval back: the counter adds, at every \
             evaluation of a candidate (after its approval too), each assigned validator whose \
             approval had not come by its no-show deadline; none was covered at approval and \
             the peers withheld none.",
            counted(p.observed_no_shows, "no-show")
        )
    })
}

/// A block never approved with no stalled candidate named, where the
/// peers withheld approvals as no-shows.
fn never_uncovered(r: &RunReport) -> Option<String> {
    let never = r.blocks.iter().any(|b| b.approved_after_ms.is_none());
    let withheld = r.counts.withheld_approvals;
    (never && r.stalls.is_empty() && withheld > 0).then(|| {
        format!(
            "Never approved: the peers withheld {} as no-shows, and a no-show \
             is covered only by the approval of an assignment from a later tranche, which the \
             peers send only up to the highest tranche counted + the no-shows (upstream's \
             generator rule, docs/quirks.md); at {} a tranche holds few assignments \
             for a candidate, so those beyond that window were held back and the candidate \
             stayed short of approvals (and of a third of the validators' for the one-third \
             rule). More validators, or fewer no-shows (num_no_shows_per_candidate), approve.",
            counted(withheld, "approval"),
            counted(r.n_validators, "validator")
        )
    })
}

/// The notes of a real run's figures (the model keeps no counters).
pub(super) fn notes(r: &RunReport) -> Vec<String> {
    if !r.keeps_counters() {
        return Vec::new();
    }
    [at_import(r), observed_only(r), never_uncovered(r)]
        .into_iter()
        .flatten()
        .collect()
}
