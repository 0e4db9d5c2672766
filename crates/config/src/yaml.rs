//! YAML text to a value tree: `yaml_serde::Value`, read with yaml_serde's
//! own parser, except for integers beyond 64 bits. `Value` cannot hold
//! them, and reading into it refuses the whole file with "invalid type:
//! integer `…` as u128, expected any YAML value"; here such an integer is
//! kept as written, under the tag [`TOO_LARGE`], so that the reader of its
//! key can say that the value is too large for the key and give the bound
//! ([`too_large_integer`]).

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess};
use serde::de::{VariantAccess, Visitor};
use std::fmt;
use yaml_serde::value::{Tag, TaggedValue};
use yaml_serde::{Mapping, Value};

/// The tag an integer beyond 64 bits is kept under (its decimal digits, a
/// string). No YAML file of the tool's has a use for it.
pub const TOO_LARGE: &str = "tranche-integer-beyond-64-bits";

/// The tree of `text`, as `yaml_serde::from_str::<Value>` reads it, with
/// integers beyond 64 bits under [`TOO_LARGE`].
pub fn from_str(text: &str) -> Result<Value, yaml_serde::Error> {
    Tree.deserialize(yaml_serde::Deserializer::from_str(text))
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
/// yaml_serde's `Value` visitor does, plus `u128` and `i128`.
#[derive(Clone, Copy)]
struct Tree;

impl<'de> DeserializeSeed<'de> for Tree {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Tree {
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

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
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
