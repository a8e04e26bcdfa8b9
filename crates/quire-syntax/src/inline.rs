//! Inline constructs of one line: code spans, math, HTML comments, wiki and markdown links,
//! inline tags and block ids.
//!
//! The scanner is a single left-to-right pass over bytes. Every forward search for a closer
//! is remembered ([`Memo`]), so adversarial input (thousands of unclosed `[[` or `` ` ``)
//! stays linear instead of quadratic.

use std::borrow::Cow;
use std::ops::Range;

use crate::model::{BlockId, Link, LinkKind, LinkPlace, ParsedPage, Tag};
use crate::printer::percent_decode;

/// Bytes that may start an inline construct; everything else is skipped in the hot loop.
static SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    let bytes = b"\\`$<![]#";
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

/// Longest raw (not `<…>`) link destination, in bytes.
const MAX_DESTINATION: usize = 4096;

/// Deepest nesting of parentheses inside a raw link destination.
const MAX_PAREN_DEPTH: usize = 32;

/// Code-span closers are remembered per run length below this.
const CODE_MEMO: usize = 16;

/// The answer of one forward search, reused while later searches start at or after `from`.
#[derive(Clone, Copy)]
struct Memo {
    from: usize,
    limit: usize,
    found: Option<usize>,
}

impl Memo {
    const UNKNOWN: Memo = Memo {
        from: usize::MAX,
        limit: usize::MAX,
        found: None,
    };

    /// First match at or after `from` and before `limit`; `search` runs only when the
    /// remembered answer does not settle it. Callers query with growing `from`.
    fn find(
        &mut self,
        from: usize,
        limit: usize,
        search: impl FnOnce(usize) -> Option<usize>,
    ) -> Option<usize> {
        if self.limit == limit && self.from <= from {
            match self.found {
                None => return None,
                Some(at) if at >= from => return Some(at),
                Some(_) => {}
            }
        }
        let found = search(from);
        *self = Memo { from, limit, found };
        found
    }
}

/// An unmatched `[` (or `![`) that may still become a markdown link.
struct Opener {
    /// Start of the whole occurrence (the `!` of an image).
    at: usize,
    text_start: usize,
    embed: bool,
}

/// One stretch of a line handed to the inline scanner.
pub(crate) struct Region {
    pub start: usize,
    pub end: usize,
    /// Where the line's content starts: a `#` here may begin a tag.
    pub line_start: usize,
    pub line: u32,
}

/// Inline scanner state kept across the lines of one page.
pub(crate) struct Inline {
    openers: Vec<Opener>,
    comment_close: Memo,
    display_math_close: Memo,
    inline_math_close: Memo,
    wiki_close: Memo,
    wiki_open: Memo,
    /// `code_no_close[n]`: no run of exactly `n` backticks from here to `code_limit`.
    code_no_close: [usize; CODE_MEMO],
    code_limit: usize,
}

impl Inline {
    pub(crate) fn new() -> Self {
        Inline {
            openers: Vec::new(),
            comment_close: Memo::UNKNOWN,
            display_math_close: Memo::UNKNOWN,
            inline_math_close: Memo::UNKNOWN,
            wiki_close: Memo::UNKNOWN,
            wiki_open: Memo::UNKNOWN,
            code_no_close: [usize::MAX; CODE_MEMO],
            code_limit: usize::MAX,
        }
    }

