//! The frontmatter block: where it is, its YAML value, and the wiki links and tags written
//! in its lines (located byte-exactly by a small line-level YAML reader).

use std::borrow::Cow;
use std::ops::Range;

use serde_json::Value;

use crate::inline::{find, newline, wiki_link};
use crate::model::{Diagnostic, Frontmatter, LinkPlace, ParsedPage, Tag};
use crate::{simple_yaml, yaml_json};

/// Byte ranges of a frontmatter block.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    /// Opening fence through the closing fence's line ending.
    pub span: Range<usize>,
    /// The YAML between the fences (every line with its line ending).
    pub yaml: Range<usize>,
}

/// Finds the frontmatter block: a first line `---`, closed by a `---` or `...` line.
pub(crate) fn locate(text: &str) -> Option<Block> {
    let first_end = newline(text.as_bytes(), 0)?;
    if !is_fence(&text[..first_end], "---") {
        return None;
    }
    let yaml_start = first_end + 1;
    let mut pos = yaml_start;
    while pos < text.len() {
        let (end, next) = match newline(text.as_bytes(), pos) {
            Some(p) => (p, p + 1),
            None => (text.len(), text.len()),
        };
        let line = &text[pos..end];
        if is_fence(line, "---") || is_fence(line, "...") {
            return Some(Block {
                span: 0..next,
                yaml: yaml_start..pos,
            });
        }
        pos = next;
    }
    None
}

fn is_fence(line: &str, fence: &str) -> bool {
    line.trim_end_matches([' ', '\t', '\r']) == fence
}

/// Reads the block into `page`: the parsed value, diagnostics, links and tags.
pub(crate) fn read(text: &str, block: &Block, page: &mut ParsedPage) {
    let yaml = &text[block.yaml.clone()];
    let value = yaml_value(yaml).unwrap_or_else(|diagnostic| {
        page.diagnostics.push(diagnostic);
        Value::Null
    });
    let lexical = scan_lines(text, block.yaml.clone(), page);
    frontmatter_tags(text, &value, lexical, page);
    page.frontmatter = Some(Frontmatter {
        span: block.span.clone(),
        yaml_span: block.yaml.clone(),
        value,
    });
}

/// The YAML of a frontmatter block as a JSON object: the fast path when the YAML is in its
/// subset, else the full parser.
pub(crate) fn yaml_value(yaml: &str) -> Result<Value, Diagnostic> {
    match simple_yaml::read(yaml) {
        Some(map) => Ok(Value::Object(map)),
        None => parse_yaml(yaml),
    }
}

/// The YAML text of a frontmatter block as a JSON object, through the full YAML parser.
/// Empty or comment-only YAML is an empty mapping, not an error.
pub(crate) fn parse_yaml(yaml: &str) -> Result<Value, Diagnostic> {
    if nests_deeper_than(yaml, MAX_FLOW_DEPTH) {
        // libyaml takes quadratic time on deep flow nesting, and the YAML reader refuses
        // such depth anyway: answer at once.
        return Err(Diagnostic {
            line: 2,
            message: format!("frontmatter nests more than {MAX_FLOW_DEPTH} levels deep"),
        });
    }
    full_parse(yaml)
}

/// The YAML through `serde_yaml_ng`, without the nesting guard of [`parse_yaml`].
pub(crate) fn full_parse(yaml: &str) -> Result<Value, Diagnostic> {
    match serde_yaml_ng::from_str::<yaml_json::Document>(yaml) {
        Ok(document) => Ok(Value::Object(document.0)),
        Err(err) => {
            let text = err.to_string();
            let message = if let Some(at) = text.find(yaml_json::LONG_KEY) {
                format!("frontmatter has {}", &text[at..])
            } else if text.contains(yaml_json::NOT_A_MAPPING) {
                "frontmatter is not a mapping of keys to values".to_owned()
            } else {
                format!("frontmatter is not valid YAML: {err}")
            };
            Err(Diagnostic {
                // The YAML's first line is the page's second.
                line: err.location().map_or(2, |l| l.line() as u32 + 1),
                message,
            })
        }
    }
}

