//! `MemoryStore`: the store's tables as ordered maps in memory, with the
//! same byte layout as the database, for tests (including corrupting a
//! record on purpose).

use super::codec::{chunk_assignments, decode_row, seal, to_kv, KvOp, Table, TABLES};
use super::{Snapshot, Store, StoreError, WriteBatch};
use std::collections::BTreeMap;

/// An in-memory store.
#[derive(Clone, Debug, Default)]
pub struct MemoryStore {
    tables: BTreeMap<Table, BTreeMap<Vec<u8>, Vec<u8>>>,
    /// Batches written so far.
    pub batches_written: usize,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    /// Overwrite a raw row, stored exactly as given (for tests of damaged
    /// data: a row whose seal does not match).
    pub fn put_raw(&mut self, table: Table, key: Vec<u8>, value: Vec<u8>) {
        self.tables.entry(table).or_default().insert(key, value);
    }

    /// Overwrite a row with a value sealed as a store seals it (for tests
    /// of rows that are well-formed on disk but wrong in what they say).
    pub fn put_sealed(&mut self, table: Table, key: Vec<u8>, value: Vec<u8>) {
        for op in seal(vec![KvOp::Put(table, key, value)]) {
            Self::apply_kv(&mut self.tables, op);
        }
    }

    /// The keys of a table, in order.
    pub fn keys(&self, table: Table) -> Vec<Vec<u8>> {
        self.tables
            .get(&table)
            .map_or_else(Vec::new, |t| t.keys().cloned().collect())
    }

    /// Number of rows in a table.
    pub fn rows(&self, table: Table) -> usize {
        self.tables.get(&table).map_or(0, |t| t.len())
    }

    pub(crate) fn apply_kv(tables: &mut BTreeMap<Table, BTreeMap<Vec<u8>, Vec<u8>>>, op: KvOp) {
        match op {
            KvOp::Put(t, k, v) => {
                tables.entry(t).or_default().insert(k, v);
            }
            KvOp::Delete(t, k) => {
                if let Some(m) = tables.get_mut(&t) {
                    m.remove(&k);
                }
            }
            KvOp::DeletePrefix(t, p) => {
                if let Some(m) = tables.get_mut(&t) {
                    let doomed: Vec<Vec<u8>> = m
                        .range(p.clone()..)
                        .take_while(|(k, _)| k.starts_with(&p))
                        .map(|(k, _)| k.clone())
                        .collect();
                    for k in doomed {
                        m.remove(&k);
                    }
                }
            }
        }
    }
}

impl Store for MemoryStore {
    fn write(&mut self, batch: WriteBatch) -> Result<(), StoreError> {
        let mut kv = Vec::with_capacity(batch.ops.len());
        for op in batch.ops {
            to_kv(op, &mut kv);
        }
        for op in seal(chunk_assignments(kv)) {
            Self::apply_kv(&mut self.tables, op);
        }
        self.batches_written += 1;
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        Ok(())
    }

    fn load(&mut self) -> Result<Snapshot, StoreError> {
        let mut snap = Snapshot::default();
        for table in TABLES {
            if let Some(rows) = self.tables.get(&table) {
                for (k, v) in rows {
                    decode_row(&mut snap, table, k, v)?;
                }
            }
        }
        Ok(snap)
    }
}
