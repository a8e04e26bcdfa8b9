//! Heading slugs: the anchor form of a heading's text.

use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

/// The anchor of a heading: NFC, trimmed, lowercased, each whitespace character turned
/// into `-`, and everything that is not alphanumeric (any script), `-` or `_` dropped.
///
/// ```
/// assert_eq!(quire_syntax::slug("  Über uns: Team & Plan! "), "über-uns-team--plan");
/// ```
pub fn slug(text: &str) -> String {
    let text = text.trim();
    let mut out = String::with_capacity(text.len());
    if text.is_ascii() {
        // Most headings: no normalization or Unicode case tables needed.
        for b in text.bytes() {
            if b.is_ascii_whitespace() {
                out.push('-');
            } else if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
                out.push(b.to_ascii_lowercase() as char);
            }
        }
        return out;
    }
    if is_nfc_quick(text.chars()) == IsNormalized::Yes {
        // Most accented text is already composed: skip the normalizer's buffering.
        push_slug_chars(&mut out, text.chars());
    } else {
        push_slug_chars(&mut out, text.nfc());
    }
    out
}

fn push_slug_chars(out: &mut String, chars: impl Iterator<Item = char>) {
    for c in chars.flat_map(char::to_lowercase) {
        if c.is_whitespace() {
            out.push('-');
        } else if c.is_alphanumeric() || c == '-' || c == '_' {
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn slug_rules() {
        let cases = [
            ("Hello World", "hello-world"),
            ("  Trim me  ", "trim-me"),
            ("API: v2 (beta)", "api-v2-beta"),
            ("snake_case-and-dash", "snake_case-and-dash"),
            ("Ünïcödé Straße", "ünïcödé-straße"),
            ("日本語 見出し", "日本語-見出し"),
            ("a\u{301}", "\u{e1}"),
            ("[[Link]] #tag", "link-tag"),
            ("", ""),
        ];
        for (text, want) in cases {
            assert_eq!(slug(text), want, "{text:?}");
        }
    }

    /// The slug as specified, normalizing every text.
    fn reference(text: &str) -> String {
        let mut out = String::new();
        for c in text.trim().nfc().flat_map(char::to_lowercase) {
            if c.is_whitespace() {
                out.push('-');
            } else if c.is_alphanumeric() || c == '-' || c == '_' {
                out.push(c);
            }
        }
        out
    }

    proptest! {
        #[test]
        fn slug_fast_paths_agree_with_normalizing_everything(
            text in "[a-zA-Z \u{e9}\u{c9}\u{301}\u{308}\u{1100}\u{1161}\u{3b1}\u{130}_.-]{0,12}"
        ) {
            prop_assert_eq!(slug(&text), reference(&text));
        }

        #[test]
        fn slug_agrees_with_normalizing_everything_on_any_string(text in any::<String>()) {
            prop_assert_eq!(slug(&text), reference(&text));
        }
    }
}
