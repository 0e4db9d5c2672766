//! Every public conformance vector file goes through the conformance path:
//! our computed file must match the reference item by item (deterministic
//! outputs exactly, proofs and signatures by verification), and our own
//! proofs and signatures must verify.

use std::path::PathBuf;
use tranche_conformance::vectors::{self as conformance, check};

fn vector_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/vectors");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("testdata/vectors exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 4,
        "expected the public vector files in {}",
        dir.display()
    );
    files
}

#[test]
fn public_vectors_conform() {
    for path in vector_files() {
        let reference = conformance::load(&path).unwrap();
        let ours = conformance::compute(&reference).unwrap();
        let report = check::compare(&reference, &ours).unwrap();
        assert!(
            report.failures.is_empty(),
            "{}: {}\n{}",
            path.display(),
            report.summary(),
            report.failures.join("\n")
        );
        assert!(
            report.passed > 100,
            "{}: too few items checked",
            path.display()
        );
    }
}

#[test]
fn a_tampered_result_is_caught() {
    let path = &vector_files()[0];
    let reference = conformance::load(path).unwrap();
    let mut ours = conformance::compute(&reference).unwrap();
    // Shift one tranche and break one payload: both must be reported.
    let block = ours.blocks[0].assignments.as_mut().unwrap();
    let entry = block
        .iter_mut()
        .flat_map(|v| v.assignments.iter_mut())
        .next()
        .unwrap();
    entry.tranche += 1;
    ours.approvals[0].multiple.as_mut().unwrap().payload.0[0] ^= 1;
    let report = check::compare(&reference, &ours).unwrap();
    assert!(report.failures.len() >= 2, "{:?}", report.failures);
}

#[test]
fn output_file_round_trips_through_the_schema() {
    let path = &vector_files()[0];
    let reference = conformance::load(path).unwrap();
    let ours = conformance::compute(&reference).unwrap();
    let text = serde_json::to_string(&ours).unwrap();
    assert!(!text.contains("\"reference\""));
    let dir = std::env::temp_dir().join(format!("tranche-conf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("ours.json");
    std::fs::write(&out, &text).unwrap();
    let back = conformance::load(&out).unwrap();
    assert_eq!(back.blocks.len(), reference.blocks.len());
    // An unknown field is rejected, naming it.
    let bad = text.replacen("\"seed_label\"", "\"seed_lable\"", 1);
    std::fs::write(&out, bad).unwrap();
    let err = format!("{:#}", conformance::load(&out).unwrap_err());
    assert!(err.contains("seed_lable"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
