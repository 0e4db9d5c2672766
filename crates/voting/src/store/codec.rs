//! Byte layout of the store: which table each record lives in, its key
//! (fixed-width, so that everything under a block or candidate is one key
//! prefix) and its SCALE-encoded value, sealed with a CRC-32 of table, key
//! and value (`seal`); decoding back into a `Snapshot` with a
//! `StoreError::Corrupt` naming the bad record. A database's own checks
//! (redb checksums its pages; ParityDB's value tables have none) are not
//! what this relies on: a row whose seal does not match is damage, named.

use super::{
    ApprovalEntryRecord, AssignmentRecord, BlockStateRecord, Snapshot, StoreError, WriteOp,
};
use parity_scale_codec::{Decode, Encode};
use tranche_primitives::{Block, CandidateHash, Hash, SessionInfo, Tick, ValidatorIndex};

/// A table of the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Table {
    Meta,
    Sessions,
    Blocks,
    BlockStates,
    ApprovalEntries,
    Assignments,
    Approvals,
    Wakeups,
}

pub const TABLES: [Table; 8] = [
    Table::Meta,
    Table::Sessions,
    Table::Blocks,
    Table::BlockStates,
    Table::ApprovalEntries,
    Table::Assignments,
    Table::Approvals,
    Table::Wakeups,
];

impl Table {
    pub fn name(self) -> &'static str {
        match self {
            Table::Meta => "meta",
            Table::Sessions => "sessions",
            Table::Blocks => "blocks",
            Table::BlockStates => "block_states",
            Table::ApprovalEntries => "approval_entries",
            Table::Assignments => "assignments",
            Table::Approvals => "approvals",
            Table::Wakeups => "wakeups",
        }
    }
}

/// One low-level operation on a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KvOp {
    Put(Table, Vec<u8>, Vec<u8>),
    Delete(Table, Vec<u8>),
    /// Delete every key starting with the prefix.
    DeletePrefix(Table, Vec<u8>),
}

const FINALIZED_KEY: &[u8] = b"finalized";

/// The `meta` key of the layout's version, written when a store is
/// created and checked when one is opened.
pub const SCHEMA_KEY: &[u8] = b"schema";

/// The `meta` key of the owner's marker (`tranche_store`'s, written when
/// a database is created): who made the database and for what.
pub const OWNER_KEY: &[u8] = b"owner";

/// The version of this byte layout. A database without the record is of
/// version 1 (written before the record existed). Version 2 seals every
/// row but the identity rows (`SCHEMA_KEY`, `OWNER_KEY`) with a CRC-32.
pub const SCHEMA_VERSION: u32 = 2;

/// Bytes of a row's seal.
pub const SEAL_LEN: usize = 4;

fn crc(table: Table, key: &[u8], value: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&[table as u8]);
    h.update(&(key.len() as u32).to_le_bytes());
    h.update(key);
    h.update(value);
    h.finalize()
}

/// Whether a `meta` row is an identity row, stored as it is (unsealed):
/// read before the layout is known.
pub fn is_identity(table: Table, key: &[u8]) -> bool {
    table == Table::Meta && (key == SCHEMA_KEY || key == OWNER_KEY)
}

/// Seal every put's value (but the identity rows'): the value followed by
/// the CRC-32 of table, key and value. The last step before a store
/// writes (after `chunk_assignments`, which joins values).
pub fn seal(ops: Vec<KvOp>) -> Vec<KvOp> {
    ops.into_iter()
        .map(|op| match op {
            KvOp::Put(t, k, mut v) if !is_identity(t, &k) => {
                let c = crc(t, &k, &v);
                v.extend_from_slice(&c.to_le_bytes());
                KvOp::Put(t, k, v)
            }
            other => other,
        })
        .collect()
}

/// A sealed row's value without its seal, or why it is damaged.
pub fn unseal<'a>(table: Table, key: &[u8], value: &'a [u8]) -> Result<&'a [u8], StoreError> {
    if value.len() < SEAL_LEN {
        return Err(corrupt(
            table,
            key,
            format!("{} bytes, shorter than its seal", value.len()),
        ));
    }
    let (body, tail) = value.split_at(value.len() - SEAL_LEN);
    let want = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
    if crc(table, key, body) != want {
        return Err(corrupt(table, key, "its checksum does not match (damaged)"));
    }
    Ok(body)
}

