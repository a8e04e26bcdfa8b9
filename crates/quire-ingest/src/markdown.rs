//! The markdown every converter writes: a document is a list of [`Block`]s, inline text is
//! gathered in [`Inline`] runs (emphasis, code, links) and printed once, so that the rules of
//! escaping and of emphasis next to spaces live in one place.

/// Where an internal link points before the document is split: `#anchor` of the document
/// (a bookmark, an element id, a chapter file). [`crate::pages`] turns these into wiki links.
pub(crate) const ANCHOR_SCHEME: &str = "quire-anchor:";

/// The name of an internal target as links and [`Block::Anchor`] both write it: characters
/// other than letters, digits, `-`, `_`, `.` and `/` percent-encoded, so it never breaks a link.
pub(crate) fn anchor_id(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for b in raw.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The link destination of an internal target.
pub(crate) fn anchor_link(raw: &str) -> String {
    format!("{ANCHOR_SCHEME}{}", anchor_id(raw))
}

/// One block of a converted document.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// `level` 1–6 and the heading's inline markdown.
    Heading {
        level: u8,
        text: String,
    },
    Paragraph(String),
    /// One item of a list; `depth` 0 is the outermost list.
    Item {
        ordered: bool,
        depth: usize,
        text: String,
    },
    Code(String),
    /// Rows of cells (inline markdown); the first row is the header.
    Table(Vec<Vec<String>>),
    Quote(String),
    Rule,
    /// An invisible target of internal links (a bookmark, an element id).
    Anchor(String),
}

impl Block {
    /// The text of the block without markup, for titles, keywords and excerpts.
    pub fn plain(&self) -> String {
        match self {
            Block::Heading { text, .. }
            | Block::Paragraph(text)
            | Block::Item { text, .. }
            | Block::Quote(text) => plain(text),
            Block::Code(text) => text.clone(),
            Block::Table(rows) => rows
                .iter()
                .flatten()
                .map(|c| plain(c))
                .collect::<Vec<_>>()
                .join(" "),
            Block::Rule | Block::Anchor(_) => String::new(),
        }
    }
}

/// How a run of inline text is set.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Style {
    pub bold: bool,
    pub italic: bool,
    pub strike: bool,
    pub code: bool,
    pub link: Option<String>,
}

/// Inline text being gathered: runs of one style each.
#[derive(Debug, Default)]
pub(crate) struct Inline {
    runs: Vec<(String, Style)>,
}

impl Inline {
    pub fn push(&mut self, text: &str, style: &Style) {
        if text.is_empty() {
            return;
        }
        match self.runs.last_mut() {
            Some((last, s)) if s == style => last.push_str(text),
            _ => self.runs.push((text.to_string(), style.clone())),
        }
    }

    /// A hard line break inside the block.
    pub fn line_break(&mut self) {
        self.push("\n", &Style::default());
    }

    pub fn is_blank(&self) -> bool {
        self.runs.iter().all(|(t, _)| t.trim().is_empty())
    }

    /// The plain text gathered so far.
    pub fn text(&self) -> String {
        self.runs.iter().map(|(t, _)| t.as_str()).collect()
    }

    /// Takes the gathered runs as markdown, leaving this empty.
    pub fn take(&mut self) -> String {
        let runs = std::mem::take(&mut self.runs);
        render(&runs)
    }
}

/// Prints runs: links around their runs, emphasis around the text without its outer spaces.
fn render(runs: &[(String, Style)]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < runs.len() {
        let link = runs[i].1.link.clone();
        let mut j = i;
        while j < runs.len() && runs[j].1.link == link {
            j += 1;
        }
        let inner: String = runs[i..j].iter().map(|(t, s)| styled(t, s)).collect();
        match link {
            Some(url) if !inner.trim().is_empty() => {
                let (lead, core, trail) = split_space(&inner);
                out.push_str(lead);
                out.push('[');
                out.push_str(core);
                out.push_str("](");
                out.push_str(&link_destination(&url));
                out.push(')');
                out.push_str(trail);
            }
            _ => out.push_str(&inner),
        }
        i = j;
    }
    // Collapse runs of spaces and trim each line (a break is two trailing spaces' job here:
    // a backslash at the line's end).
    let lines: Vec<String> = out
        .split('\n')
        .map(|l| collapse_spaces(l.trim()))
        .filter(|l| !l.is_empty())
        .collect();
    lines.join("\\\n")
}

