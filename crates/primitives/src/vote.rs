//! Approval votes (upstream `ApprovalVote` and `ApprovalVoteMultipleCandidates` in `polkadot/primitives/src/`): the signing payloads of single- and
//! multiple-candidate votes, sr25519 signing and verification under the
//! `substrate` context, and batch verification that falls back to checking
//! one by one when a batch fails.

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

/// Verify many signatures at once. Returns one verdict per item, in order.
/// All valid (the common case) costs one batch check; if the batch fails,
/// each item is checked alone to find the bad ones. Sorting the batch by
/// signer first lets schnorrkel merge equal keys.
pub fn verify_batch(items: &[BatchItem<'_>]) -> Vec<bool> {
    if items.is_empty() {
        return Vec::new();
    }
    let parsed: Vec<Option<Signature>> = items
        .iter()
        .map(|i| Signature::from_bytes(&i.signature.0).ok())
        .collect();
    if parsed.iter().all(Option::is_some) {
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_by_key(|&i| items[i].public.to_bytes());
        let transcripts = order
            .iter()
            .map(|&i| schnorrkel::signing_context(SIGNING_CONTEXT).bytes(&items[i].payload));
        let sigs: Vec<Signature> = order.iter().map(|&i| parsed[i].unwrap()).collect();
        let keys: Vec<PublicKey> = order.iter().map(|&i| *items[i].public).collect();
        if schnorrkel::verify_batch(transcripts, &sigs, &keys, true).is_ok() {
            return vec![true; items.len()];
        }
    }
    items
        .iter()
        .map(|i| verify_payload(i.public, &i.payload, &i.signature).is_ok())
        .collect()
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
        assert_eq!(verify_batch(&items), vec![true; 8]);
        items[2].signature.0[0] ^= 1;
        items[5].payload[5] ^= 1;
        items[6].signature.0[63] &= 0x7f;
        let got = verify_batch(&items);
        assert_eq!(got, vec![true, true, false, true, true, false, false, true]);
    }
}
