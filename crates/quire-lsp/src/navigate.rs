//! Going places: definition, references (backlinks of a page or a heading), hover previews,
//! document and workspace symbols.

use std::ops::Range;

use lsp_types::{
    DocumentSymbolParams, GotoDefinitionParams, HoverParams, ReferenceParams,
    TextDocumentPositionParams, WorkspaceSymbolParams,
};
use quire_syntax::{Heading, Link, LinkKind, ParsedPage};
use quire_vault::{PagePath, PageSummary};
use serde_json::{json, Value};

use crate::server::{link_at, Answer, Server};
use crate::text::{range_json, Lines};

/// Does `fragment` (a link's text after `#`) name this heading? The vault's own rule
/// (`PageSummary::has_anchor`), asked of a page holding only this heading.
pub fn names_heading(heading: &Heading, fragment: &str) -> bool {
    PageSummary {
        title: String::new(),
        headings: vec![heading.clone()],
        block_ids: Vec::new(),
        links: Vec::new(),
    }
    .has_anchor(fragment)
}

/// The bytes a fragment names in a page: the first heading it names, or the line of the
/// block id.
pub fn anchor_range(text: &str, parsed: &ParsedPage, fragment: &str) -> Option<Range<usize>> {
    match fragment.strip_prefix('^') {
        Some(id) => {
            let block = parsed.block_ids.iter().find(|b| b.id == id)?;
            Some(Lines::new(text).line_range(block.line.saturating_sub(1) as usize))
        }
        None => parsed
            .headings
            .iter()
            .find(|h| names_heading(h, fragment))
            .map(|h| h.span.clone()),
    }
}

/// Where the section of heading `index` ends: at the next heading of the same or a higher
/// level, else at the end of the text.
pub fn section_end(parsed: &ParsedPage, index: usize, text_len: usize) -> usize {
    let level = parsed.headings[index].level;
    parsed.headings[index + 1..]
        .iter()
        .find(|h| h.level <= level)
        .map_or(text_len, |h| h.span.start)
}

/// The heading on a 0-based line of a page.
pub fn heading_on_line(parsed: &ParsedPage, line: u32) -> Option<(usize, &Heading)> {
    parsed
        .headings
        .iter()
        .enumerate()
        .find(|(_, h)| h.line == line + 1)
}

/// Is this heading the page's title (its first level-1 heading)?
fn is_title(parsed: &ParsedPage, heading: &Heading) -> bool {
    heading.level == 1 && parsed.headings.iter().find(|h| h.level == 1) == Some(heading)
}

/// What references are asked for.
enum Wanted {
    Page(PagePath),
    /// An anchor of a page: a heading, or a block id (`^id`).
    Anchor {
        page: PagePath,
        heading: Option<Heading>,
        block: Option<String>,
        /// Where it stands, for `includeDeclaration`.
        at: Range<usize>,
    },
}

impl Wanted {
    fn page(&self) -> &PagePath {
        match self {
            Wanted::Page(page) | Wanted::Anchor { page, .. } => page,
        }
    }

    /// Does a link to the page with this fragment reach what is wanted?
    fn reached_by(&self, fragment: Option<&str>) -> bool {
        match self {
            Wanted::Page(_) => true,
            Wanted::Anchor { heading, block, .. } => match (fragment, heading, block) {
                (Some(f), Some(h), _) => !f.starts_with('^') && names_heading(h, f),
                (Some(f), None, Some(id)) => f.strip_prefix('^') == Some(id.as_str()),
                _ => false,
            },
        }
    }
}

impl Server {
    /// The byte offset of a position in an open document.
    fn offset_in(
        &self,
        p: &TextDocumentPositionParams,
    ) -> Result<(PagePath, &crate::server::Doc, usize), crate::server::Failure> {
        let (path, doc) = self.doc(p.text_document.uri.as_str())?;
        let offset = Lines::new(&doc.text).offset(p.position.line, p.position.character);
        Ok((path, doc, offset))
    }

    pub fn definition(&self, p: GotoDefinitionParams) -> Answer {
        let (path, doc, offset) = self.offset_in(&p.text_document_position_params)?;
        let Some(link) = link_at(&doc.parsed, offset) else {
            return Ok(Value::Null);
        };
        let Some(target) = self.resolve(&path, link).path().cloned() else {
            return Ok(Value::Null);
        };
        let mut range = range_json((0, 0), (0, 0));
        if let (Some(fragment), Some(text)) = (&link.fragment, self.text_of(&target)) {
            let parsed = quire_syntax::parse(&text);
            if let Some(at) = anchor_range(&text, &parsed, fragment) {
                range = Lines::new(&text).range(&(at.start..at.start));
            }
        }
        Ok(json!({"uri": self.roots.uri_of(target.as_str()), "range": range}))
    }

