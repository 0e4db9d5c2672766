//! Vectors that grow by an eighth rather than double, for the per-block
//! tables a validator keeps for as long as a block is unfinalized (every
//! message's entry, every assignment of a candidate). Doubling leaves a
//! table a quarter empty on average and up to half; an eighth at a time
//! wastes at most an eighth, for a copy of the table every eighth of its
//! length (large tables grow in place: the allocator remaps them).

/// Push `item`, growing `v` by an eighth of its length (at least 16) when
/// it is full.
pub fn push<T>(v: &mut Vec<T>, item: T) {
    reserve_one(v);
    v.push(item);
}

/// Insert `item` at `index`, growing as [`push`] does.
pub fn insert<T>(v: &mut Vec<T>, index: usize, item: T) {
    reserve_one(v);
    v.insert(index, item);
}

fn reserve_one<T>(v: &mut Vec<T>) {
    if v.len() == v.capacity() {
        v.reserve_exact((v.len() / 8).max(16));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_full_table_grows_by_an_eighth() {
        let mut v: Vec<u64> = Vec::new();
        for i in 0..100_000u64 {
            super::push(&mut v, i);
            assert!(
                v.capacity() <= v.len() + v.len() / 8 + 16,
                "{i}: {}",
                v.capacity()
            );
        }
        super::insert(&mut v, 0, 7);
        assert_eq!((v[0], v[1], v.len()), (7, 0, 100_001));
    }
}