    /// Scans `region` for links and tags. Returns the offset just past the closer of a
    /// comment or display-math block that runs beyond the region's line: scanning goes on
    /// from there.
    pub(crate) fn scan(
        &mut self,
        text: &str,
        region: &Region,
        page: &mut ParsedPage,
    ) -> Option<usize> {
        let b = text.as_bytes();
        let end = region.end;
        if self.code_limit != end {
            self.code_no_close = [usize::MAX; CODE_MEMO];
            self.code_limit = end;
        }
        self.openers.clear();
        let mut i = region.start;
        while i < end {
            let c = b[i];
            if !SPECIAL[c as usize] {
                i += 1;
                continue;
            }
            match c {
                b'\\' => {
                    i += if i + 1 < end && b[i + 1].is_ascii_punctuation() {
                        2
                    } else {
                        1
                    }
                }
                b'`' => {
                    let n = run_length(b, i, end, b'`');
                    i = match self.code_close(b, i + n, end, n) {
                        Some(close) => {
                            page.code.push(i..close);
                            close
                        }
                        None => i + n,
                    };
                }
                b'$' if i + 1 < end && b[i + 1] == b'$' => {
                    let limit = text.len();
                    match self
                        .display_math_close
                        .find(i + 2, limit, |from| find(text, from, limit, "$$"))
                    {
                        Some(at) if at + 2 > end => return Some(at + 2),
                        Some(at) => i = at + 2,
                        None => i += 2,
                    }
                }
                b'$' => i = self.inline_math(b, i, end).map_or(i + 1, |close| close + 1),
                b'<' if b[i..end].starts_with(b"<!--") => {
                    let limit = text.len();
                    match self
                        .comment_close
                        .find(i + 2, limit, |from| find(text, from, limit, "-->"))
                    {
                        Some(at) if at + 3 > end => return Some(at + 3),
                        Some(at) => i = at + 3,
                        None => i += 4,
                    }
                }
                b'!' if i + 1 < end && b[i + 1] == b'[' => {
                    if let Some(next) = self.wiki(text, i, i + 1, end, region.line, page) {
                        i = next;
                    } else {
                        self.openers.push(Opener {
                            at: i,
                            text_start: i + 2,
                            embed: true,
                        });
                        i += 2;
                    }
                }
                b'[' => {
                    if let Some(next) = self.wiki(text, i, i, end, region.line, page) {
                        i = next;
                    } else {
                        self.openers.push(Opener {
                            at: i,
                            text_start: i + 1,
                            embed: false,
                        });
                        i += 1;
                    }
                }
                b']' => i = self.close_bracket(text, i, end, region.line, page),
                b'#' => i = tag(text, i, region, page),
                _ => i += 1,
            }
        }
        None
    }

    /// End of the backtick run closing a code span opened by `n` backticks.
    fn code_close(&mut self, b: &[u8], from: usize, end: usize, n: usize) -> Option<usize> {
        if n < CODE_MEMO && self.code_no_close[n] <= from {
            return None;
        }
        let mut j = from;
        while let Some(p) = b[j..end].iter().position(|&c| c == b'`') {
            let start = j + p;
            let m = run_length(b, start, end, b'`');
            if m == n {
                return Some(start + m);
            }
            j = start + m;
        }
        if n < CODE_MEMO {
            self.code_no_close[n] = from;
        }
        None
    }

    /// Closing `$` of inline math opened at `open`. The opener must be followed by
    /// non-space; the closer must follow non-space and not precede a digit, so amounts
    /// like "$5 and $10" stay text.
    fn inline_math(&mut self, b: &[u8], open: usize, end: usize) -> Option<usize> {
        let first = *b.get(open + 1).filter(|_| open + 1 < end)?;
        if first.is_ascii_whitespace() {
            return None;
        }
        self.inline_math_close.find(open + 2, end, |from| {
            (from..end).find(|&j| {
                b[j] == b'$'
                    && !b[j - 1].is_ascii_whitespace()
                    && b[j - 1] != b'\\'
                    && (j + 1 >= end || !b[j + 1].is_ascii_digit())
            })
        })
    }

    /// A wiki link whose `[[` is at `open` (`span_start` is the `!` of an embed).
    /// Returns the offset after `]]`.
    fn wiki(
        &mut self,
        text: &str,
        span_start: usize,
        open: usize,
        end: usize,
        line: u32,
        page: &mut ParsedPage,
    ) -> Option<usize> {
        let b = text.as_bytes();
        if open + 1 >= end || b[open + 1] != b'[' {
            return None;
        }
        let close = self
            .wiki_close
            .find(open + 2, end, |from| find(text, from, end, "]]"))?;
        // `[[[a]]`: the link opens at the last `[[` before the closer.
        if let Some(other) = self
            .wiki_open
            .find(open + 1, end, |from| find(text, from, end, "[["))
        {
            if other < close {
                return None;
            }
        }
        let link = wiki_link(text, span_start, open, close, LinkPlace::Body, line)?;
        page.links.push(link);
        Some(close + 2)
    }

    /// A `]` at `close`: pairs with the latest opener and becomes a link when `(dest)`
    /// follows. Returns where scanning continues.
    fn close_bracket(
        &mut self,
        text: &str,
        close: usize,
        end: usize,
        line: u32,
        page: &mut ParsedPage,
    ) -> usize {
        let b = text.as_bytes();
        let Some(opener) = self.openers.pop() else {
            return close + 1;
        };
        if close + 1 >= end || b[close + 1] != b'(' {
            return close + 1;
        }
        let Some(dest) = inline_destination(b, close + 2, end) else {
            return close + 1;
        };
        let alias = &text[opener.text_start..close];
        if let Some(link) = markdown_link(
            text,
            LinkKind::Markdown,
            opener.at..dest.after,
            &dest,
            alias,
            opener.embed,
            line,
        ) {
            page.links.push(link);
        }
        dest.after
    }
}

