//! The generic field reader of the loader: one YAML mapping (a step, its
//! `objective` options, or a nested value such as `latency`) with the
//! dotted path of its keys, its key check with "did you mean" hints, its
//! typed getters, and the record of keys that took their default.

use yaml_serde::{Mapping, Value};

use crate::error::ConfigErrorKind as Kind;
use crate::yaml::too_large_integer;
use tranche_cli::text::{bare, grouped, quote};

/// Why a key without an upstream default is required.
pub(super) const NO_DEFAULT: &str = "required: upstream has no default for it";

/// A key's text, or a constructor of the error for a non-string key.
pub(super) fn key_name(key: &Value) -> Result<&str, impl Fn(&str) -> Kind + '_> {
    match key {
        Value::String(s) => Ok(s.as_str()),
        other => Err(move |place: &str| {
            Kind::Structure(format!(
                "keys must be strings, found {} in {place}",
                describe(other)
            ))
        }),
    }
}

/// A short description of a value for type errors; a string is quoted cut
/// to a short line ([`quote`]).
pub(super) fn describe(v: &Value) -> String {
    if let Some(digits) = too_large_integer(v) {
        return format!("integer {}", bare(digits));
    }
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) if n.is_f64() => format!("float {n}"),
        Value::Number(n) => format!("integer {n}"),
        Value::String(s) => format!("string {}", quote(s)),
        Value::Sequence(_) => "a list".into(),
        Value::Mapping(_) => "a mapping".into(),
        Value::Tagged(t) => format!("tagged value {}", bare(&t.tag.to_string())),
    }
}

/// What the whole file is when it is not what it should be: its kind and
/// size, never its contents (a file given by mistake, say `/etc/passwd`,
/// is one long plain string).
pub(super) fn describe_file(v: &Value) -> String {
    match v {
        Value::String(s) => format!("a string of {} bytes", grouped(s.len())),
        Value::Tagged(t) => format!("a value tagged {}", bare(&t.tag.to_string())),
        other => describe(other),
    }
}

/// The longest key a "did you mean" hint is looked for (a typo of a key
/// of ours is not longer; the distance costs the product of the lengths).
const MAX_HINTED_KEY: usize = 64;

/// Levenshtein distance, for "did you mean" hints.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The closest allowed key, if close enough to be a typo.
fn suggestion(key: &str, allowed: &[&str]) -> Option<String> {
    if key.len() > MAX_HINTED_KEY {
        return None;
    }
    allowed
        .iter()
        .map(|k| (distance(key, k), *k))
        .filter(|(d, k)| *d <= 3 && *d < k.len() / 2 + 1)
        .min()
        .map(|(_, k)| k.to_owned())
}

/// A mapping of one step or sub-object, with the dotted path of its keys.
pub(super) struct Fields<'a> {
    map: &'a Mapping,
    prefix: String,
}

impl<'a> Fields<'a> {
    /// The mapping `map`, whose keys are named `{prefix}{key}` in errors.
    pub(super) fn new(map: &'a Mapping, prefix: impl Into<String>) -> Self {
        Fields {
            map,
            prefix: prefix.into(),
        }
    }

    fn path(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// Rejects any key outside `allowed`; `elsewhere` names keys that
    /// belong to the other schema, for a better hint.
    pub(super) fn check_keys(
        &self,
        allowed: &[&str],
        place: &str,
        elsewhere: Option<(&[&str], &str)>,
    ) -> Result<(), Kind> {
        for key in self.map.keys() {
            let name = key_name(key).map_err(|k| k(place))?;
            if allowed.contains(&name) {
                continue;
            }
            let hint = match elsewhere {
                Some((keys, owner)) if keys.contains(&name) => {
                    format!(": it belongs to {owner}")
                }
                _ => suggestion(name, allowed)
                    .map(|s| format!(": did you mean `{}`?", self.path(&s)))
                    .unwrap_or_default(),
            };
            return Err(Kind::UnknownKey {
                key: self.path(name),
                place: place.to_owned(),
                hint,
            });
        }
        Ok(())
    }

    pub(super) fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    fn wrong(&self, key: &str, expected: &'static str, v: &Value) -> Kind {
        Kind::WrongType {
            key: self.path(key),
            expected,
            found: describe(v),
        }
    }

    /// The error for a value of the right type that no run can have.
    pub(super) fn impossible(
        &self,
        key: &str,
        value: impl ToString,
        reason: impl Into<String>,
    ) -> Kind {
        Kind::Impossible {
            key: self.path(key),
            value: value.to_string(),
            reason: reason.into(),
        }
    }

    /// `value` of `key` if within `lo..=hi`; else an error naming the key,
    /// the value and the bound (`bound` says where it comes from).
    pub(super) fn in_range(
        &self,
        key: &str,
        value: u32,
        lo: u32,
        hi: u32,
        bound: &str,
    ) -> Result<u32, Kind> {
        if (lo..=hi).contains(&value) {
            Ok(value)
        } else {
            Err(self.impossible(
                key,
                value,
                format!("must be between {lo} and {hi} ({bound})"),
            ))
        }
    }

    /// An unsigned integer of at most `max` (the key's type: `u64::MAX`,
    /// `u32::MAX`); one beyond 64 bits is too large for the key too.
    fn unsigned(&self, key: &str, max: u64) -> Result<Option<u64>, Kind> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        if let Some(digits) = too_large_integer(v) {
            let why = if digits.starts_with('-') {
                "must not be negative".to_owned()
            } else {
                format!("too large: at most {max}")
            };
            return Err(self.impossible(key, digits, why));
        }
        match v {
            Value::Number(n) if !n.is_f64() => match n.as_u64() {
                Some(x) if x <= max => Ok(Some(x)),
                Some(x) => Err(self.impossible(key, x, format!("too large: at most {max}"))),
                None => Err(self.impossible(key, n, "must not be negative")),
            },
            other => Err(self.wrong(key, "an unsigned integer", other)),
        }
    }

