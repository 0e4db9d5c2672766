//! YAML text to a value tree: `yaml_serde::Value`, read with yaml_serde's
//! own parser, except for integers beyond 64 bits. `Value` cannot hold
//! them, and reading into it refuses the whole file with "invalid type:
//! integer `…` as u128, expected any YAML value"; here such an integer is
//! kept as written, under the tag [`TOO_LARGE`], so that the reader of its
//! key can say that the value is too large for the key and give the bound
//! ([`too_large_integer`]).
//!
//! [`read`] is the one reader of every YAML input the tool takes (test
//! sequences, `!ApprovalNetwork` and `!ApprovalSweep` files, cost tables):
//! the text is pre-scanned for its depth, its number of values and its
//! longest value (`prescan.rs`) before the parser allocates anything for
//! it, and the tree built is bounded again as it is built (aliases
//! expanded: at most [`MAX_VALUES`] values, none longer than
//! [`MAX_VALUE_BYTES`]). Reading any YAML input so takes at most a few
//! times its size plus a fixed ceiling of about 60 MB (the parser's events
//! and the tree of [`MAX_VALUES`] values), however the file is made.

use crate::prescan;
pub use crate::prescan::{Exceeds, OutOfBounds, MAX_DEPTH, MAX_VALUES, MAX_VALUE_BYTES};
use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess};
use serde::de::{VariantAccess, Visitor};
use std::cell::Cell;
use std::fmt;
use yaml_serde::value::{Tag, TaggedValue};
use yaml_serde::{Mapping, Value};

/// Why a YAML input was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Longer than any input file may be (the text given directly, not
    /// through `input::read_text`, which refuses such a file first).
    #[error("{bytes} bytes, larger than {max} bytes, the limit for an input file", max = tranche_cli::input::MAX_INPUT_FILE_BYTES)]
    TooLarge { bytes: usize },
    /// Beyond a bound of the pre-scan.
    #[error("{0}")]
    Bounds(OutOfBounds),
    /// Not YAML, or beyond a bound as the tree was built.
    #[error("invalid YAML: {0}")]
    Yaml(String),
}

/// Reads any YAML input: the pre-scan's bounds, then the tree
/// ([`from_str`]), itself bounded as it is built. The error is one line.
pub fn read(text: &str) -> Result<Value, ReadError> {
    if text.len() as u64 > tranche_cli::input::MAX_INPUT_FILE_BYTES {
        return Err(ReadError::TooLarge { bytes: text.len() });
    }
    prescan::check(text).map_err(ReadError::Bounds)?;
    let built = Cell::new(0);
    Tree(&built)
        .deserialize(yaml_serde::Deserializer::from_str(text))
        .map_err(|e| ReadError::Yaml(tranche_cli::text::one_line(&e.to_string())))
}

/// The tag an integer beyond 64 bits is kept under (its decimal digits, a
/// string). No YAML file of the tool's has a use for it.
pub const TOO_LARGE: &str = "tranche-integer-beyond-64-bits";

/// The tree of `text`, as `yaml_serde::from_str::<Value>` reads it, with
/// integers beyond 64 bits under [`TOO_LARGE`].
/// Not bounded: for the tool's own text; a user's file goes through
/// [`read`].
pub fn from_str(text: &str) -> Result<Value, yaml_serde::Error> {
    let built = Cell::new(0);
    Tree(&built).deserialize(yaml_serde::Deserializer::from_str(text))
}

/// The decimal digits (with a `-` if negative) of an integer beyond 64
/// bits, as [`from_str`] keeps it; `None` for any other value.
pub fn too_large_integer(v: &Value) -> Option<&str> {
    match v {
        Value::Tagged(t) if t.tag == TOO_LARGE => match &t.value {
            Value::String(digits) => Some(digits),
            _ => None,
        },
        _ => None,
    }
}

fn too_large(digits: String) -> Value {
    Value::Tagged(Box::new(TaggedValue {
        tag: Tag::new(TOO_LARGE),
        value: Value::String(digits),
    }))
}

/// The visitor of one value, and of every value inside it: what
/// yaml_serde's `Value` visitor does, plus `u128` and `i128`; it counts
/// the values built (aliases expanded) and refuses more than
/// [`MAX_VALUES`] of them or a string longer than [`MAX_VALUE_BYTES`].
#[derive(Clone, Copy)]
struct Tree<'a>(&'a Cell<usize>);

impl<'de> DeserializeSeed<'de> for Tree<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.0.set(self.0.get() + 1);
        if self.0.get() > MAX_VALUES {
            return Err(de::Error::custom(format!(
                "more than {MAX_VALUES} values once aliases are expanded (no input file needs \
                 as many)"
            )));
        }
        d.deserialize_any(self)
    }
}

