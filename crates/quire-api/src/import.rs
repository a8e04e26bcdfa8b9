//! Import and export: the bodies of `POST /import`, `/import/preview`, `/import/upload`,
//! `GET /import/sources` and `GET /export`.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Body of `POST /import` (and of `/import/preview`, with `limit`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ImportRequest {
    /// A source identifier (`GET /import/sources`): `csv`, `json`, `jsonl`, `yaml`, `sqlite`,
    /// `markdown` are built.
    pub source: String,
    /// Where the source is.
    #[serde(default)]
    pub connection: ImportConnection,
    /// `sqlite`: one `SELECT` statement, or a table name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Double-brace templates over the source's fields; each absent key takes its default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapping: Option<ImportMapping>,
    /// The field identifying a row (`_source_id`); default: the row number (a markdown
    /// page's path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_column: Option<String>,
    /// The folder pages land in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// Pages of this source whose row is gone get `_archived_at` (never deleted).
    #[serde(default)]
    pub full_sync: bool,
    /// Commit message; default `Import N pages from <source>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Where an import's source is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ImportConnection {
    /// A file source: a path in the knowledge root, or an upload's `path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// A folder source (`markdown`): a folder in the knowledge root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The source's name in `_source`; default `<source>:<file or folder name>`
    /// (`sqlite:<file>/<table>` for a table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Templates of an import (`{{field}}`, `{{ field }}`, `{{a.b}}`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ImportMapping {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Frontmatter key → template; a template that is one placeholder keeps the field's type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frontmatter: Option<BTreeMap<String, String>>,
}

/// Input of `POST /import/preview`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ImportPreviewRequest {
    #[serde(flatten)]
    pub import: ImportRequest,
    /// Rows to render: default 5, at most 20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

/// A row that was not imported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ImportRowError {
    /// 1-based, in source order.
    pub row: usize,
    pub error: String,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ImportResult {
    /// Pages created or changed.
    pub imported: usize,
    /// Rows whose page already held exactly the rendered text.
    pub skipped: usize,
    /// Pages given `_archived_at` (full sync).
    pub archived: usize,
    pub errors: Vec<ImportRowError>,
    /// The `_source` of the pages.
    pub source: String,
    /// The import's commit, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// One rendered page of a preview.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ImportRecord {
    pub path: String,
    #[schema(value_type = Object)]
    pub frontmatter: serde_json::Map<String, serde_json::Value>,
    /// The first 200 characters of the body.
    pub body_preview: String,
}

/// What `POST /import/preview` rendered (nothing is written).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ImportPreview {
    pub records: Vec<ImportRecord>,
    pub errors: Vec<ImportRowError>,
}

/// `GET /import/sources`: every source identifier of the spec.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ImportSources {
    pub sources: Vec<ImportSource>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ImportSource {
    pub id: String,
    /// Whether this server builds it (the others answer 501).
    pub available: bool,
}

/// `POST /import/upload`: where the file is kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ImportUpload {
    /// Give it as `connection.file`; kept for a day.
    pub path: String,
    pub size: usize,
}

/// Input of `GET /export` and `quire_export`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ExportRequest {
    /// `jsonl` or `csv` (`parquet` answers 501).
    pub format: String,
    /// A folder: only pages below it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Comma-separated frontmatter keys; default every key (for csv: the union over the
    /// exported pages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<String>,
    #[serde(default, rename = "include-content", alias = "include_content")]
    pub include_content: bool,
    #[serde(default, rename = "include-links", alias = "include_links")]
    pub include_links: bool,
    /// Vector search is not built: `true` answers 503.
    #[serde(default, rename = "include-embeddings", alias = "include_embeddings")]
    pub include_embeddings: bool,
    /// At most this many pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

/// What `quire_export` answers: the exported text, at most a bounded number of rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ExportText {
    pub format: String,
    /// Rows in `text`.
    pub count: usize,
    /// More pages matched than the bound let through.
    pub truncated: bool,
    pub text: String,
}