/// Every step from a store's waiting operations to what it writes: the
/// last write of each key (`coalesce`), assignment runs joined
/// (`chunk_assignments`), each row sealed (`seal`).
pub fn prepare(ops: Vec<KvOp>) -> Vec<KvOp> {
    seal(chunk_assignments(coalesce(ops)))
}

/// Whether a stored version record is this layout's; the reason otherwise.
pub fn check_schema(value: &[u8]) -> Result<(), String> {
    match <[u8; 4]>::try_from(value).map(u32::from_le_bytes) {
        Ok(SCHEMA_VERSION) => Ok(()),
        Ok(v) => Err(format!(
            "it holds layout version {v}, this node reads version {SCHEMA_VERSION}"
        )),
        Err(_) => Err(format!(
            "its layout version record is {} bytes, not 4",
            value.len()
        )),
    }
}

/// Encoded size of one `AssignmentRecord`.
pub const ASSIGNMENT_RECORD_LEN: usize = 16;

/// Drop every put or delete of a key that a later put or delete of the same
/// key in `ops` overrides: only the last write of a key between two commits
/// reaches the database. (A prefix delete in between changes nothing: the
/// later write sets the key either way.)
pub fn coalesce(ops: Vec<KvOp>) -> Vec<KvOp> {
    let mut seen: crate::maps::Set<(Table, Vec<u8>)> = crate::maps::Set::default();
    let mut kept: Vec<KvOp> = Vec::with_capacity(ops.len());
    for op in ops.into_iter().rev() {
        match &op {
            KvOp::Put(t, k, _) | KvOp::Delete(t, k) => {
                if seen.insert((*t, k.clone())) {
                    kept.push(op);
                }
            }
            KvOp::DeletePrefix(..) => kept.push(op),
        }
    }
    kept.reverse();
    kept
}

/// Merge puts of consecutive assignment records of the same (block,
/// candidate) into one row each, so that a commit writes one row per
/// approval entry rather than one per message. Order relative to other
/// operations on the table is kept: a delete flushes the runs before it.
pub fn chunk_assignments(ops: Vec<KvOp>) -> Vec<KvOp> {
    fn seq_of(k: &[u8]) -> u32 {
        u32::from_be_bytes([k[36], k[37], k[38], k[39]])
    }
    let mut out = Vec::with_capacity(ops.len());
    // Prefix -> (index in `out` of its open run, next expected seq).
    let mut open: crate::maps::Map<[u8; 36], (usize, u32)> = crate::maps::Map::default();
    for op in ops {
        match op {
            KvOp::Put(Table::Assignments, k, v)
                if k.len() == 40 && v.len() == ASSIGNMENT_RECORD_LEN =>
            {
                let seq = seq_of(&k);
                let mut prefix = [0u8; 36];
                prefix.copy_from_slice(&k[..36]);
                if let Some(&(at, next)) = open.get(&prefix) {
                    if next == seq {
                        if let KvOp::Put(_, _, run) = &mut out[at] {
                            run.extend_from_slice(&v);
                        }
                        open.insert(prefix, (at, seq.wrapping_add(1)));
                        continue;
                    }
                }
                open.insert(prefix, (out.len(), seq.wrapping_add(1)));
                out.push(KvOp::Put(Table::Assignments, k, v));
            }
            KvOp::Delete(Table::Assignments, _) | KvOp::DeletePrefix(Table::Assignments, _) => {
                open.clear();
                out.push(op);
            }
            other => out.push(other),
        }
    }
    out
}

fn key2(h: &Hash, i: u32) -> Vec<u8> {
    let mut k = Vec::with_capacity(36);
    k.extend_from_slice(&h.0);
    k.extend_from_slice(&i.to_be_bytes());
    k
}

