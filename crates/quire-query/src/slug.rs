//! File-name slugs for `slug()` and `{{slug}}`: what a title becomes in a `move_to` path.
//!
//! Unlike a heading anchor (`quire_syntax::slug`, which keeps every dash), a file-name slug
//! collapses each run of other characters into one `-` and trims dashes at both ends.

use unicode_normalization::UnicodeNormalization;

/// NFC, lowercase; letters and digits of any script are kept, `_` too; every other run of
/// characters becomes one `-`; no leading or trailing `-`.
///
/// ```
/// assert_eq!(quire_query::slug("  Über uns: Team & Plan! "), "über-uns-team-plan");
/// ```
pub fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_dash = false;
    for c in text.nfc().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || c == '_' {
            if pending_dash && !out.is_empty() {
                out.push('-');
            }
            pending_dash = false;
            out.push(c);
        } else {
            pending_dash = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::slug;

    #[test]
    fn slug_collapses_and_trims() {
        assert_eq!(slug("Hello, World!"), "hello-world");
        assert_eq!(slug("--a--b--"), "a-b");
        assert_eq!(slug("snake_case 2024"), "snake_case-2024");
        assert_eq!(slug("!!!"), "");
        assert_eq!(slug("Cafe\u{301} Noir"), "café-noir");
    }
}
