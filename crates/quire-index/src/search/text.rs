//! Text handling shared by both search tiers: what a token is, case and diacritic folding, the
//! CJK spacing that makes ideographs findable, and HTML-safe snippets.
//!
//! The FTS5 tier tokenizes with SQLite's `unicode61 remove_diacritics 2`; the grep tier uses
//! [`tokens`] here, written to cut text the same way (letters and digits form tokens, everything
//! else separates; lowercase; diacritics removed), so both tiers find the same pages.
//!
//! *CJK*: `unicode61` keeps a run of ideographs or kana as one token, so `東京` would never find
//! `東京都に住んでいます`. Before text reaches FTS5, [`space_cjk`] puts an invisible separator
//! (U+200B ZERO WIDTH SPACE, a format character `unicode61` splits on) around every CJK
//! character, at index time and at query time alike. Each ideograph becomes a token, and a
//! multi-character query term becomes a phrase of adjacent characters: a substring search.
//! The grep tier makes each CJK character a token for the same effect. Snippets drop the
//! separators again. A trigram table was the alternative; it would double the index and give
//! no ranking by field, while character tokens keep BM25 and phrase semantics intact.

use std::ops::Range;

use unicode_normalization::char::{decompose_canonical, is_combining_mark};

/// The separator [`space_cjk`] inserts.
pub(crate) const CJK_SEPARATOR: char = '\u{200B}';

/// Whether `c` belongs to a script written without spaces between words (Han ideographs,
/// kana, Hangul syllables), which search treats one character at a time.
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3005..=0x3007       // 々 〆 〇
        | 0x3040..=0x30FF     // Hiragana, Katakana
        | 0x31F0..=0x31FF     // Katakana phonetic extensions
        | 0x3400..=0x4DBF     // CJK extension A
        | 0x4E00..=0x9FFF     // CJK unified ideographs
        | 0xAC00..=0xD7AF     // Hangul syllables
        | 0xF900..=0xFAFF     // CJK compatibility ideographs
        | 0xFF66..=0xFF9F     // half-width Katakana
        | 0x20000..=0x2FA1F) // CJK extensions B..F and supplement
}

/// Whether `c` is part of a token (letters, digits, and CJK characters).
pub(crate) fn is_token_char(c: char) -> bool {
    c.is_alphanumeric() || is_combining_mark(c)
}

/// `text` with [`CJK_SEPARATOR`] between a CJK character and any token character beside it.
/// Borrowed unchanged when there is nothing to separate (the common case for Latin text).
pub(crate) fn space_cjk(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_cjk) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    let mut previous: Option<char> = None;
    for c in text.chars() {
        if let Some(p) = previous {
            let joined = is_token_char(p) && is_token_char(c);
            if joined && (is_cjk(p) || is_cjk(c)) {
                out.push(CJK_SEPARATOR);
            }
        }
        out.push(c);
        previous = Some(c);
    }
    std::borrow::Cow::Owned(out)
}

/// Lowercase with diacritics removed: `Café` → `cafe`.
pub(crate) fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
            continue;
        }
        for lower in c.to_lowercase() {
            decompose_canonical(lower, |d| {
                if !is_combining_mark(d) {
                    out.push(d);
                }
            });
        }
    }
    out
}

/// The one token that stands for a tag in the index (the `tagged` column, see `pages.rs`)
/// and in a `tag:` query: `t` and the hexadecimal bytes of the folded tag, `/` included. A
/// tag's characters would otherwise be cut into several tokens (`project/alpha`,
/// `kind-1`), and `tag:alpha` must not find `#project/alpha`; one token per tag, and one per
/// parent of a nested tag, makes "this tag or one below it" an exact token match. The hex of
/// a tag's start is the start of the tag's hex, so `tag:proj*` is a prefix match as well.
pub(crate) fn tag_token(tag: &str) -> String {
    use std::fmt::Write as _;
    let folded = fold(tag);
    let mut out = String::with_capacity(1 + folded.len() * 2);
    out.push('t');
    for byte in folded.bytes() {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// A token of some text: its folded form and where it stands (bytes) in the original.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) folded: String,
    pub(crate) range: Range<usize>,
}

/// The tokens of `text` as search sees them: runs of token characters, each CJK character on
/// its own, folded. Tokens that fold to nothing (a lone combining mark) are dropped.
pub(crate) fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let push = |range: Range<usize>, out: &mut Vec<Token>| {
        let folded = fold(&text[range.clone()]);
        if !folded.is_empty() {
            out.push(Token { folded, range });
        }
    };
    for (i, c) in text.char_indices() {
        if is_cjk(c) {
            if let Some(s) = start.take() {
                push(s..i, &mut out);
            }
            push(i..i + c.len_utf8(), &mut out);
        } else if is_token_char(c) {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            push(s..i, &mut out);
        }
    }
    if let Some(s) = start {
        push(s..text.len(), &mut out);
    }
    out
}

/// Escapes `<`, `>`, `&`, `"` and `'` so text can sit inside HTML.
pub(crate) fn escape_html(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            CJK_SEPARATOR => {}
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded(text: &str) -> Vec<String> {
        tokens(text).into_iter().map(|t| t.folded).collect()
    }

    #[test]
    fn tokens_fold_case_and_diacritics_and_split_on_punctuation() {
        assert_eq!(
            folded("Café, naïve—Über_all"),
            ["cafe", "naive", "uber", "all"]
        );
        assert_eq!(folded("don't e-mail"), ["don", "t", "e", "mail"]);
    }

    #[test]
    fn cjk_characters_are_tokens_of_their_own() {
        assert_eq!(
            folded("東京都に住む Tokyo"),
            ["東", "京", "都", "に", "住", "む", "tokyo"]
        );
        assert_eq!(folded("東京Tower"), ["東", "京", "tower"]);
    }

    #[test]
    fn space_cjk_separates_only_cjk_neighbours() {
        assert_eq!(space_cjk("plain text"), "plain text");
        assert_eq!(space_cjk("東京Tower 駅"), "東\u{200B}京\u{200B}Tower 駅");
    }

    #[test]
    fn token_ranges_point_into_the_original() {
        let text = "Ünïcode and 東京";
        let ranges: Vec<&str> = tokens(text)
            .iter()
            .map(|t| &text[t.range.clone()])
            .collect();
        assert_eq!(ranges, ["Ünïcode", "and", "東", "京"]);
    }
}
