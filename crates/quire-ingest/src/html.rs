//! HTML into markdown blocks: html5ever parses (as a browser would, broken markup included)
//! into quire's [`Dom`] through the tree sink here, and [`Converter`] walks it: headings,
//! paragraphs, nested lists, tables, code, quotes, emphasis and links. The e-book converter
//! and the clipper's article extraction use the same walk.

use std::borrow::Cow;
use std::cell::{Ref, RefCell};
use std::collections::HashMap;

use html5ever::interface::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::{local_name, ns, Attribute, QualName};

use crate::dom::{Dom, Kind, NodeId};
use crate::markdown::{anchor_link, Block, Inline, Style};
use crate::zipped::resolve;
use crate::Document;

/// Text of an HTML file: UTF-8 (a byte order mark dropped), invalid bytes replaced.
pub fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

/// Parses an HTML document.
pub fn parse(text: &str) -> Dom {
    let sink = Sink::default();
    html5ever::parse_document(sink, Default::default()).one(text)
}

/// The tree builder's view of a [`Dom`] under construction.
#[derive(Default)]
struct Sink {
    state: RefCell<State>,
}

struct State {
    dom: Dom,
    /// The qualified name of each node (a placeholder for nodes that are no elements).
    names: Vec<QualName>,
    templates: HashMap<NodeId, NodeId>,
}

impl Default for State {
    fn default() -> Self {
        State {
            dom: Dom::new(),
            names: vec![QualName::new(None, ns!(), local_name!(""))],
            templates: HashMap::new(),
        }
    }
}

impl State {
    /// A node without a parent yet.
    fn create(&mut self, kind: Kind, name: QualName) -> NodeId {
        let id = self.dom.nodes.len();
        self.dom.nodes.push(crate::dom::Node {
            parent: None,
            children: Vec::new(),
            kind,
        });
        self.names.push(name);
        id
    }

    fn detach(&mut self, id: NodeId) {
        if let Some(parent) = self.dom.nodes[id].parent.take() {
            self.dom.nodes[parent].children.retain(|&c| c != id);
        }
    }

    fn text_node(&mut self, text: &str) -> NodeId {
        self.create(
            Kind::Text(text.to_string()),
            QualName::new(None, ns!(), local_name!("")),
        )
    }

    fn insert(&mut self, parent: NodeId, at: Option<usize>, child: NodeOrText<NodeId>) {
        let siblings = &self.dom.nodes[parent].children;
        let at = at.unwrap_or(siblings.len());
        let before = at.checked_sub(1).map(|i| siblings[i]);
        let id = match child {
            NodeOrText::AppendText(text) => {
                if let Some(prev) = before {
                    if let Kind::Text(t) = &mut self.dom.nodes[prev].kind {
                        t.push_str(&text);
                        return;
                    }
                }
                self.text_node(&text)
            }
            NodeOrText::AppendNode(id) => {
                self.detach(id);
                id
            }
        };
        let at = at.min(self.dom.nodes[parent].children.len());
        self.dom.nodes[parent].children.insert(at, id);
        self.dom.nodes[id].parent = Some(parent);
    }
}

