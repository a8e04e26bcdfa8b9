//! Import and export: import a source's rows as pages (one commit), preview an import, list
//! the sources, export pages as JSON Lines or CSV. Uploads (`POST /import/upload`, multipart)
//! are a route of the REST adapter, beside asset uploads; REST streams `GET /export` itself.

use quire_api::collab::IdInput;
use quire_api::import::{ExportDocumentRequest, ExportedDocument};
use quire_api::mcp::NoInput;
use quire_api::{
    ConnectionDeleted, ConnectionRunRequest, ConnectionSpec, ConnectionSyncRequest, ExportRequest,
    ExportText, ImportBrowse, ImportBrowseRequest, ImportPreview, ImportPreviewRequest,
    ImportRequest, ImportResult, ImportSources, SavedConnection, SavedConnections, SyncStatus,
};
use quire_service::{Error, ExportPlan, Result, Space};

use crate::{Caller, Meta, Operation, Rest, Tool, Visit};

const AREA: &str = "import";

/// Writes an export's file to `sink` as it is made: JSON Lines and CSV a row at a time by the
/// service's encoder, Parquet a row group at a time by `quire-parquet` (kept out of the
/// service's build). `sink` answering `false` stops it. Answers the rows written.
pub fn export_bytes(
    space: &Space,
    plan: &ExportPlan,
    sink: &mut dyn FnMut(Vec<u8>) -> bool,
) -> Result<usize> {
    let import = space.import();
    if plan.encoder().format.is_text() {
        return import.export(plan, sink);
    }
    let failed = |e: quire_parquet::Error| quire_service::Error::internal(e);
    let mut writer = quire_parquet::ParquetWriter::new(plan.encoder()).map_err(failed)?;
    let mut error = None;
    let mut stopped = false;
    let rows = import.export_rows(plan, &mut |row| match writer.push(row) {
        Ok(bytes) if bytes.is_empty() => true,
        Ok(bytes) => {
            stopped = !sink(bytes);
            !stopped
        }
        Err(e) => {
            error = Some(e);
            false
        }
    })?;
    if let Some(e) = error {
        return Err(failed(e));
    }
    if !stopped {
        sink(writer.finish().map_err(failed)?);
    }
    Ok(rows)
}

/// Rows `quire_export` (and `quire api export`) answers at most; REST streams them all.
pub const EXPORT_TOOL_ROWS: usize = 1000;
/// Bytes of text `quire_export` answers at most.
pub const EXPORT_TOOL_BYTES: usize = 4 * 1024 * 1024;

pub(crate) fn visit(v: &mut impl Visit) {
    v.op::<Import>();
    v.op::<ImportPreviewOp>();
    v.op::<ImportSourcesOp>();
    v.op::<ImportBrowseOp>();
    v.op::<ConnectionList>();
    v.op::<ConnectionSave>();
    v.op::<ConnectionDelete>();
    v.op::<ConnectionRunOp>();
    v.op::<ConnectionSyncOp>();
    v.op::<SyncStatusOp>();
    v.op::<Export>();
    v.op::<ExportDocument>();
}

/// `POST /import`, `quire_import`.
pub struct Import;

impl Operation for Import {
    type Input = ImportRequest;
    type Output = ImportResult;
    const META: Meta = Meta::write(
        "import",
        AREA,
        "Import rows of a file, database or folder as pages, in one commit",
    )
    .rest(Rest::post("/import"))
    .tool(Tool::named("quire_import"))
    .describe(
        "Import a source's rows as pages, all in one commit (author: your actor, else \
`import`). `source`: csv, json, jsonl, yaml, excel, sqlite, markdown, obsidian, postgres, mysql, \
redis, or a web service (notion, airtable, gsheets, confluence, elasticsearch, mongodb, \
firestore, dynamodb: `connection.uri` default the real API, `connection.api_key`, and its ids \
`database_id`, `base_id`+`table_id`, `table`, `database`+`collection`, `project`+`collection`; \
mongodb reads a server when `connection.uri` is mongodb://user:password@host:27017 or \
mongodb+srv://…, with `query` a JSON filter); \
`connection.file` a file in the knowledge root or an upload's path (`connection.path` \
a folder or a zip of one for markdown and obsidian, which brings attachments and keeps links \
resolving; `connection.dsn` a database URL such as \
postgres://user:password@127.0.0.1:5432/db?sslmode=disable, connected without TLS); `query` \
SQL or a table for sqlite, postgres and mysql, a key pattern for redis; `sheet` for excel \
(default the first); `mapping` double-brace templates (`path`, `title`, `content`, `frontmatter`) \
over the row's fields; `id_column`, `prefix`, `full_sync`. Every page gets `_source` and \
`_source_id`; unchanged rows are skipped. Try quire_import_preview first.",
    );