fn run_length(b: &[u8], at: usize, end: usize, byte: u8) -> usize {
    b[at..end].iter().take_while(|&&c| c == byte).count()
}

/// Offset of the first `\n` at or after `from`.
///
/// Page lines average a few dozen bytes, so the start-up cost of a `memchr` call per line
/// outweighs its speed; this reads eight bytes at a time with no set-up.
pub(crate) fn newline(b: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const NEWLINES: u64 = u64::from_ne_bytes([b'\n'; 8]);
    let mut at = from;
    while let Some(chunk) = b.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8])) ^ NEWLINES;
        // High bit set in each byte that was `\n`; bits above the first such byte may
        // be spurious, the lowest one is exact.
        let zero = word.wrapping_sub(ONES) & !word & HIGHS;
        if zero != 0 {
            return Some(at + (zero.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    b[at.min(b.len())..]
        .iter()
        .position(|&c| c == b'\n')
        .map(|p| at + p)
}

/// Offset of the short ASCII `needle` in `text[from..limit]`.
///
/// A plain byte loop: the needles are two or three bytes, and building a general substring
/// searcher per call costs more than the search.
pub(crate) fn find(text: &str, from: usize, limit: usize, needle: &str) -> Option<usize> {
    let haystack = text.as_bytes().get(from..limit)?;
    let needle = needle.as_bytes();
    let first = *needle.first()?;
    let mut at = 0;
    while let Some(p) = haystack[at..].iter().position(|&c| c == first) {
        let start = at + p;
        if haystack[start..].starts_with(needle) {
            return Some(from + start);
        }
        at = start + 1;
    }
    None
}

/// Builds the wiki link `[[…]]` whose `[[` is at `open` and `]]` at `close`.
/// `None` when it names nothing (`[[]]`, `[[|x]]`).
pub(crate) fn wiki_link(
    text: &str,
    span_start: usize,
    open: usize,
    close: usize,
    place: LinkPlace,
    line: u32,
) -> Option<Link> {
    let b = text.as_bytes();
    let inner = open + 2..close;
    let bar = b[inner.clone()]
        .iter()
        .position(|&c| c == b'|')
        .map(|p| inner.start + p);
    let (before_alias, alias) = match bar {
        // Obsidian escapes the separator as `\|` inside table cells.
        Some(p) if p > inner.start && b[p - 1] == b'\\' => (inner.start..p - 1, Some(p + 1..close)),
        Some(p) => (inner.start..p, Some(p + 1..close)),
        None => (inner.clone(), None),
    };
    let hash = b[before_alias.clone()]
        .iter()
        .position(|&c| c == b'#')
        .map(|p| before_alias.start + p);
    let target_span = trim_ws(b, before_alias.start, hash.unwrap_or(before_alias.end));
    let fragment = hash.map(|h| text[h + 1..before_alias.end].trim().to_owned());
    if target_span.is_empty() && fragment.is_none() {
        return None;
    }
    Some(Link {
        kind: LinkKind::Wiki,
        place,
        embed: span_start < open,
        span: span_start..close + 2,
        target: text[target_span.clone()].to_owned(),
        target_span,
        fragment,
        alias: alias.map(|a| text[a].trim().to_owned()),
        title: None,
        angle: false,
        line,
    })
}

fn trim_ws(b: &[u8], mut start: usize, mut end: usize) -> Range<usize> {
    while start < end && matches!(b[start], b' ' | b'\t') {
        start += 1;
    }
    while end > start && matches!(b[end - 1], b' ' | b'\t') {
        end -= 1;
    }
    start..end
}

pub(crate) fn skip_ws(b: &[u8], mut at: usize, end: usize) -> usize {
    while at < end && matches!(b[at], b' ' | b'\t') {
        at += 1;
    }
    at
}

/// A parsed link destination with its optional title.
pub(crate) struct Destination {
    pub dest: Range<usize>,
    pub angle: bool,
    pub title: Option<Range<usize>>,
    /// Offset after the whole construct (after `)` for inline links).
    pub after: usize,
}

/// `dest "title")` starting right after the `(` of an inline link.
fn inline_destination(b: &[u8], at: usize, end: usize) -> Option<Destination> {
    let at = skip_ws(b, at, end);
    let (dest, angle, after_dest) = destination(b, at, end)?;
    let gap = skip_ws(b, after_dest, end);
    let (title, after_title) =
        if gap > after_dest && gap < end && matches!(b[gap], b'"' | b'\'' | b'(') {
            let (title, after) = title(b, gap, end)?;
            (Some(title), skip_ws(b, after, end))
        } else {
            (None, gap)
        };
    (after_title < end && b[after_title] == b')').then_some(Destination {
        dest,
        angle,
        title,
        after: after_title + 1,
    })
}

/// A link destination: `<…>` or a run without spaces and with balanced parentheses.
/// Returns the destination bytes, whether it was in angle brackets, and the offset after it.
fn destination(b: &[u8], at: usize, end: usize) -> Option<(Range<usize>, bool, usize)> {
    if at < end && b[at] == b'<' {
        let mut j = at + 1;
        while j < end {
            match b[j] {
                b'>' => return Some((at + 1..j, true, j + 1)),
                b'<' => return None,
                b'\\' if j + 1 < end && b[j + 1].is_ascii_punctuation() => j += 2,
                _ => j += 1,
            }
        }
        return None;
    }
    let mut depth = 0usize;
    let mut j = at;
    // The cap keeps a long line of `[a](` openers from making the scan quadratic; real
    // destinations (paths of at most 1024 bytes, percent-encoded) fit well within it.
    let end = end.min(at.saturating_add(MAX_DESTINATION));
    while j < end {
        match b[j] {
            c if c <= b' ' || c == 0x7f => break,
            b'\\' if j + 1 < end && b[j + 1].is_ascii_punctuation() => {
                j += 2;
                continue;
            }
            // Deep nesting is refused, as in CommonMark implementations: it bounds the
            // work a line full of `[a](` openers can cause.
            b'(' if depth == MAX_PAREN_DEPTH => return None,
            b'(' => depth += 1,
            b')' if depth == 0 => break,
            b')' => depth -= 1,
            _ => {}
        }
        j += 1;
    }
    (depth == 0).then_some((at..j, false, j))
}

/// A title in `"…"`, `'…'` or `(…)` at `at`: the bytes inside and the offset after it.
fn title(b: &[u8], at: usize, end: usize) -> Option<(Range<usize>, usize)> {
    let open = b[at];
    let close = if open == b'(' { b')' } else { open };
    let mut j = at + 1;
    while j < end {
        match b[j] {
            b'\\' if j + 1 < end && b[j + 1].is_ascii_punctuation() => j += 2,
            c if c == close => return Some((at + 1..j, j + 1)),
            b'(' if open == b'(' => return None,
            _ => j += 1,
        }
    }
    None
}

/// Whether a destination names a file in the knowledge base: not empty, not a same-page
/// `#fragment`, no URL scheme.
fn names_a_file(dest: &str) -> bool {
    !dest.is_empty() && !dest.starts_with('#') && !has_scheme(dest)
}

/// `[A-Za-z][A-Za-z0-9+.-]*:` at the start (`C:` counts too).
fn has_scheme(dest: &str) -> bool {
    let b = dest.as_bytes();
    if !b.first().is_some_and(u8::is_ascii_alphabetic) {
        return false;
    }
    for &c in &b[1..] {
        match c {
            b':' => return true,
            c if c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-') => {}
            _ => return false,
        }
    }
    false
}

/// Removes markdown backslash escapes (borrowing when there are none).
fn unescape(s: &str) -> Cow<'_, str> {
    if !s.bytes().any(|c| c == b'\\') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&next) = chars.peek() {
                if next.is_ascii_punctuation() {
                    out.push(next);
                    chars.next();
                    continue;
                }
            }
        }
        out.push(c);
    }
    Cow::Owned(out)
}

