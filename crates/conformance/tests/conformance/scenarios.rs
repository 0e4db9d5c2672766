//! Every scenario in every folder under `testdata/scenarios/` run through the voting state
//! machine must give Polkadot's decision fields exactly: per block the four
//! `*_tick` fields, per candidate `approved_tick` and `approved_tranche`, per
//! event the result class.

use std::path::{Path, PathBuf};
use tranche_conformance::scenario::verdict::{
    differences, expected_path, load_expected, result_class as class, scenario_files,
};
use tranche_conformance::scenario::{run, Scenario};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/scenarios")
}

#[test]
fn public_scenarios_match_polkadot() {
    let files = scenario_files(&dir()).unwrap();
    // The six hand-written cases, the 300 random ones and the reduced
    // regression cases: none may be missing, skipped or allow-listed.
    assert!(
        files.len() >= 309,
        "expected every public scenario, found {}",
        files.len()
    );
    let mut diffs = Vec::new();
    let mut failed = 0;
    for f in &files {
        let scenario = Scenario::load(f).unwrap();
        let expected = load_expected(&expected_path(f)).unwrap();
        let d = differences(&run(&scenario).result, &expected);
        if !d.is_empty() {
            failed += 1;
        }
        diffs.extend(d.iter().map(|d| format!("{}: {d}", scenario.name)));
    }
    assert!(
        diffs.is_empty(),
        "{failed} of {} scenarios differ, {} differences:\n{}",
        files.len(),
        diffs.len(),
        diffs.join("\n")
    );
}

#[test]
fn invalid_events_are_messages_not_file_errors() {
    let text = r#"{"name":"bad-events","session":{"n_validators":10,"n_cores":2,"needed_approvals":3,"no_show_slots":2},
      "blocks":[{"name":"A","number":1,"slot":10,"candidates":[{"core":0,"group":0}]}],
      "events":[
        {"tick":120,"kind":"assignment","validator":5,"block":"A","candidates":[1],"tranche":0},
        {"tick":120,"kind":"assignment","validator":5,"block":"A","candidates":[3],"tranche":0},
        {"tick":120,"kind":"assignment","validator":5,"block":"Z","candidates":[0],"tranche":0},
        {"tick":120,"kind":"assignment","validator":42,"block":"A","candidates":[0],"tranche":0},
        {"tick":121,"kind":"approval","validator":42,"block":"A","candidates":[0]},
        {"tick":121,"kind":"approval","validator":5,"block":"A","candidates":[1]},
        {"tick":121,"kind":"approval","validator":5,"block":"Z","candidates":[0]},
        {"tick":122,"kind":"assignment","validator":5,"block":"A","candidates":[0],"tranche":0},
        {"tick":122,"kind":"assignment","validator":5,"block":"A","candidates":[0],"tranche":3},
        {"tick":123,"kind":"approval","validator":5,"block":"A","candidates":[0, 4000000000]},
        {"tick":123,"kind":"assignment","validator":6,"block":"A","candidates":[4000000000],"tranche":0},
        {"tick":130,"kind":"finalize","block":"A"}
      ]}"#;
    let s = Scenario::parse(text).unwrap();
    let r = run(&s).result;
    let got: Vec<&str> = r.events.iter().map(|e| class(&e.result)).collect();
    assert_eq!(
        got,
        vec![
            "Bad",
            "Bad",
            "Bad",
            "Bad",
            "Bad",
            "Bad",
            "Bad",
            "Accepted",
            "AcceptedDuplicate",
            "Bad",
            "Bad",
            "Signalled"
        ]
    );
    assert!(r.events[0].result.contains("InvalidCandidateIndex"));
    assert!(r.events[1].result.contains("InvalidBitfield"));
    assert!(r.events[2].result.contains("UnknownBlock"));
    assert!(r.events[4].result.contains("NoAssignment"));
    assert!(r.events[9]
        .result
        .contains("InvalidCandidateIndex(4000000000)"));
    assert!(r.events[10].result.contains("InvalidBitfield"));
    // The finalized block itself is pruned, as upstream's canonicalize does.
    assert_eq!(r.blocks[0].pruned_tick, Some(130));
}

/// Issue 41: a count of one agrees with its noun in the timeline
/// ("imported with 1 candidate(s)" before).
#[test]
fn the_timeline_counts_in_words_that_agree() {
    let scenario = Scenario::load(&dir().join("01_tranche0_enough.json")).unwrap();
    let text = tranche_conformance::scenario::run::render_timeline(&scenario, &run(&scenario));
    for want in [
        "session: 10 validators, 2 cores, needed_approvals 3, no-show after 2 slots",
        "imported with 1 candidate\n",
        "(3 assignments, 0 approvals)",
    ] {
        assert!(text.contains(want), "{want:?} in\n{text}");
    }
    assert!(!text.contains("(s)"), "{text}");
}
