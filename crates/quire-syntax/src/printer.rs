//! The one link printer: target text for each link syntax, percent coding, span replacement.
//!
//! Every rewrite of a link goes through [`print_target`] and [`replace_spans`], so the
//! escaping rules of each syntax live in exactly one place.

use std::fmt::Write as _;
use std::ops::Range;

use crate::model::LinkKind;

/// Bytes to put into a link's `target_span` so that it names `path`.
///
/// Wiki targets are written as they are. Canvas targets sit inside a JSON string and get
/// JSON string escaping. Markdown destinations get percent-encoding of what markdown would
/// otherwise read differently: space (unless the destination is written in `<…>`), `(`, `)`,
/// `<`, `>`, `#`, `%`, `?`, `\`, control characters, and a `:` that would make the path
/// read as a URL scheme (`a:b.md`). Other Unicode stays as it is.
pub fn print_target(kind: LinkKind, angle: bool, path: &str) -> String {
    match kind {
        LinkKind::Wiki => path.to_owned(),
        LinkKind::Canvas => json_escape(path),
        LinkKind::Markdown | LinkKind::MarkdownReference => percent_encode(path, angle),
    }
}

/// The edit that makes `link` name the target `printed` (from [`print_target`]): the span to
/// replace and its new bytes. Usually the target's span and `printed`. But in a markdown
/// destination outside `<…>`, parentheses must balance, and a `)` in the fragment
/// (`a(b.md#c)`) may have been balanced by a `(` of the old target, which the new one does
/// not have (a printed target's parentheses are percent-encoded): the edit then also covers
/// the fragment, with its parentheses that nothing inside it balances escaped (`\)`), which
/// readers take as the same character.
pub fn target_edit(text: &str, link: &crate::Link, printed: String) -> (Range<usize>, String) {
    let span = link.target_span.clone();
    if !matches!(link.kind, LinkKind::Markdown | LinkKind::MarkdownReference) || link.angle {
        return (span, printed);
    }
    let tail = destination_tail(text, span.clone());
    let rest = &text[tail.clone()];
    if !rest.contains(['(', ')']) {
        return (span, printed);
    }
    let mut out = printed;
    out.push_str(&balanced(rest));
    (span.start..tail.end, out)
}

