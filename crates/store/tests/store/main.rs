//! Every integration test of the crate in one test binary. The voting
//! tests' helpers (sessions, blocks, a driver applying each output's
//! writes to a store) are the same ones, compiled in from
//! `crates/voting/tests/voting/common/`.

#[path = "../../../voting/tests/voting/common/mod.rs"]
mod common;
mod ownership;
mod persistence;
