//! Approval votes (upstream `ApprovalVote` and `ApprovalVoteMultipleCandidates` in `polkadot/primitives/src/`): the signing payloads of single- and
//! multiple-candidate votes, sr25519 signing and verification under the
//! `substrate` context, and batch verification that bisects a failing
//! batch to find its bad signatures.

use crate::constants::{APPROVAL_MAGIC, SIGNING_CONTEXT};
use crate::ids::{CandidateHash, SessionIndex};
use crate::keys::ValidatorPair;
use parity_scale_codec::{Compact, Encode};
use schnorrkel::{PublicKey, Signature};

/// A 64-byte sr25519 signature as it travels.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ValidatorSignature(pub [u8; 64]);

impl std::fmt::Debug for ValidatorSignature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Signature(")?;
        for b in &self.0[..4] {
            write!(f, "{b:02x}")?;
        }
        write!(f, "…)")
    }
}

/// What an approval vote signs. A vote for one candidate signs the legacy
/// `ApprovalVote` payload (`APPR ‖ hash ‖ session`); a vote for several signs
/// `APPR ‖ SCALE(Vec<hash>) ‖ session`. Hashes are in candidate-index order.
pub fn approval_payload(candidates: &[CandidateHash], session: SessionIndex) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + 5 + 32 * candidates.len() + 4);
    out.extend_from_slice(APPROVAL_MAGIC);
    if candidates.len() != 1 {
        Compact(candidates.len() as u32).encode_to(&mut out);
    }
    for c in candidates {
        out.extend_from_slice(&c.0 .0);
    }
    out.extend_from_slice(&session.to_le_bytes());
    out
}

/// Sign an approval of `candidates` (sp-core `Pair::sign`: randomised nonce).
pub fn sign_approval(
    pair: &ValidatorPair,
    candidates: &[CandidateHash],
    session: SessionIndex,
) -> ValidatorSignature {
    let payload = approval_payload(candidates, session);
    ValidatorSignature(
        pair.keypair()
            .sign_simple(SIGNING_CONTEXT, &payload)
            .to_bytes(),
    )
}

/// Why a vote signature was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum VoteError {
    #[error("signature bytes are malformed")]
    MalformedSignature,
    #[error("signature does not verify")]
    BadSignature,
}

/// Verify a vote signature over a raw payload.
pub fn verify_payload(
    public: &PublicKey,
    payload: &[u8],
    signature: &ValidatorSignature,
) -> Result<(), VoteError> {
    let sig = Signature::from_bytes(&signature.0).map_err(|_| VoteError::MalformedSignature)?;
    public
        .verify_simple(SIGNING_CONTEXT, payload, &sig)
        .map_err(|_| VoteError::BadSignature)
}

/// Verify an approval of `candidates` in `session`.
pub fn verify_approval(
    public: &PublicKey,
    candidates: &[CandidateHash],
    session: SessionIndex,
    signature: &ValidatorSignature,
) -> Result<(), VoteError> {
    verify_payload(public, &approval_payload(candidates, session), signature)
}

/// One signature to check in a batch.
pub struct BatchItem<'a> {
    pub public: &'a PublicKey,
    pub payload: Vec<u8>,
    pub signature: ValidatorSignature,
}

/// Batches at most this large are checked one by one when they fail
/// (below it bisecting costs more than it saves).
const BISECT_LEAF: usize = 2;

/// Verify many signatures at once. Returns one verdict per item, in order,
/// each exactly what [`verify_payload`] says of that item alone. All valid
/// (the common case) costs one batch check; a failing batch is split in
/// halves and each half checked again, down to single items, so `k` bad
/// signatures among `n` cost about `2 k log2(n / k)` smaller batch checks.
/// Sorting each batch by signer lets schnorrkel merge equal keys.
pub fn verify_batch(items: &[BatchItem<'_>]) -> Vec<Result<(), VoteError>> {
    let mut verdicts = vec![Ok(()); items.len()];
    let mut parsed: Vec<(usize, Signature)> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match Signature::from_bytes(&item.signature.0) {
            Ok(sig) => parsed.push((i, sig)),
            Err(_) => verdicts[i] = Err(VoteError::MalformedSignature),
        }
    }
    bisect(items, &mut parsed, &mut verdicts);
    verdicts
}

