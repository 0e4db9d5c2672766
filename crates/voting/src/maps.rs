//! The hash maps of the state machine, on aHash instead of std's SipHash.
//! Their keys (block and candidate hashes, a (block, candidate index)
//! pair, a session index) come from the chain the node imports, not from
//! peers' choice, and a SipHash over a 32-byte hash cost more than the
//! look-up it served (about 1.5 % of a simulated delivery's time, from
//! voting's maps alone, in BENCHMARKS.md "Where a delivery's time goes
//! now"). aHash's `RandomState` keeps a random seed per map, as std's does,
//! so nothing may depend on a map's iteration order here either.

/// A hash map on aHash.
pub(crate) type Map<K, V> = std::collections::HashMap<K, V, ahash::RandomState>;
/// A hash set on aHash.
pub(crate) type Set<K> = std::collections::HashSet<K, ahash::RandomState>;
