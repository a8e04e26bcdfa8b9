//! Block structure of the page body: blockquote and list containers, fenced and indented
//! code, headings, thematic breaks and reference definitions. Text lines go to
//! [`crate::inline`].

use std::ops::Range;

use crate::inline::{block_id, newline, reference_definition, skip_ws, Inline, Region};
use crate::model::{Heading, ParsedPage};
use crate::slug::slug;

/// Scans the body of `text` from `start` (whose line number is `first_line`) into `page`.
pub(crate) fn scan(text: &str, start: usize, first_line: u32, page: &mut ParsedPage) {
    let mut body = Body {
        text,
        b: text.as_bytes(),
        page,
        inline: Inline::new(),
        fence: None,
        paragraph: None,
        paragraph_lines: Vec::new(),
        lists: Vec::new(),
        quote_depth: 0,
    };
    body.run(start, first_line);
    if let Some(fence) = body.fence.take() {
        // A fence never closed runs to the end of the page.
        body.page.code.push(fence.start..text.len());
    }
}

/// An open fenced code block.
struct Fence {
    byte: u8,
    len: usize,
    quote_depth: usize,
    /// A closing fence may be indented at most this many columns.
    max_indent: usize,
    /// Where the opening fence line starts.
    start: usize,
}

/// Whether a paragraph may turn into a setext heading.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Setext {
    Allowed,
    /// The paragraph began in a list item: a `---` under it is a thematic break.
    Forbidden,
}

struct Paragraph {
    span_start: usize,
    line: u32,
    quote_depth: usize,
    setext: Setext,
}

struct Body<'t, 'p> {
    text: &'t str,
    b: &'t [u8],
    page: &'p mut ParsedPage,
    inline: Inline,
    fence: Option<Fence>,
    paragraph: Option<Paragraph>,
    /// Content of the open paragraph's lines, for setext heading text.
    paragraph_lines: Vec<Range<usize>>,
    /// Content columns of the open list items, innermost last.
    lists: Vec<usize>,
    quote_depth: usize,
}

impl Body<'_, '_> {
    fn run(&mut self, start: usize, first_line: u32) {
        let mut pos = start;
        let mut line = first_line;
        while pos < self.b.len() {
            let (mut line_start, (mut end, mut next)) = (pos, self.bounds(pos));
            let mut resume = self.line(line_start, end, line);
            // A comment or display-math block ended on a later line: continue after it.
            while let Some(after) = resume {
                let closer = after - 1;
                let skipped = &self.b[line_start..closer];
                line += skipped.iter().filter(|&&c| c == b'\n').count() as u32;
                if let Some(p) = skipped.iter().rposition(|&c| c == b'\n') {
                    line_start += p + 1;
                }
                (end, next) = self.bounds(line_start);
                resume = self.continuation(line_start, after, end, line);
            }
            pos = next;
            line += 1;
        }
    }

    /// End of the line's content (before `\r\n` or `\n`) and start of the next line.
    fn bounds(&self, pos: usize) -> (usize, usize) {
        let (end, next) = match newline(self.b, pos) {
            Some(p) => (p, p + 1),
            None => (self.b.len(), self.b.len()),
        };
        if end > pos && self.b[end - 1] == b'\r' {
            (end - 1, next)
        } else {
            (end, next)
        }
    }

    fn line(&mut self, line_start: usize, end: usize, line: u32) -> Option<usize> {
        if let Some(fence) = &self.fence {
            let (content, depth) = strip_quotes(self.b, line_start, end, fence.quote_depth);
            if depth >= fence.quote_depth {
                if closes_fence(self.b, content, end, fence) {
                    self.page.code.push(fence.start..end);
                    self.fence = None;
                }
                return None;
            }
            // The blockquote holding the fence ended, and the fence with it.
            self.page.code.push(fence.start..line_start);
            self.fence = None;
        }
        let (content, depth) = strip_quotes(self.b, line_start, end, usize::MAX);
        if depth != self.quote_depth {
            self.lists.clear();
            self.quote_depth = depth;
        }
        let (cols, first) = indentation(self.b, content, end);
        if first == end {
            self.paragraph = None;
            return None;
        }
        if self.paragraph.is_none() {
            while self.lists.last().is_some_and(|&c| c > cols) {
                self.lists.pop();
            }
        }
        let base = self.lists.last().copied().unwrap_or(0);
        if self.paragraph.is_none() && cols >= base + 4 {
            // Indented code.
            self.page.code.push(line_start..end);
            return None;
        }
        self.block(line_start, first, end, cols, depth, line)
    }

