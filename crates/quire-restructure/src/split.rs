//! Split: one page becomes one page per heading of a level (DECISIONS §4). Sections become
//! `<into>/<heading text>.md` (a portable name made from the heading, collisions numbered);
//! the page itself stays with its frontmatter and the text outside the sections, followed by
//! a list of wiki links to the new pages, so links to the page still resolve.

use std::collections::BTreeSet;
use std::ops::Range;

use quire_syntax::{slug, ParsedPage};
use quire_vault::PagePath;

/// One section that becomes a page.
pub(crate) struct Section {
    pub(crate) path: PagePath,
    /// Bytes of the section in the page (its heading line to the next heading of the split
    /// level or above).
    pub(crate) range: Range<usize>,
    /// Slugs and texts of the headings inside, for `#fragment` links.
    headings: Vec<(String, String)>,
    /// Block ids inside.
    blocks: Vec<String>,
}

/// A planned split of one page.
pub(crate) struct Split {
    pub(crate) page: PagePath,
    pub(crate) sections: Vec<Section>,
    /// Where the list of links to the sections starts in the page's new text.
    pub(crate) list_start: usize,
}

impl Split {
    /// The section page a link to `target` with `fragment` now belongs on, when `target` is
    /// the split page and the fragment names a heading or block inside a section.
    pub(crate) fn section_for(
        &self,
        target: &PagePath,
        fragment: Option<&str>,
    ) -> Option<&PagePath> {
        if target != &self.page {
            return None;
        }
        let fragment = fragment?.trim();
        if let Some(block) = fragment.strip_prefix('^') {
            return self
                .sections
                .iter()
                .find(|s| s.blocks.iter().any(|b| b == block))
                .map(|s| &s.path);
        }
        let wanted = slug(fragment);
        self.sections
            .iter()
            .find(|s| {
                s.headings
                    .iter()
                    .any(|(sl, text)| *sl == wanted || text == fragment)
            })
            .map(|s| &s.path)
    }

    /// The page's new text: everything outside the sections, then a list of links to them
    /// (`link(path)` gives each link's target text).
    pub(crate) fn index_text(
        &self,
        text: &str,
        link: &dyn Fn(&PagePath) -> String,
    ) -> (String, usize) {
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for section in &self.sections {
            out.push_str(&text[at..section.range.start]);
            at = section.range.end;
        }
        out.push_str(&text[at..]);
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(newline);
        }
        if !out.is_empty() && !out.ends_with(&format!("{newline}{newline}")) {
            out.push_str(newline);
        }
        let list_start = out.len();
        for section in &self.sections {
            out.push_str(&format!("- [[{}]]{newline}", link(&section.path)));
        }
        (out, list_start)
    }

    /// A section's own text, ending with a line break.
    pub(crate) fn section_text(&self, text: &str, section: &Section) -> String {
        let mut own = text[section.range.clone()].to_owned();
        if !own.ends_with('\n') {
            own.push_str(if text.contains("\r\n") { "\r\n" } else { "\n" });
        }
        own
    }
}

/// Works out the sections of `page` at heading `level` into folder `into`; `taken` says
/// whether a path is already used (case-insensitively) by another file.
pub(crate) fn plan_split(
    page: &PagePath,
    text: &str,
    parsed: &ParsedPage,
    level: u8,
    into: &str,
    taken: &dyn Fn(&str) -> bool,
) -> Result<Split, String> {
    let starts: Vec<usize> = parsed
        .headings
        .iter()
        .enumerate()
        .filter(|(_, h)| h.level == level)
        .map(|(i, _)| i)
        .collect();
    if starts.is_empty() {
        return Err(format!("`{page}` has no level-{level} heading to split at"));
    }
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut sections = Vec::new();
    for &i in &starts {
        let heading = &parsed.headings[i];
        let start = heading.span.start;
        let end = parsed.headings[i + 1..]
            .iter()
            .find(|h| h.level <= level)
            .map_or(text.len(), |h| h.span.start);
        let (first_line, last_line) = (
            heading.line,
            parsed.headings[i + 1..]
                .iter()
                .find(|h| h.level <= level)
                .map_or(u32::MAX, |h| h.line),
        );
        let headings = parsed.headings[i..]
            .iter()
            .take_while(|h| h.line < last_line)
            .map(|h| {
                let text = without_block_id(&h.text);
                (slug(text), text.to_owned())
            })
            .collect();
        let blocks = parsed
            .block_ids
            .iter()
            .filter(|b| b.line >= first_line && b.line < last_line)
            .map(|b| b.id.clone())
            .collect();
        let base = file_name(without_block_id(&heading.text));
        let mut name = base.clone();
        let mut n = 2;
        let path_of = |name: &str| {
            if into.is_empty() {
                format!("{name}.md")
            } else {
                format!("{into}/{name}.md")
            }
        };
        while used.contains(&name.to_lowercase()) || taken(&path_of(&name)) {
            name = format!("{base}-{n}");
            n += 1;
        }
        used.insert(name.to_lowercase());
        let path = PagePath::new(&path_of(&name))
            .map_err(|e| format!("cannot name the section `{}`: {e}", heading.text))?;
        sections.push(Section {
            path,
            range: start..end,
            headings,
            blocks,
        });
    }
    Ok(Split {
        page: page.clone(),
        sections,
        list_start: 0,
    })
}

/// Heading text without a trailing block id (`First ^b1` → `First`).
fn without_block_id(text: &str) -> &str {
    let trimmed = text.trim_end();
    match trimmed.rfind(" ^") {
        Some(at)
            if trimmed[at + 2..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
                && at + 2 < trimmed.len() =>
        {
            trimmed[..at].trim_end()
        }
        _ => trimmed,
    }
}

/// A portable file name made from heading text: characters no page name may hold become
/// `-`, spaces collapse, trailing dots and spaces go, at most 120 bytes.
fn file_name(heading: &str) -> String {
    let mut name = String::new();
    for c in heading.chars() {
        let c = if c.is_control() || "\\/:*?\"<>|#^[]".contains(c) {
            '-'
        } else if c.is_whitespace() {
            ' '
        } else {
            c
        };
        if c == ' ' && name.ends_with(' ') {
            continue;
        }
        name.push(c);
    }
    let mut name = name.trim().trim_end_matches(['.', ' ']).to_owned();
    while name.len() > 120 {
        name.pop();
    }
    let name = name.trim_end_matches(['.', ' ']).to_owned();
    if name.is_empty() || name.starts_with('.') {
        format!("section{name}")
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_portable() {
        assert_eq!(file_name("Plans: 2024/25?"), "Plans- 2024-25-");
        assert_eq!(file_name("  Intro  "), "Intro");
        assert_eq!(file_name("..."), "section");
        assert_eq!(file_name("v1.0."), "v1.0");
    }
}
