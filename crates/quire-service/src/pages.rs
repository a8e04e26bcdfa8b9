//! Looking at pages without changing them: lint (broken links and anchors, empty links,
//! duplicate headings, heading level jumps, frontmatter that does not parse, trailing
//! whitespace), peek (a page's summary) and sections (a heading and its text).

use std::collections::{BTreeSet, HashMap};

use quire_api::{Heading, LintIssue, LintReport, LintRequest, Peek, PeekLink, Section};
use quire_syntax::{LinkKind, ParsedPage};
use quire_vault::{PagePath, PageSummary, Resolution, Vault};
use serde_json::Value;

use crate::core::SpaceCore;
use crate::error::{Error, Result};

/// How many characters of body text a peek's snippet holds.
const SNIPPET_CHARS: usize = 200;

/// The page inline content is linted as when the request names none: a page at the root.
const LINT_FROM: &str = "index.md";

/// Reading pages for lint, peek and sections.
#[derive(Clone, Copy)]
pub struct Pages<'a>(pub(crate) &'a SpaceCore);

/// Which section of a page.
#[derive(Debug, Clone)]
pub enum SectionOf {
    /// The first heading whose text (or slug) matches.
    Heading(String),
    /// The n-th heading of the page, from 0.
    Index(usize),
}

impl SectionOf {
    /// The section named by exactly one of `heading` (not blank) and `index`, as REST and MCP
    /// callers give them.
    pub fn from_parts(heading: Option<String>, index: Option<usize>) -> Result<SectionOf> {
        match (heading, index) {
            (Some(h), None) if !h.trim().is_empty() => Ok(SectionOf::Heading(h)),
            (None, Some(i)) => Ok(SectionOf::Index(i)),
            _ => Err(Error::bad_request(
                "name exactly one of `heading` and `index`",
            )),
        }
    }
}

