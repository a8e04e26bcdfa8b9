//! E-books (`.epub`): the package file named by `META-INF/container.xml` gives the title and
//! the reading order (the spine); each chapter is XHTML, converted like HTML. Links between
//! chapters (`c2.xhtml#s1`) are internal links, each chapter file an anchor.

use std::collections::HashMap;

use crate::dom::Dom;
use crate::html::{Converter, Links};
use crate::markdown::{anchor_id, Block};
use crate::zipped::{folder, resolve, Archive};
use crate::{Document, IngestError, Limits};

pub(crate) fn convert(bytes: &[u8], limits: &Limits) -> Result<Document, IngestError> {
    let mut zip = Archive::open(bytes, limits)?;
    let container = zip.required_xml("META-INF/container.xml", "EPUB e-book")?;
    let opf_path = container
        .find(Dom::ROOT, "rootfile")
        .and_then(|r| container.attr(r, "full-path"))
        .map(str::to_string)
        .ok_or_else(|| {
            IngestError::Corrupt("not an EPUB e-book: its container names no package".into())
        })?;
    let opf = zip
        .xml(&opf_path)?
        .ok_or_else(|| IngestError::Corrupt(format!("not an EPUB e-book: it has no {opf_path}")))?;
    let base = folder(&opf_path).to_string();
    let title = opf
        .find(Dom::ROOT, "metadata")
        .and_then(|m| opf.find(m, "title"))
        .map(|t| opf.text(t).trim().to_string())
        .filter(|t| !t.is_empty());
    let mut manifest: HashMap<String, (String, String)> = HashMap::new();
    for item in opf.find_all(Dom::ROOT, "item") {
        if let (Some(id), Some(href)) = (opf.attr(item, "id"), opf.attr(item, "href")) {
            manifest.insert(
                id.to_string(),
                (
                    resolve(&base, &percent_decode(href)),
                    opf.attr(item, "properties").unwrap_or("").to_string(),
                ),
            );
        }
    }
    let mut blocks = Vec::new();
    let never = |_: &Dom, _: usize| false;
    for itemref in opf.find_all(Dom::ROOT, "itemref") {
        if opf.attr(itemref, "linear") == Some("no") {
            continue;
        }
        let Some((path, properties)) = opf.attr(itemref, "idref").and_then(|id| manifest.get(id))
        else {
            continue;
        };
        if properties.split_whitespace().any(|p| p == "nav") {
            continue;
        }
        let Some(bytes) = zip.read(path)? else {
            continue;
        };
        let dom = crate::html::parse(&crate::html::decode(&bytes));
        let body = dom.find(Dom::ROOT, "body").unwrap_or(Dom::ROOT);
        let mut chapter = Converter::new(&dom, Links::Package(path.clone()), &never).run(body);
        // The chapter's anchor goes under its first heading, so that a link to the file
        // lands on the page of that heading.
        let at = usize::from(matches!(chapter.first(), Some(Block::Heading { .. })));
        chapter.insert(at, Block::Anchor(anchor_id(path)));
        blocks.extend(chapter);
    }
    if blocks.is_empty() {
        return Err(IngestError::Corrupt(
            "the EPUB e-book has no chapter in its reading order".into(),
        ));
    }
    Ok(Document { title, blocks })
}

/// `%20` and the like in a manifest's `href`.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&text[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