/// The markdown link (inline or reference definition) for a parsed destination, or `None`
/// when the destination does not name a file.
fn markdown_link(
    text: &str,
    kind: LinkKind,
    span: Range<usize>,
    dest: &Destination,
    alias: &str,
    embed: bool,
    line: u32,
) -> Option<Link> {
    let raw = &text[dest.dest.clone()];
    if !names_a_file(raw) {
        return None;
    }
    let (target_raw, fragment) = match raw.bytes().position(|c| c == b'#') {
        Some(h) => (&raw[..h], Some(&raw[h + 1..]).filter(|f| !f.is_empty())),
        None => (raw, None),
    };
    Some(Link {
        kind,
        place: LinkPlace::Body,
        embed,
        span,
        target_span: dest.dest.start..dest.dest.start + target_raw.len(),
        target: percent_decode(&unescape(target_raw)),
        fragment: fragment.map(|f| percent_decode(&unescape(f))),
        alias: (!alias.is_empty()).then(|| alias.to_owned()),
        title: dest.title.clone().map(|t| unescape(&text[t]).into_owned()),
        angle: dest.angle,
        line,
    })
}

/// A line that is a reference definition `[label]: dest "title"`.
pub(crate) struct Definition {
    /// `None` when the destination is a URL or otherwise names no file.
    pub link: Option<Link>,
}

