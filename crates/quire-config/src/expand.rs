//! `${VAR}` expansion in string values, done while deserializing so that every error and
//! warning can name the dotted key it belongs to.
//!
//! [`Expanding`] sits between `toml`'s deserializer and the target type. It forwards every
//! call unchanged except two: string *values* are expanded from the environment, and map
//! *keys* are remembered so the current key path is known when a value fails or a variable
//! is unset. Keys themselves are never expanded.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};

/// Looks up an environment variable; `None` when it is not set.
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Expands `${NAME}` in `text` from `env`. `$${` stands for a literal `${`; a `$` anywhere
/// else is kept as it is. Each problem is pushed to `problems` and the text around it kept:
/// an unset variable expands to nothing, an unterminated or malformed `${…` stays literal.
pub(crate) fn expand<'t>(text: &'t str, env: Env<'_>, problems: &mut Vec<String>) -> Cow<'t, str> {
    if !text.contains('$') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar..];
        if let Some(escaped) = after.strip_prefix("$${") {
            out.push_str("${");
            rest = escaped;
        } else if let Some(opened) = after.strip_prefix("${") {
            match opened.find('}') {
                Some(close) if is_variable_name(&opened[..close]) => {
                    let name = &opened[..close];
                    match env(name) {
                        Some(value) => out.push_str(&value),
                        None => problems.push(format!(
                            "environment variable {name} is not set; using an empty string"
                        )),
                    }
                    rest = &opened[close + 1..];
                }
                Some(close) => {
                    problems.push(format!(
                        "`${{{}}}` is not a variable name; kept as written (write `$${{` for a literal `${{`)",
                        &opened[..close]
                    ));
                    out.push_str("${");
                    rest = opened;
                }
                None => {
                    problems.push(
                        "`${` without a closing `}`; kept as written (write `$${` for a literal `${`)"
                            .to_owned(),
                    );
                    out.push_str("${");
                    rest = opened;
                }
            }
        } else {
            out.push('$');
            rest = &after[1..];
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// One step of a key path.
#[derive(Debug, Clone)]
enum Segment {
    Key(String),
    Index(usize),
}

/// Shared state of one deserialization: the environment, the key path being read, the path
/// of the innermost value that failed, and the warnings expansion produced.
pub(crate) struct Context<'a> {
    env: Env<'a>,
    path: RefCell<Vec<Segment>>,
    pending_key: RefCell<Option<String>>,
    failed_at: RefCell<Option<String>>,
    warnings: RefCell<Vec<String>>,
}

impl<'a> Context<'a> {
    pub(crate) fn new(env: Env<'a>) -> Self {
        Self {
            env,
            path: RefCell::new(Vec::new()),
            pending_key: RefCell::new(None),
            failed_at: RefCell::new(None),
            warnings: RefCell::new(Vec::new()),
        }
    }

    /// The dotted key of the innermost value whose deserialization failed, if any did.
    pub(crate) fn failed_at(&self) -> Option<String> {
        self.failed_at.borrow().clone()
    }

    pub(crate) fn into_warnings(self) -> Vec<String> {
        self.warnings.into_inner()
    }

    fn current_path(&self) -> String {
        let path = self.path.borrow();
        let mut text = String::new();
        for segment in path.iter() {
            match segment {
                Segment::Key(key) => {
                    if !text.is_empty() {
                        text.push('.');
                    }
                    text.push_str(key);
                }
                Segment::Index(index) => text.push_str(&format!("[{index}]")),
            }
        }
        text
    }

    /// Runs `read` with `segment` pushed on the key path, noting the path if `read` fails
    /// first (the innermost failure is the one that names the offending key).
    fn within<T, E>(&self, segment: Segment, read: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
        self.path.borrow_mut().push(segment);
        let result = read();
        if result.is_err() && self.failed_at.borrow().is_none() {
            let here = self.current_path();
            *self.failed_at.borrow_mut() = Some(here);
        }
        self.path.borrow_mut().pop();
        result
    }

    fn expand<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut problems = Vec::new();
        let expanded = expand(text, self.env, &mut problems);
        if !problems.is_empty() {
            let key = self.current_path();
            let mut warnings = self.warnings.borrow_mut();
            for problem in problems {
                warnings.push(format!("`{key}`: {problem}"));
            }
        }
        expanded
    }
}