    fn run(space: &Space, input: ImportRequest, caller: &Caller) -> Result<ImportResult> {
        space
            .import()
            .run(&input, &caller.write_options(input.message.clone(), None))
    }

    fn text(output: &ImportResult) -> String {
        let mut text = format!(
            "imported {}, skipped {}, archived {} from {}",
            output.imported, output.skipped, output.archived, output.source
        );
        for e in &output.errors {
            text.push_str(&format!("\nrow {}: {}", e.row, e.error));
        }
        text
    }
}

/// `POST /import/preview`, `quire_import_preview`.
pub struct ImportPreviewOp;

impl Operation for ImportPreviewOp {
    type Input = ImportPreviewRequest;
    type Output = ImportPreview;
    const META: Meta = Meta::read(
        "import_preview",
        AREA,
        "The pages an import would write for its first rows (writes nothing)",
    )
    .rest(Rest::post("/import/preview"))
    .tool(Tool::named("quire_import_preview"))
    .describe(
        "Render the first `limit` rows (default 5, at most 20) of an import as pages — \
path, frontmatter, the start of the body — without writing anything. Takes the same fields \
as quire_import.",
    );

    fn run(space: &Space, input: ImportPreviewRequest, _: &Caller) -> Result<ImportPreview> {
        space.import().preview(&input)
    }
}

/// `GET /import/sources`.
pub struct ImportSourcesOp;

impl Operation for ImportSourcesOp {
    type Input = NoInput;
    type Output = ImportSources;
    const META: Meta = Meta::read(
        "import_sources",
        AREA,
        "The import source identifiers, each with whether this server builds it",
    )
    .rest(Rest::get("/import/sources"));

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<ImportSources> {
        Ok(space.import().sources())
    }
}

/// `POST /import/browse`.
pub struct ImportBrowseOp;

impl Operation for ImportBrowseOp {
    type Input = ImportBrowseRequest;
    type Output = ImportBrowse;
    const META: Meta = Meta::read(
        "import_browse",
        AREA,
        "The tables of a source: a database (postgres, mysql, sqlite), the key prefixes of a Redis database, or the tables, collections, sheets or spaces of a web service",
    )
    .rest(Rest::post("/import/browse"));

    fn run(space: &Space, input: ImportBrowseRequest, _: &Caller) -> Result<ImportBrowse> {
        space.import().browse(&input)
    }

