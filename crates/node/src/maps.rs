//! The hash maps of the node's runtimes, on aHash instead of std's
//! SipHash, as voting's own (`tranche_voting`'s `maps`): their keys are
//! block hashes, validator and candidate indices and the assignments
//! peers sent (the look-ahead's verdicts, hashed once per message), and a
//! SipHash over them cost more than the look-up. aHash keeps a random
//! seed per map, as std does, so nothing depends on iteration order.

/// A hash map on aHash.
pub(crate) type Map<K, V> = std::collections::HashMap<K, V, ahash::RandomState>;
/// A hash set on aHash.
pub(crate) type Set<K> = std::collections::HashSet<K, ahash::RandomState>;
