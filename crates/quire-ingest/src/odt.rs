//! OpenDocument text (`.odt`): `content.xml` with the styles of `content.xml` and
//! `styles.xml` (bold, italic, struck, monospace spans; heading, title, code and quote
//! paragraphs; numbered or bulleted list levels). Bookmarks are anchors of internal links.

use std::collections::HashMap;

use crate::dom::{Dom, NodeId};
use crate::markdown::{anchor_id, anchor_link, Block, Inline, Style};
use crate::zipped::Archive;
use crate::{Document, IngestError, Limits};

#[derive(Debug, Default, Clone)]
struct StyleInfo {
    /// The display name, lowercase (`preformatted text`).
    name: String,
    parent: Option<String>,
    bold: bool,
    italic: bool,
    strike: bool,
    mono: bool,
}

const MONOSPACE: &[&str] = &["courier", "consolas", "mono", "menlo", "monaco", "code"];

struct Reader<'a> {
    dom: &'a Dom,
    styles: HashMap<String, StyleInfo>,
    /// List style → ordered, by level (1-based as ODF counts).
    lists: HashMap<String, HashMap<usize, bool>>,
    blocks: Vec<Block>,
    title: Option<String>,
    code: Vec<String>,
}

/// The `dc:title` of a metadata part (`meta.xml`, `docProps/core.xml`).
pub(crate) fn dc_title(zip: &mut Archive<'_>, part: &str) -> Result<Option<String>, IngestError> {
    let Some(dom) = zip.xml(part)? else {
        return Ok(None);
    };
    Ok(dom
        .find(Dom::ROOT, "title")
        .map(|t| dom.text(t).trim().to_string())
        .filter(|t| !t.is_empty()))
}

pub(crate) fn convert(bytes: &[u8], limits: &Limits) -> Result<Document, IngestError> {
    let mut zip = Archive::open(bytes, limits)?;
    let content = zip.required_xml("content.xml", "OpenDocument text (odt)")?;
    let shared = zip.xml("styles.xml")?;
    let meta_title = dc_title(&mut zip, "meta.xml")?;
    let mut styles = HashMap::new();
    let mut lists = HashMap::new();
    for dom in shared.iter().chain(std::iter::once(&content)) {
        read_styles(dom, &mut styles, &mut lists);
    }
    let text = content
        .find(Dom::ROOT, "body")
        .and_then(|b| content.child(b, "text"))
        .ok_or_else(|| {
            IngestError::Corrupt("not an OpenDocument text: it has no office:text".into())
        })?;
    let mut reader = Reader {
        dom: &content,
        styles,
        lists,
        blocks: Vec::new(),
        title: None,
        code: Vec::new(),
    };
    reader.container(text, &mut Vec::new());
    reader.end_code();
    Ok(Document {
        title: reader.title.or(meta_title),
        blocks: reader.blocks,
    })
}

fn read_styles(
    dom: &Dom,
    styles: &mut HashMap<String, StyleInfo>,
    lists: &mut HashMap<String, HashMap<usize, bool>>,
) {
    for s in dom.find_all(Dom::ROOT, "style") {
        let Some(name) = dom.attr(s, "style:name") else {
            continue;
        };
        let display = dom
            .attr(s, "style:display-name")
            .map(str::to_string)
            .unwrap_or_else(|| name.replace("_20_", " "))
            .to_lowercase();
        let props = dom.child(s, "text-properties");
        let prop = |key: &str| props.and_then(|p| dom.attr(p, key)).unwrap_or("");
        let font = prop("style:font-name").to_lowercase();
        styles.insert(
            name.to_string(),
            StyleInfo {
                name: display,
                parent: dom.attr(s, "style:parent-style-name").map(str::to_string),
                bold: matches!(
                    prop("fo:font-weight"),
                    "bold" | "600" | "700" | "800" | "900"
                ),
                italic: matches!(prop("fo:font-style"), "italic" | "oblique"),
                strike: !matches!(prop("style:text-line-through-style"), "" | "none"),
                mono: MONOSPACE.iter().any(|m| font.contains(m)),
            },
        );
    }
    for l in dom.find_all(Dom::ROOT, "list-style") {
        let Some(name) = dom.attr(l, "style:name") else {
            continue;
        };
        let mut levels = HashMap::new();
        for &level in dom.children(l) {
            let n = dom
                .attr(level, "text:level")
                .and_then(|v| v.parse().ok())
                .unwrap_or(1);
            levels.insert(n, dom.name(level) == "list-level-style-number");
        }
        lists.insert(name.to_string(), levels);
    }
}

