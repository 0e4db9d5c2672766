//! The node's own view: the leaves of the blocks it imported, at most
//! `MAX_VIEW_HEADS` of them, newest first.

use tranche_primitives::Hash;

/// The network bridge shares at most this many heads (upstream).
pub const MAX_VIEW_HEADS: usize = 5;

#[derive(Debug, Default, Clone)]
pub struct Leaves {
    heads: Vec<Hash>,
}

impl Leaves {
    /// Record an imported block; returns the new view.
    pub fn add(&mut self, hash: Hash, parent: Hash) -> Vec<Hash> {
        self.heads.retain(|h| *h != parent && *h != hash);
        self.heads.insert(0, hash);
        self.heads.truncate(MAX_VIEW_HEADS);
        self.heads.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_replaces_its_parent_and_the_view_is_capped() {
        let mut l = Leaves::default();
        let h = |b: u8| Hash([b; 32]);
        assert_eq!(l.add(h(1), h(0)), vec![h(1)]);
        assert_eq!(l.add(h(2), h(1)), vec![h(2)]);
        assert_eq!(l.add(h(3), h(1)), vec![h(3), h(2)]);
        for b in 4..10 {
            l.add(h(b), h(100 + b));
        }
        assert_eq!(l.add(h(20), h(200)).len(), MAX_VIEW_HEADS);
    }
}
