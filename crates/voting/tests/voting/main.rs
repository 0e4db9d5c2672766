//! Every integration test of the crate in one test binary (one link
//! instead of one per file: most of a cold `cargo test` is building and
//! linking). Each module is one concern, as its own doc says.

mod common;
mod fuzz_corpus;
mod properties;
mod rule_cases;
mod rules;
