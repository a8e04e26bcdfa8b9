//! A small tree of elements and text that the XML formats (read here with quick-xml) and HTML
//! (built by html5ever in [`crate::html`]) share, so every converter walks one shape.
//! Element names are local names (`w:p` is `p`), lowercase for HTML; attribute names stay
//! qualified (`r:id`), and [`Dom::attr`] matches them by local name too.

use quick_xml::events::Event;
use quick_xml::Reader;

use crate::IngestError;

/// A node's index in its [`Dom`].
pub type NodeId = usize;

#[derive(Debug, Clone)]
pub enum Kind {
    Document,
    Element {
        name: String,
        attrs: Vec<(String, String)>,
    },
    Text(String),
    /// Comments, doctypes, processing instructions: kept out of every conversion.
    Other,
}

#[derive(Debug, Clone)]
pub struct Node {
    pub parent: Option<NodeId>,
    pub children: Vec<NodeId>,
    pub kind: Kind,
}

/// Nodes in an arena; node 0 is the document.
#[derive(Debug, Clone)]
pub struct Dom {
    pub nodes: Vec<Node>,
}

/// Elements deeper than this are refused (an XML part nesting without end).
const MAX_DEPTH: usize = 512;

impl Dom {
    pub fn new() -> Dom {
        Dom {
            nodes: vec![Node {
                parent: None,
                children: Vec::new(),
                kind: Kind::Document,
            }],
        }
    }

    pub const ROOT: NodeId = 0;

    pub fn push(&mut self, parent: NodeId, kind: Kind) -> NodeId {
        let id = self.nodes.len();
        self.nodes.push(Node {
            parent: Some(parent),
            children: Vec::new(),
            kind,
        });
        self.nodes[parent].children.push(id);
        id
    }

    /// Appends text, joining it to a text node just before.
    pub fn push_text(&mut self, parent: NodeId, text: &str) {
        if let Some(&last) = self.nodes[parent].children.last() {
            if let Kind::Text(t) = &mut self.nodes[last].kind {
                t.push_str(text);
                return;
            }
        }
        self.push(parent, Kind::Text(text.to_string()));
    }

    /// The element's local name, or `""` for other nodes.
    pub fn name(&self, id: NodeId) -> &str {
        match &self.nodes[id].kind {
            Kind::Element { name, .. } => name,
            _ => "",
        }
    }

    pub fn is(&self, id: NodeId, name: &str) -> bool {
        self.name(id) == name
    }

    pub fn children(&self, id: NodeId) -> &[NodeId] {
        &self.nodes[id].children
    }

    /// The attribute named `key` exactly, else the first whose local name is `key`.
    pub fn attr(&self, id: NodeId, key: &str) -> Option<&str> {
        let Kind::Element { attrs, .. } = &self.nodes[id].kind else {
            return None;
        };
        attrs
            .iter()
            .find(|(k, _)| k == key)
            .or_else(|| {
                attrs
                    .iter()
                    .find(|(k, _)| k.rsplit_once(':').is_some_and(|(_, l)| l == key))
            })
            .map(|(_, v)| v.as_str())
    }

    /// The first child element named `name`.
    pub fn child(&self, id: NodeId, name: &str) -> Option<NodeId> {
        self.children(id)
            .iter()
            .copied()
            .find(|&c| self.is(c, name))
    }

    /// The first element named `name` at or below `id`, in document order.
    pub fn find(&self, id: NodeId, name: &str) -> Option<NodeId> {
        if self.is(id, name) {
            return Some(id);
        }
        self.children(id).iter().find_map(|&c| self.find(c, name))
    }

    /// Every element named `name` below `id`, in document order, not looking inside a match.
    pub fn find_all(&self, id: NodeId, name: &str) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack: Vec<NodeId> = self.children(id).iter().rev().copied().collect();
        while let Some(n) = stack.pop() {
            if self.is(n, name) {
                out.push(n);
            } else {
                stack.extend(self.children(n).iter().rev());
            }
        }
        out
    }

    /// All the text at or below `id`.
    pub fn text(&self, id: NodeId) -> String {
        let mut out = String::new();
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            match &self.nodes[n].kind {
                Kind::Text(t) => out.push_str(t),
                _ => stack.extend(self.children(n).iter().rev()),
            }
        }
        out
    }

    /// Parses an XML part. Whitespace-only text is kept (a docx `<w:t xml:space="preserve">
    /// </w:t>` is a real space); converters drop what they do not want.
    pub fn parse_xml(text: &str) -> Result<Dom, IngestError> {
        let mut dom = Dom::new();
        let mut reader = Reader::from_str(text);
        let mut open = vec![Dom::ROOT];
        loop {
            let event = reader.read_event().map_err(|e| {
                IngestError::Corrupt(format!("XML at byte {}: {e}", reader.error_position()))
            })?;
            match event {
                Event::Start(_) if open.len() > MAX_DEPTH => {
                    return Err(IngestError::Corrupt("XML nested too deeply".into()));
                }
                Event::Start(e) => {
                    let kind = element(&e)?;
                    let parent = *open.last().unwrap_or(&Dom::ROOT);
                    let id = dom.push(parent, kind);
                    open.push(id);
                }
                Event::Empty(e) => {
                    let kind = element(&e)?;
                    let parent = *open.last().unwrap_or(&Dom::ROOT);
                    dom.push(parent, kind);
                }
                Event::End(_) if open.len() > 1 => {
                    open.pop();
                }
                Event::Text(t) => {
                    let parent = *open.last().unwrap_or(&Dom::ROOT);
                    dom.push_text(parent, &t.xml10_content());
                }
                Event::CData(t) => {
                    let parent = *open.last().unwrap_or(&Dom::ROOT);
                    dom.push_text(parent, &t);
                }
                Event::GeneralRef(r) => {
                    let parent = *open.last().unwrap_or(&Dom::ROOT);
                    let raw = format!("&{};", &*r);
                    let text = quick_xml::escape::unescape(&raw)
                        .map(|c| c.into_owned())
                        .unwrap_or(raw);
                    dom.push_text(parent, &text);
                }
                Event::Eof => break,
                _ => {}
            }
        }
        Ok(dom)
    }
}

impl Default for Dom {
    fn default() -> Self {
        Dom::new()
    }
}

fn element(e: &quick_xml::events::BytesStart<'_>) -> Result<Kind, IngestError> {
    let qname = e.name();
    let full: &str = qname.as_ref();
    let name = full.rsplit_once(':').map_or(full, |(_, l)| l).to_string();
    let mut attrs = Vec::new();
    for a in e.attributes().with_checks(false) {
        let a = a.map_err(|err| IngestError::Corrupt(format!("XML attribute: {err}")))?;
        let key: &str = a.key.as_ref();
        let value = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map(|v| v.into_owned())
            .unwrap_or_else(|_| a.value.to_string());
        attrs.push((key.to_string(), value));
    }
    Ok(Kind::Element { name, attrs })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_keeps_local_names_text_and_entities() {
        let dom = Dom::parse_xml(
            r#"<w:doc xmlns:w="x"><w:p w:val="a &amp; b">x &lt; y<w:br/></w:p></w:doc>"#,
        )
        .unwrap();
        let p = dom.find(Dom::ROOT, "p").unwrap();
        assert_eq!(dom.attr(p, "val"), Some("a & b"));
        assert_eq!(dom.text(p), "x < y");
        assert!(dom.child(p, "br").is_some());
    }

    #[test]
    fn broken_xml_is_corrupt() {
        assert!(matches!(
            Dom::parse_xml("<a><b></a>"),
            Err(IngestError::Corrupt(_))
        ));
    }
}
