//! The property of the cost-table fuzz target: `CostTable::from_yaml_str`
//! (the reader of `--costs FILE`, through `tranche_config::yaml::read`)
//! never panics, refuses on one line starting `cost table: `, and a table
//! it accepts writes out (`to_yaml`) to a file that reads back to the same
//! table.
//!
//! Not a module of the crate's library (tranche-primitives' corpus replay
//! cannot depend on tranche-model): the fuzz target and
//! `crates/model/tests/fuzz_corpus.rs` include this file by `#[path]`.

#![allow(dead_code)]

use tranche_model::costs::CostTable;

/// Target name and check, for the corpus replay.
pub type Target = (&'static str, fn(&[u8]) -> bool);

/// Every target of this file.
pub const TARGETS: &[Target] = &[("cost_table", cost_table)];

/// Reads `data` (if UTF-8) as a cost table. Returns whether it was read.
pub fn cost_table(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    match CostTable::from_yaml_str(text) {
        Ok(table) => {
            let again = CostTable::from_yaml_str(&table.to_yaml())
                .unwrap_or_else(|e| panic!("its own file is refused: {e}"));
            assert_eq!(again, table, "a table read back differs");
            true
        }
        Err(e) => {
            let line = e.to_string();
            assert!(!line.contains('\n'), "not one line: {line}");
            assert!(line.starts_with("cost table: "), "{line}");
            assert!(line.len() <= 1_000, "{} bytes", line.len());
            false
        }
    }
}