/// A string longer than any input needs.
fn too_long<E: de::Error>(s: &str) -> Result<(), E> {
    if s.len() > MAX_VALUE_BYTES {
        Err(E::custom(format!(
            "a value of {} bytes, longer than {MAX_VALUE_BYTES} (no input file needs one as long)",
            s.len()
        )))
    } else {
        Ok(())
    }
}

impl<'de> Visitor<'de> for Tree<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Number(i.into()))
    }

    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(Value::Number(u.into()))
    }

    fn visit_i128<E>(self, i: i128) -> Result<Value, E> {
        Ok(too_large(i.to_string()))
    }

    fn visit_u128<E>(self, u: u128) -> Result<Value, E> {
        Ok(too_large(u.to_string()))
    }

    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(Value::Number(f.into()))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        too_long(s)?;
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        too_long(&s)?;
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Sequence(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut mapping = Mapping::new();
        while let Some(key) = map.next_key_seed(self)? {
            if mapping.contains_key(&key) {
                return Err(de::Error::custom(duplicate(&key)));
            }
            let value = map.next_value_seed(self)?;
            mapping.insert(key, value);
        }
        Ok(Value::Mapping(mapping))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        let (tag, contents): (String, _) = data.variant()?;
        too_long::<A::Error>(&tag)?;
        let value = contents.newtype_variant_seed(self)?;
        Ok(Value::Tagged(Box::new(TaggedValue {
            tag: Tag::new(tag),
            value,
        })))
    }
}

/// yaml_serde's words for a key given twice.
fn duplicate(key: &Value) -> String {
    match key {
        Value::Null => "duplicate entry with null key".into(),
        Value::Bool(b) => format!("duplicate entry with key `{b}`"),
        Value::Number(n) => format!("duplicate entry with key {n}"),
        Value::String(s) => format!("duplicate entry with key {s:?}"),
        _ => "duplicate entry in YAML map".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 43: the bounds hold for every input, before the parser
    /// (depth, values, length) and as the tree is built (aliases).
    #[test]
    fn every_bound_is_one_line_and_quick() {
        let start = std::time::Instant::now();
        let deep = format!("route: {}{}", "[".repeat(200_000), "]".repeat(200_000));
        let flat = format!("route: [{}1]", "1,".repeat(2_000_000));
        let long = format!("route: {}", "9".repeat(100_000));
        for (text, needle) in [
            (deep, "nesting deeper than 64 levels at line 1"),
            (flat, "more than 100000 values by line 1"),
            (long, "a value longer than 65536 bytes at line 1"),
        ] {
            let e = read(&text).unwrap_err().to_string();
            assert!(e.contains(needle), "{e}");
        }
        // 11 values, each aliased 10 times, 5 levels: 10^5 once expanded
        // (padded so that yaml_serde's own limit, 100 replays an event,
        // is not what stops it).
        let mut bomb = format!("pad: [{}0]\n", "0,".repeat(2_000));
        bomb.push_str("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..6 {
            let p = i - 1;
            let items = vec![format!("*a{p}"); 10].join(", ");
            bomb.push_str(&format!("a{i}: &a{i} [{items}]\n"));
        }
        let e = read(&bomb).unwrap_err().to_string();
        assert!(e.contains("more than 100000 values once aliases"), "{e}");
        assert!(start.elapsed() < std::time::Duration::from_secs(10));
        assert!(read("a: &x [1, 2]\nb: *x\n").is_ok());
        let huge = "#".repeat(tranche_cli::input::MAX_INPUT_FILE_BYTES as usize + 1);
        assert!(read(&huge)
            .unwrap_err()
            .to_string()
            .contains("the limit for an input file"));
    }

    #[test]
    fn the_tree_is_yaml_serdes_but_for_integers_beyond_64_bits() {
        for text in [
            "a: 1\nb: [x, -2, 3.5, true, null, ~]\nc: {d: !Tag {e: 'f'}}\n",
            "!ApprovalNetwork\nn: 18446744073709551615\nm: -9223372036854775808\n",
            "x: &a [1]\ny: *a\n<<: {z: 1}\n",
            "",
        ] {
            let ours = from_str(text).unwrap();
            let theirs: Value = yaml_serde::from_str(text).unwrap();
            assert_eq!(ours, theirs, "{text}");
        }
        let v = from_str("n: 99999999999999999999\nm: -99999999999999999999\n").unwrap();
        assert_eq!(too_large_integer(&v["n"]), Some("99999999999999999999"));
        assert_eq!(too_large_integer(&v["m"]), Some("-99999999999999999999"));
        assert_eq!(too_large_integer(&Value::from(1)), None);
        for bad in ["a: 1\na: 2\n", "[1", "a: b: c"] {
            let ours = from_str(bad).unwrap_err().to_string();
            let theirs = yaml_serde::from_str::<Value>(bad).unwrap_err().to_string();
            assert_eq!(ours, theirs);
        }
    }
}