/// Translate a record write into table operations.
pub fn to_kv(op: WriteOp, out: &mut Vec<KvOp>) {
    match op {
        WriteOp::PutSession(s) => out.push(KvOp::Put(
            Table::Sessions,
            s.session_index.to_be_bytes().to_vec(),
            s.encode(),
        )),
        WriteOp::PutFinalized(f, r) => out.push(KvOp::Put(
            Table::Meta,
            FINALIZED_KEY.to_vec(),
            (f, r).encode(),
        )),
        WriteOp::PutBlock(b) => out.push(KvOp::Put(Table::Blocks, b.hash.0.to_vec(), b.encode())),
        WriteOp::PutBlockState(h, s) => {
            out.push(KvOp::Put(Table::BlockStates, h.0.to_vec(), s.encode()))
        }
        WriteOp::DeleteBlock(h) => {
            out.push(KvOp::Delete(Table::Blocks, h.0.to_vec()));
            out.push(KvOp::Delete(Table::BlockStates, h.0.to_vec()));
            out.push(KvOp::DeletePrefix(Table::ApprovalEntries, h.0.to_vec()));
            out.push(KvOp::DeletePrefix(Table::Assignments, h.0.to_vec()));
            out.push(KvOp::DeletePrefix(Table::Wakeups, h.0.to_vec()));
        }
        WriteOp::PutApprovalEntry(h, i, r) => {
            out.push(KvOp::Put(Table::ApprovalEntries, key2(&h, i), r.encode()))
        }
        WriteOp::PutAssignment(h, i, seq, r) => {
            let mut k = key2(&h, i);
            k.extend_from_slice(&seq.to_be_bytes());
            out.push(KvOp::Put(Table::Assignments, k, r.encode()))
        }
        WriteOp::PutApproval(c, v) => {
            out.push(KvOp::Put(Table::Approvals, key2(&c.0, v.0), Vec::new()))
        }
        WriteOp::DeleteCandidate(c) => {
            out.push(KvOp::DeletePrefix(Table::Approvals, c.0 .0.to_vec()))
        }
        WriteOp::PutWakeup(h, i, t) => out.push(KvOp::Put(
            Table::Wakeups,
            key2(&h, i),
            t.to_le_bytes().to_vec(),
        )),
        WriteOp::DeleteWakeup(h, i) => out.push(KvOp::Delete(Table::Wakeups, key2(&h, i))),
    }
}

fn corrupt(table: Table, key: &[u8], why: impl std::fmt::Display) -> StoreError {
    let hex: String = key.iter().take(40).map(|b| format!("{b:02x}")).collect();
    // One line: SCALE's errors run over several ("...:\n\tNot enough data").
    let why = why
        .to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    StoreError::Corrupt(format!("table {} key {hex}: {why}", table.name()))
}

fn decode_value<T: Decode>(table: Table, key: &[u8], value: &[u8]) -> Result<T, StoreError> {
    let mut input = value;
    let v = T::decode(&mut input).map_err(|e| corrupt(table, key, e))?;
    if !input.is_empty() {
        return Err(corrupt(table, key, "trailing bytes"));
    }
    Ok(v)
}

fn hash_at(table: Table, key: &[u8], at: usize) -> Result<[u8; 32], StoreError> {
    key.get(at..at + 32)
        .and_then(|s| <[u8; 32]>::try_from(s).ok())
        .ok_or_else(|| corrupt(table, key, "short key"))
}

fn u32_at(table: Table, key: &[u8], at: usize) -> Result<u32, StoreError> {
    key.get(at..at + 4)
        .and_then(|s| <[u8; 4]>::try_from(s).ok())
        .map(u32::from_be_bytes)
        .ok_or_else(|| corrupt(table, key, "short key"))
}

fn exact_len(table: Table, key: &[u8], n: usize) -> Result<(), StoreError> {
    if key.len() != n {
        return Err(corrupt(
            table,
            key,
            format!("key of {} bytes, expected {n}", key.len()),
        ));
    }
    Ok(())
}

