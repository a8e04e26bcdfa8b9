//! Import and export: import a source's rows as pages (one commit), preview an import, list
//! the sources, export pages as JSON Lines or CSV. Uploads (`POST /import/upload`, multipart)
//! are a route of the REST adapter, beside asset uploads; REST streams `GET /export` itself.

use quire_api::mcp::NoInput;
use quire_api::{
    ExportRequest, ExportText, ImportBrowse, ImportBrowseRequest, ImportPreview,
    ImportPreviewRequest, ImportRequest, ImportResult, ImportSources,
};
use quire_service::{Result, Space};

use crate::{Caller, Meta, Operation, Rest, Tool, Visit};

const AREA: &str = "import";

/// Rows `quire_export` (and `quire api export`) answers at most; REST streams them all.
pub const EXPORT_TOOL_ROWS: usize = 1000;
/// Bytes of text `quire_export` answers at most.
pub const EXPORT_TOOL_BYTES: usize = 4 * 1024 * 1024;

pub(crate) fn visit(v: &mut impl Visit) {
    v.op::<Import>();
    v.op::<ImportPreviewOp>();
    v.op::<ImportSourcesOp>();
    v.op::<ImportBrowseOp>();
    v.op::<Export>();
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
`import`). `source`: csv, json, jsonl, yaml, excel, sqlite, markdown, postgres, mysql or redis; \
`connection.file` a file in the knowledge root or an upload's path (`connection.path` a folder \
for markdown, `connection.dsn` a database URL such as \
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
        "The tables of a database (postgres, mysql, sqlite) or the key prefixes of a Redis database",
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
    const META: Meta = Meta::read("export", AREA, "Export pages as JSON Lines or CSV")
        .rest(Rest::get("/export").raw_answer("application/x-ndjson"))
        .tool(Tool::named("quire_export"))
        .describe(
            "Export pages as JSON Lines (`{path, <frontmatter>, content?, links?}` a line) or \
CSV (`path`, then `columns`), below folder `path`, with `include-content`/`include-links`. \
Answers at most 1000 rows and 4 MiB of text (`truncated` says when more matched); the REST \
route GET /export streams every page.",
        );

    fn run(space: &Space, input: ExportRequest, _: &Caller) -> Result<ExportText> {
        let mut bounded = input.clone();
        bounded.limit = Some(input.limit.unwrap_or(usize::MAX).min(EXPORT_TOOL_ROWS + 1));
        let import = space.import();
        let plan = import.export_plan(&bounded)?;
        let mut truncated = plan.len() > EXPORT_TOOL_ROWS;
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
        })
    }

    fn text(output: &ExportText) -> String {
        output.text.clone()
    }
}
