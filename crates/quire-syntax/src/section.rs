//! Cutting one part out of a page: a heading's section (the heading and the lines up to the
//! next heading of the same or a higher level) or a block named by its `^id` (the paragraph,
//! list item or preceding block it marks). `/section` and embeds (`![[page#Heading]]`,
//! `![[page#^id]]`) show exactly these.

use std::ops::Range;

use crate::model::ParsedPage;

/// A part of a page's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The heading's text, or `^id` for a block.
    pub name: String,
    /// The heading's level; 0 for a block.
    pub level: u8,
    /// The part's text: for a block, without its ` ^id` marker.
    pub content: String,
    /// 1-based first and last line (inclusive) of the part in the page.
    pub lines: Range<u32>,
}

/// The section under the first heading whose text, else whose slug, matches `wanted`
/// (leading `#` and spaces ignored).
pub fn heading_section(text: &str, parsed: &ParsedPage, wanted: &str) -> Option<Part> {
    let headings = &parsed.headings;
    let wanted = wanted.trim().trim_start_matches('#').trim();
    let slug = crate::slug(wanted);
    let at = headings
        .iter()
        .position(|h| h.text == wanted)
        .or_else(|| headings.iter().position(|h| h.slug == slug))?;
    Some(section_at(text, parsed, at))
}

/// The section of the `at`-th heading (from 0).
pub fn section_at(text: &str, parsed: &ParsedPage, at: usize) -> Part {
    let headings = &parsed.headings;
    let heading = &headings[at];
    let start = line_start(text, heading.span.start);
    let end = headings[at + 1..]
        .iter()
        .find(|h| h.level <= heading.level)
        .map_or(text.len(), |h| line_start(text, h.span.start));
    let content = text[start..end].trim_end_matches(['\n', '\r']).to_string();
    let last = heading.line + content.matches('\n').count() as u32;
    Part {
        name: heading.text.clone(),
        level: heading.level,
        content,
        lines: heading.line..last,
    }
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The block marked `^id` (`wanted` may start with `#` and must start with `^`): the
/// paragraph whose line ends with the marker, the list item (with the lines indented below
/// it), or — for a marker alone on its line — the block just above it.
pub fn block(text: &str, parsed: &ParsedPage, wanted: &str) -> Option<Part> {
    let id = wanted
        .trim()
        .trim_start_matches('#')
        .trim()
        .strip_prefix('^')?;
    let marker = parsed.block_ids.iter().find(|b| b.id == id)?;
    let lines: Vec<&str> = text.split('\n').collect();
    let at = (marker.line as usize).checked_sub(1)?;
    let blank = |i: usize| lines[i].trim().is_empty();
    let own = strip_marker(lines.get(at)?, id);
    let range = if own.trim().is_empty() {
        // `^id` alone: the block above, across blank lines.
        let mut end = at;
        while end > 0 && blank(end - 1) {
            end -= 1;
        }
        let mut start = end;
        while start > 0 && !blank(start - 1) {
            start -= 1;
        }
        if start == end {
            return None;
        }
        start..end
    } else if let Some(indent) = list_item_indent(lines[at]) {
        let mut end = at + 1;
        while end < lines.len() && !blank(end) && indent_of(lines[end]) > indent {
            end += 1;
        }
        at..end
    } else {
        let mut start = at;
        while start > 0 && !blank(start - 1) && !is_heading(lines[start - 1]) {
            start -= 1;
        }
        let mut end = at + 1;
        while end < lines.len() && !blank(end) && !is_heading(lines[end]) {
            end += 1;
        }
        start..end
    };
    let content: Vec<String> = lines[range.clone()]
        .iter()
        .map(|l| strip_marker(l.trim_end_matches('\r'), id).to_string())
        .collect();
    Some(Part {
        name: format!("^{id}"),
        level: 0,
        content: content.join("\n").trim_end().to_string(),
        lines: range.start as u32 + 1..range.end as u32,
    })
}

/// The line without a trailing ` ^id`.
fn strip_marker<'a>(line: &'a str, id: &str) -> &'a str {
    let trimmed = line.trim_end();
    match trimmed.strip_suffix(id).and_then(|l| l.strip_suffix('^')) {
        Some(rest) if rest.is_empty() || rest.ends_with([' ', '\t']) => rest.trim_end(),
        _ => line,
    }
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

fn list_item_indent(line: &str) -> Option<usize> {
    let rest = line.trim_start_matches([' ', '\t']);
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let after = if digits > 0 {
        rest[digits..].strip_prefix(['.', ')'])?
    } else {
        rest.strip_prefix(['-', '*', '+'])?
    };
    (after.is_empty() || after.starts_with([' ', '\t'])).then(|| indent_of(line))
}

fn is_heading(line: &str) -> bool {
    let t = line.trim_start();
    let hashes = t.bytes().take_while(|&b| b == b'#').count();
    (1..=6).contains(&hashes) && t[hashes..].starts_with([' ', '\t'])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(text: &str, wanted: &str) -> Option<String> {
        block(text, &crate::parse(text), wanted).map(|p| p.content)
    }

    #[test]
    fn a_marked_paragraph_is_the_block_without_its_marker() {
        let text = "# T\n\nFirst para.\n\nSecond line one\nline two ^abc\n\nThird.\n";
        assert_eq!(
            part(text, "^abc").as_deref(),
            Some("Second line one\nline two")
        );
        assert_eq!(
            part(text, "#^abc").as_deref(),
            Some("Second line one\nline two")
        );
        let p = block(text, &crate::parse(text), "^abc").unwrap();
        assert_eq!(p.lines, 5..6);
    }

    #[test]
    fn a_marked_list_item_keeps_its_children_only() {
        let text = "- one\n- two ^item\n  - child\n- three\n";
        assert_eq!(part(text, "^item").as_deref(), Some("- two\n  - child"));
    }

    #[test]
    fn a_marker_alone_names_the_block_above() {
        let text = "| a | b |\n| - | - |\n| 1 | 2 |\n\n^table\n\nAfter.\n";
        assert_eq!(
            part(text, "^table").as_deref(),
            Some("| a | b |\n| - | - |\n| 1 | 2 |")
        );
    }

    #[test]
    fn an_unknown_id_or_a_heading_name_is_no_block() {
        let text = "Para ^abc\n";
        assert_eq!(part(text, "^nope"), None);
        assert_eq!(part(text, "abc"), None);
    }

    #[test]
    fn a_heading_section_runs_to_the_next_heading_of_its_level() {
        let text = "# A\n\n## B\n\nb text\n\n### C\n\nc\n\n## D\n";
        let parsed = crate::parse(text);
        let p = heading_section(text, &parsed, "B").unwrap();
        assert_eq!(p.content, "## B\n\nb text\n\n### C\n\nc");
        assert_eq!(p.lines, 3..9);
        assert!(heading_section(text, &parsed, "nope").is_none());
    }
}