    /// Classifies the line content starting at `first` (at column `cols`).
    fn block(
        &mut self,
        line_start: usize,
        mut first: usize,
        end: usize,
        mut cols: usize,
        depth: usize,
        line: u32,
    ) -> Option<usize> {
        let b = self.b;
        let mut in_item = false;
        loop {
            let base = self.lists.last().copied().unwrap_or(0);
            if !in_item && cols > base + 3 {
                // Only reachable as a lazy paragraph continuation.
                break;
            }
            if !in_item {
                if let Some(level) = setext_underline(b, first, end) {
                    let continues = self
                        .paragraph
                        .as_ref()
                        .is_some_and(|p| p.setext == Setext::Allowed && p.quote_depth == depth);
                    if continues {
                        self.setext_heading(level, end);
                        return None;
                    }
                }
            }
            if thematic_break(b, first, end) {
                self.paragraph = None;
                return None;
            }
            if let Some((level, content)) = atx_heading(b, first, end) {
                self.paragraph = None;
                let text = self.text[content.clone()].to_owned();
                self.page.headings.push(Heading {
                    level,
                    slug: slug(&text),
                    text,
                    line,
                    span: line_start..end,
                });
                let region = Region {
                    start: content.start,
                    end: content.end,
                    line_start: content.start,
                    line,
                };
                return self.inline.scan(self.text, &region, self.page);
            }
            if let Some((byte, len)) = fence_open(b, first, end) {
                self.paragraph = None;
                self.fence = Some(Fence {
                    byte,
                    len,
                    quote_depth: depth,
                    max_indent: cols + 3,
                    start: line_start,
                });
                return None;
            }
            if self.paragraph.is_none() && b[first] == b'[' {
                if let Some(definition) = reference_definition(self.text, first, end, line) {
                    self.page.links.extend(definition.link);
                    return None;
                }
            }
            if let Some(marker_end) = list_marker(b, first, end) {
                while self.lists.last().is_some_and(|&c| c > cols) {
                    self.lists.pop();
                }
                let marker_cols = marker_end - first;
                let (gap, content) = indentation(b, marker_end, end);
                let content_cols = if content == end || gap > 4 { 1 } else { gap };
                self.lists.push(cols + marker_cols + content_cols);
                self.paragraph = None;
                if content == end {
                    return None;
                }
                cols += marker_cols + gap;
                first = content;
                in_item = true;
                continue;
            }
            break;
        }
        self.paragraph_line(line_start, first, end, depth, line, in_item)
    }

    fn paragraph_line(
        &mut self,
        line_start: usize,
        first: usize,
        end: usize,
        depth: usize,
        line: u32,
        in_item: bool,
    ) -> Option<usize> {
        if self.paragraph.is_none() {
            self.paragraph = Some(Paragraph {
                span_start: line_start,
                line,
                quote_depth: depth,
                setext: if in_item {
                    Setext::Forbidden
                } else {
                    Setext::Allowed
                },
            });
            self.paragraph_lines.clear();
        }
        self.paragraph_lines.push(first..end);
        let region = Region {
            start: first,
            end,
            line_start: first,
            line,
        };
        self.inline_with_block_id(&region)
    }

    /// The rest of a line after a comment or display-math block that closed in it.
    fn continuation(
        &mut self,
        line_start: usize,
        from: usize,
        end: usize,
        line: u32,
    ) -> Option<usize> {
        if self.paragraph.is_none() {
            self.paragraph = Some(Paragraph {
                span_start: line_start,
                line,
                quote_depth: self.quote_depth,
                setext: Setext::Forbidden,
            });
            self.paragraph_lines.clear();
        }
        self.paragraph_lines.push(from..end);
        let region = Region {
            start: from,
            end,
            line_start: usize::MAX,
            line,
        };
        self.inline_with_block_id(&region)
    }

    fn inline_with_block_id(&mut self, region: &Region) -> Option<usize> {
        let resume = self.inline.scan(self.text, region, self.page);
        if resume.is_none() {
            self.page
                .block_ids
                .extend(block_id(self.text, region.start, region.end, region.line));
        }
        resume
    }

    fn setext_heading(&mut self, level: u8, end: usize) {
        let Some(paragraph) = self.paragraph.take() else {
            return;
        };
        let mut text = String::new();
        for range in &self.paragraph_lines {
            let part = self.text[range.clone()].trim();
            if !part.is_empty() {
                if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(part);
            }
        }
        self.page.headings.push(Heading {
            level,
            slug: slug(&text),
            text,
            line: paragraph.line,
            span: paragraph.span_start..end,
        });
    }
}

