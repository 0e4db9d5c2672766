//! Checking a cache file's content against the world it claims to belong
//! to, before anything indexes the configuration with it: every bundle's
//! block and validator in range, every message naming that block and that
//! validator, claimed candidates within the block's candidates, deliverers
//! among the emulated peers, every block with messages. A file that passes
//! its checksum but was forged or produced by another build fails here with
//! the reason.

use super::bundles::{Bundle, TestMessage};
use super::cache::GeneratedMessages;
use super::world::{World, NODE_UNDER_TEST};
use tranche_config::generation::INITIAL_SLOT;
use tranche_primitives::ApprovalDistributionMessage;

/// `Err(reason)` for the first thing in `messages` that cannot belong to
/// `world`.
pub fn validate(messages: &GeneratedMessages, world: &World) -> Result<(), String> {
    if messages.initial_slot != INITIAL_SLOT {
        return Err(format!(
            "initial slot {} instead of {INITIAL_SLOT}",
            messages.initial_slot
        ));
    }
    let n_validators = world.pairs.len() as u32;
    let mut blocks_seen = vec![false; world.blocks.len()];
    for (i, b) in messages.bundles.iter().enumerate() {
        validate_bundle(b, world, n_validators).map_err(|e| format!("bundle {i}: {e}"))?;
        blocks_seen[b.block as usize] = true;
    }
    if let Some(b) = blocks_seen.iter().position(|seen| !seen) {
        return Err(format!("no messages for block {b}"));
    }
    Ok(())
}

fn validate_bundle(b: &Bundle, world: &World, n_validators: u32) -> Result<(), String> {
    let Some(block) = world.blocks.get(b.block as usize) else {
        return Err(format!(
            "block {} of a run of {}",
            b.block,
            world.blocks.len()
        ));
    };
    if b.validator >= n_validators || b.validator == NODE_UNDER_TEST.0 {
        return Err(format!(
            "validator {} is not an emulated peer of {n_validators} validators",
            b.validator
        ));
    }
    let n_candidates = block.candidates.len() as u32;
    for (kind, list) in [("assignment", &b.assignments), ("approval", &b.approvals)] {
        for m in list.iter() {
            validate_message(m, kind, b, block.hash, n_candidates, n_validators)?;
        }
    }
    Ok(())
}

fn validate_message(
    m: &TestMessage,
    kind: &str,
    b: &Bundle,
    block_hash: tranche_primitives::Hash,
    n_candidates: u32,
    n_validators: u32,
) -> Result<(), String> {
    if m.candidates.is_empty() {
        return Err(format!("an {kind} naming no candidate"));
    }
    if let Some(c) = m.candidates.iter().find(|c| **c >= n_candidates) {
        return Err(format!(
            "an {kind} for candidate {c} of a block with {n_candidates}"
        ));
    }
    if let Some(s) = m
        .sent_by
        .iter()
        .find(|s| **s >= n_validators || **s == NODE_UNDER_TEST.0)
    {
        return Err(format!("an {kind} delivered by {s}, not an emulated peer"));
    }
    let (hashes, validators): (Vec<_>, Vec<_>) = match (&m.message, kind) {
        (ApprovalDistributionMessage::Assignments(items), "assignment") => items
            .iter()
            .map(|a| (a.cert.block_hash, a.cert.validator.0))
            .unzip(),
        (ApprovalDistributionMessage::Approvals(items), "approval") => {
            items.iter().map(|v| (v.block_hash, v.validator.0)).unzip()
        }
        _ => return Err(format!("an {kind} holding another kind of message")),
    };
    if hashes.is_empty() {
        return Err(format!("an empty {kind} message"));
    }
    if hashes.iter().any(|h| *h != block_hash) {
        return Err(format!("an {kind} for another block than {}", b.block));
    }
    if validators.iter().any(|v| *v != b.validator) {
        return Err(format!(
            "an {kind} signed by another validator than {}",
            b.validator
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::generate;
    use crate::generate::tests::small;

    #[test]
    fn generated_messages_pass_and_forgeries_fail_with_the_reason() {
        let (world, good) = generate(&small(3), false);
        assert_eq!(validate(&good, &world), Ok(()));

        let mut m = good.clone();
        m.bundles[0].block = 99;
        let err = validate(&m, &world).unwrap_err();
        assert!(err.contains("block 99 of a run of 2"), "{err}");

        let mut m = good.clone();
        m.bundles.clear();
        assert_eq!(validate(&m, &world).unwrap_err(), "no messages for block 0");

        let mut m = good.clone();
        m.bundles[0].validator = 0;
        assert!(validate(&m, &world)
            .unwrap_err()
            .contains("not an emulated peer"));

        let mut m = good.clone();
        let first = m
            .bundles
            .iter()
            .position(|b| !b.assignments.is_empty())
            .unwrap();
        m.bundles[first].assignments[0].candidates = vec![7];
        assert!(validate(&m, &world).unwrap_err().contains("candidate 7"));

        let mut m = good.clone();
        m.bundles[first].assignments[0].sent_by.push(500);
        assert!(validate(&m, &world)
            .unwrap_err()
            .contains("delivered by 500"));

        let mut m = good.clone();
        let other = m.bundles[first].validator % 11 + 1;
        m.bundles[first].validator = other;
        assert!(validate(&m, &world)
            .unwrap_err()
            .contains("signed by another validator"));

        let mut m = good;
        m.initial_slot = 3;
        assert!(validate(&m, &world).unwrap_err().contains("initial slot 3"));
    }
}