impl Pages<'_> {
    /// The problems of a page, stored (`path`) or given (`content`, linted as if at `path`).
    pub fn lint(&self, request: &LintRequest) -> Result<LintReport> {
        let from = match request.path.as_deref().map(str::trim) {
            Some(p) if !p.is_empty() => PagePath::new(p)?,
            _ if request.content.is_none() => {
                return Err(Error::bad_request(
                    "lint needs `path` (an existing page) or `content` (text)",
                ))
            }
            _ => PagePath::new(LINT_FROM).expect("constant path is valid"),
        };
        let text = match &request.content {
            Some(text) => text.clone(),
            None => self.text(&from)?,
        };
        let vault = self.0.links.vault();
        Ok(LintReport {
            issues: lint(&vault, &from, &text),
        })
    }

    /// A page's title, a snippet of its body, frontmatter, links both ways, headings and
    /// word count.
    pub fn peek(&self, path: &str) -> Result<Peek> {
        let path = PagePath::new(path)?;
        let text = self.text(&path)?;
        let parsed = quire_syntax::parse(&text);
        let body = &text[parsed.body_start.min(text.len())..];
        let vault = self.0.links.vault();
        let mut seen = BTreeSet::new();
        let links_out = parsed
            .links
            .iter()
            .filter_map(|link| {
                let target = match &link.fragment {
                    Some(f) if link.target.is_empty() => format!("#{f}"),
                    _ => link.target.clone(),
                };
                if !seen.insert(target.clone()) {
                    return None;
                }
                let resolved = vault.resolve(&path, link);
                Some(PeekLink {
                    target,
                    path: resolved.path().map(|p| p.to_string()),
                })
            })
            .collect();
        let links_in: BTreeSet<String> = vault
            .backlinks(&path)
            .into_iter()
            .map(|(source, _)| source.to_string())
            .collect();
        let title = vault
            .title(&path)
            .map(str::to_string)
            .unwrap_or_else(|| PageSummary::from_parsed(&path, parsed.clone()).title);
        Ok(Peek {
            path: path.to_string(),
            title,
            snippet: snippet(body),
            frontmatter: match parsed.frontmatter.as_ref().map(|f| &f.value) {
                Some(value @ Value::Object(_)) => value.clone(),
                _ => Value::Object(Default::default()),
            },
            links_out,
            links_in: links_in.into_iter().collect(),
            headings: parsed
                .headings
                .iter()
                .map(|h| Heading {
                    level: h.level,
                    text: h.text.clone(),
                    slug: h.slug.clone(),
                })
                .collect(),
            word_count: body.split_whitespace().count(),
        })
    }

    /// One section: the heading and the lines up to the next heading of the same or a higher
    /// level (or the end of the page); or, for `^id`, the block that id marks.
    pub fn section(&self, path: &str, which: &SectionOf) -> Result<Section> {
        let path = PagePath::new(path)?;
        let text = self.text(&path)?;
        let parsed = quire_syntax::parse(&text);
        let part = match which {
            SectionOf::Index(i) => {
                (*i < parsed.headings.len()).then(|| quire_syntax::section_at(&text, &parsed, *i))
            }
            // `^id` names a block (`![[page#^id]]`), anything else a heading.
            SectionOf::Heading(wanted)
                if wanted
                    .trim()
                    .trim_start_matches('#')
                    .trim()
                    .starts_with('^') =>
            {
                quire_syntax::block(&text, &parsed, wanted)
            }
            SectionOf::Heading(wanted) => quire_syntax::heading_section(&text, &parsed, wanted),
        };
        let Some(part) = part else {
            return Err(Error::not_found(match which {
                SectionOf::Index(i) => format!("{path} has no heading #{i}"),
                SectionOf::Heading(h)
                    if h.trim().trim_start_matches('#').trim().starts_with('^') =>
                {
                    format!("{path} has no block {h:?}")
                }
                SectionOf::Heading(h) => format!("{path} has no heading {h:?}"),
            }));
        };
        Ok(Section {
            path: path.to_string(),
            heading: part.name,
            level: part.level,
            content: part.content,
            line_start: part.lines.start,
            line_end: part.lines.end,
        })
    }

    /// A page's text; 404 when it does not exist.
    fn text(&self, path: &PagePath) -> Result<String> {
        let bytes = match self.0.root.read(path) {
            Err(quire_store::StoreError::NotFound { .. }) => {
                return Err(Error::not_found(format!("no such page: {path}")))
            }
            other => other?,
        };
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Every lint issue of `text` as a page at `from`, ordered by line.
fn lint(vault: &Vault, from: &PagePath, text: &str) -> Vec<LintIssue> {
    let parsed = quire_syntax::parse(text);
    let mut issues = Vec::new();
    let mut issue = |line: u32, rule: &str, message: String| {
        issues.push(LintIssue {
            line,
            rule: rule.into(),
            message,
        })
    };
    for d in &parsed.diagnostics {
        issue(d.line, "frontmatter", d.message.clone());
    }
    lint_links(vault, from, &parsed, &mut issue);
    for (line, written) in empty_links(text) {
        issue(line, "empty-link", format!("{written} links to nothing"));
    }
    let mut first_at: HashMap<&str, u32> = HashMap::new();
    let mut previous: Option<u8> = None;
    for h in &parsed.headings {
        match first_at.get(h.slug.as_str()) {
            Some(first) => issue(
                h.line,
                "duplicate-heading",
                format!("heading {:?} repeats the heading of line {first}", h.text),
            ),
            None => {
                first_at.insert(&h.slug, h.line);
            }
        }
        if let Some(prev) = previous {
            if h.level > prev + 1 {
                issue(
                    h.line,
                    "heading-jump",
                    format!("heading level jumps from H{prev} to H{}", h.level),
                );
            }
        }
        previous = Some(h.level);
    }
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_end_matches([' ', '\t']);
        let trailing = &line[trimmed.len()..];
        // Two spaces after text are a markdown line break, not stray whitespace.
        let hard_break = trailing == "  " && !trimmed.trim().is_empty();
        if !trailing.is_empty() && !hard_break {
            issue(
                i as u32 + 1,
                "trailing-whitespace",
                "trailing whitespace".into(),
            );
        }
    }
    issues.sort_by(|a, b| a.line.cmp(&b.line).then_with(|| a.rule.cmp(&b.rule)));
    issues.dedup();
    issues
}

