//! Nothing: this crate is its criterion microbenchmarks (`benches/`:
//! `crypto` and `wire` of `tranche-primitives`, `handle` of
//! `tranche-distribution`, `import` of `tranche-voting`), each run as
//! `cargo bench -p tranche-microbench --bench NAME`. They live in a crate of
//! their own so that criterion (and its regex, ciborium, plotting and
//! templating) is built by `cargo bench` only, not by every `cargo test`
//! of the crates they measure (a dev-dependency would be).
