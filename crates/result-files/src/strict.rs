//! The bounded, strict reading of a result's JSON: every object checked
//! for a key given twice (serde would keep the last silently), and the
//! bulk `compare` and `history` never look at left behind as it is read —
//! each run's `samples` skipped, each validator's record of a network
//! report read one at a time and kept only as a digest ([`RecordDigest`])
//! — so that reading a result takes memory for its figures, not for its
//! size (a network report of 240 MB is read in a few MB).

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// One validator's record of a network report, as `compare` judges it:
/// whether it is the same, not what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordDigest {
    pub validator: u32,
    /// The blocks the record holds (checked against the report's).
    pub blocks: usize,
    /// BLAKE2b (16 bytes) of the record's JSON as this build writes it.
    pub digest: [u8; 16],
}

impl RecordDigest {
    /// The digest of `record`.
    pub fn of(record: &tranche_results::network::NodeRecord) -> RecordDigest {
        let bytes = serde_json::to_vec(record).unwrap_or_default();
        let hash = blake2b_simd::Params::new().hash_length(16).hash(&bytes);
        let mut digest = [0; 16];
        digest.copy_from_slice(hash.as_bytes());
        RecordDigest {
            validator: record.validator,
            blocks: record.blocks.len(),
            digest,
        }
    }
}

/// A result's top level, read: the small part as a JSON value, and the
/// validators' records as digests where the file has them.
pub struct Read {
    pub value: Value,
    pub records: Option<Vec<RecordDigest>>,
}

/// Read the top level of a result from `de`.
pub fn read<'de, D: Deserializer<'de>>(de: D) -> Result<Read, D::Error> {
    de.deserialize_any(TopVisitor)
}

/// The key serde is told about when a key is given twice; `words` turns
/// it into the project's words.
pub(crate) const DUPLICATE: &str = "duplicate key ";

/// A JSON value whose objects may not repeat a key, whose keys named in
/// `skip` (at its own level) are read and dropped, and, where it is a
/// list, whose items' keys named in `items_skip` are.
#[derive(Clone, Copy)]
struct Strict {
    skip: &'static [&'static str],
    items_skip: &'static [&'static str],
}

const PLAIN: Strict = Strict {
    skip: &[],
    items_skip: &[],
};
/// A run report's `runs`: each run's samples over time are not compared.
const RUNS: Strict = Strict {
    skip: &[],
    items_skip: &["samples"],
};

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        de.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let items = Strict {
            skip: self.items_skip,
            items_skip: &[],
        };
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(items)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) || self.skip.contains(&key.as_str()) {
                if self.skip.contains(&key.as_str()) {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
                return Err(de::Error::custom(format!("{DUPLICATE}`{key}`")));
            }
            let v = map.next_value_seed(PLAIN)?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// The top level: an object (its `runs` read as runs, its `validators` as
/// digests) or an array (a sweep written before sweeps had `meta`).
struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Read;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object or array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Read, A::Error> {
        Ok(Read {
            value: PLAIN.visit_seq(seq)?,
            records: None,
        })
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Read, A::Error> {
        let mut out = Map::new();
        let mut records = None;
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) || (key == "validators" && records.is_some()) {
                return Err(de::Error::custom(format!("{DUPLICATE}`{key}`")));
            }
            match key.as_str() {
                "validators" => records = Some(map.next_value_seed(Records)?),
                "runs" => {
                    let runs = map.next_value_seed(RUNS)?;
                    out.insert(key, runs);
                }
                _ => {
                    let v = map.next_value_seed(PLAIN)?;
                    out.insert(key, v);
                }
            }
        }
        Ok(Read {
            value: Value::Object(out),
            records,
        })
    }
}

/// A network report's `validators`: each record read alone and kept as
/// its digest.
struct Records;

impl<'de> DeserializeSeed<'de> for Records {
    type Value = Vec<RecordDigest>;
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Records {
    type Value = Vec<RecordDigest>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of validators' records")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        // Typed at once (serde's derive refuses a field given twice).
        while let Some(record) = seq.next_element::<tranche_results::network::NodeRecord>()? {
            out.push(RecordDigest::of(&record));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Read, serde_json::Error> {
        read(&mut serde_json::Deserializer::from_str(text))
    }

    #[test]
    fn a_key_given_twice_is_named() {
        let e = parse(r#"{"a": {"b": 1, "b": 2}}"#)
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("duplicate key `b`"), "{e}");
        let e = parse(r#"{"a": 1, "a": 2}"#).err().unwrap().to_string();
        assert!(e.starts_with("duplicate key `a`"), "{e}");
    }

    #[test]
    fn samples_are_left_behind_and_records_digested() {
        let r = parse(r#"{"runs": [{"name": "x", "samples": [1, 2, 3]}]}"#).unwrap();
        assert_eq!(r.value["runs"][0].get("samples"), None);
        assert_eq!(r.value["runs"][0]["name"], "x");
        let record = tranche_results::network::NodeRecord::default();
        let text = format!(
            r#"{{"validators": [{}]}}"#,
            serde_json::to_string(&record).unwrap()
        );
        let r = parse(&text).unwrap();
        assert_eq!(r.records, Some(vec![RecordDigest::of(&record)]));
        assert_eq!(r.value.get("validators"), None);
    }
}
