//! Import and export: the bodies of `POST /import`, `/import/preview`, `/import/upload`,
//! `/import/browse`, `GET /import/sources` and `GET /export`.
//!
//! A DSN may hold a password: the types carrying one print it redacted (`Debug`), so a log
//! line of a request never shows it.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Body of `POST /import` (and of `/import/preview`, with `limit`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ImportRequest {
    /// A source identifier (`GET /import/sources`): `csv`, `json`, `jsonl`, `yaml`, `excel`,
    /// `sqlite`, `markdown`, `obsidian`, `postgres`, `mysql`, `redis`, and the web services
    /// `notion`, `airtable`, `elasticsearch`, `mongodb`, `firestore`, `gsheets`, `confluence`,
    /// `dynamodb`: all 19 of the spec are built.
    pub source: String,
    /// Where the source is.
    #[serde(default)]
    pub connection: ImportConnection,
    /// `sqlite`, `postgres`, `mysql`: one `SELECT` statement, or a table name; `redis`: a key
    /// pattern (`note:*`, default every key); `notion`: a database query filter, `mongodb`: a
    /// filter document, `elasticsearch`: a query, each as a JSON object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// `excel`: the sheet to read; default the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sheet: Option<String>,
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
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ImportConnection {
    /// A file source: a path in the knowledge root, or an upload's `path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// A folder source (`markdown`, `obsidian`): a folder in the knowledge root, or a `.zip`
    /// of one (in the root or an upload; `file` names one too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A database source: `postgres://user:password@host:5432/db?sslmode=disable`,
    /// `mysql://user:password@host:3306/db`, `redis://:password@host:6379/0`. Connected
    /// without TLS (a DSN asking for TLS is refused); the password is never stored or shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dsn: Option<String>,
    /// The source's name in `_source`; default `<source>:<file or folder name>`
    /// (`sqlite:<file>/<table>` for a table, `postgres:<host:port>/<db>/<table>` for a
    /// database table, `<source>:<host>/<database_id | base_id/table_id | index |
    /// database/collection | project/collection>` for a web service).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A web service source (`notion`, `airtable`, `elasticsearch`, `mongodb`, `firestore`,
    /// `gsheets`, `confluence`, `dynamodb`): its base URL; default the service's real one (`https://api.notion.com`,
    /// `https://api.airtable.com`, `https://firestore.googleapis.com`,
    /// `https://sheets.googleapis.com`, `https://dynamodb.<AWS_REGION>.amazonaws.com`);
    /// `confluence` the site's (required,
    /// `https://<site>.atlassian.net/wiki`); `elasticsearch` its
    /// server (`https://host:9200`). `mongodb`: the server's URI,
    /// `mongodb://user:password@host:27017/db` or `mongodb+srv://user:password@cluster/db`
    /// (the wire protocol; the password is never stored or shown), or an Atlas Data API
    /// endpoint (`https://data.mongodb-api.com/app/<app-id>/endpoint/data/v1?dataSource=Cluster0`).
    /// An `http(s)://` URI holds no user or password: the secret is `api_key`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// A web service's secret, sent in a header only and never stored or shown: Notion's
    /// integration token, Airtable's personal access token, Elasticsearch's encoded API key
    /// (or `user:password` for basic auth), the MongoDB Data API key, a Google OAuth access
    /// token for Firestore (or `credentials`) and Google Sheets, `email:api_token` (basic
    /// auth) or a personal access token for Confluence,
    /// `ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]` for DynamoDB (default the server's
    /// AWS environment variables).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// `firestore` without `api_key`: a Google service account key (`{"type":
    /// "service_account", "client_email", "private_key", "token_uri", …}`), as a JSON object
    /// or a string holding one. quire signs a JWT with it (RS256, scope `datastore`) and
    /// exchanges it at `token_uri` for an access token. Never stored or shown; a saved
    /// connection takes no `credentials`, its runs give `api_key` (an access token).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<serde_json::Value>,
    /// `notion`: the database to read; `gsheets`: the spreadsheet (the id in its URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database_id: Option<String>,
    /// `airtable`: the base (`app…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_id: Option<String>,
    /// `airtable`: the table, by id (`tbl…`) or name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_id: Option<String>,
    /// `elasticsearch`: the index (or a pattern, `logs-*`); `gsheets`: the sheet (default
    /// `Sheet1`) or an A1 range (`Notes!A1:D50`); `confluence`: the space key; `dynamodb`:
    /// the table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// `mongodb`, `firestore`: the collection (Firestore: a path, `users/ann/notes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collection: Option<String>,
    /// `mongodb`: the database; `firestore`: the database id (default `(default)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<String>,
    /// `firestore`: the Google Cloud project.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
}

