//! Word documents (`.docx`, Office Open XML): `word/document.xml` read with its styles (for
//! headings, code and quotes), numbering (bullets or numbers, by level) and relationships
//! (hyperlink targets). Bookmarks are anchors of internal links.

use std::collections::HashMap;

use crate::dom::{Dom, NodeId};
use crate::markdown::{anchor_id, anchor_link, Block, Inline, Style};
use crate::zipped::{relationships, Archive};
use crate::{Document, IngestError, Limits};

/// Fonts whose text is code.
const MONOSPACE: &[&str] = &[
    "courier",
    "courier new",
    "consolas",
    "menlo",
    "monaco",
    "source code pro",
    "dejavu sans mono",
    "liberation mono",
    "lucida console",
    "fira code",
    "fira mono",
];

#[derive(Debug, Default, Clone)]
struct StyleInfo {
    name: String,
    outline: Option<u8>,
    /// A list the style itself numbers: (numId, level).
    num: Option<(String, usize)>,
    based_on: Option<String>,
}

enum Kind {
    Heading(u8),
    Title,
    Item { ordered: bool, depth: usize },
    Code,
    Quote,
    Plain,
}

struct Reader<'a> {
    dom: &'a Dom,
    styles: HashMap<String, StyleInfo>,
    /// numId → ordered, by level.
    numbering: HashMap<String, HashMap<usize, bool>>,
    links: HashMap<String, (String, bool)>,
    blocks: Vec<Block>,
    title: Option<String>,
    code: Vec<String>,
}

pub(crate) fn convert(bytes: &[u8], limits: &Limits) -> Result<Document, IngestError> {
    let mut zip = Archive::open(bytes, limits)?;
    let dom = zip.required_xml("word/document.xml", "Word document (docx)")?;
    let styles = zip
        .xml("word/styles.xml")?
        .map(|d| styles(&d))
        .unwrap_or_default();
    let numbering = zip
        .xml("word/numbering.xml")?
        .map(|d| numbering(&d))
        .unwrap_or_default();
    let links = relationships(&mut zip, "word/document.xml")?;
    let core_title = crate::odt::dc_title(&mut zip, "docProps/core.xml")?;
    let mut reader = Reader {
        dom: &dom,
        styles,
        numbering,
        links,
        blocks: Vec::new(),
        title: None,
        code: Vec::new(),
    };
    let body = dom
        .find(Dom::ROOT, "body")
        .ok_or_else(|| IngestError::Corrupt("not a Word document: it has no body".into()))?;
    reader.container(body);
    reader.end_code();
    Ok(Document {
        title: reader.title.or(core_title),
        blocks: reader.blocks,
    })
}

fn styles(dom: &Dom) -> HashMap<String, StyleInfo> {
    let mut out = HashMap::new();
    for s in dom.find_all(Dom::ROOT, "style") {
        let Some(id) = dom.attr(s, "styleId") else {
            continue;
        };
        let val = |name: &str| {
            dom.find(s, name)
                .and_then(|n| dom.attr(n, "val"))
                .map(str::to_string)
        };
        let num = dom.find(s, "numPr").and_then(|n| {
            let id = dom.child(n, "numId").and_then(|x| dom.attr(x, "val"))?;
            let lvl = dom
                .child(n, "ilvl")
                .and_then(|x| dom.attr(x, "val"))
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            Some((id.to_string(), lvl))
        });
        out.insert(
            id.to_string(),
            StyleInfo {
                name: val("name").unwrap_or_else(|| id.to_string()).to_lowercase(),
                outline: val("outlineLvl").and_then(|v| v.parse().ok()),
                num,
                based_on: val("basedOn"),
            },
        );
    }
    out
}

fn numbering(dom: &Dom) -> HashMap<String, HashMap<usize, bool>> {
    let mut abstracts: HashMap<String, HashMap<usize, bool>> = HashMap::new();
    for a in dom.find_all(Dom::ROOT, "abstractNum") {
        let Some(id) = dom.attr(a, "abstractNumId") else {
            continue;
        };
        let mut levels = HashMap::new();
        for lvl in dom.find_all(a, "lvl") {
            let level = dom
                .attr(lvl, "ilvl")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            let format = dom
                .child(lvl, "numFmt")
                .and_then(|f| dom.attr(f, "val"))
                .unwrap_or("bullet");
            levels.insert(level, !matches!(format, "bullet" | "none"));
        }
        abstracts.insert(id.to_string(), levels);
    }
    let mut out = HashMap::new();
    for n in dom.find_all(Dom::ROOT, "num") {
        let (Some(id), Some(abs)) = (
            dom.attr(n, "numId"),
            dom.child(n, "abstractNumId")
                .and_then(|a| dom.attr(a, "val")),
        ) else {
            continue;
        };
        if let Some(levels) = abstracts.get(abs) {
            out.insert(id.to_string(), levels.clone());
        }
    }
    out
}

