//! Protocol primitives of Polkadot's approval voting: identifiers, time,
//! relay blocks and their candidates, bitfields, session parameters, keys,
//! assignment certificates and their criteria, approval votes, and the v3
//! wire messages; and the bounds on the protocol's sizes that a user file
//! may ask for (`limits`); the reputation changes approval-distribution
//! reports (`reputation`). Nothing here knows about nodes, threads, networks
//! or files.

pub mod bitfield;
pub mod bitset;
pub mod block;
pub mod cert;
pub mod codec;
pub mod constants;
pub mod criteria;
pub mod grow;
pub mod ids;
pub mod keys;
pub use tranche_records::limits;
pub mod reputation;
pub mod session;
pub use tranche_records::session_params;
pub mod time;
pub mod vote;
pub mod wire;
pub mod wire_skim;

pub use bitfield::{CandidateBitfield, CoreBitfield};
pub use block::{Block, Candidate, Candidates, RelayVrfStory};
pub use cert::{AssignmentCert, AssignmentCertKind, VrfSignature};
pub use codec::DecodeError;
pub use criteria::OurAssignment;
pub use ids::*;
pub use keys::{ValidatorId, ValidatorPair};
pub use session::{Session, SessionInfo};
pub use vote::ValidatorSignature;
pub use wire::{
    ApprovalDistributionMessage, AssignmentItem, IndirectAssignmentCert,
    IndirectSignedApprovalVote, Items, ValidationProtocol,
};