    fn text(output: &ImportBrowse) -> String {
        output
            .tables
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// `GET /export`, `quire_export`.
pub struct Export;

impl Operation for Export {
    type Input = ExportRequest;
    type Output = ExportText;
    const META: Meta = Meta::read("export", AREA, "Export pages as JSON Lines, CSV or Parquet")
        .rest(Rest::get("/export").raw_answer("application/x-ndjson"))
        .tool(Tool::named("quire_export"))
        .describe(
            "Export pages as JSON Lines (`{path, <frontmatter>, content?, links?}` a line) or \
CSV (`path`, then `columns`), below folder `path`, with `include-content`/`include-links`; \
`parquet` answers the file in base64 (`encoding`). Answers at most 1000 rows and 4 MiB \
(`truncated` says when more matched); the REST route GET /export streams every page.",
        );

    fn run(space: &Space, input: ExportRequest, _: &Caller) -> Result<ExportText> {
        let mut bounded = input.clone();
        bounded.limit = Some(input.limit.unwrap_or(usize::MAX).min(EXPORT_TOOL_ROWS + 1));
        let import = space.import();
        let plan = import.export_plan(&bounded)?;
        let mut truncated = plan.len() > EXPORT_TOOL_ROWS;
        if !plan.encoder().format.is_text() {
            // Parquet is bytes: the first rows as one file, in base64.
            bounded.limit = Some(input.limit.unwrap_or(usize::MAX).min(EXPORT_TOOL_ROWS));
            let plan = import.export_plan(&bounded)?;
            let mut file = Vec::new();
            let count = export_bytes(space, &plan, &mut |chunk| {
                file.extend(chunk);
                file.len() <= EXPORT_TOOL_BYTES
            })?;
            if file.len() > EXPORT_TOOL_BYTES {
                return Err(quire_service::Error::new(
                    quire_service::ErrorCode::TooLarge,
                    format!(
                        "the parquet file of these pages is over {EXPORT_TOOL_BYTES} bytes; \
use GET /export, or a smaller `limit` or `path`"
                    ),
                ));
            }
            use base64::Engine as _;
            return Ok(ExportText {
                format: input.format.trim().to_string(),
                count,
                truncated,
                text: base64::engine::general_purpose::STANDARD.encode(&file),
                encoding: Some("base64".to_string()),
            });
        }
        let mut text: Vec<u8> = Vec::new();
        let mut rows = 0usize;
        let mut header = !plan.media_type().starts_with("application/x-ndjson");
        import.export(&plan, &mut |chunk| {
            if header {
                header = false;
            } else {
                if rows == EXPORT_TOOL_ROWS || text.len() + chunk.len() > EXPORT_TOOL_BYTES {
                    truncated = true;
                    return false;
                }
                rows += 1;
            }
            text.extend(chunk);
            true
        })?;
        Ok(ExportText {
            format: input.format.trim().to_string(),
            count: rows,
            truncated,
            text: String::from_utf8_lossy(&text).into_owned(),
            encoding: None,
        })
    }

    fn text(output: &ExportText) -> String {
        output.text.clone()
    }
}

/// Bytes of assets (images …) a document takes in at most.
pub const DOCUMENT_ASSET_BYTES: usize = 64 * 1024 * 1024;
/// Pages a document holds at most.
pub const DOCUMENT_PAGES: usize = 5000;
/// Bytes of a document `quire_export_document` answers at most (REST answers any size).
pub const DOCUMENT_TOOL_BYTES: usize = 8 * 1024 * 1024;

/// `POST /export/document`, `quire_export_document`.
pub struct ExportDocument;

impl ExportDocument {
    /// The document and its file name: the pages at `path` (a page, or a folder's pages in
    /// path order), the assets they link to or embed, links resolved as the knowledge base
    /// resolves them (DECISIONS §3). An unknown format is 400, a path holding no page 404.
    pub fn render(
        space: &Space,
        input: &ExportDocumentRequest,
    ) -> Result<(quire_document::Document, String, usize)> {
        let kind = quire_document::Kind::parse(&input.format).ok_or_else(|| {
            Error::bad_request(format!(
                "unknown document format {:?}: html, pdf, slides or site",
                input.format
            ))
        })?;
        let wanted = input.path.trim().trim_matches('/').to_string();
        // Paths and titles under the link model's lock; files are read after it.
        let (chosen, name) = {
            let vault = space.vault();
            let mut pages: Vec<(String, String)> = vault
                .files()
                .filter(|p| p.is_page())
                .filter(|p| {
                    let p = p.as_str();
                    wanted.is_empty()
                        || p == wanted
                        || p == format!("{wanted}.md")
                        || p.strip_prefix(wanted.as_str())
                            .is_some_and(|rest| rest.starts_with('/'))
                })
                .map(|p| {
                    let title = vault.title(p).unwrap_or(p.stem()).to_string();
                    (p.to_string(), title)
                })
                .collect();
            pages.sort();
            let single =
                pages.len() == 1 && (pages[0].0 == wanted || pages[0].0 == format!("{wanted}.md"));
            let name = if single {
                pages[0].1.clone()
            } else if wanted.is_empty() {
                space.name().to_string()
            } else {
                wanted.rsplit('/').next().unwrap_or(&wanted).to_string()
            };
            (pages, name)
        };
        if chosen.is_empty() {
            return Err(Error::not_found(format!(
                "no page at or below {:?}",
                input.path
            )));
        }
        if chosen.len() > DOCUMENT_PAGES {
            return Err(Error::new(
                quire_service::ErrorCode::TooLarge,
                format!(
                    "{} pages: a document holds at most {DOCUMENT_PAGES}; export a smaller folder",
                    chosen.len()
                ),
            ));
        }
        let mut pages = Vec::with_capacity(chosen.len());
        for (path, title) in chosen {
            let bytes = space.files().read(&path)?.bytes;
            pages.push(quire_document::Page {
                path,
                title,
                text: String::from_utf8_lossy(&bytes).into_owned(),
            });
        }
        // The files the pages link to or embed that are not pages.
        let mut wanted_assets = std::collections::BTreeSet::new();
        {
            let vault = space.vault();
            for page in &pages {
                let Ok(from) = quire_vault::PagePath::new(&page.path) else {
                    continue;
                };
                for link in &quire_syntax::parse(&page.text).links {
                    if let Some(target) = vault.resolve(&from, link).path() {
                        let t = target.as_str();
                        if !target.is_page()
                            && !t.starts_with(".quire/")
                            && !t.ends_with(".canvas.json")
                        {
                            wanted_assets.insert(t.to_string());
                        }
                    }
                }
            }
        }
        let mut assets = std::collections::BTreeMap::new();
        let mut total = 0usize;
        for path in wanted_assets {
            let Ok(content) = space.files().read(&path) else {
                continue;
            };
            total += content.bytes.len();
            if total > DOCUMENT_ASSET_BYTES {
                return Err(Error::new(
                    quire_service::ErrorCode::TooLarge,
                    format!(
                        "the pages use more than {DOCUMENT_ASSET_BYTES} bytes of images and files"
                    ),
                ));
            }
            assets.insert(path, content.bytes);
        }
        let count = pages.len();
        let title = input.title.clone().unwrap_or_else(|| name.clone());
        let vault = space.vault();
        let source = quire_document::Source {
            title,
            pages,
            assets,
            links: &*vault,
        };
        let document = quire_document::render(kind, &source).map_err(Error::internal)?;
        let stem: String = name
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        let stem = if stem.trim_matches('-').is_empty() {
            "document".to_string()
        } else {
            stem
        };
        Ok((document, format!("{stem}.{}", kind.extension()), count))
    }
}

impl Operation for ExportDocument {
    type Input = ExportDocumentRequest;
    type Output = ExportedDocument;
    const META: Meta = Meta::read(
        "export_document",
        AREA,
        "Render a page or a folder as one HTML file, a PDF, HTML slides or a static site (zip)",
    )
    .rest(Rest::post("/export/document").answering_raw(&[
        "text/html",
        "application/pdf",
        "application/zip",
    ]))
    .tool(Tool::named("quire_export_document"))
    .describe(
        "Render `path` (a page, or a folder: its pages in path order) as a document. `format`: \
html (one standalone file, links between its pages as anchors, images inlined), pdf, slides (one \
HTML file, a slide per `---` section or top-level heading, arrow keys to move), site (a zip: \
one .html per page, index.html, the images). Answers `text` for html and slides, `base64` \
for pdf and site (at most 8 MiB; REST POST /export/document answers the bytes themselves).",
    );

    fn run(space: &Space, input: ExportDocumentRequest, _: &Caller) -> Result<ExportedDocument> {
        let (document, file_name, pages) = ExportDocument::render(space, &input)?;
        let kind = document.kind;
        if !kind.is_text() && document.bytes.len() > DOCUMENT_TOOL_BYTES {
            return Err(Error::new(
                quire_service::ErrorCode::TooLarge,
                format!(
                    "the document is {} bytes, over the {DOCUMENT_TOOL_BYTES} this tool answers; \
use POST /export/document",
                    document.bytes.len()
                ),
            ));
        }
        use base64::Engine as _;
        let size = document.bytes.len();
        let (text, base64) = if kind.is_text() {
            (
                Some(String::from_utf8_lossy(&document.bytes).into_owned()),
                None,
            )
        } else {
            (
                None,
                Some(base64::engine::general_purpose::STANDARD.encode(&document.bytes)),
            )
        };
        Ok(ExportedDocument {
            format: kind.name().to_string(),
            media_type: kind.media_type().to_string(),
            file_name,
            pages,
            size,
            text,
            base64,
        })
    }

    fn text(output: &ExportedDocument) -> String {
        match &output.text {
            Some(text) => text.clone(),
            None => format!(
                "{} ({}, {} bytes, {} pages) in base64:\n{}",
                output.file_name,
                output.media_type,
                output.size,
                output.pages,
                output.base64.as_deref().unwrap_or("")
            ),
        }
    }
}

/// `GET /import/connections`.
pub struct ConnectionList;

impl Operation for ConnectionList {
    type Input = NoInput;
    type Output = SavedConnections;
    const META: Meta = Meta::read(
        "import_connections",
        AREA,
        "Saved import connections (their secrets are never stored)",
    )
    .rest(Rest::get("/import/connections"));

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<SavedConnections> {
        space.connections().list()
    }
}

/// `POST /import/connections`.
pub struct ConnectionSave;

impl Operation for ConnectionSave {
    type Input = ConnectionSpec;
    type Output = SavedConnection;
    const META: Meta = Meta::write(
        "import_connection_save",
        AREA,
        "Save an import connection; a password in its dsn or uri is taken out, never stored",
    )
    .rest(Rest::post("/import/connections").created());

    fn run(space: &Space, input: ConnectionSpec, _: &Caller) -> Result<SavedConnection> {
        space.connections().save(input)
    }
}

/// `DELETE /import/connections/{id}`.
pub struct ConnectionDelete;

impl Operation for ConnectionDelete {
    type Input = IdInput;
    type Output = ConnectionDeleted;
    const META: Meta = Meta::write(
        "import_connection_delete",
        AREA,
        "Delete an import connection",
    )
    .rest(Rest::delete("/import/connections/{id}").no_content());

    fn run(space: &Space, input: IdInput, _: &Caller) -> Result<ConnectionDeleted> {
        space.connections().delete(&input.id)?;
        Ok(ConnectionDeleted { deleted: input.id })
    }
}

/// `POST /import/connections/{id}/run`.
pub struct ConnectionRunOp;

impl Operation for ConnectionRunOp {
    type Input = ConnectionRunRequest;
    type Output = ImportResult;
    const META: Meta = Meta::write(
        "import_connection_run",
        AREA,
        "Run a saved import now, with this run's credentials (never stored)",
    )
    .rest(Rest::post("/import/connections/{id}/run"));

    fn run(space: &Space, input: ConnectionRunRequest, caller: &Caller) -> Result<ImportResult> {
        space
            .connections()
            .run(&input, &caller.write_options(None, None))
    }
}

/// `POST /import/connections/{id}/sync`.
pub struct ConnectionSyncOp;

impl Operation for ConnectionSyncOp {
    type Input = ConnectionSyncRequest;
    type Output = SavedConnection;
    const META: Meta = Meta::write(
        "import_connection_sync",
        AREA,
        "Schedule a saved import (`{enabled, interval}`) or stop its schedule",
    )
    .rest(Rest::post("/import/connections/{id}/sync"));

    fn run(space: &Space, input: ConnectionSyncRequest, _: &Caller) -> Result<SavedConnection> {
        space.connections().schedule(&input)
    }
}

/// `GET /import/sync/status`.
pub struct SyncStatusOp;

impl Operation for SyncStatusOp {
    type Input = NoInput;
    type Output = SyncStatus;
    const META: Meta = Meta::read(
        "import_sync_status",
        AREA,
        "The scheduled imports: last run, next run, or why one cannot run",
    )
    .rest(Rest::get("/import/sync/status"));

    fn run(space: &Space, _: NoInput, _: &Caller) -> Result<SyncStatus> {
        space.connections().status()
    }
}