    /// References: of the link's target under the cursor (its heading or block when the
    /// link has a fragment), else of the heading on the cursor's line (the title aside),
    /// else of the page.
    pub fn references(&self, p: ReferenceParams) -> Answer {
        let (path, doc, offset) = self.offset_in(&p.text_document_position)?;
        let line = p.text_document_position.position.line;
        let wanted = match link_at(&doc.parsed, offset) {
            Some(link) => {
                let Some(target) = self.resolve(&path, link).path().cloned() else {
                    return Ok(json!([]));
                };
                self.wanted_by_link(target, link)
            }
            None => match heading_on_line(&doc.parsed, line) {
                // The title (the first level-1 heading) stands for the page.
                Some((_, heading)) if !is_title(&doc.parsed, heading) => Wanted::Anchor {
                    page: path.clone(),
                    heading: Some(heading.clone()),
                    block: None,
                    at: heading.span.clone(),
                },
                _ => Wanted::Page(path.clone()),
            },
        };
        let mut out = Vec::new();
        if p.context.include_declaration {
            let at = match &wanted {
                Wanted::Page(_) => 0..0,
                Wanted::Anchor { at, .. } => at.clone(),
            };
            if let Some(text) = self.text_of(wanted.page()) {
                out.push(json!({
                    "uri": self.roots.uri_of(wanted.page().as_str()),
                    "range": Lines::new(&text).range(&at),
                }));
            }
        }
        for (source, links) in self.links_reaching(&wanted) {
            let Some(text) = self.text_of(&source) else {
                continue;
            };
            let lines = Lines::new(&text);
            let uri = self.roots.uri_of(source.as_str());
            for link in links {
                out.push(json!({"uri": uri, "range": lines.range(&link.span)}));
            }
        }
        Ok(Value::Array(out))
    }

    fn wanted_by_link(&self, target: PagePath, link: &Link) -> Wanted {
        let Some(fragment) = &link.fragment else {
            return Wanted::Page(target);
        };
        let parsed = self
            .text_of(&target)
            .map(|t| quire_syntax::parse(&t))
            .unwrap_or_default();
        match fragment.strip_prefix('^') {
            Some(id) => Wanted::Anchor {
                page: target,
                heading: None,
                block: Some(id.to_owned()),
                at: 0..0,
            },
            None => match parsed.headings.iter().find(|h| names_heading(h, fragment)) {
                Some(h) => Wanted::Anchor {
                    page: target,
                    heading: Some(h.clone()),
                    block: None,
                    at: h.span.clone(),
                },
                None => Wanted::Page(target),
            },
        }
    }

