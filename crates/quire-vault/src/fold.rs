//! Name folding: the three strictness levels at which resolution compares a target with
//! the keys of a file, and the loosest level as a public function for callers that must
//! predict which names a link can reach.

use std::borrow::Cow;

use crate::path::nfc;

/// How strictly a key compares to a target; each level is a resolution fallback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fold {
    /// Bytes as they are (after NFC).
    Exact,
    /// Lowercased.
    Case,
    /// Lowercased, and every run of `-`, `_`, space written as one `-`.
    Separators,
}

impl Fold {
    pub(crate) const ALL: [Fold; 3] = [Fold::Exact, Fold::Case, Fold::Separators];

    /// `text` (NFC) brought to this level; borrows whenever nothing changes.
    pub(crate) fn apply(self, text: &str) -> Cow<'_, str> {
        match self {
            Fold::Exact => Cow::Borrowed(text),
            Fold::Case => lowercase(text),
            Fold::Separators => {
                let lower = lowercase(text);
                if !needs_squeeze(&lower) {
                    return lower;
                }
                let mut out = String::with_capacity(lower.len());
                squeeze(lower.chars(), |c| out.push(c));
                Cow::Owned(out)
            }
        }
    }

    #[inline]
    pub(crate) fn slot(self) -> usize {
        match self {
            Fold::Exact => 0,
            Fold::Case => 1,
            Fold::Separators => 2,
        }
    }
}

/// Calls `emit` with each char of `name` at the loosest level resolution compares names
/// at: NFC, lowercase, every run of `-`, `_` and space as one `-`. Names that fold
/// differently never reach the same file through a wiki link's last segment. Allocates
/// nothing for ASCII names, whose fold is ASCII.
pub fn fold_name(name: &str, emit: impl FnMut(char)) {
    if name.is_ascii() {
        squeeze(name.chars().map(|c| c.to_ascii_lowercase()), emit);
    } else {
        let name = nfc(name);
        squeeze(lowercase(&name).chars(), emit);
    }
}

fn is_separator(c: char) -> bool {
    matches!(c, '-' | '_' | ' ')
}

/// Passes lowercased `chars` on to `emit` with every run of separators as one `-`.
fn squeeze(chars: impl Iterator<Item = char>, mut emit: impl FnMut(char)) {
    let mut in_run = false;
    for c in chars {
        if is_separator(c) {
            if !in_run {
                emit('-');
            }
            in_run = true;
        } else {
            emit(c);
            in_run = false;
        }
    }
}

/// True when [`squeeze`] would change `text`: it has `_`, a space, or two separators in a
/// row.
fn needs_squeeze(text: &str) -> bool {
    let mut previous = false;
    for c in text.chars() {
        let separator = is_separator(c);
        if c == '_' || c == ' ' || (separator && previous) {
            return true;
        }
        previous = separator;
    }
    false
}

fn lowercase(text: &str) -> Cow<'_, str> {
    let unchanged = if text.is_ascii() {
        !text.bytes().any(|b| b.is_ascii_uppercase())
    } else {
        text.chars().all(|c| {
            let mut lower = c.to_lowercase();
            lower.next() == Some(c) && lower.next().is_none()
        })
    };
    if unchanged {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.to_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_levels_normalise_as_documented() {
        let cases = [
            (Fold::Exact, "My Note", "My Note"),
            (Fold::Case, "My Note", "my note"),
            (Fold::Case, "ÄRGER", "ärger"),
            (Fold::Separators, "My Note", "my-note"),
            (Fold::Separators, "my__note", "my-note"),
            (Fold::Separators, "a - _b", "a-b"),
            (Fold::Separators, "a/b c.md", "a/b-c.md"),
            (Fold::Separators, "plain-name", "plain-name"),
        ];
        for (fold, input, expected) in cases {
            assert_eq!(fold.apply(input), expected, "{fold:?} {input:?}");
        }
    }

    fn folded(name: &str) -> String {
        let mut out = String::new();
        fold_name(name, |c| out.push(c));
        out
    }

    #[test]
    fn fold_name_is_the_loosest_level_after_nfc() {
        let cases = [
            ("My Note", "my-note"),
            ("my__note.md", "my-note.md"),
            ("Ärger", "ärger"),
            ("Cafe\u{301} Au-Lait", "caf\u{e9}-au-lait"),
            ("plain", "plain"),
            ("", ""),
        ];
        for (input, want) in cases {
            assert_eq!(folded(input), want, "{input:?}");
            assert_eq!(
                folded(input),
                Fold::Separators.apply(&nfc(input)),
                "{input:?}"
            );
            assert_eq!(
                folded(&folded(input)),
                folded(input),
                "idempotent {input:?}"
            );
        }
    }
}
