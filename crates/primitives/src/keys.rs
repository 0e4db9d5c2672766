//! sr25519 keys. A validator's key pair comes from a 32-byte seed as
//! sp-core's `Pair::from_seed` makes it: a schnorrkel mini secret key
//! expanded in Ed25519 mode. The same pair serves as assignment key (VRFs)
//! and validator key (approval signatures) in this project.

use crate::ids::Hash;
use parity_scale_codec::{Decode, Encode};
use schnorrkel::{ExpansionMode, Keypair, MiniSecretKey, PublicKey};
use std::fmt;

/// A 32-byte compressed sr25519 public key, as it travels and is stored.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Encode, Decode)]
pub struct ValidatorId(pub [u8; 32]);

impl ValidatorId {
    /// Parse into a curve point; fails for bytes that are not a valid
    /// Ristretto encoding.
    pub fn parse(&self) -> Option<PublicKey> {
        PublicKey::from_bytes(&self.0).ok()
    }
}

impl fmt::Debug for ValidatorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ValidatorId(")?;
        for b in &self.0[..4] {
            write!(f, "{b:02x}")?;
        }
        write!(f, "…)")
    }
}

/// A validator's key pair.
#[derive(Clone)]
pub struct ValidatorPair {
    keypair: Keypair,
    id: ValidatorId,
}

impl ValidatorPair {
    /// The key pair of a 32-byte seed (sp-core `sr25519::Pair::from_seed`).
    pub fn from_seed(seed: &[u8; 32]) -> Self {
        let mini = MiniSecretKey::from_bytes(seed).expect("32 bytes is a valid mini secret key");
        let keypair = mini.expand_to_keypair(ExpansionMode::Ed25519);
        let id = ValidatorId(keypair.public.to_bytes());
        ValidatorPair { keypair, id }
    }

    /// The seed for a label: unkeyed BLAKE2b-256 of its bytes.
    pub fn seed_from_label(label: &str) -> [u8; 32] {
        Hash::blake2_256(label.as_bytes()).0
    }

    /// The key pair of the seed of a label (`validator-{i}` in the vectors).
    pub fn from_label(label: &str) -> Self {
        Self::from_seed(&Self::seed_from_label(label))
    }

    pub fn id(&self) -> ValidatorId {
        self.id
    }

    pub fn public(&self) -> &PublicKey {
        &self.keypair.public
    }

    pub fn keypair(&self) -> &Keypair {
        &self.keypair
    }
}

impl fmt::Debug for ValidatorPair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ValidatorPair({:?})", self.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn keys_from_seed_match_sp_core() {
        assert_eq!(
            hex(&ValidatorPair::from_seed(&[7u8; 32]).id().0),
            "7c0f469d3bd340bae718203fa30ca071a5e37c751e891dbded837b213d45d91d"
        );
        assert_eq!(
            hex(&ValidatorPair::from_label("validator-0").id().0),
            "eca9c6ddfe36e4164f7b4663c6eb41e9c5516c0ab25d20d0bfda85af5b708932"
        );
    }
}