impl TreeSink for Sink {
    type Handle = NodeId;
    type Output = Dom;
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Dom {
        self.state.into_inner().dom
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> NodeId {
        Dom::ROOT
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> Ref<'a, QualName> {
        Ref::map(self.state.borrow(), |s| &s.names[*target])
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> NodeId {
        let mut s = self.state.borrow_mut();
        let kind = Kind::Element {
            name: name.local.to_string().to_ascii_lowercase(),
            attrs: attrs
                .iter()
                .map(|a| (a.name.local.to_string(), a.value.to_string()))
                .collect(),
        };
        let id = s.create(kind, name);
        if flags.template {
            let contents = s.create(Kind::Document, QualName::new(None, ns!(), local_name!("")));
            s.templates.insert(id, contents);
        }
        id
    }

    fn create_comment(&self, _text: StrTendril) -> NodeId {
        self.state
            .borrow_mut()
            .create(Kind::Other, QualName::new(None, ns!(), local_name!("")))
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> NodeId {
        self.create_comment(StrTendril::new())
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        self.state.borrow_mut().insert(*parent, None, child);
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        let has_parent = self.state.borrow().dom.nodes[*element].parent.is_some();
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {}

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        let mut s = self.state.borrow_mut();
        if let Some(&c) = s.templates.get(target) {
            return c;
        }
        let c = s.create(Kind::Document, QualName::new(None, ns!(), local_name!("")));
        s.templates.insert(*target, c);
        c
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
        let mut s = self.state.borrow_mut();
        let Some(parent) = s.dom.nodes[*sibling].parent else {
            return;
        };
        if let NodeOrText::AppendNode(id) = &new_node {
            s.detach(*id);
        }
        let at = s.dom.nodes[parent]
            .children
            .iter()
            .position(|c| c == sibling)
            .unwrap_or(0);
        s.insert(parent, Some(at), new_node);
    }

    fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
        let mut s = self.state.borrow_mut();
        if let Kind::Element { attrs: have, .. } = &mut s.dom.nodes[*target].kind {
            for a in attrs {
                let key = a.name.local.to_string();
                if !have.iter().any(|(k, _)| *k == key) {
                    have.push((key, a.value.to_string()));
                }
            }
        }
    }

    fn remove_from_parent(&self, target: &NodeId) {
        self.state.borrow_mut().detach(*target);
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        let mut s = self.state.borrow_mut();
        let children = std::mem::take(&mut s.dom.nodes[*node].children);
        for &c in &children {
            s.dom.nodes[c].parent = Some(*new_parent);
        }
        s.dom.nodes[*new_parent].children.extend(children);
    }
}

/// Where links of the document point.
#[derive(Debug, Clone)]
pub enum Links {
    /// Kept as written; `#id` links are internal.
    Keep,
    /// A file of a package (an e-book chapter at this path): links to other files of the
    /// package and `#id` links are internal.
    Package(String),
    /// A web page at this URL: relative links resolve against it.
    Web(url::Url),
}

/// Elements whose content is never text of the document.
const NEVER: &[&str] = &[
    "script", "style", "noscript", "template", "head", "svg", "math", "iframe", "object", "canvas",
    "button", "select", "input", "textarea", "nav", "form", "dialog", "menu",
];

/// Walks a [`Dom`] of HTML into blocks.
pub struct Converter<'a> {
    dom: &'a Dom,
    links: Links,
    /// Elements left out besides [`NEVER`] (the clipper's noise).
    skip: &'a dyn Fn(&Dom, NodeId) -> bool,
    blocks: Vec<Block>,
    inline: Inline,
    style: Style,
    /// Open lists: whether each is ordered.
    lists: Vec<bool>,
    /// Open `<li>`s whose text is not written yet.
    items: usize,
}

impl<'a> Converter<'a> {
    pub fn new(dom: &'a Dom, links: Links, skip: &'a dyn Fn(&Dom, NodeId) -> bool) -> Self {
        Converter {
            dom,
            links,
            skip,
            blocks: Vec::new(),
            inline: Inline::default(),
            style: Style::default(),
            lists: Vec::new(),
            items: 0,
        }
    }

    /// Converts the content of `node`.
    pub fn run(mut self, node: NodeId) -> Vec<Block> {
        self.walk(node);
        self.flush();
        self.blocks
    }

    pub fn push_block(&mut self, block: Block) {
        self.flush();
        self.blocks.push(block);
    }

    fn flush(&mut self) {
        if self.inline.is_blank() {
            self.inline = Inline::default();
            return;
        }
        let text = self.inline.take();
        if self.items > 0 && !self.lists.is_empty() {
            let ordered = *self.lists.last().unwrap_or(&false);
            self.blocks.push(Block::Item {
                ordered,
                depth: self.lists.len() - 1,
                text,
            });
        } else {
            self.blocks.push(Block::Paragraph(text));
        }
    }

    fn anchor(&self, id: &str) -> String {
        match &self.links {
            Links::Package(file) => format!("{file}#{id}"),
            _ => format!("#{id}"),
        }
    }

    fn href(&self, href: &str) -> Option<String> {
        let href = href.trim();
        if href.is_empty() {
            return None;
        }
        if let Some(frag) = href.strip_prefix('#') {
            return Some(anchor_link(&self.anchor(frag)));
        }
        match &self.links {
            Links::Keep => Some(href.to_string()),
            Links::Web(base) => base.join(href).ok().map(|u| u.to_string()),
            Links::Package(file) => {
                if href.contains("://") || href.starts_with("mailto:") {
                    return Some(href.to_string());
                }
                let dir = crate::zipped::folder(file);
                let target = resolve(dir, href);
                Some(match href.split_once('#') {
                    Some((_, frag)) => anchor_link(&format!("{target}#{frag}")),
                    None => anchor_link(&target),
                })
            }
        }
    }