impl std::fmt::Debug for ImportConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImportConnection")
            .field("file", &self.file)
            .field("path", &self.path)
            .field("dsn", &self.dsn.as_deref().map(redacted_dsn))
            .field("name", &self.name)
            .field("uri", &self.uri.as_deref().map(redacted_uri))
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("credentials", &self.credentials.as_ref().map(|_| "***"))
            .field("database_id", &self.database_id)
            .field("base_id", &self.base_id)
            .field("table_id", &self.table_id)
            .field("table", &self.table)
            .field("collection", &self.collection)
            .field("database", &self.database)
            .field("project", &self.project)
            .finish()
    }
}

/// A DSN without its user information and parameters (`postgres://…@host:5432/db`): what
/// may be printed of it.
pub fn redacted_dsn(dsn: &str) -> String {
    let Some((scheme, rest)) = dsn.split_once("://") else {
        return "…".to_string();
    };
    let rest = rest.split('?').next().unwrap_or("");
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    format!("{scheme}://…@{host}/{path}")
}

/// A URI as it may be printed: as given when it holds no user information, else as
/// [`redacted_dsn`] (a `mongodb://user:password@…` URI).
pub fn redacted_uri(uri: &str) -> String {
    let authority = uri
        .split_once("://")
        .map_or(uri, |(_, rest)| rest)
        .split(['/', '?', '#'])
        .next()
        .unwrap_or("");
    if authority.contains('@') {
        redacted_dsn(uri)
    } else {
        uri.to_string()
    }
}

/// Input of `POST /import/browse`: a server (`dsn`), a SQLite file (`file`) or a web service
/// (`uri`, `api_key` or `credentials`).
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ImportBrowseRequest {
    /// `postgres`, `mysql`, `redis` (with `dsn`), `sqlite` (with `file`), `notion` (the
    /// databases shared with `api_key`), `airtable` (the tables of `base_id`),
    /// `elasticsearch` (the indices at `uri`), `firestore` (the top-level collections of
    /// `project`'s database, with `api_key` or `credentials`), `mongodb` (the collections
    /// of `database` at a `mongodb://` or `mongodb+srv://` `uri`), `gsheets` (the sheets of
    /// the spreadsheet `database_id`, with `api_key`), `confluence` (the keys of the spaces
    /// `api_key` sees at `uri`) or `dynamodb` (the tables `api_key` sees in the region); another
    /// is 400, and so is a missing field the source needs (the message names it).
    pub from: String,
    /// As `connection.dsn` of an import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dsn: Option<String>,
    /// `sqlite`: a file in the knowledge root, or an upload's path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// `notion`, `airtable`, `elasticsearch`, `firestore`, `mongodb`, `gsheets`,
    /// `confluence`, `dynamodb`: as `connection.uri` of an import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// As `connection.api_key` of an import; never stored or shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// `airtable`: the base whose tables are listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_id: Option<String>,
    /// `gsheets`: the spreadsheet whose sheets are listed (the id in its URL), as
    /// `connection.database_id` of an import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database_id: Option<String>,
    /// `firestore`: the Google Cloud project whose collections are listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// `firestore`: the database id (default `(default)`); `mongodb`: the database whose
    /// collections are listed (default the URI's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<String>,
    /// `firestore`: as `connection.credentials` of an import (a service account key, an
    /// object or a string holding its JSON); never stored or shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<serde_json::Value>,
}

impl std::fmt::Debug for ImportBrowseRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImportBrowseRequest")
            .field("from", &self.from)
            .field("dsn", &self.dsn.as_deref().map(redacted_dsn))
            .field("file", &self.file)
            .field("uri", &self.uri.as_deref().map(redacted_uri))
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("base_id", &self.base_id)
            .field("database_id", &self.database_id)
            .field("project", &self.project)
            .field("database", &self.database)
            .field("credentials", &self.credentials.as_ref().map(|_| "***"))
            .finish()
    }
}

