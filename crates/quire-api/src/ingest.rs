//! Ingestion and clipping: the bodies of `POST /ingest` (office documents, e-books, HTML and
//! PDF to pages) and `POST /clip` (a web article to a page).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// How `POST /ingest` cuts a document into pages.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum SplitMode {
    /// One page holding the whole document.
    #[default]
    Single,
    /// An index page (title, the text before the first top-level heading, a list of the
    /// sections) and one page per top-level heading section.
    Heading,
}

/// Body of `POST /ingest`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct IngestRequest {
    /// The document: a path in the knowledge root, or an upload's `path` (`POST
    /// /import/upload`). Its extension names the format: `docx`, `odt`, `pptx`, `epub`,
    /// `html` (`htm`, `xhtml`) or `pdf`; another is 415.
    pub file: String,
    /// `single` (default) or `heading`.
    #[serde(default)]
    pub split_mode: SplitMode,
    /// The folder of the pages; default the root. The document's page is
    /// `<prefix>/<slug of the file name>.md`, its sections `<prefix>/<slug>/<heading>.md`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// Write each page's most frequent meaningful words as frontmatter `keywords`
    /// (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extract_keywords: Option<bool>,
    /// Keywords per page at most: default 5, 1–20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_keywords: Option<usize>,
    /// Internal links of the document (bookmarks, ids, other chapters) become wiki links to
    /// the page holding their target, and split pages link up, back and on (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub convert_crossrefs: Option<bool>,
    /// The commit author when the request carries no `X-Actor`; default `ingest`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// Commit message; default `Ingest <file> (N pages)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Answer of `POST /ingest`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct IngestResult {
    /// The pages written (or already holding these bytes), the document's page first.
    pub pages: Vec<String>,
    /// The document's title.
    pub title: String,
    /// The format read: `docx`, `odt`, `pptx`, `epub`, `html` or `pdf`.
    pub format: String,
    /// Pages whose file already held exactly these bytes (not written again).
    pub unchanged: usize,
    /// The commit made (none when nothing changed or versioning is off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// Body of `POST /clip`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ClipRequest {
    /// The web page (`http` or `https`).
    pub url: String,
    /// The page to write; default `<prefix>/<slug of the title>.md`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The folder of the page when no `path` is given; default `clips`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// Commit message; default `Clip <url>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Answer of `POST /clip`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ClipResult {
    pub path: String,
    pub title: String,
    /// The page's summary: its description, else the article's first paragraph (at most
    /// 200 characters).
    pub excerpt: String,
    /// The address the article was read from (after redirects).
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}