/// Reads a reference definition starting at `at` (the `[`) and filling the line up to `end`.
pub(crate) fn reference_definition(
    text: &str,
    at: usize,
    end: usize,
    line: u32,
) -> Option<Definition> {
    let b = text.as_bytes();
    if b.get(at) != Some(&b'[') || b.get(at + 1) == Some(&b'^') {
        return None;
    }
    let mut j = at + 1;
    loop {
        if j >= end {
            return None;
        }
        match b[j] {
            b'\\' if j + 1 < end && b[j + 1].is_ascii_punctuation() => j += 2,
            b'[' => return None,
            b']' => break,
            _ => j += 1,
        }
    }
    let label = &text[at + 1..j];
    if label.trim().is_empty() || j + 1 >= end || b[j + 1] != b':' {
        return None;
    }
    let start = skip_ws(b, j + 2, end);
    let (dest, angle, after_dest) = destination(b, start, end)?;
    if dest.is_empty() && !angle {
        return None;
    }
    let gap = skip_ws(b, after_dest, end);
    let (title, span_end) = if gap == end {
        (None, after_dest)
    } else if gap > after_dest && matches!(b[gap], b'"' | b'\'' | b'(') {
        let (title, after) = title(b, gap, end)?;
        if skip_ws(b, after, end) != end {
            return None;
        }
        (Some(title), after)
    } else {
        return None;
    };
    let dest = Destination {
        dest,
        angle,
        title,
        after: span_end,
    };
    Some(Definition {
        link: markdown_link(
            text,
            LinkKind::MarkdownReference,
            at..span_end,
            &dest,
            label,
            false,
            line,
        ),
    })
}

/// An inline tag at the `#` at `at`; returns where scanning continues.
fn tag(text: &str, at: usize, region: &Region, page: &mut ParsedPage) -> usize {
    let b = text.as_bytes();
    let after_boundary = at == region.line_start || matches!(b[at - 1], b' ' | b'\t' | b'(');
    if !after_boundary {
        return at + 1;
    }
    let mut end = at + 1;
    let mut all_digits = true;
    for c in text[at + 1..region.end].chars() {
        if c.is_alphanumeric() || matches!(c, '_' | '-' | '/') {
            all_digits &= c.is_ascii_digit();
            end += c.len_utf8();
        } else {
            break;
        }
    }
    if end == at + 1 || all_digits {
        return at + 1;
    }
    page.tags.push(Tag {
        name: text[at + 1..end].to_owned(),
        span: Some(at..end),
        line: region.line,
        in_frontmatter: false,
    });
    end
}

/// A block id ` ^id` ending the stretch `start..end` of a line.
pub(crate) fn block_id(text: &str, start: usize, end: usize, line: u32) -> Option<BlockId> {
    let b = text.as_bytes();
    let mut stop = end;
    while stop > start && matches!(b[stop - 1], b' ' | b'\t') {
        stop -= 1;
    }
    let mut id_start = stop;
    while id_start > start && (b[id_start - 1].is_ascii_alphanumeric() || b[id_start - 1] == b'-') {
        id_start -= 1;
    }
    if id_start == stop || id_start == start || b[id_start - 1] != b'^' {
        return None;
    }
    let caret = id_start - 1;
    if caret > start && !matches!(b[caret - 1], b' ' | b'\t') {
        return None;
    }
    Some(BlockId {
        id: text[id_start..stop].to_owned(),
        line,
    })
}

#[cfg(test)]
mod tests {
    use super::newline;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn newline_finds_the_first_line_feed_from_any_offset(
            bytes in prop::collection::vec(prop_oneof![Just(b'\n'), Just(b'\r'), Just(0x0b), Just(0x8a), any::<u8>()], 0..40),
            from in 0usize..40,
        ) {
            let from = from.min(bytes.len());
            let want = bytes[from..].iter().position(|&c| c == b'\n').map(|p| from + p);
            prop_assert_eq!(newline(&bytes, from), want);
        }
    }
}
