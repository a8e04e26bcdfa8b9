//! One standalone HTML file: every page in a section of its own, a table of contents when
//! there are several, images inlined as `data:` URLs. Links between the pages become anchors
//! in the file; heading anchors are scoped by page (`p2-intro`), so two pages may share a
//! heading.

use base64::Engine as _;
use quire_render::{escape_html, Embed, LinkRef, PageMeta, Resolver};

use crate::{is_image, media_type_of, Source};

/// The prefix the resolver gives a link to page `i` of the document, rewritten afterwards by
/// [`scope_anchors`] (the renderer appends a heading's `#fragment` to what it is given).
const PAGE_MARK: &str = "quire-page:";

/// Where a document puts its pages and assets, as seen from the file being written.
pub(crate) trait Place {
    /// The URL of page `index` (without a fragment).
    fn page(&self, index: usize) -> String;
    /// The URL of an asset, `None` when it cannot be shown.
    fn asset(&self, path: &str, bytes: &[u8]) -> Option<String>;
}

/// The renderer's resolver for a document: the knowledge base's link resolution, then the
/// document's place for what it found; anything outside the document is plain text.
pub(crate) struct DocResolver<'s, 'a, P: Place> {
    pub source: &'s Source<'a>,
    pub place: P,
}

impl<P: Place> DocResolver<'_, '_, P> {
    fn resolve(&self, from: &str, link: LinkRef<'_>) -> Option<String> {
        self.source.links.resolve(from, link.kind, link.target)
    }
}

impl<P: Place> Resolver for DocResolver<'_, '_, P> {
    fn href(&mut self, from: &str, link: LinkRef<'_>) -> Option<String> {
        let path = self.resolve(from, link)?;
        if let Some(index) = self.source.page_index(&path) {
            return Some(self.place.page(index));
        }
        let bytes = self.source.assets.get(&path)?;
        self.place.asset(&path, bytes)
    }

    fn embed(&mut self, from: &str, link: LinkRef<'_>) -> Option<Embed> {
        let path = self.resolve(from, link)?;
        if let Some(index) = self.source.page_index(&path) {
            let page = &self.source.pages[index];
            return Some(Embed::Page {
                path: page.path.clone(),
                text: page.text.clone(),
            });
        }
        let bytes = self.source.assets.get(&path)?;
        if !is_image(&path) {
            return None;
        }
        let src = self.place.asset(&path, bytes)?;
        Some(Embed::Image { src })
    }
}

/// Pages as anchors of one file, assets inlined.
pub(crate) struct InFile;

impl Place for InFile {
    fn page(&self, index: usize) -> String {
        format!("{PAGE_MARK}{index}")
    }

    fn asset(&self, path: &str, bytes: &[u8]) -> Option<String> {
        Some(data_url(path, bytes))
    }
}

/// A `data:` URL holding an asset.
pub(crate) fn data_url(path: &str, bytes: &[u8]) -> String {
    format!(
        "data:{};base64,{}",
        media_type_of(path),
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// The HTML of page `index` rendered for a file holding several pages: its ids and in-page
/// links get the prefix `p<index>-`, links to other pages of the file become `#p<n>` (or
/// `#p<n>-<heading>`).
pub(crate) fn page_in_file(source: &Source<'_>, index: usize) -> String {
    let page = &source.pages[index];
    let mut resolver = DocResolver {
        source,
        place: InFile,
    };
    let html = quire_render::render(&page.path, &page.text, &mut resolver);
    scope_anchors(&html, index)
}

/// Rewrites the anchors of page `index`'s HTML as described at [`page_in_file`].
pub(crate) fn scope_anchors(html: &str, index: usize) -> String {
    let prefix = format!("p{index}-");
    let html = html
        .replace(" id=\"", &format!(" id=\"{prefix}"))
        .replace("href=\"#", &format!("href=\"#{prefix}"));
    let mut out = String::with_capacity(html.len());
    let mut rest = html.as_str();
    let mark = format!("href=\"{PAGE_MARK}");
    while let Some(at) = rest.find(&mark) {
        out.push_str(&rest[..at]);
        rest = &rest[at + mark.len()..];
        let end = rest.find('"').unwrap_or(rest.len());
        let (target, fragment) = match rest[..end].split_once('#') {
            Some((target, fragment)) => (target, Some(fragment)),
            None => (&rest[..end], None),
        };
        match fragment {
            Some(fragment) => out.push_str(&format!("href=\"#p{target}-{fragment}")),
            None => out.push_str(&format!("href=\"#p{target}")),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// CSS added to the renderer's page template.
const CSS: &str = "<style>nav.toc{border:1px solid var(--line);border-radius:6px;padding:.5em 1.5em;margin-bottom:2em}\
section.doc-page+section.doc-page{border-top:1px solid var(--line);margin-top:3em;padding-top:1em}\
@media print{section.doc-page+section.doc-page{break-before:page;border:0}}</style>\n";

/// The standalone HTML document.
pub(crate) fn document(source: &Source<'_>) -> String {
    let mut body = String::new();
    if source.pages.len() > 1 {
        body.push_str("<nav class=\"toc\"><ol>\n");
        for (i, page) in source.pages.iter().enumerate() {
            body.push_str(&format!(
                "<li><a href=\"#p{i}\">{}</a></li>\n",
                escape_html(&page.title)
            ));
        }
        body.push_str("</ol></nav>\n");
    }
    for i in 0..source.pages.len() {
        body.push_str(&format!("<section class=\"doc-page\" id=\"p{i}\">\n"));
        body.push_str(&page_in_file(source, i));
        body.push_str("</section>\n");
    }
    with_css(
        &quire_render::page(
            &PageMeta {
                title: &source.title,
                published_at: None,
            },
            &body,
        ),
        CSS,
    )
}

/// The document with `css` added at the end of its head.
pub(crate) fn with_css(document: &str, css: &str) -> String {
    match document.find("</head>") {
        Some(at) => format!("{}{css}{}", &document[..at], &document[at..]),
        None => document.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_scoped_by_page_and_page_links_point_inside_the_file() {
        let html = "<h2 id=\"intro\">Intro</h2><a href=\"#intro\">x</a>\
<a href=\"quire-page:3#setup\">y</a><a href=\"quire-page:0\">z</a>";
        assert_eq!(
            scope_anchors(html, 1),
            "<h2 id=\"p1-intro\">Intro</h2><a href=\"#p1-intro\">x</a>\
<a href=\"#p3-setup\">y</a><a href=\"#p0\">z</a>"
        );
    }
}