fn styled(text: &str, style: &Style) -> String {
    if style.code {
        let (lead, core, trail) = split_space(text);
        if core.is_empty() {
            return text.to_string();
        }
        let fence = if core.contains('`') { "`` " } else { "`" };
        let close = if core.contains('`') { " ``" } else { "`" };
        return format!("{lead}{fence}{core}{close}{trail}");
    }
    let escaped = escape(text);
    let marker = match (style.bold, style.italic) {
        (true, true) => "***",
        (true, false) => "**",
        (false, true) => "*",
        (false, false) => "",
    };
    let strike = if style.strike { "~~" } else { "" };
    if marker.is_empty() && strike.is_empty() {
        return escaped;
    }
    let (lead, core, trail) = split_space(&escaped);
    if core.is_empty() {
        return escaped;
    }
    format!("{lead}{strike}{marker}{core}{marker}{strike}{trail}")
}

fn split_space(text: &str) -> (&str, &str, &str) {
    let start = text.len() - text.trim_start().len();
    let end = text.trim_end().len().max(start);
    (&text[..start], &text[start..end], &text[end..])
}

fn collapse_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = true;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    out
}

/// Text with the characters markdown would read as markup escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '|') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn link_destination(url: &str) -> String {
    if url.contains([' ', '(', ')', '<', '>']) {
        format!("<{}>", url.replace('<', "%3C").replace('>', "%3E"))
    } else {
        url.to_string()
    }
}

/// Markdown inline text without its markup: the text a reader sees.
pub fn plain(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut chars = markdown.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(&next) = chars.peek() {
                    if next == '\n' {
                        out.push(' ');
                    } else {
                        out.push(next);
                    }
                    chars.next();
                }
            }
            '*' | '`' | '~' | '[' => {}
            ']' => {
                // Skip the link's destination.
                if chars.peek() == Some(&'(') {
                    let mut depth = 0;
                    for d in chars.by_ref() {
                        match d {
                            '(' => depth += 1,
                            ')' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
            '\n' => out.push(' '),
            _ => out.push(c),
        }
    }
    out.trim().to_string()
}

/// Prints blocks as a markdown document (ending in a newline, or empty).
pub fn to_markdown(blocks: &[Block]) -> String {
    let mut out = String::new();
    // The content column of each open list level: where a nested item's marker starts.
    let mut columns: Vec<usize> = Vec::new();
    let mut counters: Vec<usize> = Vec::new();
    // Whether each open list level is ordered.
    let mut kinds: Vec<bool> = Vec::new();
    let mut in_list = false;
    for block in blocks {
        let item = matches!(block, Block::Item { .. });
        if matches!(block, Block::Anchor(_)) {
            continue;
        }
        // A list of the other kind right after a list is a list of its own.
        if let Block::Item {
            ordered, depth: 0, ..
        } = block
        {
            if in_list && kinds.first().is_some_and(|k| k != ordered) {
                in_list = false;
                columns.clear();
                counters.clear();
            }
        }
        if !(out.is_empty() || item && in_list) {
            out.push('\n');
        }
        if !item {
            columns.clear();
            counters.clear();
            kinds.clear();
        }
        in_list = item;
        match block {
            Block::Heading { level, text } => {
                let level = (*level).clamp(1, 6) as usize;
                out.push_str(&"#".repeat(level));
                out.push(' ');
                out.push_str(&text.replace("\\\n", " "));
                out.push('\n');
            }
            Block::Paragraph(text) => {
                out.push_str(&guard_start(text));
                out.push('\n');
            }
            Block::Item {
                ordered,
                depth,
                text,
            } => {
                // A depth may skip levels (a document's second level right after no first):
                // nest one level at a time.
                let depth = (*depth).min(columns.len());
                columns.truncate(depth);
                counters.truncate(depth + 1);
                if counters.len() <= depth {
                    counters.push(0);
                }
                kinds.truncate(depth + 1);
                if kinds.len() <= depth {
                    kinds.push(*ordered);
                } else if kinds[depth] != *ordered {
                    kinds[depth] = *ordered;
                    counters[depth] = 0;
                }
                counters[depth] += 1;
                let indent = columns.last().copied().unwrap_or(0);
                let marker = if *ordered {
                    format!("{}. ", counters[depth])
                } else {
                    "- ".to_string()
                };
                let pad = " ".repeat(indent);
                let body = text.replace("\\\n", &format!("\\\n{pad}{}", " ".repeat(marker.len())));
                out.push_str(&pad);
                out.push_str(&marker);
                out.push_str(&body);
                out.push('\n');
                columns.push(indent + marker.len());
            }
            Block::Code(text) => {
                let fence = if text.contains("```") { "~~~~" } else { "```" };
                out.push_str(fence);
                out.push('\n');
                out.push_str(text.trim_end_matches('\n'));
                out.push('\n');
                out.push_str(fence);
                out.push('\n');
            }
            Block::Table(rows) => table(&mut out, rows),
            Block::Quote(text) => {
                for line in text.split('\n') {
                    if line.is_empty() {
                        out.push_str(">\n");
                    } else {
                        out.push_str("> ");
                        out.push_str(line);
                        out.push('\n');
                    }
                }
            }
            Block::Rule => out.push_str("---\n"),
            Block::Anchor(_) => {}
        }
    }
    out
}

/// A paragraph whose text would start a heading, list or quote gets that start escaped.
fn guard_start(text: &str) -> String {
    let first = text.chars().next();
    let ordered = text.split_once(['.', ')']).is_some_and(|(n, rest)| {
        !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) && rest.starts_with(' ')
    });
    if matches!(first, Some('#' | '-' | '+' | '=')) || ordered {
        format!("\\{text}")
    } else {
        text.to_string()
    }
}