    /// Every link reaching what is wanted, by source page (in path order, then by position):
    /// the page's backlinks, and for an anchor also the page's own `[[#…]]` links.
    fn links_reaching(&self, wanted: &Wanted) -> Vec<(PagePath, Vec<Link>)> {
        let vault = self.space.vault();
        let page = wanted.page();
        let mut found: Vec<(PagePath, Link)> = vault
            .backlinks(page)
            .into_iter()
            .filter(|(_, link)| wanted.reached_by(link.fragment.as_deref()))
            .collect();
        if matches!(wanted, Wanted::Anchor { .. }) {
            if let Some(summary) = vault.page(page) {
                found.extend(
                    summary
                        .links
                        .iter()
                        .filter(|l| l.kind != LinkKind::Canvas && l.target.is_empty())
                        .filter(|l| wanted.reached_by(l.fragment.as_deref()))
                        .map(|l| (page.clone(), l.clone())),
                );
            }
        }
        found.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.span.start.cmp(&b.1.span.start)));
        let mut out: Vec<(PagePath, Vec<Link>)> = Vec::new();
        for (source, link) in found {
            match out.last_mut() {
                Some((last, links)) if *last == source => links.push(link),
                _ => out.push((source, vec![link])),
            }
        }
        out
    }

    /// The links reaching a heading of a page, by source page.
    pub fn heading_links(&self, page: &PagePath, heading: &Heading) -> Vec<(PagePath, Vec<Link>)> {
        self.links_reaching(&Wanted::Anchor {
            page: page.clone(),
            heading: Some(heading.clone()),
            block: None,
            at: heading.span.clone(),
        })
    }

    /// A preview of the link's target: the section a fragment names, else the page's first
    /// lines (after its frontmatter).
    pub fn hover(&self, p: HoverParams) -> Answer {
        const LINES: usize = 20;
        let (path, doc, offset) = self.offset_in(&p.text_document_position_params)?;
        let Some(link) = link_at(&doc.parsed, offset) else {
            return Ok(Value::Null);
        };
        let lines = Lines::new(&doc.text);
        let range = lines.range(&link.span);
        let resolution = self.resolve(&path, link);
        let Some(target) = resolution.path() else {
            let value = format!("**Broken link**: no page matches `{}`", link.target);
            return Ok(json!({"contents": {"kind": "markdown", "value": value}, "range": range}));
        };
        let mut value = format!("**{target}**");
        if let quire_vault::Resolution::Resolved { candidates, .. } = &resolution {
            if !candidates.is_empty() {
                let others: Vec<&str> = candidates.iter().map(PagePath::as_str).collect();
                value.push_str(&format!(" (ambiguous: also {})", others.join(", ")));
            }
        }
        if let Some(text) = self.text_of(target).filter(|_| target.is_page()) {
            let parsed = quire_syntax::parse(&text);
            let body = match link.fragment.as_deref() {
                Some(fragment) => match fragment.strip_prefix('^') {
                    Some(_) => anchor_range(&text, &parsed, fragment),
                    None => parsed
                        .headings
                        .iter()
                        .position(|h| names_heading(h, fragment))
                        .map(|i| {
                            parsed.headings[i].span.start..section_end(&parsed, i, text.len())
                        }),
                },
                None => None,
            }
            .unwrap_or(parsed.body_start..text.len());
            let preview: Vec<&str> = text[body]
                .trim_start_matches('\n')
                .lines()
                .take(LINES)
                .collect();
            value.push_str("\n\n---\n\n");
            value.push_str(preview.join("\n").trim_end());
        }
        Ok(json!({"contents": {"kind": "markdown", "value": value}, "range": range}))
    }

    /// The headings of a document, nested by level.
    pub fn document_symbols(&self, p: DocumentSymbolParams) -> Answer {
        let (_, doc) = self.doc(p.text_document.uri.as_str())?;
        let lines = Lines::new(&doc.text);
        let count = doc.parsed.headings.len();
        Ok(Value::Array(symbols(
            &doc.parsed,
            &lines,
            doc.text.len(),
            0..count,
        )))
    }

    /// Pages (by title) and headings whose names hold the query's characters in order,
    /// ignoring case; closer matches first.
    pub fn workspace_symbols(&self, p: WorkspaceSymbolParams) -> Answer {
        const LIMIT: usize = 256;
        let query: Vec<char> = p
            .query
            .to_lowercase()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let vault = self.space.vault();
        let mut hits: Vec<(u32, Value)> = Vec::new();
        for (path, summary) in vault.pages() {
            if !path.is_page() {
                continue;
            }
            let uri = self.roots.uri_of(path.as_str());
            if let Some(score) =
                fuzzy(&query, &summary.title).or_else(|| fuzzy(&query, path.as_str()))
            {
                hits.push((
                    score,
                    json!({
                        "name": summary.title,
                        "kind": 1,
                        "containerName": path.as_str(),
                        "location": {"uri": uri, "range": range_json((0, 0), (0, 0))},
                    }),
                ));
            }
            for heading in &summary.headings {
                if let Some(score) = fuzzy(&query, &heading.text) {
                    let line = heading.line.saturating_sub(1);
                    hits.push((
                        score + 1,
                        json!({
                            "name": heading.text,
                            "kind": 15,
                            "containerName": path.as_str(),
                            "location": {"uri": uri, "range": range_json((line, 0), (line, 0))},
                        }),
                    ));
                }
            }
        }
        hits.sort_by_key(|(score, _)| *score);
        hits.truncate(LIMIT);
        Ok(Value::Array(hits.into_iter().map(|(_, v)| v).collect()))
    }
}

/// Nested symbols of the headings `range`.
fn symbols(parsed: &ParsedPage, lines: &Lines<'_>, len: usize, range: Range<usize>) -> Vec<Value> {
    let headings = &parsed.headings;
    let mut out = Vec::new();
    let mut i = range.start;
    while i < range.end {
        let level = headings[i].level;
        let mut next = i + 1;
        while next < range.end && headings[next].level > level {
            next += 1;
        }
        let end = section_end(parsed, i, len);
        let name = if headings[i].text.trim().is_empty() {
            "(untitled)".to_string()
        } else {
            headings[i].text.clone()
        };
        out.push(json!({
            "name": name,
            "detail": "#".repeat(level as usize),
            "kind": 15,
            "range": lines.range(&(headings[i].span.start..end)),
            "selectionRange": lines.range(&headings[i].span),
            "children": symbols(parsed, lines, len, i + 1..next),
        }));
        i = next;
    }
    out
}

/// How well `name` matches the (lower-cased) query: `None` when the query's characters are
/// not in it in order; lower is better (a substring beats scattered characters, earlier and
/// shorter beats later and longer).
pub fn fuzzy(query: &[char], name: &str) -> Option<u32> {
    let lower = name.to_lowercase();
    if query.is_empty() {
        return Some(1000 + lower.len() as u32);
    }
    let wanted: String = query.iter().collect();
    if let Some(at) = lower.find(&wanted) {
        return Some(at as u32 * 4 + lower.len() as u32);
    }
    let mut chars = query.iter().peekable();
    let mut gaps = 0u32;
    for c in lower.chars() {
        match chars.peek() {
            Some(&&q) if q == c => {
                chars.next();
            }
            Some(_) => gaps += 1,
            None => break,
        }
    }
    chars
        .peek()
        .is_none()
        .then_some(10_000 + gaps * 8 + lower.len() as u32)
}
