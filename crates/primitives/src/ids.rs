//! Scalar identifiers of the protocol: indices, hashes, block numbers, ticks
//! and tranches, with their SCALE layouts (all fixed-width little-endian).

use parity_scale_codec::{Decode, Encode};
use std::fmt;

macro_rules! index_newtype {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(
            Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Encode, Decode,
        )]
        pub struct $name(pub u32);

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self.0)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }

        impl From<u32> for $name {
            fn from(v: u32) -> Self {
                $name(v)
            }
        }
    };
}

index_newtype!(
    /// Position of a validator in the session's validator list.
    ValidatorIndex
);
index_newtype!(
    /// An availability core.
    CoreIndex
);
index_newtype!(
    /// A backing group, an index into the session's validator groups.
    GroupIndex
);

/// Position of a candidate among the candidates a relay block included.
pub type CandidateIndex = u32;
/// A session number.
pub type SessionIndex = u32;
/// Relay-chain block height.
pub type BlockNumber = u32;
/// A delay tranche: ticks after the block's slot start.
pub type DelayTranche = u32;
pub use tranche_records::time::{Slot, Tick};

/// A 32-byte hash (BLAKE2b-256 in Polkadot).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Encode, Decode)]
pub struct Hash(pub [u8; 32]);

impl Hash {
    /// Unkeyed BLAKE2b with a 32-byte digest.
    pub fn blake2_256(data: &[u8]) -> Hash {
        let digest = blake2b_simd::Params::new().hash_length(32).hash(data);
        let mut out = [0u8; 32];
        out.copy_from_slice(digest.as_bytes());
        Hash(out)
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Debug for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in &self.0[..4] {
            write!(f, "{b:02x}")?;
        }
        write!(f, "…")
    }
}

impl fmt::Display for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in &self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl From<[u8; 32]> for Hash {
    fn from(v: [u8; 32]) -> Self {
        Hash(v)
    }
}

/// The hash of a candidate receipt.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Encode, Decode)]
pub struct CandidateHash(pub Hash);

impl fmt::Debug for CandidateHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Candidate({:?})", self.0)
    }
}

impl fmt::Display for CandidateHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl From<[u8; 32]> for CandidateHash {
    fn from(v: [u8; 32]) -> Self {
        CandidateHash(Hash(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_encode_as_fixed_u32() {
        assert_eq!(ValidatorIndex(7).encode(), vec![7, 0, 0, 0]);
        assert_eq!(CoreIndex(256).encode(), vec![0, 1, 0, 0]);
    }

    #[test]
    fn blake2_256_of_label() {
        let h = Hash::blake2_256(b"validator-0");
        assert_eq!(
            h.to_string(),
            "f9f2e68d7616bfa57844887820e7afc7ce006ed7406ddee33c8772c4759bc0f1"
        );
    }
}