/// The YAML reader's own recursion limit.
pub const MAX_FLOW_DEPTH: usize = 128;

/// Whether `[`/`{` brackets nest deeper than `limit`. Brackets in a comment, in a quoted
/// scalar, or in a plain scalar outside any flow collection (`title: tr[[[ [[`) are text, as
/// the YAML reader takes them, and so are those on the continuation lines of such a plain
/// scalar (lines more indented than the key or `-` that owns it) and the lines of a block
/// scalar (`key: |`). But a quote or comment is only followed to the end of its line: a quote
/// that goes on never hides brackets of later lines, so the guard can only over-count, never
/// let deep nesting through.
pub fn nests_deeper_than(yaml: &str, limit: usize) -> bool {
    let mut depth = 0usize;
    // While a plain scalar outside any flow collection goes on over lines: the least
    // indentation a line needs to continue it (one more than its owner's column).
    let mut continues_from: Option<usize> = None;
    // The column of a key that ended its line with nothing after its `:`: a plain value on
    // the next lines is its value.
    let mut key_above: Option<usize> = None;
    // Inside a block scalar (`key: |`): its owner's column, and its content's indentation
    // once its first line set it.
    let mut block: Option<(usize, Option<usize>)> = None;
    // The YAML reader's line breaks: also a lone `\r`, U+0085, U+2028 and U+2029.
    for line in yaml.split(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}']) {
        let b = line.as_bytes();
        let indent = b.iter().take_while(|&&c| c == b' ').count();
        if indent == b.len() {
            // A blank line: a plain or block scalar goes on over it.
            continue;
        }
        if let Some((owner, content)) = block {
            match content {
                // The block scalar's first line sets its indentation.
                None if indent > owner => {
                    block = Some((owner, Some(indent)));
                    continue;
                }
                Some(content) if indent >= content => continue,
                _ => block = None,
            }
        }
        // Inside a plain scalar outside any flow collection: it runs to the end of the line
        // (or to a `: ` that makes it a key), brackets and all.
        let mut plain = depth == 0 && continues_from.is_some_and(|least| indent >= least);
        // The last byte that was not a space: a quote opens a scalar only where a value starts.
        let mut before: Option<u8> = if plain { Some(b'x') } else { None };
        // The column of the key or `-` that owns what follows, and where the plain word began.
        let mut owner: Option<usize> = None;
        let mut word_began = 0;
        // The line ended in a comment, or in a quote that goes on past it.
        let mut comment = false;
        let mut open_quote = false;
        // Where a `|` or `>` stood where a value starts.
        let mut block_indicator: Option<usize> = None;
        // Where the node after an anchor written against it starts (`&a:b`: the anchor `a`,
        // then the plain `:b`; an anchor's name is letters, digits, `-` and `_`).
        let mut node_after_anchor: Option<usize> = None;
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            let word_start = matches!(i.checked_sub(1).map(|j| b[j]), None | Some(b' ' | b'\t'))
                || node_after_anchor == Some(i);
            let gap_follows = matches!(b.get(i + 1), None | Some(b' ' | b'\t'));
            if c == b':' && plain && gap_follows {
                plain = false;
                owner = Some(word_began);
            } else if word_start && !plain && depth == 0 && !matches!(c, b' ' | b'\t') {
                if c == b'-' && gap_follows {
                    owner = Some(i);
                }
                if matches!(c, b'|' | b'>') && matches!(before, Some(b':' | b'-')) {
                    block_indicator = Some(i);
                }
                if c == b'&' {
                    let name = b[i + 1..]
                        .iter()
                        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_'))
                        .count();
                    node_after_anchor = Some(i + 1 + name);
                }
                plain = match c {
                    // An indicator when a space follows; else the start of a word (`-0`).
                    b'?' | b':' | b'-' => !gap_follows,
                    b'#' | b'[' | b'{' | b']' | b'}' | b',' | b'"' | b'\'' | b'&' | b'!' | b'*'
                    | b'|' | b'>' => false,
                    _ => true,
                };
                word_began = i;
            }
            match c {
                b'#' if word_start => {
                    comment = true;
                    break;
                }
                // A quote opens a scalar where a value starts; inside a plain word it is text,
                // and in a flow collection `-` starts no value (`[a - "b]` is one plain item).
                b'"' | b'\''
                    if !plain
                        && (matches!(before, None | Some(b':' | b'[' | b'{' | b',' | b'?'))
                            || (before == Some(b'-') && depth == 0)) =>
                {
                    match quoted_end(b, i) {
                        Some(end) => i = end,
                        // Open to the end of the line: the rest of this line is text.
                        None => {
                            open_quote = true;
                            break;
                        }
                    }
                    before = Some(c);
                    continue;
                }
                // Outside a flow collection, a bracket inside a plain word is text.
                b'[' | b'{' if depth == 0 && plain => {}
                b'[' | b'{' => {
                    depth += 1;
                    if depth > limit {
                        return true;
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if !matches!(c, b' ' | b'\t') {
                before = Some(c);
            }
            i += 1;
        }
        let was_continued = continues_from.is_some_and(|least| indent >= least);
        continues_from = match (plain && depth == 0 && !comment && !open_quote, owner) {
            (false, _) => None,
            (true, Some(column)) => Some(column + 1),
            // A line that went on with a plain scalar keeps its owner; so does a plain value
            // under a key that ended the line above. A plain scalar with no key or `-` on its
            // line or above it (a bare document) is not followed.
            (true, None) if was_continued => continues_from,
            (true, None) => key_above.filter(|&column| indent > column).map(|c| c + 1),
        };
        // `key:` alone on its line (a comment may follow).
        let bare_key = !plain
            && !open_quote
            && depth == 0
            && before == Some(b':')
            && (comment || line.trim_end().ends_with(':'));
        key_above = owner.filter(|_| bare_key);
        // `key: |` or `- >-` (a comment may follow; an explicit indentation is not followed).
        let header = block_indicator.map(|at| {
            let rest = &line[at + 1..];
            let word = rest.split([' ', '\t']).next().unwrap_or_default();
            let after = rest[word.len()..].trim_start_matches([' ', '\t']);
            matches!(word, "" | "+" | "-") && (after.is_empty() || after.starts_with('#'))
        });
        if depth == 0 && header == Some(true) {
            block = owner.map(|column| (column, None));
        }
    }
    false
}

/// A top-level `key:` at the start of a line: the key and the offset after the colon.
/// Borrowed unless the key is quoted with escapes.
pub(crate) fn top_key(line: &str) -> Option<(Cow<'_, str>, usize)> {
    let b = line.as_bytes();
    let first = *b.first()?;
    if matches!(first, b'"' | b'\'') {
        let close = quoted_end(b, 0)?;
        let key = unquote(&line[..close]);
        let mut at = close;
        while at < b.len() && matches!(b[at], b' ' | b'\t') {
            at += 1;
        }
        return (at < b.len() && b[at] == b':' && is_value_gap(b, at + 1)).then(|| (key, at + 1));
    }
    // Indicators cannot start a plain key, except a `-` that is not a list item (`-x: 1`).
    let dash_key = first == b'-' && !is_value_gap(b, 1);
    if !dash_key && b" \t#-[]{},&*!|>%@`?\r".contains(&first) {
        return None;
    }
    let colon = (0..b.len()).find(|&i| b[i] == b':' && is_value_gap(b, i + 1))?;
    let key = line[..colon].trim_end();
    let comment = key.as_bytes().windows(2).any(|w| w == b" #");
    (!key.is_empty() && !comment).then_some((Cow::Borrowed(key), colon + 1))
}

/// After a `:` a value must be separated by whitespace (or the line ends).
fn is_value_gap(b: &[u8], at: usize) -> bool {
    at >= b.len() || matches!(b[at], b' ' | b'\t' | b'\r' | b'\n')
}

/// End (after the closing quote) of the quoted scalar starting at `at`.
fn quoted_end(b: &[u8], at: usize) -> Option<usize> {
    let quote = b[at];
    let mut j = at + 1;
    while j < b.len() {
        match b[j] {
            b'\\' if quote == b'"' => j += 2,
            b'\'' if quote == b'\'' && b.get(j + 1) == Some(&b'\'') => j += 2,
            c if c == quote => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// The text of a quoted scalar (with its quotes) when it has no escapes to resolve.
fn unquote(quoted: &str) -> Cow<'_, str> {
    let inner = &quoted[1..quoted.len() - 1];
    if quoted.starts_with('\'') {
        if inner.contains("''") {
            return Cow::Owned(inner.replace("''", "'"));
        }
    } else if inner.contains('\\') {
        return Cow::Owned(inner.replace("\\\"", "\"").replace("\\\\", "\\"));
    }
    Cow::Borrowed(inner)
}

/// Where a YAML comment starts in `line` from `from` on, skipping quoted scalars
/// (`line.len()` when there is none).
pub(crate) fn comment_start(line: &str, from: usize) -> usize {
    let b = line.as_bytes();
    let mut j = from;
    while j < b.len() {
        let prev = if j == 0 { b' ' } else { b[j - 1] };
        match b[j] {
            b'#' if matches!(prev, b' ' | b'\t') => return j,
            b'"' | b'\'' if matches!(prev, b' ' | b'\t' | b'[' | b'{' | b',' | b':') => {
                j = quoted_end(b, j).unwrap_or(b.len());
            }
            _ => j += 1,
        }
    }
    b.len()
}

/// A `tags` entry as written: the bytes of the name (without quotes and `#`) and its line.
struct TagItem {
    span: Option<Range<usize>>,
    line: u32,
}

/// What the line reader found out about the `tags` key.
struct TagLines {
    key_line: u32,
    items: Vec<TagItem>,
}

/// Walks the YAML lines: emits wiki links with their top-level key, collects `tags` items.
fn scan_lines(text: &str, yaml: Range<usize>, page: &mut ParsedPage) -> Option<TagLines> {
    let mut key: Option<Cow<'_, str>> = None;
    // Indentation of the line that opened a `|` or `>` block scalar.
    let mut block_scalar: Option<usize> = None;
    let mut tags: Option<TagLines> = None;
    let mut line_no = 1u32;
    let mut pos = yaml.start;
    while pos < yaml.end {
        line_no += 1;
        // The YAML range ends with a line ending (or the text), so no line runs past it.
        let next = newline(text.as_bytes(), pos).map_or(yaml.end, |p| (p + 1).min(yaml.end));
        let line_text = text[pos..next].trim_end_matches(['\n', '\r']);
        let line_start = pos;
        pos = next;
        let indent = line_text.len() - line_text.trim_start_matches(' ').len();
        let blank = line_text.trim().is_empty();
        if let Some(parent) = block_scalar {
            if blank || indent > parent {
                if let Some(key) = &key {
                    wiki_links_in(
                        text,
                        line_start..line_start + line_text.len(),
                        key,
                        line_no,
                        page,
                    );
                }
                continue;
            }
            block_scalar = None;
        }
        if blank || line_text[indent..].starts_with('#') {
            continue;
        }
        let mut value_start = indent;
        let mut on_key_line = false;
        if indent == 0 {
            match top_key(line_text) {
                Some((k, after)) => {
                    value_start = after;
                    on_key_line = true;
                    if k == "tags" {
                        tags = Some(TagLines {
                            key_line: line_no,
                            items: Vec::new(),
                        });
                    }
                    key = Some(k);
                }
                None if line_text.starts_with('-') => {}
                None => key = None,
            }
        }
        let Some(key) = &key else { continue };
        let content_end = comment_start(line_text, value_start);
        wiki_links_in(
            text,
            line_start + indent..line_start + content_end,
            key,
            line_no,
            page,
        );
        let value = line_text[value_start..content_end].trim();
        let value = value.strip_prefix('-').map_or(value, str::trim_start);
        if value.starts_with(['|', '>'])
            && value[1..]
                .bytes()
                .all(|c| c.is_ascii_digit() || c == b'+' || c == b'-')
        {
            block_scalar = Some(indent);
        }
        if key == "tags" {
            if let Some(tags) = &mut tags {
                let offset = line_start;
                tag_items(
                    line_text,
                    value_start,
                    content_end,
                    on_key_line,
                    line_no,
                    offset,
                    &mut tags.items,
                );
            }
        }
    }
    tags
}

fn wiki_links_in(text: &str, range: Range<usize>, key: &str, line: u32, page: &mut ParsedPage) {
    let b = text.as_bytes();
    let mut at = range.start;
    // Each `]]` closes the last `[[` before it: one pass, whatever the brackets.
    while let Some(close) = find(text, at, range.end, "]]") {
        if let Some(open) = b[at..close]
            .windows(2)
            .rposition(|w| w == b"[[")
            .map(|p| at + p)
        {
            let span_start = if open > range.start && b[open - 1] == b'!' {
                open - 1
            } else {
                open
            };
            let place = LinkPlace::Frontmatter {
                key: key.to_owned(),
            };
            page.links
                .extend(wiki_link(text, span_start, open, close, place, line));
        }
        at = close + 2;
    }
}

/// Items of the `tags` key written on one line: a block list item (`- a`), a flow list
/// (`[a, "b"]`) or a comma-separated string (`a, b`).
fn tag_items(
    line: &str,
    value_start: usize,
    content_end: usize,
    key_line: bool,
    line_no: u32,
    offset: usize,
    items: &mut Vec<TagItem>,
) {
    let b = line.as_bytes();
    let mut at = value_start;
    while at < content_end && matches!(b[at], b' ' | b'\t') {
        at += 1;
    }
    if at >= content_end {
        return;
    }
    let mut push = |span: Option<Range<usize>>| {
        items.push(TagItem {
            span: span.map(|s| s.start + offset..s.end + offset),
            line: line_no,
        });
    };
    if !key_line && b[at] == b'-' {
        // Block list item: one tag.
        let (start, end) = scalar(line, at + 1, content_end);
        if let Some(span) = start.map(|s| name_span(line, s..end)) {
            if !span.is_empty() {
                push(Some(span));
            }
        } else {
            push(None);
        }
        return;
    }
    if !key_line {
        return;
    }
    if b[at] == b'[' {
        let close = line[..content_end].rfind(']').unwrap_or(content_end);
        let mut item_start = at + 1;
        while item_start < close {
            let (start, end) = scalar(line, item_start, close);
            let after = next_comma(b, end.max(item_start), close);
            match start {
                Some(s) => {
                    let span = name_span(line, s..end);
                    if !span.is_empty() {
                        push(Some(span));
                    }
                }
                None => push(None),
            }
            item_start = after + 1;
        }
        return;
    }
    // A single string: comma-separated tags.
    let (start, end) = if matches!(b[at], b'"' | b'\'') {
        scalar(line, at, content_end)
    } else {
        (Some(at), content_end)
    };
    let Some(start) = start else {
        push(None);
        return;
    };
    let mut part = start;
    while part <= end {
        let stop = line[part..end].find(',').map_or(end, |p| part + p);
        let span = name_span(line, part..stop);
        if !span.is_empty() {
            push(Some(span));
        }
        part = stop + 1;
    }
}

/// A scalar from `at` (skipping whitespace) up to `limit` or a `,`: the start of its text
/// (`None` when it is quoted with escapes we do not resolve) and the end of its text.
fn scalar(line: &str, at: usize, limit: usize) -> (Option<usize>, usize) {
    let b = line.as_bytes();
    let mut start = at;
    while start < limit && matches!(b[start], b' ' | b'\t') {
        start += 1;
    }
    if start < limit && matches!(b[start], b'"' | b'\'') {
        // Up to the closing quote; a quote left open runs to `limit`, with nothing to drop
        // (dropping a byte there could cut a character in two).
        let end = match quoted_end(b, start) {
            Some(e) if e <= limit => e - 1,
            _ => limit,
        };
        let inner = start + 1..end.max(start + 1);
        let escaped = line[inner.clone()].contains(if b[start] == b'"' { '\\' } else { '\'' });
        return (if escaped { None } else { Some(inner.start) }, inner.end);
    }
    let mut end = start;
    while end < limit && b[end] != b',' {
        end += 1;
    }
    (Some(start), end)
}

fn next_comma(b: &[u8], from: usize, limit: usize) -> usize {
    (from..limit).find(|&i| b[i] == b',').unwrap_or(limit)
}

/// The tag name inside `range`: trimmed, without a leading `#`.
fn name_span(line: &str, range: Range<usize>) -> Range<usize> {
    let part = &line[range.clone()];
    // From the trimmed start, so that a blank part is empty rather than inside out.
    let trimmed_start = range.start + (part.len() - part.trim_start().len());
    let trimmed_end = trimmed_start + part.trim().len();
    let start = if line[trimmed_start..trimmed_end].starts_with('#') {
        trimmed_start + 1
    } else {
        trimmed_start
    };
    start..trimmed_end.max(start)
}

/// Tags of the parsed `tags` value, with spans when the written items match them.
fn frontmatter_tags(text: &str, value: &Value, lexical: Option<TagLines>, page: &mut ParsedPage) {
    let names: Vec<String> = match value.get("tags") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|item| match item {
                Value::String(s) => Some(s.trim().trim_start_matches('#').trim().to_owned()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .filter(|name| !name.is_empty())
            .collect(),
        Some(Value::String(s)) => s
            .split(',')
            .map(|part| part.trim().trim_start_matches('#').trim().to_owned())
            .filter(|name| !name.is_empty())
            .collect(),
        _ => Vec::new(),
    };
    if names.is_empty() {
        return;
    }
    let key_line = lexical.as_ref().map_or(2, |l| l.key_line);
    let items = lexical.map(|l| l.items).unwrap_or_default();
    let located = items.len() == names.len()
        && items.iter().zip(&names).all(|(item, name)| {
            item.span
                .as_ref()
                .is_some_and(|s| text[s.clone()] == **name)
        });
    for (i, name) in names.into_iter().enumerate() {
        let (span, line) = if located {
            (items[i].span.clone(), items[i].line)
        } else {
            (None, key_line)
        };
        page.tags.push(Tag {
            name,
            span,
            line,
            in_frontmatter: true,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_key_forms() {
        let cases = [
            ("title: x", Some(("title", 6))),
            ("title:", Some(("title", 6))),
            ("a b: x", Some(("a b", 4))),
            ("\"quoted key\": x", Some(("quoted key", 13))),
            ("'it''s': x", Some(("it's", 8))),
            ("url: http://x", Some(("url", 4))),
            ("- item", None),
            ("  nested: x", None),
            ("# comment", None),
            ("no colon here", None),
            ("[flow]: x", None),
        ];
        for (line, want) in cases {
            let got = top_key(line);
            assert_eq!(
                got.as_ref().map(|(k, a)| (k.as_ref(), *a)),
                want,
                "{line:?}"
            );
        }
    }

    #[test]
    fn comment_start_skips_quotes() {
        let cases = [
            ("a: b # c", 5),
            ("a: \"b # c\" # d", 11),
            ("a: it's # c", 8),
            ("a: b#c", 6),
            ("a: 'x''#' #y", 10),
        ];
        for (line, want) in cases {
            assert_eq!(comment_start(line, 2), want, "{line:?}");
        }
    }
}
