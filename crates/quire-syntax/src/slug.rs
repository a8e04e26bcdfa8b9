//! Heading slugs: the anchor form of a heading's text.

use unicode_normalization::UnicodeNormalization;

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
    for c in text.nfc().flat_map(char::to_lowercase) {
        if c.is_whitespace() {
            out.push('-');
        } else if c.is_alphanumeric() || c == '-' || c == '_' {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::slug;

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
}