fn table(out: &mut String, rows: &[Vec<String>]) {
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    if width == 0 {
        return;
    }
    for (i, row) in rows.iter().enumerate() {
        out.push('|');
        for c in 0..width {
            let cell = row.get(c).map(String::as_str).unwrap_or("");
            out.push(' ');
            out.push_str(&cell.replace("\\\n", " "));
            out.push_str(" |");
        }
        out.push('\n');
        if i == 0 {
            out.push('|');
            for _ in 0..width {
                out.push_str(" --- |");
            }
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, bold: bool, italic: bool, link: Option<&str>) -> (String, Style) {
        (
            text.to_string(),
            Style {
                bold,
                italic,
                link: link.map(str::to_string),
                ..Style::default()
            },
        )
    }

    #[test]
    fn emphasis_stays_off_the_spaces_and_links_wrap_their_runs() {
        let runs = vec![
            run("Read ", false, false, None),
            run("the ", true, false, Some("https://x.org/a")),
            run("guide", true, true, Some("https://x.org/a")),
            run(" now_", false, false, None),
        ];
        assert_eq!(
            render(&runs),
            "Read [**the** ***guide***](https://x.org/a) now\\_"
        );
    }

    #[test]
    fn nested_items_indent_to_their_parents_content() {
        let item = |ordered, depth, text: &str| Block::Item {
            ordered,
            depth,
            text: text.into(),
        };
        let md = to_markdown(&[
            item(true, 0, "one"),
            item(false, 1, "inner"),
            item(false, 3, "deeper"),
            item(true, 0, "two"),
        ]);
        assert_eq!(md, "1. one\n   - inner\n     - deeper\n2. two\n");
    }

    #[test]
    fn plain_drops_markup_and_link_destinations() {
        assert_eq!(plain("**a** [b *c*](http://x) \\_d"), "a b c _d");
    }
}
