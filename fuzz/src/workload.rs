//! The properties of the two fuzz targets of the benchmark's inputs: the
//! test-sequence parser (`tranche_config::parse`) and the message
//! cache decoder (`tranche_workload::generate::cache::decode`). Both may
//! refuse their input, but must never panic, and a refusal is one line.
//!
//! Not a module of the crate's library (whose `src/lib.rs` is compiled into
//! tranche-primitives' corpus replay, which cannot depend on
//! tranche-workload): the fuzz targets and
//! `crates/workload/tests/fuzz_corpus.rs` include this file by `#[path]`,
//! so the fuzzers and the replay test run the same checks.

#![allow(dead_code)]

use parity_scale_codec::{Decode, Encode};
use std::path::Path;
use tranche_config as config;
use tranche_workload::generate::cache::{self, cache_key, GeneratedMessages};

/// Target name and check, for the corpus replay.
pub type Target = (&'static str, fn(&[u8]) -> bool);

/// Every target of this file.
pub const TARGETS: &[Target] = &[
    ("config_parser", config_parser),
    ("message_cache", message_cache),
];

/// Parses `data` (if UTF-8) as a test sequence. A refusal is one line that
/// names the source; an accepted file has an approval step, and resolving
/// it (the vacuity check, each step's plan and estimate) does not panic. Returns whether it parsed.
pub fn config_parser(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    match config::parse(text, "fuzz") {
        Ok(cfg) => {
            assert!(!cfg.steps.is_empty());
            let ask = config::resolve::Ask {
                text,
                source: "fuzz",
                validators: None,
                cores: None,
                blocks: None,
                small: false,
                allow_vacuous: false,
                seed: 0,
            };
            if let Ok(resolved) = config::resolve::resolve(&ask) {
                let _ = resolved.too_large(Some(1 << 30));
            }
            for step in &cfg.steps {
                assert!(step.drain_ticks().is_some() && step.last_block_tick().is_some());
            }
            true
        }
        Err(e) => {
            let line = e.to_string();
            assert!(!line.contains('\n'), "not one line: {line}");
            assert!(line.starts_with("fuzz: "), "{line}");
            false
        }
    }
}

/// The first byte picks the mode: even, the rest is a whole cache file;
/// odd, the rest is a payload framed with a valid header (so the checksum
/// passes and the SCALE decoder sees arbitrary bytes). A decoded value
/// re-encodes to bytes that decode to the same value. Returns whether it
/// decoded.
pub fn message_cache(data: &[u8]) -> bool {
    let Some((&mode, rest)) = data.split_first() else {
        return false;
    };
    let key = cache_key(b"fuzz");
    let framed;
    let file = if mode & 1 == 0 {
        rest
    } else {
        framed = cache::frame(&key, rest);
        &framed
    };
    match cache::decode(file, &key, Path::new("fuzz.bin")) {
        Ok(messages) => {
            let again = GeneratedMessages::decode(&mut &messages.encode()[..])
                .expect("a re-encoding decodes");
            assert_eq!(again, messages);
            true
        }
        Err(e) => {
            assert!(!e.to_string().contains('\n'), "{e}");
            false
        }
    }
}
