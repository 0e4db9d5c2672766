//! Protocol constants shared by several parts (spec Appendix A).

/// Longest candidate or core bitfield approval-distribution accepts.
pub const MAX_BITFIELD_SIZE: u32 = 500;
/// Largest notification on the validation peer set, in bytes.
pub const MAX_NOTIFICATION_SIZE: usize = 100 * 1024;
/// Most assignments in one `Assignments` notification (64-bit targets).
pub const MAX_ASSIGNMENT_BATCH_SIZE: usize = 193;
/// Most approvals in one `Approvals` notification (64-bit targets).
pub const MAX_APPROVAL_BATCH_SIZE: usize = 266;
/// Cap on the number of tranche-0 modulo samples.
pub const MAX_MODULO_SAMPLES: u32 = 40;
/// Most candidates one coalesced approval may cover.
pub const MAX_COALESCE_APPROVALS: usize = 16;
/// Longest we hold a local approval back to coalesce it with others.
pub const MAX_APPROVAL_COALESCE_WAIT_TICKS: u64 = 12;
/// The sr25519 signing context of approval votes.
pub const SIGNING_CONTEXT: &[u8] = b"substrate";
/// Magic prefix of approval vote payloads.
pub const APPROVAL_MAGIC: &[u8; 4] = b"APPR";
