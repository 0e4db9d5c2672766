//! What a whole-network simulation runs, as data: `NetworkSpec` and the
//! parts it is made of, with their defaults, plain data in
//! `tranche_records` (so that a result carries it without linking this
//! crate), re-exported here where the reader (`parse/network_spec.rs`)
//! builds it and `approval_network` checks it.

pub use tranche_records::network_spec::{DelayMs, Latency, NetworkSpec, Offline, OfflineSpan};
