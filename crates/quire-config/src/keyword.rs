//! Closed sets of words a config key accepts (`strategy = "git"`), declared once with their
//! spellings so TOML, `QUIRE_*` overrides and messages all agree.

/// Declares a fieldless enum whose values are written as fixed words. Generates `ALL`,
/// `as_str`, `Display`, `FromStr` (ASCII case-insensitive, error lists the choices) and
/// `Deserialize` through `FromStr`, so the TOML error names every accepted word.
macro_rules! keyword_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($what:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The word that selects this value in the config file.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::keyword::UnknownKeyword;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                let word = text.trim();
                Self::ALL
                    .iter()
                    .copied()
                    .find(|value| value.as_str().eq_ignore_ascii_case(word))
                    .ok_or_else(|| $crate::keyword::UnknownKeyword {
                        what: $what,
                        found: text.to_owned(),
                        expected: Self::ALL.iter().map(|value| value.as_str()).collect(),
                    })
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct WordVisitor;

                impl ::serde::de::Visitor<'_> for WordVisitor {
                    type Value = $name;

                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        write!(f, "a {} ({})", $what, $crate::keyword::choices(
                            &$name::ALL.iter().map(|value| value.as_str()).collect::<Vec<_>>()
                        ))
                    }

                    fn visit_str<E: ::serde::de::Error>(self, text: &str) -> Result<$name, E> {
                        text.parse().map_err(E::custom)
                    }
                }

                deserializer.deserialize_str(WordVisitor)
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
    };
}

pub(crate) use keyword_enum;

/// A word that is not one of the accepted values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{found}` (expected {})", choices(expected))]
pub struct UnknownKeyword {
    pub what: &'static str,
    pub found: String,
    pub expected: Vec<&'static str>,
}

/// `a`, `a or b`, `a, b or c`.
pub(crate) fn choices(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [only] => (*only).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}