    pub(super) fn u64(&self, key: &str) -> Result<Option<u64>, Kind> {
        self.unsigned(key, u64::MAX)
    }

    pub(super) fn u32(&self, key: &str) -> Result<Option<u32>, Kind> {
        Ok(self.unsigned(key, u32::MAX.into())?.map(|x| x as u32))
    }

    pub(super) fn percent(&self, key: &str) -> Result<Option<u8>, Kind> {
        match self.u64(key)? {
            None => Ok(None),
            Some(x) if x <= 100 => Ok(Some(x as u8)),
            Some(x) => Err(self.impossible(key, x, "a percentage is at most 100")),
        }
    }

    pub(super) fn f64(&self, key: &str) -> Result<Option<f64>, Kind> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        if let Some(digits) = too_large_integer(v) {
            // Any integer is a number: beyond 64 bits, a large one.
            return match digits.parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(Some(x)),
                _ => Err(self.impossible(key, digits, "must be a finite number")),
            };
        }
        match v {
            Value::Number(n) => match n.as_f64() {
                Some(x) if x.is_finite() => Ok(Some(x)),
                _ => Err(self.impossible(key, n, "must be a finite number")),
            },
            other => Err(self.wrong(key, "a number", other)),
        }
    }

    pub(super) fn non_negative_f64(&self, key: &str) -> Result<Option<f64>, Kind> {
        match self.f64(key)? {
            Some(x) if x < 0.0 => Err(self.impossible(key, x, "must not be negative")),
            other => Ok(other),
        }
    }

    pub(super) fn f32(&self, key: &str) -> Result<Option<f32>, Kind> {
        match self.f64(key)? {
            None => Ok(None),
            Some(x) if (x as f32).is_finite() => Ok(Some(x as f32)),
            Some(x) => Err(self.impossible(key, x, "out of the range of a 32-bit float")),
        }
    }

    pub(super) fn bool(&self, key: &str) -> Result<Option<bool>, Kind> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(self.wrong(key, "true or false", other)),
        }
    }

    pub(super) fn string(&self, key: &str) -> Result<Option<String>, Kind> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.wrong(key, "a string", other)),
        }
    }

    pub(super) fn required<T>(&self, key: &str, value: Option<T>, why: &str) -> Result<T, Kind> {
        value.ok_or_else(|| Kind::MissingKey {
            key: self.path(key),
            why: why.to_owned(),
        })
    }

    /// A list at `key` (`None` if absent or null), each item read by
    /// `read` as if it were the key `key[i]` of this mapping, so that its
    /// errors name the item (`n_validators[1]`).
    pub(super) fn list<T>(
        &self,
        key: &str,
        expected: &'static str,
        read: impl Fn(&Fields<'_>, &str) -> Result<Option<T>, Kind>,
    ) -> Result<Option<Vec<T>>, Kind> {
        let items = match self.get(key) {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Sequence(items)) => items,
            Some(other) => return Err(self.wrong(key, expected, other)),
        };
        let mut values = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let name = format!("{key}[{i}]");
            let mut one = Mapping::new();
            one.insert(Value::String(name.clone()), item.clone());
            let value = read(&Fields::new(&one, self.prefix.clone()), &name)?;
            values.push(value.expect("the item is present"));
        }
        Ok(Some(values))
    }

    /// A nested mapping at `key` (`None` if absent or null).
    pub(super) fn mapping(
        &self,
        key: &str,
        expected: &'static str,
    ) -> Result<Option<Fields<'a>>, Kind> {
        match self.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Mapping(map)) => Ok(Some(Fields::new(map, format!("{}.", self.path(key))))),
            Some(other) => Err(self.wrong(key, expected, other)),
        }
    }
}

/// Records which keys took their default.
#[derive(Default)]
pub(super) struct Tracker {
    pub(super) defaulted: Vec<&'static str>,
}

impl Tracker {
    /// `value`, or `default` (recording `key` as defaulted).
    pub(super) fn or<T>(&mut self, key: &'static str, value: Option<T>, default: T) -> T {
        match value {
            Some(v) => v,
            None => {
                self.defaulted.push(key);
                default
            }
        }
    }

    /// `value`, or the schema's `default` where it has one; a missing key
    /// where it has none.
    pub(super) fn or_schema_default<T>(
        &mut self,
        fields: &Fields<'_>,
        key: &'static str,
        value: Option<T>,
        default: Option<T>,
    ) -> Result<T, Kind> {
        match (value, default) {
            (Some(v), _) => Ok(v),
            (None, Some(def)) => Ok(self.or(key, None, def)),
            (None, None) => fields.required(key, None, NO_DEFAULT),
        }
    }
}
