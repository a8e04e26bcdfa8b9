//! Document ingestion below the service: office documents, e-books, HTML and PDF converted to
//! markdown blocks ([`convert`]), cut into pages with titles, keywords and cross-references
//! ([`pages::paginate`]); and web clipping ([`clip`]: fetch a page, keep its article).
//!
//! The converters are quire's own: docx, odt, pptx and epub are zip packages of XML (read
//! with `zip` and `quick-xml` into [`dom::Dom`], within [`Limits`]), HTML is parsed by
//! html5ever into the same tree, PDF text comes from lopdf. Nothing here writes a file: the
//! service turns [`pages::Page`]s into one change of its write pipeline.

pub mod article;
pub mod clip;
mod docx;
pub mod dom;
mod epub;
pub mod html;
pub mod markdown;
mod odt;
pub mod pages;
mod pdf;
mod pptx;
mod zipped;

pub use markdown::{to_markdown, Block};
pub use pages::{paginate, Page, PageOptions, SplitMode};

/// The document formats [`convert`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Docx,
    Odt,
    Pptx,
    Epub,
    Html,
    Pdf,
}

/// The file extensions ingestion accepts, each with its format.
pub const EXTENSIONS: &[(&str, Format)] = &[
    ("docx", Format::Docx),
    ("odt", Format::Odt),
    ("pptx", Format::Pptx),
    ("epub", Format::Epub),
    ("html", Format::Html),
    ("htm", Format::Html),
    ("xhtml", Format::Html),
    ("pdf", Format::Pdf),
];

impl Format {
    /// The format of a file name, by its extension (case-insensitive).
    pub fn of_name(name: &str) -> Result<Format, IngestError> {
        let ext = name
            .rsplit('/')
            .next()
            .and_then(|n| n.rsplit_once('.'))
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default();
        EXTENSIONS
            .iter()
            .find(|(e, _)| *e == ext)
            .map(|(_, f)| *f)
            .ok_or_else(|| {
                let known: Vec<&str> = EXTENSIONS.iter().map(|(e, _)| *e).collect();
                IngestError::Unsupported(format!(
                    "cannot ingest {name:?}: the converter reads .{} files",
                    known.join(", .")
                ))
            })
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Docx => "docx",
            Format::Odt => "odt",
            Format::Pptx => "pptx",
            Format::Epub => "epub",
            Format::Html => "html",
            Format::Pdf => "pdf",
        }
    }
}

/// Why a document was not converted. Each maps to one status of the API.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// Not a format ingestion reads (415).
    #[error("{0}")]
    Unsupported(String),
    /// The file is not a readable document of its format (400).
    #[error("{0}")]
    Corrupt(String),
    /// Past a limit: the file, what it unpacks to, the pages it makes (413).
    #[error("{0}")]
    TooLarge(String),
    /// The request is wrong (400).
    #[error("{0}")]
    BadRequest(String),
    /// A clip's page could not be fetched (502).
    #[error("{0}")]
    Fetch(String),
}

/// What one document may cost.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Bytes of the file itself.
    pub max_input: u64,
    /// Files in a zip package.
    pub max_entries: usize,
    /// Bytes one part of a package unpacks to.
    pub max_part: u64,
    /// Bytes all the parts read from one package unpack to together.
    pub max_unpacked: u64,
    /// Pages one ingestion writes.
    pub max_pages: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_input: 256 << 20,
            max_entries: 10_000,
            max_part: 64 << 20,
            max_unpacked: 256 << 20,
            max_pages: 1000,
        }
    }
}

/// A converted document: its title when it names one, and its blocks.
#[derive(Debug, Clone, Default)]
pub struct Document {
    pub title: Option<String>,
    pub blocks: Vec<Block>,
}

impl Document {
    /// The document's title: the one it names, else its first heading.
    pub fn title(&self) -> Option<String> {
        self.title
            .clone()
            .filter(|t| !t.trim().is_empty())
            .or_else(|| {
                self.blocks.iter().find_map(|b| match b {
                    Block::Heading { .. } => Some(b.plain()),
                    _ => None,
                })
            })
            .map(|t| t.trim().to_string())
    }

    pub fn markdown(&self) -> String {
        to_markdown(&self.blocks)
    }
}

/// Converts a document's bytes.
pub fn convert(format: Format, bytes: &[u8], limits: &Limits) -> Result<Document, IngestError> {
    if bytes.len() as u64 > limits.max_input {
        return Err(IngestError::TooLarge(format!(
            "a document to ingest holds at most {} bytes",
            limits.max_input
        )));
    }
    match format {
        Format::Docx => docx::convert(bytes, limits),
        Format::Odt => odt::convert(bytes, limits),
        Format::Pptx => pptx::convert(bytes, limits),
        Format::Epub => epub::convert(bytes, limits),
        Format::Html => {
            let text = html::decode(bytes);
            Ok(html::convert(&html::parse(&text), ""))
        }
        Format::Pdf => pdf::convert(bytes),
    }
}

/// Reads a file to ingest, refusing it past `limits.max_input` without reading it all.
pub fn read_file(path: &std::path::Path, limits: &Limits) -> Result<Vec<u8>, IngestError> {
    use std::io::Read;
    let file = std::fs::File::open(path)
        .map_err(|e| IngestError::BadRequest(format!("the file cannot be read: {e}")))?;
    let mut bytes = Vec::new();
    file.take(limits.max_input + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| IngestError::BadRequest(format!("the file cannot be read: {e}")))?;
    if bytes.len() as u64 > limits.max_input {
        return Err(IngestError::TooLarge(format!(
            "a document to ingest holds at most {} bytes",
            limits.max_input
        )));
    }
    Ok(bytes)
}

/// Letters and digits (any script) lowercased, every other run one `-`, at most 80 chars:
/// a file name made of a title.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.extend(c.to_lowercase());
            if out.chars().count() >= 80 {
                break;
            }
        } else {
            dash = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_come_from_the_extension() {
        assert_eq!(Format::of_name("a/B.DOCX").unwrap(), Format::Docx);
        assert_eq!(Format::of_name("x.htm").unwrap(), Format::Html);
        assert!(matches!(
            Format::of_name("notes.txt"),
            Err(IngestError::Unsupported(_))
        ));
        assert!(Format::of_name("noext").is_err());
    }

    #[test]
    fn slugs_keep_letters_and_digits() {
        assert_eq!(slug("  Über uns: Team & Plan 2! "), "über-uns-team-plan-2");
    }
}
