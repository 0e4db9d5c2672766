//! Writes the seed corpus of every fuzz target from the conformance vector
//! files: the wire messages (`wire[].encoded`, `validation_protocol_encoded`),
//! the certificates (`blocks[].assignments[].assignments[].cert`), and the
//! items and bitfields inside the messages, plus a few hand-made edge cases
//! (a 500-bit bitfield, a v1 modulo certificate, padding bits set).
//!
//! Usage: `seed_corpus VECTORS_DIR CORPUS_DIR` (from `fuzz/`:
//! `cargo run --release --example seed_corpus -- ../testdata/vectors corpus`).
//! Files are named by the hash of their content, so reruns add nothing twice.

use parity_scale_codec::Encode;
use std::path::{Path, PathBuf};
use tranche_primitives::cert::{AssignmentCertKind, VrfSignature};
use tranche_primitives::{
    ApprovalDistributionMessage, AssignmentCert, CandidateBitfield, CoreBitfield, CoreIndex, Hash,
    IndirectAssignmentCert, IndirectSignedApprovalVote, ValidationProtocol, ValidatorIndex,
    ValidatorSignature,
};

struct Corpus {
    root: PathBuf,
    written: usize,
}

impl Corpus {
    fn add(&mut self, target: &str, bytes: &[u8]) {
        let dir = self.root.join(target);
        std::fs::create_dir_all(&dir).expect("create corpus folder");
        let name = format!("seed-{}", &Hash::blake2_256(bytes).to_string()[..16]);
        let path = dir.join(name);
        if !path.exists() {
            std::fs::write(&path, bytes).expect("write seed");
            self.written += 1;
        }
    }

    fn add_bitfield<T>(&mut self, bf: &tranche_primitives::bitfield::Bitfield<T>) {
        self.add("candidate_bitfield", &bf.encode());
    }

    fn add_assignment(&mut self, cert: &IndirectAssignmentCert, claimed: &CandidateBitfield) {
        self.add("indirect_assignment_cert", &cert.encode());
        self.add("assignment_cert", &cert.cert.encode());
        self.add_bitfield(claimed);
        if let AssignmentCertKind::RelayVRFModuloCompact { core_bitfield } = &cert.cert.kind {
            self.add_bitfield(core_bitfield);
        }
    }

    fn add_message(&mut self, msg: &ApprovalDistributionMessage) {
        self.add("approval_distribution", &msg.encode());
        self.add(
            "validation_protocol",
            &ValidationProtocol::ApprovalDistribution(msg.clone()).encode(),
        );
        match msg {
            ApprovalDistributionMessage::Assignments(items) => {
                for item in items {
                    self.add_assignment(&item.cert, &item.claimed);
                }
            }
            ApprovalDistributionMessage::Approvals(votes) => {
                for vote in votes {
                    self.add("indirect_approval_vote", &vote.encode());
                    self.add_bitfield(&vote.candidate_indices);
                }
            }
        }
    }
}

fn hex_field(v: &serde_json::Value) -> Option<Vec<u8>> {
    hex::decode(v.as_str()?).ok()
}

fn from_vectors(corpus: &mut Corpus, file: &Path) {
    let text = std::fs::read_to_string(file).expect("read vector file");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("vector file is JSON");
    for w in doc["wire"].as_array().into_iter().flatten() {
        if let Some(bytes) = hex_field(&w["encoded"]) {
            let msg = ApprovalDistributionMessage::decode_wire(&bytes)
                .expect("reference wire message decodes");
            corpus.add_message(&msg);
        }
        if let Some(bytes) = hex_field(&w["validation_protocol_encoded"]) {
            corpus.add("validation_protocol", &bytes);
        }
    }
    for block in doc["blocks"].as_array().into_iter().flatten() {
        for va in block["assignments"].as_array().into_iter().flatten() {
            for a in va["assignments"].as_array().into_iter().flatten() {
                if let Some(bytes) = hex_field(&a["cert"]) {
                    corpus.add("assignment_cert", &bytes);
                }
            }
        }
    }
}

/// Edge cases the vectors do not hold.
fn hand_made(corpus: &mut Corpus) {
    let vrf = VrfSignature {
        pre_output: [0x5a; 32],
        proof: [0; 64],
    };
    let cert = |kind| IndirectAssignmentCert {
        block_hash: Hash([0x11; 32]),
        validator: ValidatorIndex(499),
        cert: AssignmentCert { kind, vrf },
    };
    let widest = CandidateBitfield::from_index(499);
    let items = vec![
        (
            cert(AssignmentCertKind::RelayVRFModulo { sample: 3 }),
            CandidateBitfield::from_index(7),
        ),
        (
            cert(AssignmentCertKind::RelayVRFModuloCompact {
                core_bitfield: CoreBitfield::from_indices(&[0, 63, 64, 499]).unwrap(),
            }),
            CandidateBitfield::from_indices(&[0, 63, 64, 499]).unwrap(),
        ),
        (
            cert(AssignmentCertKind::RelayVRFDelay {
                core_index: CoreIndex(u32::MAX),
            }),
            widest.clone(),
        ),
    ];
    corpus.add_message(&ApprovalDistributionMessage::assignments(
        items
            .into_iter()
            .map(|(cert, claimed)| tranche_primitives::AssignmentItem { cert, claimed }),
    ));
    let vote = IndirectSignedApprovalVote {
        block_hash: Hash([0x22; 32]),
        candidate_indices: CandidateBitfield::with_len(0, []),
        validator: ValidatorIndex(0),
        signature: ValidatorSignature([0xcc; 64]),
    };
    let mut wide = vote.clone();
    wide.candidate_indices = widest;
    corpus.add_message(&ApprovalDistributionMessage::approvals([vote, wide]));
    // A bitfield of 5 bits with its three padding bits set (decodes as {}/5),
    // and one over the wire limit (rejected on the wire, accepted by SCALE).
    corpus.add("candidate_bitfield", &[0x14, 0xe0]);
    corpus.add(
        "candidate_bitfield",
        &CandidateBitfield::from_index(500).encode(),
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: seed_corpus VECTORS_DIR CORPUS_DIR");
        std::process::exit(2);
    }
    let mut corpus = Corpus {
        root: PathBuf::from(&args[2]),
        written: 0,
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&args[1])
        .expect("read vectors folder")
        .map(|e| e.expect("folder entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    for f in &files {
        from_vectors(&mut corpus, f);
    }
    hand_made(&mut corpus);
    println!(
        "{} vector files, {} new seed files under {}",
        files.len(),
        corpus.written,
        corpus.root.display()
    );
}