/// Skips up to `max` blockquote markers (`>` with one optional space); returns the content
/// start and the number of markers.
fn strip_quotes(b: &[u8], start: usize, end: usize, max: usize) -> (usize, usize) {
    let mut at = start;
    let mut depth = 0;
    while depth < max {
        let (cols, first) = indentation(b, at, end);
        if cols > 3 || first >= end || b[first] != b'>' {
            break;
        }
        depth += 1;
        at = first + 1;
        if at < end && matches!(b[at], b' ' | b'\t') {
            at += 1;
        }
    }
    (at, depth)
}

/// Columns of leading whitespace (tabs to the next multiple of 4) and the first other byte.
fn indentation(b: &[u8], start: usize, end: usize) -> (usize, usize) {
    let mut cols = 0;
    let mut at = start;
    while at < end {
        match b[at] {
            b' ' => cols += 1,
            b'\t' => cols += 4 - cols % 4,
            _ => break,
        }
        at += 1;
    }
    (cols, at)
}

fn trim_end_ws(b: &[u8], start: usize, mut end: usize) -> usize {
    while end > start && matches!(b[end - 1], b' ' | b'\t') {
        end -= 1;
    }
    end
}

/// `===` (level 1) or `---` (level 2), nothing else but trailing whitespace.
fn setext_underline(b: &[u8], first: usize, end: usize) -> Option<u8> {
    let stop = trim_end_ws(b, first, end);
    let byte = b[first];
    if !matches!(byte, b'=' | b'-') || !b[first..stop].iter().all(|&c| c == byte) {
        return None;
    }
    Some(if byte == b'=' { 1 } else { 2 })
}

/// Three or more `-`, `*` or `_` (the same one), optionally separated by spaces.
fn thematic_break(b: &[u8], first: usize, end: usize) -> bool {
    let byte = b[first];
    if !matches!(byte, b'-' | b'*' | b'_') {
        return false;
    }
    let mut count = 0;
    for &c in &b[first..end] {
        if c == byte {
            count += 1;
        } else if !matches!(c, b' ' | b'\t') {
            return false;
        }
    }
    count >= 3
}

/// `#`..`######` followed by whitespace or the line end: the level and the content bytes
/// without the optional closing `#` sequence.
fn atx_heading(b: &[u8], first: usize, end: usize) -> Option<(u8, Range<usize>)> {
    let hashes = b[first..end].iter().take_while(|&&c| c == b'#').count();
    if hashes == 0 || hashes > 6 {
        return None;
    }
    let after = first + hashes;
    if after < end && !matches!(b[after], b' ' | b'\t') {
        return None;
    }
    let start = skip_ws(b, after, end);
    let mut stop = trim_end_ws(b, start, end);
    let mut closing = stop;
    while closing > start && b[closing - 1] == b'#' {
        closing -= 1;
    }
    if closing < stop && (closing == start || matches!(b[closing - 1], b' ' | b'\t')) {
        stop = trim_end_ws(b, start, closing);
    }
    Some((hashes as u8, start..stop))
}

/// An opening code fence: three or more backticks or tildes; a backtick fence's info
/// string may not contain backticks.
fn fence_open(b: &[u8], first: usize, end: usize) -> Option<(u8, usize)> {
    let byte = b[first];
    if !matches!(byte, b'`' | b'~') {
        return None;
    }
    let len = b[first..end].iter().take_while(|&&c| c == byte).count();
    if len < 3 || (byte == b'`' && b[first + len..end].contains(&b'`')) {
        return None;
    }
    Some((byte, len))
}

fn closes_fence(b: &[u8], content: usize, end: usize, fence: &Fence) -> bool {
    let (cols, first) = indentation(b, content, end);
    if cols > fence.max_indent {
        return false;
    }
    let len = b[first..end]
        .iter()
        .take_while(|&&c| c == fence.byte)
        .count();
    len >= fence.len && skip_ws(b, first + len, end) == end
}

/// A bullet (`-`, `*`, `+`) or ordered (`1.`, `1)`) list marker: the offset after it.
fn list_marker(b: &[u8], first: usize, end: usize) -> Option<usize> {
    let after = match b[first] {
        b'-' | b'*' | b'+' => first + 1,
        b'0'..=b'9' => {
            let digits = b[first..end]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            let at = first + digits;
            if digits > 9 || at >= end || !matches!(b[at], b'.' | b')') {
                return None;
            }
            at + 1
        }
        _ => return None,
    };
    (after == end || matches!(b[after], b' ' | b'\t')).then_some(after)
}