impl Reader<'_> {
    fn chain(&self, name: Option<&str>) -> Vec<&StyleInfo> {
        let mut out = Vec::new();
        let mut name = name.map(str::to_string);
        while let Some(n) = name {
            match self.styles.get(&n) {
                Some(s) if out.len() < 16 => {
                    out.push(s);
                    name = s.parent.clone();
                }
                _ => break,
            }
        }
        out
    }

    fn end_code(&mut self) {
        if !self.code.is_empty() {
            let text = std::mem::take(&mut self.code).join("\n");
            self.blocks.push(Block::Code(text));
        }
    }

    /// The body or a section: headings, paragraphs, lists, tables. `list` holds the open
    /// lists' styles.
    fn container(&mut self, node: NodeId, list: &mut Vec<Option<String>>) {
        let dom = self.dom;
        for &c in dom.children(node) {
            match dom.name(c) {
                "h" => {
                    self.end_code();
                    let level = dom
                        .attr(c, "text:outline-level")
                        .and_then(|v| v.parse::<u8>().ok())
                        .unwrap_or(1)
                        .clamp(1, 6);
                    let (text, anchors) = self.text_of(c);
                    if !text.is_empty() {
                        self.blocks.push(Block::Heading { level, text });
                    }
                    self.blocks.extend(anchors.into_iter().map(Block::Anchor));
                }
                "p" => self.paragraph(c, list),
                "list" => {
                    self.end_code();
                    let style = dom
                        .attr(c, "text:style-name")
                        .map(str::to_string)
                        .or_else(|| list.last().cloned().flatten());
                    list.push(style);
                    for &item in dom.children(c) {
                        if matches!(dom.name(item), "list-item" | "list-header") {
                            self.container(item, list);
                        }
                    }
                    list.pop();
                }
                "table" => {
                    self.end_code();
                    let rows = self.table(c);
                    if !rows.is_empty() {
                        self.blocks.push(Block::Table(rows));
                    }
                }
                "section" => self.container(c, list),
                _ => {}
            }
        }
    }

    fn paragraph(&mut self, p: NodeId, list: &[Option<String>]) {
        let dom = self.dom;
        let names: Vec<String> = self
            .chain(dom.attr(p, "text:style-name"))
            .iter()
            .map(|s| s.name.clone())
            .collect();
        if list.is_empty()
            && names
                .iter()
                .any(|n| n.contains("preformatted") || n.contains("code") || n.contains("source"))
        {
            self.code.push(plain_text(dom, p));
            return;
        }
        self.end_code();
        let (text, anchors) = self.text_of(p);
        if !text.is_empty() {
            let block = if let Some(style) = list.last() {
                let depth = list.len() - 1;
                let ordered = style
                    .as_ref()
                    .and_then(|s| self.lists.get(s))
                    .and_then(|levels| levels.get(&(depth + 1)))
                    .copied()
                    .unwrap_or(false);
                Block::Item {
                    ordered,
                    depth,
                    text,
                }
            } else if names.first().map(String::as_str) == Some("title") {
                if self.title.is_none() {
                    self.title = Some(plain_text(dom, p).trim().to_string());
                    self.blocks.extend(anchors.into_iter().map(Block::Anchor));
                    return;
                }
                Block::Heading { level: 1, text }
            } else if let Some(level) = names.iter().find_map(|n| {
                n.strip_prefix("heading ")
                    .and_then(|l| l.trim().parse::<u8>().ok())
            }) {
                Block::Heading {
                    level: level.clamp(1, 6),
                    text,
                }
            } else if names.iter().any(|n| n.contains("quot")) {
                Block::Quote(text)
            } else {
                Block::Paragraph(text)
            };
            self.blocks.push(block);
        }
        self.blocks.extend(anchors.into_iter().map(Block::Anchor));
    }

    fn text_of(&self, node: NodeId) -> (String, Vec<String>) {
        let mut inline = Inline::default();
        let mut anchors = Vec::new();
        let name = self.dom.attr(node, "text:style-name");
        // A heading's own style sets it bold: that is the heading's look, not emphasis.
        let heading = self.dom.is(node, "h")
            || self
                .chain(name)
                .iter()
                .any(|s| s.name.starts_with("heading") || s.name == "title");
        let base = if heading {
            Style::default()
        } else {
            self.style_of(name, &Style::default())
        };
        self.inline(node, &base, &mut inline, &mut anchors);
        (inline.take(), anchors)
    }

    fn style_of(&self, name: Option<&str>, base: &Style) -> Style {
        let mut style = base.clone();
        for s in self.chain(name) {
            style.bold |= s.bold;
            style.italic |= s.italic;
            style.strike |= s.strike;
            style.code |= s.mono;
        }
        style
    }

    fn inline(&self, node: NodeId, style: &Style, out: &mut Inline, anchors: &mut Vec<String>) {
        let dom = self.dom;
        for &c in dom.children(node) {
            match &dom.nodes[c].kind {
                crate::dom::Kind::Text(t) => {
                    out.push(&t.replace(['\n', '\r', '\t'], " "), style);
                    continue;
                }
                crate::dom::Kind::Element { .. } => {}
                _ => continue,
            }
            match dom.name(c) {
                "span" => {
                    let s = self.style_of(dom.attr(c, "text:style-name"), style);
                    self.inline(c, &s, out, anchors);
                }
                "a" => {
                    let mut s = style.clone();
                    if let Some(href) = dom.attr(c, "xlink:href") {
                        s.link = Some(match href.strip_prefix('#') {
                            Some(name) => anchor_link(name),
                            None => href.to_string(),
                        });
                    }
                    self.inline(c, &s, out, anchors);
                }
                "s" => {
                    let n = dom
                        .attr(c, "text:c")
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(1usize);
                    out.push(&" ".repeat(n.min(100)), style);
                }
                "tab" => out.push(" ", style),
                "line-break" => out.line_break(),
                "bookmark" | "bookmark-start" => {
                    if let Some(name) = dom.attr(c, "text:name") {
                        anchors.push(anchor_id(name));
                    }
                }
                "note" | "annotation" | "bookmark-end" | "soft-page-break" => {}
                _ => self.inline(c, style, out, anchors),
            }
        }
    }

    fn table(&self, table: NodeId) -> Vec<Vec<String>> {
        let dom = self.dom;
        let mut rows = Vec::new();
        for row in dom.find_all(table, "table-row") {
            let mut cells = Vec::new();
            for cell in dom.find_all(row, "table-cell") {
                let texts: Vec<String> = dom
                    .find_all(cell, "p")
                    .into_iter()
                    .map(|p| self.text_of(p).0.replace("\\\n", " "))
                    .filter(|t| !t.is_empty())
                    .collect();
                cells.push(texts.join(" "));
            }
            if !cells.is_empty() {
                rows.push(cells);
            }
        }
        rows
    }
}

/// A paragraph's text as written (spaces of `text:s`, tabs), for code.
fn plain_text(dom: &Dom, node: NodeId) -> String {
    let mut out = String::new();
    for &c in dom.children(node) {
        match &dom.nodes[c].kind {
            crate::dom::Kind::Text(t) => out.push_str(t),
            crate::dom::Kind::Element { .. } => match dom.name(c) {
                "s" => {
                    let n = dom
                        .attr(c, "text:c")
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(1usize);
                    out.push_str(&" ".repeat(n.min(100)));
                }
                "tab" => out.push('\t'),
                "line-break" => out.push('\n'),
                _ => out.push_str(&plain_text(dom, c)),
            },
            _ => {}
        }
    }
    out
}
