//! Pages as one document, for `POST /export/document`: a standalone HTML file, a PDF, HTML
//! slides, or a static site as a zip.
//!
//! Pure: no I/O. The caller hands over the pages (path, title, text), the assets they use
//! (bytes by path) and [`Links`], which resolves a link the way the knowledge base does
//! (DECISIONS §3; [`quire_vault::Vault`] implements it). Markdown is rendered by
//! `quire-render`, so what a document shows is what a published page shows, and just as safe.
//! A link to a page of the document goes to that page inside it (an anchor, or the page's
//! `.html` in a site); a link to anything else is kept as its text.

mod html;
mod pdf;
mod site;
mod slides;

use std::collections::BTreeMap;

pub use quire_render::LinkKind;
use quire_vault::{PagePath, Resolution, Vault};

/// The kinds of document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Html,
    Pdf,
    Slides,
    Site,
}

impl Kind {
    /// `html`, `pdf`, `slides` or `site`.
    pub fn parse(name: &str) -> Option<Kind> {
        Some(match name.trim() {
            "html" => Kind::Html,
            "pdf" => Kind::Pdf,
            "slides" => Kind::Slides,
            "site" => Kind::Site,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Html => "html",
            Kind::Pdf => "pdf",
            Kind::Slides => "slides",
            Kind::Site => "site",
        }
    }

    /// The media type of the document.
    pub fn media_type(self) -> &'static str {
        match self {
            Kind::Html | Kind::Slides => "text/html; charset=utf-8",
            Kind::Pdf => "application/pdf",
            Kind::Site => "application/zip",
        }
    }

    /// The file name's extension.
    pub fn extension(self) -> &'static str {
        match self {
            Kind::Html => "html",
            Kind::Slides => "slides.html",
            Kind::Pdf => "pdf",
            Kind::Site => "zip",
        }
    }

    /// Whether the document is text (HTML) rather than bytes.
    pub fn is_text(self) -> bool {
        matches!(self, Kind::Html | Kind::Slides)
    }
}

/// One page of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// Root-relative, with `.md`.
    pub path: String,
    pub title: String,
    /// The whole file, frontmatter included.
    pub text: String,
}

/// Resolves a link written in page `from` to the root-relative path of a file.
pub trait Links {
    fn resolve(&self, from: &str, kind: LinkKind, target: &str) -> Option<String>;
}

impl Links for Vault {
    fn resolve(&self, from: &str, kind: LinkKind, target: &str) -> Option<String> {
        let from = PagePath::new(from).ok()?;
        let resolution = match kind {
            LinkKind::Wiki => self.resolve_wiki(&from, target),
            LinkKind::Markdown => self.resolve_markdown(&from, target),
        };
        match resolution {
            Resolution::Resolved { path, .. } if !path.as_str().starts_with(".quire/") => {
                Some(path.to_string())
            }
            _ => None,
        }
    }
}

/// What a document is made of.
pub struct Source<'a> {
    /// The document's title (a page's title, or the folder's name).
    pub title: String,
    /// In reading order.
    pub pages: Vec<Page>,
    /// Files the pages link to or embed that are not pages (images …), by path.
    pub assets: BTreeMap<String, Vec<u8>>,
    pub links: &'a dyn Links,
}

impl Source<'_> {
    /// The index of the page at `path`, when it is one of the document's.
    fn page_index(&self, path: &str) -> Option<usize> {
        self.pages.iter().position(|p| p.path == path)
    }
}

/// A finished document.
#[derive(Debug, Clone)]
pub struct Document {
    pub kind: Kind,
    pub bytes: Vec<u8>,
}

#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    #[error("writing the zip failed: {0}")]
    Zip(String),
}

/// Renders `source` as a document of `kind`.
pub fn render(kind: Kind, source: &Source<'_>) -> Result<Document, DocumentError> {
    let bytes = match kind {
        Kind::Html => html::document(source).into_bytes(),
        Kind::Slides => slides::document(source).into_bytes(),
        Kind::Site => site::zip(source)?,
        Kind::Pdf => pdf::document(source),
    };
    Ok(Document { kind, bytes })
}

/// The media type of an asset, by its extension.
fn media_type_of(path: &str) -> &'static str {
    let ext = path.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "avif" => "image/avif",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

/// Whether an asset is an image a document can show.
fn is_image(path: &str) -> bool {
    media_type_of(path).starts_with("image/")
}

/// The page's body: its text without the frontmatter block.
fn body_of(text: &str) -> &str {
    let start = quire_syntax::parse_frontmatter(text)
        .map(|f| f.span.end)
        .unwrap_or(0);
    text.get(start..).unwrap_or(text)
}