/// The bytes of a markdown destination after its target (`#fragment`), found as a reader
/// finds the destination's end: at whitespace, or at a `)` that no `(` since the
/// destination's start balances.
fn destination_tail(text: &str, target: Range<usize>) -> Range<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = target.start;
    while i < b.len() {
        match b[i] {
            b'\\' if b.get(i + 1).is_some_and(u8::is_ascii_punctuation) => {
                i += 2;
                continue;
            }
            c if c.is_ascii_whitespace() || c.is_ascii_control() => break,
            b'(' => depth += 1,
            b')' if depth == 0 => break,
            b')' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    target.end..i.max(target.end)
}

/// `text` with each parenthesis that no other one inside it balances escaped.
fn balanced(text: &str) -> String {
    let b = text.as_bytes();
    let mut unmatched = Vec::new();
    let mut open = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if b.get(i + 1).is_some_and(u8::is_ascii_punctuation) => i += 1,
            b'(' => open.push(i),
            b')' => {
                let balanced_by = open.pop();
                if balanced_by.is_none() {
                    unmatched.push(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    unmatched.extend(open);
    unmatched.sort_unstable();
    let mut out = String::with_capacity(text.len() + unmatched.len());
    let mut from = 0;
    for at in unmatched {
        out.push_str(&text[from..at]);
        out.push('\\');
        from = at;
    }
    out.push_str(&text[from..]);
    out
}

/// Characters whose coming or going can change the markup around them.
const MARKUP: [char; 17] = [
    '<', '>', '(', ')', '[', ']', '{', '}', '`', '\\', '!', '"', '\'', '*', '_', '|', '$',
];

/// `text` with its links' targets replaced by `edits` (from [`target_edit`]), checked: the
/// new text must hold the same links, of the same kinds, starting where they started, the
/// links not edited naming what they named. Replacing a target can change the text around it: encoding
/// a `<` or a `(` may make text that was no link one (`[t](<a ![i](x<.png) b>)`). `Err` says
/// which link would change; the caller refuses that rewrite rather than write such a page.
pub fn relink_checked(text: &str, edits: &[(Range<usize>, String)]) -> Result<String, String> {
    let new = replace_spans(text, edits);
    // Only markup characters, taken out or put in, can change what is around a link.
    let markup = |s: &str| s.contains(MARKUP);
    if !edits
        .iter()
        .any(|(span, put)| markup(&text[span.clone()]) || markup(put))
    {
        return Ok(new);
    }
    let before = crate::parse(text).links;
    let after = crate::parse(&new).links;
    if before.len() != after.len() {
        return Err(format!(
            "rewriting its links would make {} links of its {} (text around a link would \
             read as one, or a link as text)",
            after.len(),
            before.len()
        ));
    }
    let edited = |link: &crate::Link| {
        edits
            .iter()
            .any(|(span, _)| span.start == link.target_span.start)
    };
    // Where a byte of the old text is in the new one (for bytes outside the edits).
    let moved = |at: usize| {
        let shift: isize = edits
            .iter()
            .filter(|(span, _)| span.end <= at)
            .map(|(span, put)| put.len() as isize - span.len() as isize)
            .sum();
        at as isize + shift
    };
    for (old, new) in before.iter().zip(&after) {
        if old.kind != new.kind
            || old.embed != new.embed
            || moved(old.span.start) != new.span.start as isize
            || (!edited(old) && old.target != new.target)
        {
            return Err(format!(
                "rewriting its links would change the link on line {} (`{}`) into `{}`",
                old.line, old.target, new.target
            ));
        }
    }
    Ok(new)
}

fn percent_encode(path: &str, angle: bool) -> String {
    let scheme_colon = scheme_colon(path);
    let mut out = String::with_capacity(path.len());
    for (i, c) in path.char_indices() {
        let encode = match c {
            ' ' => !angle,
            ':' => Some(i) == scheme_colon,
            '(' | ')' | '<' | '>' | '#' | '%' | '?' | '\\' => true,
            c => c.is_control(),
        };
        if encode {
            let mut buf = [0u8; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                // Writing into a String cannot fail.
                let _ = write!(out, "%{byte:02X}");
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Where the `:` of a leading `[A-Za-z][A-Za-z0-9+.-]*:` is: a destination starting so is a
/// URL (`https:`, `mailto:`, `C:`) to a markdown reader, not a path.
fn scheme_colon(path: &str) -> Option<usize> {
    let b = path.as_bytes();
    if !b.first()?.is_ascii_alphabetic() {
        return None;
    }
    let end = b
        .iter()
        .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-')))?;
    (b[end] == b':').then_some(end)
}

/// The inside of a JSON string literal holding `s` (without the quotes).
pub(crate) fn json_escape(s: &str) -> String {
    crate::escape::double_quoted(s)
}

/// Decodes `%XX` escapes. Escapes that are not two hex digits, or whose bytes do not form
/// valid UTF-8, stay in the result literally.
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    if !bytes.contains(&b'%') {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < bytes.len() {
        let run_start = i;
        let mut decoded = Vec::new();
        while let Some(byte) = escape_at(bytes, i) {
            decoded.push(byte);
            i += 3;
        }
        if decoded.is_empty() {
            // Copy literally up to the next `%` (a char boundary, as `%` is ASCII).
            let next = bytes[i + 1..]
                .iter()
                .position(|&b| b == b'%')
                .map_or(bytes.len(), |p| i + 1 + p);
            out.push_str(&s[i..next]);
            i = next;
            continue;
        }
        // Valid UTF-8 pieces are decoded; invalid bytes keep their `%XX` spelling.
        let mut consumed = run_start;
        for chunk in decoded.utf8_chunks() {
            out.push_str(chunk.valid());
            consumed += chunk.valid().len() * 3;
            let invalid = chunk.invalid().len();
            out.push_str(&s[consumed..consumed + invalid * 3]);
            consumed += invalid * 3;
        }
    }
    out
}

/// Why [`percent_decode_strict`] refused a text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PercentError {
    #[error("the `%` at byte {at} is not followed by two hex digits")]
    BadEscape { at: usize },
    #[error("the escapes decode to bytes that are not UTF-8")]
    NotUtf8,
}

/// Decodes `%XX` escapes, refusing what [`percent_decode`] keeps literally: a `%` not followed
/// by two hex digits, or escapes whose bytes are not UTF-8. For callers that must tell a
/// malformed text from a literal one (a `file:` URI, a path in a commit trailer).
pub fn percent_decode_strict(s: &str) -> Result<String, PercentError> {
    let bytes = s.as_bytes();
    if !bytes.contains(&b'%') {
        return Ok(s.to_owned());
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(escape_at(bytes, i).ok_or(PercentError::BadEscape { at: i })?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| PercentError::NotUtf8)
}

fn escape_at(bytes: &[u8], i: usize) -> Option<u8> {
    if bytes.get(i) != Some(&b'%') {
        return None;
    }
    let hi = hex_value(*bytes.get(i + 1)?)?;
    let lo = hex_value(*bytes.get(i + 2)?)?;
    Some((hi << 4) | lo)
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Why a set of span edits cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpanError {
    #[error("edit {span:?} lies outside the text of {len} bytes")]
    OutOfRange { span: Range<usize>, len: usize },
    #[error("edit {span:?} does not lie on character boundaries")]
    NotCharBoundary { span: Range<usize> },
    #[error("edits {first:?} and {second:?} overlap")]
    Overlap {
        first: Range<usize>,
        second: Range<usize>,
    },
}

/// Applies byte-range replacements, given in any order, to `text`.
///
/// Two empty insertions at the same offset are applied in the order given.
pub fn try_replace_spans(
    text: &str,
    edits: &[(Range<usize>, String)],
) -> Result<String, SpanError> {
    let mut order: Vec<usize> = (0..edits.len()).collect();
    order.sort_by_key(|&i| (edits[i].0.start, edits[i].0.end));
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    let mut previous: Option<&Range<usize>> = None;
    for i in order {
        let (span, replacement) = &edits[i];
        if span.start > span.end || span.end > text.len() {
            return Err(SpanError::OutOfRange {
                span: span.clone(),
                len: text.len(),
            });
        }
        if !text.is_char_boundary(span.start) || !text.is_char_boundary(span.end) {
            return Err(SpanError::NotCharBoundary { span: span.clone() });
        }
        if let Some(prev) = previous {
            if span.start < prev.end {
                return Err(SpanError::Overlap {
                    first: prev.clone(),
                    second: span.clone(),
                });
            }
        }
        out.push_str(&text[cursor..span.start]);
        out.push_str(replacement);
        cursor = span.end;
        previous = Some(span);
    }
    out.push_str(&text[cursor..]);
    Ok(out)
}

/// Applies non-overlapping byte-range replacements, given in any order, to `text`.
///
/// # Panics
/// When an edit is out of range, splits a character or overlaps another: edits come from
/// parsed spans, so that is a bug in the caller. Use [`try_replace_spans`] to get an error.
pub fn replace_spans(text: &str, edits: &[(Range<usize>, String)]) -> String {
    match try_replace_spans(text, edits) {
        Ok(out) => out,
        Err(err) => panic!("replace_spans: {err}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn print_target_per_kind() {
        let cases: &[(LinkKind, bool, &str, &str)] = &[
            (LinkKind::Wiki, false, "a b/c#d", "a b/c#d"),
            (LinkKind::Markdown, false, "a b/c.md", "a%20b/c.md"),
            (LinkKind::Markdown, true, "a b/c.md", "a b/c.md"),
            (LinkKind::Markdown, false, "x (1).md", "x%20%281%29.md"),
            (
                LinkKind::Markdown,
                false,
                "50% #1?<>.md",
                "50%25%20%231%3F%3C%3E.md",
            ),
            (LinkKind::Markdown, false, "café/ü.md", "café/ü.md"),
            (LinkKind::Markdown, false, "tab\there", "tab%09here"),
            (LinkKind::Markdown, false, "a:b.md", "a%3Ab.md"),
            (LinkKind::Markdown, true, "C:x.md", "C%3Ax.md"),
            (LinkKind::Markdown, false, "at 10:30.md", "at%2010:30.md"),
            (LinkKind::Markdown, false, "a/b:c.md", "a/b:c.md"),
            (LinkKind::MarkdownReference, false, "a b.md", "a%20b.md"),
            (
                LinkKind::Canvas,
                false,
                "a \"b\"\\c.md",
                "a \\\"b\\\"\\\\c.md",
            ),
        ];
        for (kind, angle, path, want) in cases {
            assert_eq!(print_target(*kind, *angle, path), *want, "{kind:?} {path}");
        }
    }

    #[test]
    fn percent_decode_keeps_invalid_escapes() {
        let cases = [
            ("a%20b", "a b"),
            ("caf%C3%A9", "café"),
            ("100%", "100%"),
            ("%zz%2", "%zz%2"),
            ("%FF%41", "%FFA"),
            ("%C3", "%C3"),
            ("plain", "plain"),
            ("ü%20ü", "ü ü"),
            ("%aé.md", "%aé.md"),
            ("%é", "%é"),
            ("a%", "a%"),
        ];
        for (input, want) in cases {
            assert_eq!(percent_decode(input), want, "{input}");
        }
    }

    #[test]
    fn percent_decode_strict_refuses_what_the_lenient_one_keeps() {
        assert_eq!(percent_decode_strict("a%20b").as_deref(), Ok("a b"));
        assert_eq!(percent_decode_strict("caf%C3%A9").as_deref(), Ok("café"));
        assert_eq!(percent_decode_strict("ü").as_deref(), Ok("ü"));
        assert_eq!(
            percent_decode_strict("100%"),
            Err(PercentError::BadEscape { at: 3 })
        );
        assert_eq!(
            percent_decode_strict("%aé"),
            Err(PercentError::BadEscape { at: 0 })
        );
        assert_eq!(
            percent_decode_strict("%+1"),
            Err(PercentError::BadEscape { at: 0 })
        );
        assert_eq!(percent_decode_strict("%C3"), Err(PercentError::NotUtf8));
    }

    #[test]
    fn percent_decode_inverts_markdown_printing() {
        for path in ["a b (c) #d %e ?f <g>.md", "ü/\u{1}x\\y", ""] {
            for angle in [false, true] {
                let printed = print_target(LinkKind::Markdown, angle, path);
                assert_eq!(percent_decode(&printed), path);
            }
        }
    }

    #[test]
    fn replace_spans_applies_edits_in_any_order() {
        let text = "0123456789";
        let edits = vec![
            (7..9, "X".to_owned()),
            (0..1, "ab".to_owned()),
            (3..3, "-".to_owned()),
        ];
        assert_eq!(replace_spans(text, &edits), "ab12-3456X9");
    }

    #[test]
    fn try_replace_spans_rejects_bad_edits() {
        let text = "aé";
        let cases = [
            (vec![(0..5, String::new())], "outside"),
            (vec![(2..3, String::new())], "boundaries"),
            (
                vec![(0..3, String::new()), (1..3, String::new())],
                "overlap",
            ),
        ];
        for (edits, want) in cases {
            let err = try_replace_spans(text, &edits).unwrap_err();
            assert!(err.to_string().contains(want), "{err}");
        }
    }
}
