//! The honest run's notes, table-driven: each with a run whose figures
//! show its cause and one whose figures do not, its claims checked
//! against the block row printed beside it.

use super::Honest;
use crate::network::table::honest::HonestNotes;
use crate::network::table::tests::report;
use crate::network::table::NetworkTable;
use crate::network::{Behaviour, SimulationReport};
use tranche_config::approval_network::NetworkSpec;

/// 40 x 8, one block approved at 7 s, tranche 0 holding `first` claims,
/// tranches up to `max_tranche`, up to `seen` no-shows for the block.
fn run(first: u32, max_tranche: u32, seen: u32) -> SimulationReport {
    let mut r = report(
        40,
        1,
        NetworkSpec::default(),
        |_, _| Some(7_050),
        |_, _| None,
    );
    r.n_cores = 8;
    r.spec.n_cores = 8;
    let b = &mut r.blocks[0];
    b.by_tranche = vec![first; 1];
    b.by_tranche.resize(max_tranche as usize + 1, 1);
    b.max_tranche = max_tranche;
    b.no_shows_max = seen;
    r
}

/// What each note claims, against the table's block row: the tranche-0
/// claims are the block's, fewer than needed x cores; `max tr` and
/// `no-shows` as the row prints them; nobody withholding where the
/// no-shows note says so.
fn check(r: &SimulationReport) {
    let table = r.table();
    let row: Vec<&str> = table
        .lines()
        .find(|l| l.trim_start().starts_with("1 "))
        .unwrap()
        .split_whitespace()
        .collect();
    for note in r.honest_notes() {
        match note {
            Honest::Tranches {
                block,
                first,
                needed,
                cores,
                max_tranche,
            } => {
                assert_eq!((block, first), (1, r.blocks[0].by_tranche[0]));
                assert!(u64::from(first) < u64::from(needed) * u64::from(cores));
                assert_eq!(row[9], max_tranche.to_string(), "{table}");
            }
            Honest::NoShows { seen } => {
                assert_eq!(row[11], seen.to_string(), "{table}");
                assert!(r.validators.iter().all(|v| v.behaviour.counts()));
            }
        }
    }
}

#[test]
fn an_honest_runs_tranches_and_no_shows_are_explained_where_its_figures_show_them() {
    const TRANCHES: &str =
        "max tr: At 40 validators x 8 cores, tranche 0 held 205 candidate claims";
    const NO_SHOWS: &str = "no-shows: At 40 validators x 8 cores, nobody withholds an approval";
    let flat = |r: &SimulationReport| r.legend().split_whitespace().collect::<Vec<_>>().join(" ");
    let mut withheld = run(205, 34, 13);
    withheld.validators[0].behaviour = Behaviour::NoShow;
    // (the run, the notes it gets): issue 60's `tranche network
    // --validators 40 --cores 8 --blocks 1` (205 claims, max tr 34, 13
    // no-shows); tranche 0 enough (240 claims); no later tranche; no
    // no-shows; no-shows where a validator withholds (the late note's).
    let cases = [
        (run(205, 34, 13), vec![TRANCHES, NO_SHOWS]),
        (run(240, 34, 0), vec![]),
        (run(205, 0, 0), vec![]),
        (run(205, 34, 0), vec![TRANCHES]),
        (withheld, vec![TRANCHES]),
    ];
    for (i, (r, wanted)) in cases.iter().enumerate() {
        let text = flat(r);
        for note in [TRANCHES, NO_SHOWS] {
            assert_eq!(
                text.contains(note),
                wanted.contains(&note),
                "case {i}: {text}"
            );
        }
        check(r);
    }
    let text = flat(&cases[0].0);
    assert!(
        text.contains("(30) for each of the 8 candidates (240)"),
        "{text}"
    );
    assert!(text.contains("up to tranche 34") && text.contains("saw up to 13 no-shows"));
}
