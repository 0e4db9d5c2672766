//! The notes under `tranche sweep network`'s table and on its page, each a
//! function of the rows' figures with its condition in one place ([`of`]):
//! slow validators that moved the approval times of their cell, or left
//! them as they were (compared only where both rows approved every block
//! and have times), and the rows the plots leave out (no approval time to
//! draw). Every figure a note names is one of the rows' own.

use super::SweepRow;

/// One cell's row with slow validators beside the same cell's row
/// without them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SlowPair {
    /// `100 x 20, no-show 0, slow 0.5`.
    pub label: String,
    pub slow_fraction: f64,
    /// (p50, max) ms at slow 0 and with the slow validators.
    pub without: (u64, u64),
    pub with: (u64, u64),
    /// When the honest and the slow validators sent their last approval
    /// of a block (median, ms), as the row's `sent ms` / `slow sent ms`.
    pub sent_ms: Option<u64>,
    pub slow_sent_ms: Option<u64>,
}

/// A note the rows call for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Note {
    /// Slow validators moved their cell's approval times.
    SlowMoved { pairs: Vec<SlowPair> },
    /// Slow validators left their cell's approval times as they were;
    /// `larger`: the sweep holds no larger slow fraction to try.
    SlowUnmoved { pairs: Vec<SlowPair>, larger: bool },
    /// Rows without an approval time, left out of the plots, and how long
    /// the runs went on after the last block's slot.
    NotPlotted {
        labels: Vec<String>,
        run_after_s: Option<u64>,
    },
}

/// A row's cell and slow fraction, as the notes name it.
fn label(r: &SweepRow) -> String {
    format!(
        "{} x {}, no-show {}, slow {}",
        r.n_validators, r.n_cores, r.no_show_fraction, r.slow_fraction
    )
}

/// A row's (p50, p99, max) where every block was approved and the three
/// are known; `None` otherwise (nothing to compare).
fn times(r: &SweepRow) -> Option<(u64, u64, u64)> {
    r.all_approved
        .then_some(())
        .and(Some((r.p50_ms?, r.p99_ms?, r.max_ms?)))
}

/// Each row with slow validators beside its cell's row at slow 0, both
/// with times; whether they moved (any of p50, p99, max differs).
fn slow_pairs(rows: &[SweepRow]) -> Vec<(SlowPair, bool)> {
    rows.iter()
        .filter(|a| a.slow_fraction > 0.0)
        .filter_map(|a| {
            let b = rows.iter().find(|b| {
                b.slow_fraction == 0.0
                    && (b.n_validators, b.n_cores) == (a.n_validators, a.n_cores)
                    && b.no_show_fraction == a.no_show_fraction
            })?;
            let (with, without) = (times(a)?, times(b)?);
            let pair = SlowPair {
                label: label(a),
                slow_fraction: a.slow_fraction,
                without: (without.0, without.2),
                with: (with.0, with.2),
                sent_ms: a.sent_p50_ms,
                slow_sent_ms: a.slow_sent_p50_ms,
            };
            Some((pair, with != without))
        })
        .collect()
}

/// The notes `rows` call for, in the order they are printed.
pub(crate) fn of(rows: &[SweepRow]) -> Vec<Note> {
    let mut notes = Vec::new();
    let (moved, unmoved): (Vec<_>, Vec<_>) = slow_pairs(rows).into_iter().partition(|p| p.1);
    if !moved.is_empty() {
        notes.push(Note::SlowMoved {
            pairs: moved.into_iter().map(|p| p.0).collect(),
        });
    }
    if !unmoved.is_empty() {
        let most = unmoved
            .iter()
            .map(|p| p.0.slow_fraction)
            .fold(0.0, f64::max);
        notes.push(Note::SlowUnmoved {
            larger: rows.iter().all(|r| r.slow_fraction <= most),
            pairs: unmoved.into_iter().map(|p| p.0).collect(),
        });
    }
    let unplotted: Vec<&SweepRow> = rows.iter().filter(|r| r.p50_ms.is_none()).collect();
    if !unplotted.is_empty() {
        notes.push(Note::NotPlotted {
            labels: unplotted.iter().map(|r| label(r)).collect(),
            run_after_s: unplotted
                .iter()
                .map(|r| r.run_after_last_block_secs)
                .max()
                .flatten(),
        });
    }
    notes
}