/// Check `group` as one batch; if it fails, each half on its own.
fn bisect(
    items: &[BatchItem<'_>],
    group: &mut [(usize, Signature)],
    verdicts: &mut [Result<(), VoteError>],
) {
    if group.len() <= BISECT_LEAF {
        for (i, sig) in group.iter() {
            let item = &items[*i];
            let ctx = schnorrkel::signing_context(SIGNING_CONTEXT);
            if item.public.verify(ctx.bytes(&item.payload), sig).is_err() {
                verdicts[*i] = Err(VoteError::BadSignature);
            }
        }
        return;
    }
    if batch_ok(items, group) {
        return;
    }
    let (left, right) = group.split_at_mut(group.len() / 2);
    bisect(items, left, verdicts);
    bisect(items, right, verdicts);
}

fn batch_ok(items: &[BatchItem<'_>], group: &mut [(usize, Signature)]) -> bool {
    group.sort_by_key(|(i, _)| items[*i].public.to_bytes());
    let ctx = schnorrkel::signing_context(SIGNING_CONTEXT);
    let transcripts = group.iter().map(|(i, _)| ctx.bytes(&items[*i].payload));
    let sigs: Vec<Signature> = group.iter().map(|(_, s)| *s).collect();
    let keys: Vec<PublicKey> = group.iter().map(|(i, _)| *items[*i].public).collect();
    schnorrkel::verify_batch(transcripts, &sigs, &keys, true).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(b: u8) -> CandidateHash {
        CandidateHash::from([b; 32])
    }

    #[test]
    fn payloads_match_spec() {
        let single = approval_payload(&[h(0x11)], 7);
        assert_eq!(single.len(), 40);
        assert_eq!(&single[..4], b"APPR");
        assert_eq!(&single[36..], &[7, 0, 0, 0]);
        let two = approval_payload(&[h(0x11), h(0x22)], 7);
        assert_eq!(two.len(), 73);
        assert_eq!(two[4], 0x08);
    }

    #[test]
    fn sign_verify_and_reject() {
        let pair = ValidatorPair::from_label("validator-1");
        let other = ValidatorPair::from_label("validator-2");
        let cands = [h(1), h(2), h(3)];
        let sig = sign_approval(&pair, &cands, 3);
        assert_eq!(verify_approval(pair.public(), &cands, 3, &sig), Ok(()));
        assert_eq!(
            verify_approval(pair.public(), &cands, 4, &sig),
            Err(VoteError::BadSignature)
        );
        assert_eq!(
            verify_approval(other.public(), &cands, 3, &sig),
            Err(VoteError::BadSignature)
        );
        let mut unmarked = sig;
        unmarked.0[63] &= 0x7f;
        assert_eq!(
            verify_approval(pair.public(), &cands, 3, &unmarked),
            Err(VoteError::MalformedSignature)
        );
    }

    #[test]
    fn batch_finds_the_bad_ones() {
        let pairs: Vec<ValidatorPair> = (0..8)
            .map(|i| ValidatorPair::from_label(&format!("validator-{i}")))
            .collect();
        let mut items: Vec<BatchItem> = pairs
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let payload = approval_payload(&[h(i as u8)], 1);
                let signature = ValidatorSignature(
                    p.keypair()
                        .sign_simple(SIGNING_CONTEXT, &payload)
                        .to_bytes(),
                );
                BatchItem {
                    public: p.public(),
                    payload,
                    signature,
                }
            })
            .collect();
        assert_eq!(verify_batch(&items), vec![Ok(()); 8]);
        items[2].signature.0[0] ^= 1;
        items[5].payload[5] ^= 1;
        items[6].signature.0[63] &= 0x7f;
        let got = verify_batch(&items);
        let alone: Vec<_> = items
            .iter()
            .map(|i| verify_payload(i.public, &i.payload, &i.signature))
            .collect();
        assert_eq!(got, alone, "each verdict is the item's own");
        let bad: Vec<usize> = (0..8).filter(|i| got[*i].is_err()).collect();
        assert_eq!(bad, vec![2, 5, 6]);
        assert_eq!(got[6], Err(VoteError::MalformedSignature));
    }

    /// Bisection finds exactly the bad items of every size and pattern.
    #[test]
    fn bisection_agrees_with_checking_one_by_one() {
        let pairs: Vec<ValidatorPair> = (0..4)
            .map(|i| ValidatorPair::from_label(&format!("validator-{i}")))
            .collect();
        for n in [0usize, 1, 2, 3, 5, 17, 33] {
            for pattern in [0u64, 1, 0b101, 1 << (n.max(1) - 1), u64::MAX] {
                let items: Vec<BatchItem> = (0..n)
                    .map(|i| {
                        let p = &pairs[i % pairs.len()];
                        let payload = approval_payload(&[h(i as u8)], 1);
                        let mut signature = sign_approval(p, &[h(i as u8)], 1);
                        if pattern >> (i % 64) & 1 == 1 {
                            signature.0[1] ^= 0x40;
                        }
                        BatchItem {
                            public: p.public(),
                            payload,
                            signature,
                        }
                    })
                    .collect();
                let alone: Vec<_> = items
                    .iter()
                    .map(|i| verify_payload(i.public, &i.payload, &i.signature))
                    .collect();
                assert_eq!(verify_batch(&items), alone, "n {n}, pattern {pattern:b}");
            }
        }
    }
}
