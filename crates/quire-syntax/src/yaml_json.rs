//! YAML read by `serde_yaml_ng` straight into JSON values.
//!
//! `serde_yaml_ng::Value` cannot hold an integer beyond 64 bits: reading one failed the whole
//! document, so one `isbn: 978030640615712345` took every key of a page's frontmatter with it.
//! Here such an integer becomes the JSON number its digits make (the nearest double, or the
//! digits themselves where `serde_json` keeps numbers exact). Tags are dropped, their values
//! kept; NaN and infinities, which JSON cannot write, are null.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess};
use serde_json::{Map, Value};

/// The longest key a non-string YAML key (`? [a, b]`, `? {k: v}`) may become as JSON text.
/// Each level of keys nested in keys escapes the quotes of the one inside, doubling its
/// backslashes: without a bound, 28 levels of `? ` took seconds and gigabytes.
pub(crate) const MAX_KEY: usize = 1024;

/// Marks the error of a key longer than [`MAX_KEY`] as text; the key's start follows it.
pub(crate) const LONG_KEY: &str = "a key longer than 1024 characters written as text: ";

/// Marks the error of a document that is not a mapping.
pub(crate) const NOT_A_MAPPING: &str = "a mapping of keys to values";

/// A whole frontmatter block: a mapping, or nothing at all (an empty mapping).
pub(crate) struct Document(pub(crate) Map<String, Value>);

/// Any YAML value, as JSON.
struct Json(Value);

impl<'de> Deserialize<'de> for Document {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(DocumentVisitor)
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(JsonVisitor).map(Json)
    }
}

struct DocumentVisitor;

impl<'de> de::Visitor<'de> for DocumentVisitor {
    type Value = Document;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(NOT_A_MAPPING)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Document, E> {
        Ok(Document(Map::new()))
    }

    fn visit_none<E: de::Error>(self) -> Result<Document, E> {
        Ok(Document(Map::new()))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Document, A::Error> {
        mapping(map).map(Document)
    }
}

struct JsonVisitor;

impl<'de> de::Visitor<'de> for JsonVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_i128<E: de::Error>(self, n: i128) -> Result<Value, E> {
        Ok(digits(&n.to_string()))
    }

    fn visit_u128<E: de::Error>(self, n: u128) -> Result<Value, E> {
        Ok(digits(&n.to_string()))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Value, E> {
        // NaN and infinities have no JSON form.
        Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        Json::deserialize(deserializer).map(|json| json.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(Json(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Value, A::Error> {
        mapping(map).map(Value::Object)
    }

    /// A tagged value (`!tag value`): the value, without its tag.
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        let (_tag, value): (String, _) = data.variant()?;
        value.newtype_variant::<Json>().map(|json| json.0)
    }
}

/// A mapping's entries; a key given twice is an error, as YAML says, and keys that are not
/// strings are written as their JSON text.
fn mapping<'de, A: MapAccess<'de>>(mut map: A) -> Result<Map<String, Value>, A::Error> {
    // Each key seen, as (whether it was a string, its text): `1` and `"1"` are two keys.
    let mut seen: HashSet<(bool, String)> = HashSet::new();
    let mut out = Map::new();
    while let Some(Json(key)) = map.next_key()? {
        let (is_string, text) = match key {
            Value::String(s) => (true, s),
            other => {
                let text = other.to_string();
                if text.len() > MAX_KEY {
                    let start: String = text.chars().take(40).collect();
                    return Err(de::Error::custom(format_args!("{LONG_KEY}{start}…")));
                }
                (false, text)
            }
        };
        if !seen.insert((is_string, text.clone())) {
            let shown: String = text.chars().take(80).collect();
            return Err(de::Error::custom(format_args!(
                "duplicate entry with key {shown:?}"
            )));
        }
        let Json(value) = map.next_value()?;
        out.insert(text, value);
    }
    Ok(out)
}

/// The JSON number an integer's digits make.
fn digits(text: &str) -> Value {
    serde_json::from_str::<serde_json::Number>(text).map_or(Value::Null, Value::Number)
}