/// Links that do not resolve, and `#fragments` naming no heading or block of their page.
fn lint_links(
    vault: &Vault,
    from: &PagePath,
    parsed: &ParsedPage,
    issue: &mut impl FnMut(u32, &str, String),
) {
    let this_page = PageSummary::from_parsed(from, parsed.clone());
    for link in &parsed.links {
        if link.kind == LinkKind::Canvas {
            continue;
        }
        let fragment = link.fragment.as_deref().filter(|f| !f.is_empty());
        if link.target.is_empty() {
            match fragment {
                None => issue(link.line, "empty-link", "a link without a target".into()),
                Some(f) if !this_page.has_anchor(f) => issue(
                    link.line,
                    "broken-anchor",
                    format!("#{f} names no heading or block of this page"),
                ),
                Some(_) => {}
            }
            continue;
        }
        match vault.resolve(from, link) {
            Resolution::Unresolved => issue(
                link.line,
                "broken-link",
                format!("{} does not resolve to a file", link.target),
            ),
            resolved => {
                let (Some(path), Some(f)) = (resolved.path(), fragment) else {
                    continue;
                };
                let anchored = if path == from {
                    this_page.has_anchor(f)
                } else {
                    vault.page(path).is_none_or(|page| page.has_anchor(f))
                };
                if !anchored {
                    issue(
                        link.line,
                        "broken-anchor",
                        format!("#{f} names no heading or block of {path}"),
                    );
                }
            }
        }
    }
}

/// `[[]]`, `![[]]` and `[text]()` outside fenced code: links the parser does not report
/// because they have no target.
fn empty_links(text: &str) -> Vec<(u32, &'static str)> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => {
                fence = Some(m);
                continue;
            }
            (Some(open), Some(m)) if open == m => {
                fence = None;
                continue;
            }
            (Some(_), _) => continue,
            (None, None) => {}
        }
        let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        if squeezed.contains("[[]]") {
            out.push((i as u32 + 1, "[[]]"));
        }
        if squeezed.contains("]()") || squeezed.contains("](<>)") {
            out.push((i as u32 + 1, "[…]()"));
        }
    }
    out
}

/// The first [`SNIPPET_CHARS`] characters of body text: headings' `#`, emphasis and line
/// breaks folded away.
fn snippet(body: &str) -> String {
    let mut words = Vec::new();
    for line in body.lines() {
        let line = line.trim().trim_start_matches('#').trim();
        if line.starts_with("<!--") {
            continue;
        }
        words.extend(line.split_whitespace());
    }
    let folded = words.join(" ").replace(['*', '`'], "");
    match folded.char_indices().nth(SNIPPET_CHARS) {
        Some((cut, _)) => format!("{}…", folded[..cut].trim_end()),
        None => folded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> Vec<(u32, String)> {
        let vault = Vault::new();
        let from = PagePath::new("a.md").unwrap();
        lint(&vault, &from, text)
            .into_iter()
            .map(|i| (i.line, i.rule))
            .collect()
    }

    #[test]
    fn lint_finds_heading_jumps_and_duplicates() {
        let found = rules("# A\n### B\n## A\n");
        assert_eq!(
            found,
            vec![
                (2, "heading-jump".to_string()),
                (3, "duplicate-heading".to_string())
            ]
        );
    }

    #[test]
    fn lint_finds_empty_and_broken_links_but_not_in_code() {
        let found = rules("see [[]] and [x]() and [[nowhere]]\n```\n[[]]\n```\n");
        assert_eq!(
            found,
            vec![
                (1, "broken-link".to_string()),
                (1, "empty-link".to_string()),
                (1, "empty-link".to_string()),
            ]
        );
    }

    #[test]
    fn lint_keeps_hard_breaks_and_flags_other_trailing_space() {
        assert_eq!(
            rules("text  \nmore \n"),
            vec![(2, "trailing-whitespace".into())]
        );
    }

    #[test]
    fn same_page_anchors_must_exist() {
        assert_eq!(
            rules("# Top\n[[#Top]] [[#Missing]]\n"),
            vec![(2, "broken-anchor".into())]
        );
    }

    #[test]
    fn snippets_are_cut_at_200_characters() {
        let body = "# Title\n\n".to_string() + &"word ".repeat(100);
        let s = snippet(&body);
        assert!(s.starts_with("Title word"));
        assert!(s.ends_with('…'));
        assert!(s.chars().count() <= SNIPPET_CHARS + 1);
    }
}