/// What `POST /import/browse` lists: the tables and views (for Redis, the key prefixes as
/// patterns, `note:*`), each usable as an import's `query`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ImportBrowse {
    pub tables: Vec<ImportTable>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ImportTable {
    pub name: String,
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
    /// 1-based, in source order; 0 for what is no row (a zip entry refused for its name,
    /// an `obsidian` attachment).
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
    /// `obsidian`: files of the vault that are not pages (images, PDFs …) written beside the
    /// pages; an attachment already holding the same bytes counts in `skipped`. Absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attachments: usize,
    /// `obsidian`: links whose target was rewritten so that quire resolves them to the page
    /// (or file) they reached in the vault. Absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub links_rewritten: usize,
    /// Rows (and, with `row` 0, archive entries or attachments) that were not imported.
    pub errors: Vec<ImportRowError>,
    /// The `_source` of the pages.
    pub source: String,
    /// The import's commit, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
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
    /// `jsonl`, `csv` or `parquet`.
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
    /// `base64` when `text` holds a binary file (Parquet); absent for text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
}

/// Input of `POST /export/document` and `quire_export_document`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ExportDocumentRequest {
    /// `html` (one standalone file), `pdf`, `slides` (one HTML file, a slide per section) or
    /// `site` (a zip of one `.html` per page, `index.html` and the images).
    pub format: String,
    /// A page, or a folder (its pages in path order); empty or `/` for every page.
    pub path: String,
    /// The document's title; default the page's title or the folder's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// What `quire_export_document` answers (REST answers the document's bytes themselves).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ExportedDocument {
    pub format: String,
    pub media_type: String,
    /// A file name for it (`notes.pdf`).
    pub file_name: String,
    /// Pages in the document.
    pub pages: usize,
    /// Bytes of the document.
    pub size: usize,
    /// The document, for `html` and `slides`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The document in base64, for `pdf` and `site`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base64: Option<String>,
}

/// Body of `POST /import/connections`: a source to import again later, and the import's
/// settings. A `dsn` or `uri` is stored without its password; secrets are never stored (give
/// them to each run).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ConnectionSpec {
    /// The source identifier (`GET /import/sources`).
    pub from: String,
    /// A name for people; default the source and where it is.
    #[serde(default)]
    pub name: String,
    /// A database URL; stored without its password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dsn: Option<String>,
    /// A service URL (HTTP sources); stored without its password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// A file source: a path in the knowledge root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// A folder source (`markdown`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A table (the query when `query` is not given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collection: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// SQL, a table or a key pattern, as for `POST /import`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// `excel`: the sheet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sheet: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_column: Option<String>,
    /// The columns kept (all when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapping: Option<ImportMapping>,
    #[serde(default)]
    pub full_sync: bool,
}

/// A saved import connection (`GET /import/connections`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SavedConnection {
    pub id: String,
    #[serde(flatten)]
    pub spec: ConnectionSpec,
    pub created_at: String,
    /// The last run, by hand or scheduled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run: Option<ConnectionRun>,
    /// The scheduled sync.
    #[serde(default)]
    pub sync: SyncSchedule,
    /// A password was taken out of `dsn`/`uri` when it was saved: each run must give it.
    #[serde(default)]
    pub needs_secret: bool,
}

/// What a connection's last run did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ConnectionRun {
    pub at: String,
    pub imported: usize,
    pub skipped: usize,
    pub archived: usize,
    /// Rows that failed.
    pub errors: usize,
    /// Why the run failed as a whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A connection's scheduled sync (`POST /import/connections/{id}/sync`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SyncSchedule {
    pub enabled: bool,
    /// How often: `30s`, `15m`, `1h`, `1d` (at least 10 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
}

/// `POST /import/connections/{id}/sync`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConnectionSyncRequest {
    pub id: String,
    pub enabled: bool,
    #[serde(default)]
    pub interval: Option<String>,
}

/// `POST /import/connections/{id}/run`: the secrets of this run only, never stored.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConnectionRunRequest {
    pub id: String,
    #[serde(default)]
    pub credentials: Option<RunCredentials>,
    #[serde(default)]
    pub api_key: Option<String>,
}

impl std::fmt::Debug for ConnectionRunRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectionRunRequest")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// A run's credentials.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct RunCredentials {
    #[serde(default)]
    pub password: Option<String>,
}

impl std::fmt::Debug for RunCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RunCredentials(..)")
    }
}

/// `GET /import/connections`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(transparent)]
pub struct SavedConnections(pub Vec<SavedConnection>);

/// `GET /import/sync/status`: every connection with a schedule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SyncStatus {
    pub syncs: Vec<SyncState>,
}

/// One scheduled connection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SyncState {
    pub id: String,
    pub name: String,
    pub enabled: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run: Option<ConnectionRun>,
    /// When the next scheduled run is due (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_run: Option<String>,
    /// Why a scheduled run cannot happen (a source that needs a secret, which is never
    /// stored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<String>,
}

/// `DELETE /import/connections/{id}` (REST answers 204 without it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct ConnectionDeleted {
    pub deleted: String,
}