/// Whether an on/off property (`<w:b/>`, `<w:b w:val="0"/>`) is on.
fn on(dom: &Dom, props: Option<NodeId>, name: &str) -> bool {
    props
        .and_then(|p| dom.child(p, name))
        .is_some_and(|n| !matches!(dom.attr(n, "val"), Some("0" | "false" | "off" | "none")))
}

impl Reader<'_> {
    /// The body, a table cell or a content control: paragraphs and tables.
    fn container(&mut self, node: NodeId) {
        let dom = self.dom;
        for &c in dom.children(node) {
            match dom.name(c) {
                "p" => self.paragraph(c),
                "tbl" => {
                    self.end_code();
                    let rows = self.table(c);
                    if !rows.is_empty() {
                        self.blocks.push(Block::Table(rows));
                    }
                }
                "sdt" => {
                    if let Some(content) = dom.child(c, "sdtContent") {
                        self.container(content);
                    }
                }
                "customXml" | "ins" => self.container(c),
                _ => {}
            }
        }
    }

    fn style_chain(&self, id: Option<&str>) -> Vec<&StyleInfo> {
        let mut out = Vec::new();
        let mut id = id.map(str::to_string);
        while let Some(i) = id {
            match self.styles.get(&i) {
                Some(s) if out.len() < 16 => {
                    out.push(s);
                    id = s.based_on.clone();
                }
                _ => break,
            }
        }
        out
    }

    fn kind(&self, p: NodeId) -> Kind {
        let dom = self.dom;
        let props = dom.child(p, "pPr");
        let style_id = props
            .and_then(|pp| dom.child(pp, "pStyle"))
            .and_then(|s| dom.attr(s, "val"));
        let chain = self.style_chain(style_id);
        let name = chain.first().map(|s| s.name.as_str()).unwrap_or("");
        if name == "title" {
            return Kind::Title;
        }
        if let Some(level) = name
            .strip_prefix("heading ")
            .and_then(|n| n.trim().parse::<u8>().ok())
        {
            return Kind::Heading(level.clamp(1, 6));
        }
        let outline = props
            .and_then(|pp| dom.child(pp, "outlineLvl"))
            .and_then(|o| dom.attr(o, "val"))
            .and_then(|v| v.parse::<u8>().ok())
            .or_else(|| chain.iter().find_map(|s| s.outline));
        if let Some(o) = outline.filter(|o| *o < 9) {
            return Kind::Heading((o + 1).min(6));
        }
        let own_num = props.and_then(|pp| dom.child(pp, "numPr")).and_then(|n| {
            let id = dom.child(n, "numId").and_then(|x| dom.attr(x, "val"))?;
            let lvl = dom
                .child(n, "ilvl")
                .and_then(|x| dom.attr(x, "val"))
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            Some((id.to_string(), lvl))
        });
        let num = own_num.or_else(|| chain.iter().find_map(|s| s.num.clone()));
        // Word's "List Bullet 2" styles nest by their own number, not by a level.
        let style_depth = name
            .starts_with("list")
            .then(|| name.rsplit(' ').next()?.parse::<usize>().ok())
            .flatten()
            .map_or(0, |n| n.saturating_sub(1));
        if let Some((id, lvl)) = num.filter(|(id, _)| id != "0") {
            let lvl = lvl.max(style_depth);
            let ordered = self
                .numbering
                .get(&id)
                .and_then(|levels| levels.get(&lvl))
                .copied()
                .unwrap_or(name.contains("number"));
            return Kind::Item {
                ordered,
                depth: lvl.min(8),
            };
        }
        if name.starts_with("list bullet") || name.starts_with("list number") {
            return Kind::Item {
                ordered: name.starts_with("list number"),
                depth: style_depth,
            };
        }
        let names = chain.iter().map(|s| s.name.as_str());
        if names.clone().any(|n| {
            n.contains("code")
                || n.contains("preformatted")
                || n.contains("source")
                || n.contains("verbatim")
        }) {
            return Kind::Code;
        }
        if names.clone().any(|n| n.contains("quote")) {
            return Kind::Quote;
        }
        Kind::Plain
    }

    fn end_code(&mut self) {
        if !self.code.is_empty() {
            let text = std::mem::take(&mut self.code).join("\n");
            self.blocks.push(Block::Code(text));
        }
    }

    fn paragraph(&mut self, p: NodeId) {
        let kind = self.kind(p);
        if let Kind::Code = kind {
            self.code.push(self.dom.text(p));
            return;
        }
        self.end_code();
        let mut inline = Inline::default();
        let mut anchors = Vec::new();
        self.inline(p, &Style::default(), &mut inline, &mut anchors);
        let plain = inline.text();
        let text = inline.take();
        match kind {
            _ if text.is_empty() => {}
            Kind::Title if self.title.is_none() => {
                self.title = Some(plain.split_whitespace().collect::<Vec<_>>().join(" "))
            }
            Kind::Title => self.blocks.push(Block::Heading { level: 1, text }),
            Kind::Heading(level) => self.blocks.push(Block::Heading { level, text }),
            Kind::Item { ordered, depth } => self.blocks.push(Block::Item {
                ordered,
                depth,
                text,
            }),
            Kind::Quote => self.blocks.push(Block::Quote(text)),
            Kind::Plain | Kind::Code => self.blocks.push(Block::Paragraph(text)),
        }
        self.blocks.extend(anchors.into_iter().map(Block::Anchor));
    }

    /// The runs below `node` (a paragraph, a hyperlink, an insertion …).
    fn inline(&self, node: NodeId, style: &Style, out: &mut Inline, anchors: &mut Vec<String>) {
        let dom = self.dom;
        for &c in dom.children(node) {
            match dom.name(c) {
                "r" => self.run(c, style, out),
                "hyperlink" => {
                    let mut linked = style.clone();
                    if let Some((target, _)) = dom.attr(c, "r:id").and_then(|id| self.links.get(id))
                    {
                        let anchor = dom.attr(c, "anchor");
                        linked.link = Some(match anchor {
                            Some(a) if target.is_empty() => anchor_link(a),
                            _ => target.clone(),
                        });
                    } else if let Some(anchor) = dom.attr(c, "anchor") {
                        linked.link = Some(anchor_link(anchor));
                    }
                    self.inline(c, &linked, out, anchors);
                }
                "bookmarkStart" => {
                    if let Some(name) = dom.attr(c, "name").filter(|n| !n.starts_with('_')) {
                        anchors.push(anchor_id(name));
                    }
                }
                "ins" | "smartTag" | "fldSimple" | "customXml" | "sdt" | "sdtContent"
                | "moveTo" => self.inline(c, style, out, anchors),
                _ => {}
            }
        }
    }

    fn run(&self, r: NodeId, style: &Style, out: &mut Inline) {
        let dom = self.dom;
        let props = dom.child(r, "rPr");
        let mut style = style.clone();
        style.bold |= on(dom, props, "b");
        style.italic |= on(dom, props, "i");
        style.strike |= on(dom, props, "strike") || on(dom, props, "dstrike");
        let font = props
            .and_then(|p| dom.child(p, "rFonts"))
            .and_then(|f| dom.attr(f, "ascii").or_else(|| dom.attr(f, "hAnsi")))
            .map(str::to_lowercase);
        let char_style = props
            .and_then(|p| dom.child(p, "rStyle"))
            .and_then(|s| dom.attr(s, "val"))
            .and_then(|id| self.styles.get(id))
            .map(|s| s.name.clone())
            .unwrap_or_default();
        style.code |= font.is_some_and(|f| MONOSPACE.contains(&f.as_str()))
            || char_style.contains("code")
            || char_style.contains("verbatim");
        for &c in dom.children(r) {
            match dom.name(c) {
                "t" => out.push(&dom.text(c), &style),
                "tab" => out.push(" ", &style),
                "br" | "cr" => out.line_break(),
                "noBreakHyphen" => out.push("-", &style),
                _ => {}
            }
        }
    }

    fn table(&mut self, tbl: NodeId) -> Vec<Vec<String>> {
        let dom = self.dom;
        let mut rows = Vec::new();
        for tr in dom.find_all(tbl, "tr") {
            let mut cells = Vec::new();
            for tc in dom.find_all(tr, "tc") {
                let mut texts = Vec::new();
                for p in dom.find_all(tc, "p") {
                    let mut inline = Inline::default();
                    let mut anchors = Vec::new();
                    self.inline(p, &Style::default(), &mut inline, &mut anchors);
                    let t = inline.take().replace("\\\n", " ");
                    if !t.is_empty() {
                        texts.push(t);
                    }
                }
                cells.push(texts.join(" "));
            }
            if !cells.is_empty() {
                rows.push(cells);
            }
        }
        rows
    }
}