/// Decode one table row into the snapshot. Rows must arrive in key order
/// per table for `assignments` to come out in `(block, candidate, seq)` order.
pub fn decode_row(
    snap: &mut Snapshot,
    table: Table,
    key: &[u8],
    value: &[u8],
) -> Result<(), StoreError> {
    if is_identity(table, key) {
        if key == SCHEMA_KEY {
            check_schema(value).map_err(|why| corrupt(table, key, why))?;
        }
        // The owner's marker is the store's to check, when it opens.
        return Ok(());
    }
    let value = unseal(table, key, value)?;
    match table {
        Table::Meta => {
            if key == FINALIZED_KEY {
                snap.finalized = decode_value(table, key, value)?;
            } else {
                return Err(corrupt(table, key, "unknown meta key"));
            }
        }
        Table::Sessions => {
            exact_len(table, key, 4)?;
            let s: SessionInfo = decode_value(table, key, value)?;
            snap.sessions.push(s);
        }
        Table::Blocks => {
            exact_len(table, key, 32)?;
            let b: Block = decode_value(table, key, value)?;
            if b.hash.0 != key {
                return Err(corrupt(table, key, "block hash differs from its key"));
            }
            snap.blocks.push(b);
        }
        Table::BlockStates => {
            exact_len(table, key, 32)?;
            let s: BlockStateRecord = decode_value(table, key, value)?;
            snap.block_states.push((Hash(hash_at(table, key, 0)?), s));
        }
        Table::ApprovalEntries => {
            exact_len(table, key, 36)?;
            let r: ApprovalEntryRecord = decode_value(table, key, value)?;
            snap.approval_entries
                .push((Hash(hash_at(table, key, 0)?), u32_at(table, key, 32)?, r));
        }
        Table::Assignments => {
            // One row holds a run of consecutive records (see `chunk_assignments`).
            exact_len(table, key, 40)?;
            if value.is_empty()
                || !value
                    .chunks_exact(ASSIGNMENT_RECORD_LEN)
                    .remainder()
                    .is_empty()
            {
                return Err(corrupt(
                    table,
                    key,
                    format!("{} bytes is not a run of assignment records", value.len()),
                ));
            }
            let (block, index, first) = (
                Hash(hash_at(table, key, 0)?),
                u32_at(table, key, 32)?,
                u32_at(table, key, 36)?,
            );
            for (i, rec) in value.chunks(ASSIGNMENT_RECORD_LEN).enumerate() {
                let r: AssignmentRecord = decode_value(table, key, rec)?;
                snap.assignments.push((block, index, first + i as u32, r));
            }
        }
        Table::Approvals => {
            exact_len(table, key, 36)?;
            if !value.is_empty() {
                return Err(corrupt(table, key, "approval with a value"));
            }
            snap.approvals.push((
                CandidateHash(Hash(hash_at(table, key, 0)?)),
                ValidatorIndex(u32_at(table, key, 32)?),
            ));
        }
        Table::Wakeups => {
            exact_len(table, key, 36)?;
            let t: [u8; 8] = value
                .try_into()
                .map_err(|_| corrupt(table, key, "wakeup tick is not 8 bytes"))?;
            snap.wakeups.push((
                Hash(hash_at(table, key, 0)?),
                u32_at(table, key, 32)?,
                Tick::from_le_bytes(t),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tranche_primitives::{Candidate, CoreIndex, GroupIndex, RelayVrfStory};

    /// The bytes of a block row, written out by hand: hash, number (u32
    /// LE), parent, slot (u64 LE), session (u32 LE), relay VRF story, then
    /// the compact-prefixed candidates as (hash, core u32 LE, group u32 LE).
    #[test]
    fn block_row_layout_is_pinned() {
        let candidate = |h: u8, c: u32, g: u32| Candidate {
            hash: CandidateHash(Hash([h; 32])),
            core: CoreIndex(c),
            group: GroupIndex(g),
        };
        let block = Block {
            hash: Hash([1; 32]),
            number: 0x0102_0304,
            parent: Hash([2; 32]),
            slot: 0x1122_3344_5566_7788,
            session: 7,
            relay_vrf_story: RelayVrfStory([3; 32]),
            candidates: vec![candidate(4, 5, 6), candidate(8, 9, 10)].into(),
        };
        let mut want = Vec::new();
        want.extend_from_slice(&[1; 32]);
        want.extend_from_slice(&0x0102_0304u32.to_le_bytes());
        want.extend_from_slice(&[2; 32]);
        want.extend_from_slice(&0x1122_3344_5566_7788u64.to_le_bytes());
        want.extend_from_slice(&7u32.to_le_bytes());
        want.extend_from_slice(&[3; 32]);
        want.push(2 << 2); // compact length 2
        for (h, c, g) in [(4u8, 5u32, 6u32), (8, 9, 10)] {
            want.extend_from_slice(&[h; 32]);
            want.extend_from_slice(&c.to_le_bytes());
            want.extend_from_slice(&g.to_le_bytes());
        }
        let mut ops = Vec::new();
        to_kv(WriteOp::PutBlock(block.clone()), &mut ops);
        assert_eq!(
            ops,
            vec![KvOp::Put(Table::Blocks, vec![1; 32], want.clone())]
        );
        // Sealed: the value, then the CRC-32 of table, key length, key, value.
        let [KvOp::Put(_, _, sealed)] = &seal(ops)[..] else {
            panic!("one put")
        };
        let mut h = crc32fast::Hasher::new();
        h.update(&[Table::Blocks as u8]);
        h.update(&32u32.to_le_bytes());
        h.update(&[1; 32]);
        h.update(&want);
        let mut sealed_want = want.clone();
        sealed_want.extend_from_slice(&h.finalize().to_le_bytes());
        assert_eq!(sealed, &sealed_want);
        let mut snap = Snapshot::default();
        decode_row(&mut snap, Table::Blocks, &[1; 32], sealed).unwrap();
        assert_eq!(snap.blocks, vec![block]);
    }

    #[test]
    fn a_changed_byte_breaks_the_seal() {
        let mut ops = Vec::new();
        to_kv(WriteOp::PutWakeup(Hash([9; 32]), 3, 1234), &mut ops);
        let [KvOp::Put(t, k, v)] = &seal(ops)[..] else {
            panic!("one put")
        };
        let mut snap = Snapshot::default();
        decode_row(&mut snap, *t, k, v).unwrap();
        assert_eq!(snap.wakeups, vec![(Hash([9; 32]), 3, 1234)]);
        for i in 0..v.len() {
            let mut bad = v.clone();
            bad[i] ^= 0x10;
            let e = decode_row(&mut Snapshot::default(), *t, k, &bad).unwrap_err();
            assert!(e.to_string().contains("checksum"), "{e}");
        }
        // The same value under another key is damage too.
        let mut other = k.clone();
        other[0] ^= 1;
        assert!(decode_row(&mut Snapshot::default(), *t, &other, v).is_err());
    }

    /// Found by the `store_rows` fuzz target: SCALE's decode error runs
    /// over two lines, and the store's refusal must be one.
    #[test]
    fn a_record_that_does_not_decode_is_one_line() {
        let ops = seal(vec![KvOp::Put(
            Table::Meta,
            FINALIZED_KEY.to_vec(),
            vec![1, 7],
        )]);
        let [KvOp::Put(t, k, v)] = &ops[..] else {
            panic!("one put")
        };
        let e = decode_row(&mut Snapshot::default(), *t, k, v)
            .unwrap_err()
            .to_string();
        assert!(!e.contains('\n') && !e.contains('\t'), "{e}");
        assert!(e.contains("table meta"), "{e}");
    }

    #[test]
    fn identity_rows_are_not_sealed() {
        let ops = vec![
            KvOp::Put(
                Table::Meta,
                SCHEMA_KEY.to_vec(),
                SCHEMA_VERSION.to_le_bytes().to_vec(),
            ),
            KvOp::Put(Table::Meta, OWNER_KEY.to_vec(), b"x".to_vec()),
        ];
        assert_eq!(seal(ops.clone()), ops);
        let mut snap = Snapshot::default();
        decode_row(&mut snap, Table::Meta, SCHEMA_KEY, &1u32.to_le_bytes()).unwrap_err();
        decode_row(&mut snap, Table::Meta, OWNER_KEY, b"anything").unwrap();
    }
}
