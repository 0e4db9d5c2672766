//! The property of the `store_rows` fuzz target: the store's row decoder
//! (`tranche_voting::codec::decode_row`, what a damaged database feeds a
//! restart) and the restore after it never panic. The input is a mode
//! byte, then a list of rows, each `[table byte][key length u8][value
//! length u16 LE][key][value]`. With the mode byte odd, each value is
//! sealed here as a store seals it (rows well-formed on disk but wrong in
//! what they say, which reach the decoder's and the restore's checks; a
//! fuzzer cannot forge a CRC-32); even, the rows are taken as they are. A row the decoder refuses is one `Corrupt` line naming its
//! table; rows it accepts are restored into a state machine, which then
//! runs some ticks, or are refused in one line.
//!
//! Not a module of the fuzz crate's library: the fuzz target and
//! `crates/voting/tests/voting/fuzz_corpus.rs` include this file by
//! `#[path]`.

#![allow(dead_code)]

use tranche_voting::codec::{decode_row, seal, KvOp};
use tranche_voting::{ApprovalVoting, Config, Snapshot, StoreError, TABLES};

/// A refusal: one line, bounded.
fn one_line(e: &StoreError) -> String {
    let line = e.to_string();
    assert!(!line.contains('\n'), "not one line: {line}");
    assert!(line.len() <= 2_000, "{} bytes", line.len());
    line
}

/// Decodes `data`'s rows and restores what they hold. Returns whether
/// every row was accepted and the machine restored.
pub fn store_rows(data: &[u8]) -> bool {
    let Some((&mode, mut rest)) = data.split_first() else {
        return false;
    };
    let mut snap = Snapshot::default();
    let mut rows = 0;
    while rest.len() >= 4 {
        let table = TABLES[rest[0] as usize % TABLES.len()];
        let key_len = rest[1] as usize;
        let value_len = u16::from_le_bytes([rest[2], rest[3]]) as usize;
        rest = &rest[4..];
        if rest.len() < key_len + value_len {
            break;
        }
        let (key, r) = rest.split_at(key_len);
        let (value, r) = r.split_at(value_len);
        rest = r;
        let value = if mode & 1 == 1 {
            match &seal(vec![KvOp::Put(table, key.to_vec(), value.to_vec())])[..] {
                [KvOp::Put(_, _, v)] => v.clone(),
                _ => unreachable!("one put sealed is one put"),
            }
        } else {
            value.to_vec()
        };
        if let Err(e) = decode_row(&mut snap, table, key, &value) {
            let line = one_line(&e);
            assert!(line.contains(table.name()), "{line} names no table");
            return false;
        }
        rows += 1;
    }
    if rows == 0 {
        return false;
    }
    match ApprovalVoting::restore(Config::default(), None, snap) {
        Ok(mut m) => {
            for t in 0..64 {
                let _ = m.tick(t);
            }
            true
        }
        Err(e) => {
            one_line(&e);
            false
        }
    }
}