    fn walk(&mut self, node: NodeId) {
        let dom = self.dom;
        match &dom.nodes[node].kind {
            Kind::Text(t) => {
                let text = t.replace(['\n', '\r', '\t'], " ");
                self.inline.push(&text, &self.style);
                return;
            }
            Kind::Other => return,
            Kind::Document => {
                for &c in dom.children(node) {
                    self.walk(c);
                }
                return;
            }
            Kind::Element { .. } => {}
        }
        let name = dom.name(node);
        if NEVER.contains(&name) || (self.skip)(dom, node) {
            return;
        }
        let id = dom.attr(node, "id").map(str::to_string);
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.flush();
                let level = name[1..].parse().unwrap_or(1);
                self.children(node);
                let text = self.inline.take();
                if !text.is_empty() {
                    self.blocks.push(Block::Heading { level, text });
                }
                if let Some(id) = id {
                    self.blocks
                        .push(Block::Anchor(crate::markdown::anchor_id(&self.anchor(&id))));
                }
                return;
            }
            _ => {}
        }
        if let Some(id) = &id {
            self.flush_if_block(name);
            let anchor = crate::markdown::anchor_id(&self.anchor(id));
            self.blocks.push(Block::Anchor(anchor));
        }
        match name {
            "br" => self.inline.line_break(),
            "hr" => self.push_block(Block::Rule),
            "img" => {
                if let (Links::Web(base), Some(src)) = (&self.links, dom.attr(node, "src")) {
                    if let Ok(url) = base.join(src) {
                        let alt = dom.attr(node, "alt").unwrap_or("").replace(['[', ']'], "");
                        self.flush();
                        self.blocks
                            .push(Block::Paragraph(format!("![{alt}]({url})")));
                    }
                }
            }
            "pre" => {
                self.flush();
                let text = dom.text(node);
                let text = text.strip_prefix('\n').unwrap_or(&text);
                if !text.trim().is_empty() {
                    self.blocks.push(Block::Code(text.to_string()));
                }
            }
            "blockquote" => {
                self.flush();
                let skip = self.skip;
                let mut inner = Converter::new(dom, self.links.clone(), skip);
                inner.children(node);
                inner.flush();
                let inner = inner.blocks;
                let text = crate::markdown::to_markdown(&inner);
                if !text.trim().is_empty() {
                    self.blocks.push(Block::Quote(text.trim_end().to_string()));
                }
            }
            "ul" | "ol" | "dl" => {
                self.flush();
                self.lists.push(name == "ol");
                let items = std::mem::replace(&mut self.items, 0);
                self.children(node);
                self.flush();
                self.items = items;
                self.lists.pop();
            }
            "li" | "dt" | "dd" => {
                self.flush();
                self.items += 1;
                self.children(node);
                self.flush();
                self.items -= 1;
            }
            "table" => {
                self.flush();
                let rows = self.table(node);
                if !rows.is_empty() {
                    self.blocks.push(Block::Table(rows));
                }
            }
            "b" | "strong" => self.styled(node, |s| s.bold = true),
            "i" | "em" | "cite" | "dfn" => self.styled(node, |s| s.italic = true),
            "s" | "del" | "strike" => self.styled(node, |s| s.strike = true),
            "code" | "kbd" | "samp" | "tt" => self.styled(node, |s| s.code = true),
            "a" => {
                let href = dom.attr(node, "href").and_then(|h| self.href(h));
                if let Some(name) = dom.attr(node, "name") {
                    let anchor = crate::markdown::anchor_id(&self.anchor(name));
                    self.blocks.push(Block::Anchor(anchor));
                }
                match href {
                    Some(href) if !self.style.code => {
                        let link = href;
                        self.styled(node, move |s| s.link = Some(link.clone()))
                    }
                    _ => self.children(node),
                }
            }
            n if is_block(n) => {
                self.flush();
                self.children(node);
                self.flush();
            }
            _ => self.children(node),
        }
    }

    fn flush_if_block(&mut self, name: &str) {
        if is_block(name) || matches!(name, "ul" | "ol" | "li" | "table" | "pre" | "blockquote") {
            self.flush();
        }
    }

    fn children(&mut self, node: NodeId) {
        for &c in self.dom.children(node) {
            self.walk(c);
        }
    }

    fn styled(&mut self, node: NodeId, set: impl Fn(&mut Style)) {
        let saved = self.style.clone();
        set(&mut self.style);
        self.children(node);
        self.style = saved;
    }

    /// The rows of a table, each cell's inline markdown; nested blocks become spaces.
    fn table(&mut self, node: NodeId) -> Vec<Vec<String>> {
        let dom = self.dom;
        let mut rows = Vec::new();
        for tr in dom.find_all(node, "tr") {
            let mut cells = Vec::new();
            for &cell in dom.children(tr) {
                if !matches!(dom.name(cell), "td" | "th") {
                    continue;
                }
                let mut c = Converter::new(dom, self.links.clone(), self.skip);
                c.children(cell);
                c.flush();
                let text: Vec<String> = c
                    .blocks
                    .iter()
                    .filter_map(|b| match b {
                        Block::Paragraph(t)
                        | Block::Heading { text: t, .. }
                        | Block::Item { text: t, .. } => Some(t.replace("\\\n", " ")),
                        Block::Code(t) => Some(format!("`{}`", t.replace('\n', " "))),
                        _ => None,
                    })
                    .collect();
                cells.push(text.join(" "));
            }
            if !cells.is_empty() {
                rows.push(cells);
            }
        }
        rows
    }
}