/// Whether the string being read is a value (expanded) or a map key (remembered).
#[derive(Clone, Copy)]
enum Role {
    Value,
    Key,
}

/// The deserializer proxy; see the module documentation.
pub(crate) struct Expanding<'c, D> {
    inner: D,
    cx: &'c Context<'c>,
    role: Role,
}

impl<'c, D> Expanding<'c, D> {
    pub(crate) fn new(inner: D, cx: &'c Context<'c>) -> Self {
        Self {
            inner,
            cx,
            role: Role::Value,
        }
    }
}

struct Wrap<'c, V> {
    inner: V,
    cx: &'c Context<'c>,
    role: Role,
}

impl<'c, V> Wrap<'c, V> {
    fn new(inner: V, cx: &'c Context<'c>, role: Role) -> Self {
        Self { inner, cx, role }
    }
}

macro_rules! forward_deserialize {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
                self.inner.$method(Wrap::new(visitor, self.cx, self.role))
            }
        )*
    };
}

impl<'de, 'c, D: Deserializer<'de>> Deserializer<'de> for Expanding<'c, D> {
    type Error = D::Error;

    forward_deserialize! {
        deserialize_any deserialize_bool
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64 deserialize_char deserialize_str deserialize_string
        deserialize_bytes deserialize_byte_buf deserialize_option deserialize_unit
        deserialize_seq deserialize_map deserialize_identifier
    }

    /// Values nobody reads (unknown keys) are passed through untouched, so an unknown key
    /// holding `${UNSET}` yields one warning (the unknown key), not two.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_ignored_any(visitor)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner
            .deserialize_unit_struct(name, Wrap::new(visitor, self.cx, self.role))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner
            .deserialize_newtype_struct(name, Wrap::new(visitor, self.cx, self.role))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner
            .deserialize_tuple(len, Wrap::new(visitor, self.cx, self.role))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner
            .deserialize_tuple_struct(name, len, Wrap::new(visitor, self.cx, self.role))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner
            .deserialize_struct(name, fields, Wrap::new(visitor, self.cx, self.role))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner
            .deserialize_enum(name, variants, Wrap::new(visitor, self.cx, self.role))
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

macro_rules! forward_visit {
    ($($method:ident: $ty:ty)*) => {
        $(
            fn $method<E: de::Error>(self, value: $ty) -> Result<V::Value, E> {
                self.inner.$method(value)
            }
        )*
    };
}

impl<'de, 'c, V: Visitor<'de>> Visitor<'de> for Wrap<'c, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    forward_visit! {
        visit_bool: bool
        visit_i8: i8 visit_i16: i16 visit_i32: i32 visit_i64: i64 visit_i128: i128
        visit_u8: u8 visit_u16: u16 visit_u32: u32 visit_u64: u64 visit_u128: u128
        visit_f32: f32 visit_f64: f64 visit_char: char
        visit_bytes: &[u8] visit_borrowed_bytes: &'de [u8] visit_byte_buf: Vec<u8>
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<V::Value, E> {
        match self.role {
            Role::Key => {
                *self.cx.pending_key.borrow_mut() = Some(text.to_owned());
                self.inner.visit_str(text)
            }
            Role::Value => match self.cx.expand(text) {
                Cow::Borrowed(same) => self.inner.visit_str(same),
                Cow::Owned(expanded) => self.inner.visit_string(expanded),
            },
        }
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<V::Value, E> {
        match self.role {
            Role::Key => {
                *self.cx.pending_key.borrow_mut() = Some(text.to_owned());
                self.inner.visit_borrowed_str(text)
            }
            Role::Value => match self.cx.expand(text) {
                Cow::Borrowed(same) => self.inner.visit_borrowed_str(same),
                Cow::Owned(expanded) => self.inner.visit_string(expanded),
            },
        }
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<V::Value, E> {
        match self.role {
            Role::Key => {
                *self.cx.pending_key.borrow_mut() = Some(text.clone());
                self.inner.visit_string(text)
            }
            Role::Value => {
                let expanded = match self.cx.expand(&text) {
                    Cow::Borrowed(_) => None,
                    Cow::Owned(expanded) => Some(expanded),
                };
                self.inner.visit_string(expanded.unwrap_or(text))
            }
        }
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.inner.visit_some(Expanding::new(deserializer, self.cx))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<V::Value, D::Error> {
        self.inner
            .visit_newtype_struct(Expanding::new(deserializer, self.cx))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.inner.visit_seq(Seq {
            inner: seq,
            cx: self.cx,
            index: 0,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(Map {
            inner: map,
            cx: self.cx,
        })
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.inner.visit_enum(Enum {
            inner: data,
            cx: self.cx,
        })
    }
}

struct Seed<'c, S> {
    inner: S,
    cx: &'c Context<'c>,
    role: Role,
}

impl<'de, 'c, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<'c, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.inner.deserialize(Expanding {
            inner: deserializer,
            cx: self.cx,
            role: self.role,
        })
    }
}