/// When the slow validators sent their last approval against the others,
/// as the row's columns show it.
fn sent(p: &SlowPair) -> String {
    match (p.slow_sent_ms, p.sent_ms) {
        (Some(slow), Some(honest)) => format!(
            "the slow validators sent their last approval of a block at {slow} ms, {} the \
             others' {honest} ms",
            if slow > honest {
                "later than"
            } else if slow < honest {
                "earlier than"
            } else {
                "as"
            }
        ),
        _ => "when the slow validators sent their approvals is not known (-)".to_owned(),
    }
}

impl Note {
    /// The note as one paragraph (the legend wraps it).
    pub(crate) fn text(&self) -> String {
        match self {
            Note::SlowMoved { pairs } => {
                let each: Vec<String> = pairs
                    .iter()
                    .map(|p| {
                        format!(
                            "at {} the median approval came at {} ms against {} ms at slow 0, \
                             the slowest at {} ms against {} ms ({})",
                            p.label,
                            p.with.0,
                            p.without.0,
                            p.with.1,
                            p.without.1,
                            sent(p)
                        )
                    })
                    .collect();
                format!(
                    "slow: the slow validators' checks take slow_factor times longer, and their \
                     approvals are among those the blocks wait for: {}.",
                    each.join("; ")
                )
            }
            Note::SlowUnmoved { pairs, larger } => {
                let each: Vec<String> =
                    pairs
                        .iter()
                        .map(|p| {
                            format!(
                            "at {} the median approval came at {} ms and the slowest at {} ms, \
                             as at slow 0 ({})",
                            p.label, p.with.0, p.with.1, sent(p)
                        )
                        })
                        .collect();
                let most = pairs.iter().map(|p| p.slow_fraction).fold(0.0, f64::max);
                format!(
                    "slow: the slow validators' checks take slow_factor times longer, yet the \
                     blocks' approval times did not move: {}; the other validators' approvals \
                     approved the blocks first.{}",
                    each.join("; "),
                    if *larger {
                        format!(
                            " A slow_fraction above {most} or a larger slow_factor may make \
                             them the ones waited for."
                        )
                    } else {
                        String::new()
                    }
                )
            }
            Note::NotPlotted {
                labels,
                run_after_s,
            } => format!(
                "not plotted: {} (p50, p99, max -): no expected validator approved a block \
                 before the run ended{}, so there is no approval time to draw; a longer \
                 run_after_last_block_secs may let them approve (no-shows.yaml runs 180 s).",
                labels.join("; "),
                run_after_s.map_or(String::new(), |s| format!(
                    ", {s} s after the last block's slot (run_after_last_block_secs)"
                ))
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of 100 x 20 at `no_show` and `slow`, approved at `p50` ms
    /// (`None`: never), the slow validators' last approval at `slow_sent`.
    fn row(no_show: f64, slow: f64, p50: Option<u64>, slow_sent: Option<u64>) -> SweepRow {
        SweepRow {
            n_validators: 100,
            n_cores: 20,
            no_show_fraction: no_show,
            slow_fraction: slow,
            all_approved: p50.is_some(),
            p50_ms: p50,
            p99_ms: p50.map(|p| p + 4),
            max_ms: p50.map(|p| p + 5),
            assignments_per_block: 638.0,
            max_tranche: 11,
            no_shows_max: 0,
            bytes_out_p50: 236 << 10,
            wall_s: 1.0,
            cpu_s: 1.0,
            sent_p50_ms: Some(7_000),
            slow_sent_p50_ms: slow_sent,
            run_after_last_block_secs: Some(60),
        }
    }

    /// The numbers a note names (ms and the like: 100 and up).
    fn numbers(text: &str) -> Vec<u64> {
        text.split(|c: char| !c.is_ascii_digit())
            .filter_map(|w| w.parse().ok())
            .filter(|&n| n >= 100)
            .collect()
    }

    /// What each note claims, checked against the rows beside it: every
    /// number it names is a cell of the table; "did not move" only where
    /// the cells' times are equal, "moved" only where they differ;
    /// "later than" / "earlier than" as the sent columns say; a larger
    /// slow fraction suggested only where the sweep has none.
    fn check(rows: &[SweepRow], text: &str) {
        let table = super::super::table(rows);
        let cells: Vec<&str> = table.split_whitespace().collect();
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for n in numbers(&flat) {
            assert!(
                cells.contains(&n.to_string().as_str()) || n == 180,
                "{n} is no figure of the table:\n{table}\n{flat}"
            );
        }
        let pairs = slow_pairs(rows);
        if flat.contains("did not move") {
            assert!(pairs.iter().any(|p| !p.1), "{flat}");
        }
        if flat.contains("are among those the blocks wait for") {
            assert!(pairs.iter().any(|p| p.1), "{flat}");
        }
        for (p, _) in &pairs {
            if let (Some(s), Some(h)) = (p.slow_sent_ms, p.sent_ms) {
                let said = format!("at {s} ms, later than the others' {h} ms");
                assert_eq!(flat.contains(&said), s > h, "{flat}");
            }
        }
        if let Some(at) = flat.find("A slow_fraction above ") {
            let most: f64 = flat[at + 22..].split(' ').next().unwrap().parse().unwrap();
            assert!(rows.iter().all(|r| r.slow_fraction <= most), "{flat}");
        }
    }

    /// Each note with rows that show its cause and rows that do not.
    #[test]
    fn each_note_comes_with_its_cause_and_says_only_what_the_rows_show() {
        let base = row(0.0, 0.0, Some(12_558), None);
        // The README's example, small (issue 60): slow 0.5 moved the
        // blocks (12 558 -> 14 557 ms) and its validators sent earlier
        // (5 500 ms against 7 000); no-show 0.2 never approved in 60 s.
        let readme = [
            base.clone(),
            row(0.0, 0.5, Some(14_557), Some(5_500)),
            row(0.2, 0.0, None, None),
            row(0.2, 0.5, None, Some(29_500)),
        ];
        let unmoved = [base.clone(), row(0.0, 0.1, Some(12_558), Some(9_000))];
        let both = [
            base.clone(),
            row(0.0, 0.1, Some(12_558), Some(9_000)),
            row(0.0, 0.5, Some(14_557), Some(5_500)),
        ];
        type Case<'a> = (&'a str, &'a [SweepRow], &'a [SweepRow]);
        let cases: [Case; 3] = [
            // (note, rows with its cause, rows without)
            (
                "slow: the slow validators' checks take slow_factor times longer, and",
                &readme,
                &unmoved,
            ),
            ("did not move", &unmoved, &readme),
            (
                "not plotted: 100 x 20, no-show 0.2, slow 0; 100 x 20, no-show 0.2, slow 0.5",
                &readme,
                &both,
            ),
        ];
        for (note, with, without) in cases {
            for rows in [with, without, &both[..], &[base.clone()][..]] {
                let text = super::super::legend(rows);
                check(rows, &text);
            }
            let flat = |rows: &[SweepRow]| {
                super::super::legend(rows)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            assert!(flat(with).contains(note), "{note}: {}", flat(with));
            assert!(!flat(without).contains(note), "{note}: {}", flat(without));
        }
        // The README's rows: no "did not move", no suggestion of the row
        // already shown, the earlier sending said as it is.
        let text = super::super::legend(&readme);
        assert!(
            !text.contains("did not move") && !text.contains("--slow 0.5"),
            "{text}"
        );
        assert!(text
            .replace("\n  ", " ")
            .contains("at 5500 ms, earlier than the others' 7000 ms"));
        // A larger fraction suggested only where the sweep has none.
        assert!(flat_of(&unmoved).contains("A slow_fraction above 0.1"));
        assert!(!flat_of(&both).contains("A slow_fraction above"));
        // The page says which rows its plots leave out, and why.
        let page = super::super::page(&readme, 0, "abc", "tranche sweep network").unwrap();
        assert!(
            page.contains("<p>not plotted: 100 x 20, no-show 0.2, slow 0;"),
            "{page}"
        );
        assert!(page.contains("60 s after the last block"));
        let page = super::super::page(&both, 0, "abc", "tranche sweep network").unwrap();
        assert!(!page.contains("not plotted"));
    }

    fn flat_of(rows: &[SweepRow]) -> String {
        super::super::legend(rows)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }
}