/// Elements that start and end a block of text.
pub(crate) fn is_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "div"
            | "section"
            | "article"
            | "main"
            | "header"
            | "footer"
            | "aside"
            | "figure"
            | "figcaption"
            | "address"
            | "center"
            | "body"
            | "html"
            | "details"
            | "summary"
            | "caption"
            | "fieldset"
            | "hgroup"
    )
}

/// The document's `<title>`, else its first `<h1>`.
pub fn title(dom: &Dom) -> Option<String> {
    let from_title = dom
        .find(Dom::ROOT, "title")
        .map(|t| dom.text(t).split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|t| !t.is_empty());
    from_title.or_else(|| {
        dom.find(Dom::ROOT, "h1")
            .map(|t| dom.text(t).split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|t| !t.is_empty())
    })
}

/// A whole HTML document as blocks; `package` names the file inside an e-book (links to
/// other chapters are internal) or is empty.
pub fn convert(dom: &Dom, package: &str) -> Document {
    let links = if package.is_empty() {
        Links::Keep
    } else {
        Links::Package(package.to_string())
    };
    let body = dom.find(Dom::ROOT, "body").unwrap_or(Dom::ROOT);
    let no_skip = |_: &Dom, _: NodeId| false;
    let blocks = Converter::new(dom, links, &no_skip).run(body);
    Document {
        title: title(dom),
        blocks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::to_markdown;

    fn md(html: &str) -> String {
        to_markdown(&convert(&parse(html), "").blocks)
    }

    #[test]
    fn headings_lists_emphasis_links_tables_and_code_survive() {
        let out = md(
            r#"<html><head><title>T</title><script>x()</script></head><body>
            <h1>Title</h1><p>Some <b>bold</b> and <em>soft</em> text with
            <a href="https://example.org/x">a link</a>.</p>
            <ul><li>one<ul><li>inner <code>x_y</code></li></ul></li><li>two</li></ul>
            <ol><li>first</li><li>second</li></ol>
            <table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>
            <pre>fn main() {}
</pre><blockquote><p>quoted</p></blockquote></body></html>"#,
        );
        assert_eq!(
            out,
            "# Title\n\nSome **bold** and *soft* text with [a link](https://example.org/x).\n\n\
- one\n  - inner `x_y`\n- two\n\n1. first\n2. second\n\n| A | B |\n| --- | --- |\n| 1 | 2 |\n\n\
```\nfn main() {}\n```\n\n> quoted\n"
        );
    }

    #[test]
    fn broken_markup_still_converts() {
        assert_eq!(md("<p>a <b>b <i>c</p><p>d"), "a **b** ***c***\n\n***d***\n");
    }
}