struct Seq<'c, A> {
    inner: A,
    cx: &'c Context<'c>,
    index: usize,
}

impl<'de, 'c, A: SeqAccess<'de>> SeqAccess<'de> for Seq<'c, A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let index = self.index;
        self.index += 1;
        let (inner, cx) = (&mut self.inner, self.cx);
        cx.within(Segment::Index(index), || {
            inner.next_element_seed(Seed {
                inner: seed,
                cx,
                role: Role::Value,
            })
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

struct Map<'c, A> {
    inner: A,
    cx: &'c Context<'c>,
}

impl<'de, 'c, A: MapAccess<'de>> MapAccess<'de> for Map<'c, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.inner.next_key_seed(Seed {
            inner: seed,
            cx: self.cx,
            role: Role::Key,
        })
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        let key = self.cx.pending_key.borrow_mut().take();
        let (inner, cx) = (&mut self.inner, self.cx);
        cx.within(Segment::Key(key.unwrap_or_else(|| "?".to_owned())), || {
            inner.next_value_seed(Seed {
                inner: seed,
                cx,
                role: Role::Value,
            })
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

struct Enum<'c, A> {
    inner: A,
    cx: &'c Context<'c>,
}

impl<'de, 'c, A: EnumAccess<'de>> EnumAccess<'de> for Enum<'c, A> {
    type Error = A::Error;
    type Variant = Variant<'c, A::Variant>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), A::Error> {
        // A variant written as a plain string value (`strategy = "${MODE}"`) is a value too.
        let (value, variant) = self.inner.variant_seed(Seed {
            inner: seed,
            cx: self.cx,
            role: Role::Value,
        })?;
        Ok((
            value,
            Variant {
                inner: variant,
                cx: self.cx,
            },
        ))
    }
}

struct Variant<'c, A> {
    inner: A,
    cx: &'c Context<'c>,
}

impl<'de, 'c, A: VariantAccess<'de>> VariantAccess<'de> for Variant<'c, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.inner.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.inner.newtype_variant_seed(Seed {
            inner: seed,
            cx: self.cx,
            role: Role::Value,
        })
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.inner
            .tuple_variant(len, Wrap::new(visitor, self.cx, Role::Value))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.inner
            .struct_variant(fields, Wrap::new(visitor, self.cx, Role::Value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/q".to_owned()),
            "EMPTY" => Some(String::new()),
            "A_1" => Some("x".to_owned()),
            _ => None,
        }
    }

    #[test]
    fn expand_follows_the_dollar_rules() {
        let cases = [
            ("plain", "plain", 0),
            ("${HOME}/kb", "/home/q/kb", 0),
            ("a${A_1}b${A_1}c", "axbxc", 0),
            ("${EMPTY}", "", 0),
            ("${MISSING}", "", 1),
            ("pre-${MISSING}-post", "pre--post", 1),
            ("$${HOME}", "${HOME}", 0),
            ("$$${HOME}", "$${HOME}", 0),
            ("cost $5", "cost $5", 0),
            ("$HOME", "$HOME", 0),
            ("trailing $", "trailing $", 0),
            ("${HOME", "${HOME", 1),
            ("${not a name}", "${not a name}", 1),
            ("${}", "${}", 1),
        ];
        for (text, expected, problem_count) in cases {
            let mut problems = Vec::new();
            let expanded = expand(text, &env, &mut problems);
            assert_eq!(expanded, expected, "{text}");
            assert_eq!(problems.len(), problem_count, "{text}: {problems:?}");
        }
    }

    #[test]
    fn unset_variable_problem_names_the_variable() {
        let mut problems = Vec::new();
        expand("${NOPE}", &env, &mut problems);
        assert!(problems[0].contains("NOPE"), "{problems:?}");
    }
}
