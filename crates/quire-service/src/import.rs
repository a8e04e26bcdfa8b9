//! Import and export of a space: a source's rows become pages in ONE pipeline pass (one
//! commit by the caller, `import` by default), and pages go out as JSON Lines or CSV, one
//! page read at a time.
//!
//! **Import rules.** Reading and rendering are `quire-import`'s; here: every page gets
//! `_source` (the source's name) and `_source_id` (its row's id); a row whose page already
//! holds exactly the rendered bytes is `skipped` (not written); with `full_sync`, a page whose
//! `_source` is this source and whose `_source_id` no row of this import has gets
//! `_archived_at` (it is never deleted; a row that comes back writes the page again without
//! it). Nothing to write: no commit. The change is announced as one `import` event.

use std::collections::{BTreeSet, HashMap};

use quire_api::{
    ExportRequest, ImportBrowse, ImportBrowseRequest, ImportPreview, ImportPreviewRequest,
    ImportRecord, ImportRequest, ImportResult, ImportRowError, ImportSource, ImportSources,
    ImportTable, ImportUpload,
};
use quire_import::export::{ColumnKind, Encoder, Format, Row as ExportRow};
use quire_import::folders::{Tree, Want};
use quire_import::obsidian::{Rewriter, VaultFiles};
use quire_import::sources::markdown_row;
use quire_import::{Dsn, ImportError, Limits, Location, Mapping, Place, Plan, Source, SourceKind};
use quire_query::dql::PageData;
use quire_store::{etag, StoreError};
use quire_syntax::LinkKind;
use quire_vault::{Overlay, PagePath};
use serde_json::Value;
use sha2::Digest;

use crate::change::{Announce, Change, CommitMode, Expect, FileOp, WriteOptions};
use crate::core::SpaceCore;
use crate::error::{Error, ErrorCode, Result};
use crate::events::now_rfc3339;
use crate::find::Find;
use crate::indexing::read_catalog;

/// The author of an import that names none.
pub const IMPORT_ACTOR: &str = "import";
/// Rows a preview renders when the caller names no `limit`, and the most it may ask for.
pub const PREVIEW_LIMIT: usize = 5;
pub const PREVIEW_LIMIT_MAX: usize = 20;
/// Characters of a body a preview shows.
const BODY_PREVIEW_CHARS: usize = 200;

/// Import and export of one space.
pub struct Import<'a>(pub(crate) &'a SpaceCore);

/// An export checked and ready to stream: its encoder and the pages, in path order.
pub struct ExportPlan {
    encoder: Encoder,
    paths: Vec<PagePath>,
}

impl ExportPlan {
    /// What the rows become: the format, the columns (and their types for Parquet).
    pub fn encoder(&self) -> &Encoder {
        &self.encoder
    }

    /// The media type of the answer.
    pub fn media_type(&self) -> &'static str {
        self.encoder.format.media_type()
    }

    /// How many pages it exports.
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }
}

impl Import<'_> {
    /// Every source identifier of the spec, each with whether this server builds it.
    pub fn sources(&self) -> ImportSources {
        ImportSources {
            sources: quire_import::SOURCES
                .iter()
                .map(|id| ImportSource {
                    id: id.to_string(),
                    available: quire_import::is_built(id),
                })
                .collect(),
        }
    }

    /// Keeps an uploaded file for a later import (a day, under `.quire/state/uploads/`).
    pub fn upload(&self, name: &str, bytes: &[u8]) -> Result<ImportUpload> {
        if self.0.writer.is_none() {
            return Err(Error::unavailable(
                "this process opened the root read-only: uploads need the server holding it",
            ));
        }
        if bytes.len() as u64 > quire_import::MAX_BYTES {
            return Err(Error::new(
                ErrorCode::TooLarge,
                format!("an upload holds at most {} bytes", quire_import::MAX_BYTES),
            ));
        }
        let path = quire_import::Uploads::new(self.0.root.dir())
            .store(name, bytes)
            .map_err(error)?;
        Ok(ImportUpload {
            path,
            size: bytes.len(),
        })
    }

    /// The tables of a database (`postgres`, `mysql`, `sqlite`), the key prefixes of a Redis
    /// database (each usable as an import's `query`), the databases a Notion key sees, the
    /// tables of an Airtable base, Elasticsearch's indices, a Firestore database's
    /// top-level collections, a MongoDB database's collections (over the wire protocol),
    /// the sheets of a Google spreadsheet, the Confluence spaces a key sees (their keys) or
    /// the DynamoDB tables of a region. Another `from` is 400, and so is a missing field the
    /// source needs, named.
    pub fn browse(&self, request: &ImportBrowseRequest) -> Result<ImportBrowse> {
        let from = request.from.trim();
        let kind = SourceKind::parse(from).ok().filter(|k| {
            matches!(
                k,
                SourceKind::Postgres
                    | SourceKind::Mysql
                    | SourceKind::Redis
                    | SourceKind::Sqlite
                    | SourceKind::Notion
                    | SourceKind::Airtable
                    | SourceKind::Elasticsearch
                    | SourceKind::Firestore
                    | SourceKind::Mongodb
                    | SourceKind::Gsheets
                    | SourceKind::Confluence
                    | SourceKind::Dynamodb
            )
        });
        let Some(kind) = kind else {
            return Err(Error::bad_request(format!(
                "browse lists the tables of `postgres`, `mysql`, `sqlite` or `redis`, Notion's \
                 databases, Airtable's tables, Elasticsearch's indices, Firestore's or \
                 MongoDB's collections, a Google spreadsheet's sheets, Confluence's spaces or \
                 DynamoDB's tables, not {from:?}"
            )));
        };
        let names = if kind == SourceKind::Mongodb {
            let uri = mongo_wire_uri(kind, request.uri.as_deref(), request.dsn.as_deref())
                .ok_or_else(|| {
                    Error::bad_request(
                        "a `mongodb` browse needs `uri`: `mongodb://…` or `mongodb+srv://…` \
                         (the Data API has no listing)",
                    )
                })?;
            quire_import::mongo::Target::new(uri, request.database.as_deref(), "")
                .and_then(|target| quire_import::mongo::collections(&target))
        } else if kind.place() == Place::Service {
            browse_needs(kind, request)?;
            browse_service(kind, request)
                .and_then(|service| quire_import::web::tables(kind, &service))
        } else if kind == SourceKind::Sqlite {
            let file = required(request.file.as_deref(), "a `sqlite` browse needs `file`")?;
            let path = quire_import::locate(self.0.root.dir(), file).map_err(error)?;
            quire_import::sources::sqlite_tables(&path)
        } else {
            let dsn = required(
                request.dsn.as_deref(),
                &format!("a `{from}` browse needs `dsn`"),
            )?;
            let dsn = Dsn::parse(dsn, kind.schemes()).map_err(error)?;
            quire_import::databases::tables(kind, &dsn)
        }
        .map_err(error)?;
        Ok(ImportBrowse {
            tables: names.into_iter().map(|name| ImportTable { name }).collect(),
        })
    }

    /// Renders the first `limit` rows (default 5, at most 20) as the import would write
    /// them; writes nothing.
    pub fn preview(&self, request: &ImportPreviewRequest) -> Result<ImportPreview> {
        let limit = request.limit.unwrap_or(PREVIEW_LIMIT);
        if limit == 0 || limit > PREVIEW_LIMIT_MAX {
            return Err(Error::bad_request(format!(
                "`limit` is between 1 and {PREVIEW_LIMIT_MAX}, not {limit}"
            )));
        }
        let (source, plan) = self.prepare(&request.import)?;
        let rows = quire_import::read(&source, &Limits::default(), Some(limit)).map_err(error)?;
        let rendering = plan.render_all(&rows);
        let mut errors = row_errors(rendering.errors);
        let mut records = Vec::new();
        for (row, page) in rendering.pages {
            if let Err(e) = PagePath::new(&page.path) {
                errors.push(ImportRowError {
                    row,
                    error: e.to_string(),
                });
                continue;
            }
            records.push(ImportRecord {
                body_preview: page.body.chars().take(BODY_PREVIEW_CHARS).collect(),
                frontmatter: page.frontmatter_map(),
                path: page.path,
            });
        }
        errors.sort_by_key(|e| e.row);
        Ok(ImportPreview { records, errors })
    }

    /// Imports every row as a page, in one pipeline pass (an `obsidian` vault's attachments
    /// too, its links fixed where quire would resolve them elsewhere).
    pub fn run(&self, request: &ImportRequest, opts: &WriteOptions) -> Result<ImportResult> {
        let (source, plan) = self.prepare(request)?;
        let mut tree = Tree::default();
        let rows = match &source.location {
            // A folder or a zip of one: its refused entries and attachments are needed too.
            Location::Path(path) if source.kind.is_folder() => {
                let want = Want {
                    attachments: source.kind == SourceKind::Obsidian,
                    first: None,
                };
                tree = quire_import::folders::read_tree(path, want, &Limits::default())
                    .map_err(error)?;
                std::mem::take(&mut tree.notes)
                    .iter()
                    .map(|n| markdown_row(&n.path, &String::from_utf8_lossy(&n.bytes)))
                    .collect()
            }
            _ => quire_import::read(&source, &Limits::default(), None).map_err(error)?,
        };
        let rendering = plan.render_all(&rows);
        let mut errors = row_errors(rendering.errors);
        for (name, why) in &tree.refused {
            errors.push(ImportRowError {
                row: 0,
                error: format!("entry {name:?} {why}; not imported"),
            });
        }
        let mut pages = Vec::new();
        for (row, page) in rendering.pages {
            match PagePath::new(&page.path) {
                Ok(path) => pages.push((row, path, page)),
                Err(e) => errors.push(ImportRowError {
                    row,
                    error: e.to_string(),
                }),
            }
        }
        let mut attachments = Vec::new();
        for file in std::mem::take(&mut tree.attachments) {
            let at = match plan.prefix() {
                "" => file.path.clone(),
                prefix => format!("{prefix}/{}", file.path),
            };
            match PagePath::new(&at) {
                Ok(path) => attachments.push((file.path, path, file.bytes)),
                Err(e) => errors.push(ImportRowError {
                    row: 0,
                    error: format!("attachment {:?}: {e}; not imported", file.path),
                }),
            }
        }
        let mut links_rewritten = 0;
        let texts: Vec<Vec<u8>> = if source.kind == SourceKind::Obsidian {
            let (texts, n) = self.fix_links(&rows, &pages, &attachments);
            links_rewritten = n;
            texts
        } else {
            pages
                .iter()
                .map(|(_, _, p)| p.text().into_bytes())
                .collect()
        };
        drop(rows);
        let mut ops = Vec::new();
        let mut written: BTreeSet<String> = BTreeSet::new();
        let mut skipped = 0;
        for ((_, path, _), text) in pages.into_iter().zip(texts) {
            match self.0.root.read(&path) {
                Ok(current) if current == text => {
                    skipped += 1;
                    continue;
                }
                Ok(_) | Err(StoreError::NotFound { .. }) => {}
                Err(e) => return Err(e.into()),
            }
            written.insert(path.to_string());
            ops.push(FileOp {
                path,
                content: Some(text),
                expect: Expect::Anything,
            });
        }
        let imported = ops.len();
        let mut attached = 0;
        for (_, path, bytes) in attachments {
            match self.0.root.read(&path) {
                Ok(current) if current == bytes => {
                    skipped += 1;
                    continue;
                }
                Ok(_) | Err(StoreError::NotFound { .. }) => {}
                Err(e) => return Err(e.into()),
            }
            attached += 1;
            ops.push(FileOp {
                path,
                content: Some(bytes),
                expect: Expect::Anything,
            });
        }
        let archived = if request.full_sync {
            let gone = self.archive(plan.source_id(), &rendering.ids, &written)?;
            let n = gone.len();
            ops.extend(gone);
            n
        } else {
            0
        };
        errors.sort_by_key(|e| e.row);
        let mut result = ImportResult {
            imported,
            skipped,
            archived,
            attachments: attached,
            links_rewritten,
            errors,
            source: plan.source_id().to_string(),
            commit: None,
        };
        if ops.is_empty() {
            return Ok(result);
        }
        let actor = opts
            .actor
            .clone()
            .filter(|a| !a.trim().is_empty())
            .unwrap_or_else(|| IMPORT_ACTOR.to_string());
        let message = opts.message_or(|| {
            let mut m = format!("Import {imported} pages from {}", plan.source_id());
            if attached > 0 {
                m.push_str(&format!(", {attached} attachments"));
            }
            if archived > 0 {
                m.push_str(&format!(", archive {archived}"));
            }
            m
        });
        let applied = self.0.apply(Change {
            ops,
            actor,
            message,
            announce: Announce::Import {
                source: plan.source_id().to_string(),
                imported,
            },
            commit: CommitMode::Now,
        })?;
        result.commit = applied.commit;
        Ok(result)
    }

    /// The text of each page of an `obsidian` import, its links rewritten where quire, once
    /// the pages and attachments are in, would resolve them to another file than the vault
    /// did (`quire_import::obsidian`); and how many links changed. `rows` are the notes read
    /// (each row's `path` is its vault path), `pages` the rendered ones by row number.
    fn fix_links(
        &self,
        rows: &[quire_import::Row],
        pages: &[(usize, PagePath, quire_import::Page)],
        attachments: &[(String, PagePath, Vec<u8>)],
    ) -> (Vec<Vec<u8>>, usize) {
        let vault_path = |row: usize| {
            rows.get(row.wrapping_sub(1))
                .and_then(|r| r.get("path"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let files = VaultFiles::new(
            rows.iter()
                .filter_map(|r| r.get("path").and_then(Value::as_str))
                .map(str::to_string)
                .chain(attachments.iter().map(|(p, _, _)| p.clone())),
        );
        let mut placed: HashMap<String, String> = HashMap::new();
        for (row, path, _) in pages {
            placed.insert(vault_path(*row), path.to_string());
        }
        for (from, path, _) in attachments {
            placed.insert(from.clone(), path.to_string());
        }
        let rewriter = Rewriter {
            vault: &files,
            placed: &placed,
        };
        let base = self.0.links.vault();
        let overlay = Overlay::new(
            &base,
            [],
            pages
                .iter()
                .map(|(_, p, _)| p.clone())
                .chain(attachments.iter().map(|(_, p, _)| p.clone())),
        );
        let mut total = 0;
        let texts = pages
            .iter()
            .map(|(row, path, page)| {
                let resolve = |kind: LinkKind, target: &str| {
                    overlay
                        .resolve_target(path, kind, target)
                        .path()
                        .map(|p| p.to_string())
                };
                let (text, n) =
                    rewriter.rewrite(&page.text(), &vault_path(*row), path.as_str(), &resolve);
                total += n;
                text.into_bytes()
            })
            .collect();
        (texts, total)
    }

    /// The pages of `source` whose row is gone: each with `_archived_at` set now, expecting
    /// the bytes read (a page changed meanwhile makes the import a conflict, not a loss).
    fn archive(
        &self,
        source: &str,
        ids: &BTreeSet<String>,
        written: &BTreeSet<String>,
    ) -> Result<Vec<FileOp>> {
        let gone = self.catalog_paths(|page| {
            let Some(fm) = page.frontmatter.as_object() else {
                return false;
            };
            let id = fm
                .get(quire_import::SOURCE_ID_KEY)
                .map(quire_import::template::text_of)
                .unwrap_or_default();
            fm.get(quire_import::SOURCE_KEY).and_then(Value::as_str) == Some(source)
                && !fm.contains_key(quire_import::ARCHIVED_KEY)
                && !written.contains(&page.path)
                && !ids.contains(&id)
        })?;
        let now = now_rfc3339();
        let mut ops = Vec::new();
        for page in gone {
            let path = PagePath::new(&page)?;
            let bytes = match self.0.root.read(&path) {
                Ok(bytes) => bytes,
                Err(StoreError::NotFound { .. }) => continue,
                Err(e) => return Err(e.into()),
            };
            let tag = etag(&bytes);
            let mut editor = quire_syntax::FrontmatterEditor::new(&String::from_utf8_lossy(&bytes));
            editor.set(quire_import::ARCHIVED_KEY, &Value::String(now.clone()));
            ops.push(FileOp {
                path,
                content: Some(editor.finish().into_bytes()),
                expect: Expect::Etag(tag),
            });
        }
        Ok(ops)
    }

    /// The paths of the pages `keep` selects, read in place from the catalog (frontmatter as
    /// the index holds it, read-your-writes), or from the pages read now in a process that
    /// keeps no index.
    fn catalog_paths(&self, keep: impl Fn(&PageData) -> bool) -> Result<Vec<String>> {
        let find = Find(self.0);
        let read_now;
        let catalog = match &self.0.indexer {
            Some(_) => &*find.indexer()?.catalog,
            None => {
                read_now = read_catalog(&self.0.root, &self.0.links);
                &read_now
            }
        };
        catalog
            .paths_where(keep)
            .ok_or_else(|| Error::unavailable("the catalog is being built; try again shortly"))
    }

    /// The source an import names and how its rows become pages; a bad source, connection,
    /// prefix or template is refused here, before anything is read.
    fn prepare(&self, request: &ImportRequest) -> Result<(Source, Plan)> {
        let kind = SourceKind::parse(&request.source).map_err(error)?;
        let connection = &request.connection;
        let (field, given) = match kind.place() {
            Place::Folder => (
                "path",
                connection.path.as_deref().or(connection.file.as_deref()),
            ),
            Place::File => ("file", connection.file.as_deref()),
            Place::Server => ("dsn", connection.dsn.as_deref()),
            // A web service's URL may be left out (its real one); checked below with the
            // service's other fields.
            Place::Service => ("uri", connection.uri.as_deref().or(Some("default"))),
        };
        let given = required(
            given,
            &format!("a `{}` import needs `connection.{field}`", kind.id()),
        )?;
        let wire = mongo_wire_uri(kind, connection.uri.as_deref(), connection.dsn.as_deref());
        let location = match (wire, kind.place()) {
            (Some(uri), _) => Location::Mongo(
                quire_import::mongo::Target::new(
                    uri,
                    connection.database.as_deref(),
                    connection.collection.as_deref().unwrap_or(""),
                )
                .map_err(error)?,
            ),
            (None, Place::Server) => {
                Location::Server(Dsn::parse(given, kind.schemes()).map_err(error)?)
            }
            (None, Place::Service) => {
                Location::Service(web_service(kind, connection).map_err(error)?)
            }
            (None, _) => {
                Location::Path(quire_import::locate(self.0.root.dir(), given).map_err(error)?)
            }
        };
        let query = request
            .query
            .as_deref()
            .map(str::trim)
            .filter(|q| !q.is_empty());
        let source_id = match connection.name.as_deref().map(str::trim) {
            Some(name) if !name.is_empty() => name.to_string(),
            _ => source_name(kind, &location, query),
        };
        let mapping = request
            .mapping
            .as_ref()
            .map(|m| Mapping {
                path: m.path.clone(),
                title: m.title.clone(),
                content: m.content.clone(),
                frontmatter: m
                    .frontmatter
                    .as_ref()
                    .map(|f| f.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
            })
            .unwrap_or_default();
        let plan = Plan::new(
            kind,
            &source_id,
            &mapping,
            request.prefix.as_deref(),
            request.id_column.as_deref(),
        )
        .map_err(error)?;
        Ok((
            Source {
                kind,
                location,
                query: query.map(str::to_string),
                sheet: request.sheet.clone(),
            },
            plan,
        ))
    }

    /// Checks an export and lists its pages; nothing is read yet. `include-embeddings` is
    /// 503 without vector search, an unknown format 400. A CSV export without `columns`
    /// takes the union of the pages' keys, a Parquet export with `columns` each column's
    /// type ([`ColumnKind`]), from the catalog (in memory, no page file read).
    pub fn export_plan(&self, request: &ExportRequest) -> Result<ExportPlan> {
        let format = Format::parse(&request.format).map_err(error)?;
        if request.include_embeddings {
            // 503 with vector search off, as its routes answer.
            crate::find::Find(self.0).vectors()?;
        }
        let folder = match request.path.as_deref().map(|p| p.trim().trim_matches('/')) {
            None | Some("") => None,
            Some(p) => Some(PagePath::new(p)?.to_string()),
        };
        let below = |path: &str| {
            folder.as_deref().is_none_or(|f| {
                path.strip_prefix(f)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            })
        };
        let mut paths: Vec<PagePath> = {
            let vault = self.0.links.vault();
            vault
                .files()
                .filter(|p| p.is_page() && below(p.as_str()))
                .cloned()
                .collect()
        };
        paths.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        if let Some(limit) = request.limit {
            paths.truncate(limit);
        }
        let columns: Option<Vec<String>> = request.columns.as_deref().map(|c| {
            c.split(',')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect()
        });
        let columns = match (format, columns) {
            (_, Some(columns)) => Some(columns),
            (Format::Jsonl | Format::Parquet, None) => None,
            // CSV needs its header first: the union of the pages' keys, from the catalog.
            (Format::Csv, None) => {
                let wanted: BTreeSet<&str> = paths.iter().map(PagePath::as_str).collect();
                let keys = std::cell::RefCell::new(BTreeSet::new());
                self.catalog_paths(|page| {
                    if let Some(fm) = page.frontmatter.as_object() {
                        if wanted.contains(page.path.as_str()) {
                            keys.borrow_mut().extend(fm.keys().cloned());
                        }
                    }
                    false
                })?;
                Some(keys.into_inner().into_iter().collect())
            }
        };
        let kinds = match (format, &columns) {
            (Format::Parquet, Some(columns)) => {
                let wanted: BTreeSet<&str> = paths.iter().map(PagePath::as_str).collect();
                let kinds = std::cell::RefCell::new(vec![ColumnKind::Empty; columns.len()]);
                self.catalog_paths(|page| {
                    if let Some(fm) = page.frontmatter.as_object() {
                        if wanted.contains(page.path.as_str()) {
                            let mut kinds = kinds.borrow_mut();
                            for (kind, column) in kinds.iter_mut().zip(columns) {
                                if let Some(value) = fm.get(column) {
                                    *kind = kind.with(value);
                                }
                            }
                        }
                    }
                    false
                })?;
                Some(kinds.into_inner())
            }
            _ => None,
        };
        Ok(ExportPlan {
            encoder: Encoder {
                format,
                columns,
                content: request.include_content,
                links: request.include_links,
                embeddings: request.include_embeddings,
                kinds,
            },
            paths,
        })
    }

    /// Writes the export to `sink` a page at a time: the header, then a row per page (a page
    /// gone since the plan is left out). `sink` answering `false` stops it (the client went).
    /// Answers the rows written.
    pub fn export(
        &self,
        plan: &ExportPlan,
        sink: &mut dyn FnMut(Vec<u8>) -> bool,
    ) -> Result<usize> {
        let header = plan.encoder.header();
        if !header.is_empty() && !sink(header) {
            return Ok(0);
        }
        self.export_rows(plan, &mut |row| sink(plan.encoder.row(&row)))
    }

    /// Reads the plan's pages one at a time and hands each row to `sink` (a page gone since
    /// the plan is left out); `sink` answering `false` stops it. For encoders that are not
    /// the plan's own (Parquet, `quire-parquet`). Answers the rows handed over.
    pub fn export_rows(
        &self,
        plan: &ExportPlan,
        sink: &mut dyn FnMut(ExportRow) -> bool,
    ) -> Result<usize> {
        let typed = plan.encoder.format == Format::Parquet;
        let mut rows = 0;
        for path in &plan.paths {
            let bytes = match self.0.root.read(path) {
                Ok(bytes) => bytes,
                Err(StoreError::NotFound { .. }) => continue,
                Err(e) => return Err(e.into()),
            };
            let text = String::from_utf8_lossy(&bytes);
            let parsed = quire_syntax::parse(&text);
            let frontmatter = match parsed.frontmatter.as_ref().map(|f| &f.value) {
                Some(Value::Object(map)) => map.clone(),
                _ => Default::default(),
            };
            let links = plan.encoder.links.then(|| {
                let vault = self.0.links.vault();
                let mut out: Vec<String> = Vec::new();
                for link in &parsed.links {
                    if let Some(target) = vault.resolve(path, link).path() {
                        let target = target.to_string();
                        if !out.contains(&target) {
                            out.push(target);
                        }
                    }
                }
                out
            });
            let (title, tags, modified_ms) = if typed {
                let mut tags: Vec<String> = Vec::new();
                for tag in &parsed.tags {
                    if !tags.contains(&tag.name) {
                        tags.push(tag.name.clone());
                    }
                }
                let title = self
                    .0
                    .links
                    .vault()
                    .title(path)
                    .map_or_else(|| path.stem().to_string(), str::to_string);
                let modified = self
                    .0
                    .root
                    .modified(&quire_store::DiskName::from(path))
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map(|d| d.as_millis() as i64);
                (title, tags, modified)
            } else {
                Default::default()
            };
            let row = ExportRow {
                path: path.to_string(),
                title,
                tags,
                modified_ms,
                frontmatter,
                content: plan
                    .encoder
                    .content
                    .then(|| text.get(parsed.body_start..).unwrap_or("").to_string()),
                links,
                embeddings: self.embeddings_of(plan, path)?,
            };
            if !sink(row) {
                break;
            }
            rows += 1;
        }
        Ok(rows)
    }
}

impl Import<'_> {
    /// A page's chunk vectors as stored, when the export asks for them (a page not embedded
    /// yet has none).
    fn embeddings_of(&self, plan: &ExportPlan, path: &PagePath) -> Result<Option<Vec<Vec<f32>>>> {
        if !plan.encoder.embeddings {
            return Ok(None);
        }
        let vectors = crate::find::Find(self.0).vectors()?;
        let chunks = vectors.store().chunks_of(path.as_str())?;
        Ok(Some(chunks.into_iter().map(|c| c.vector).collect()))
    }
}

/// `_source` when the connection names none: `<source>:<file or folder name>`, or for a
/// server `<source>:<host:port>/<database>` (never its user or password), for a web service
/// `<source>:<host>/<database_id | base_id/table_id | index | …>`; a table adds
/// `/<table>` (a Redis key pattern too), a query `#<first 8 hex digits of its SHA-256>`.
fn source_name(kind: SourceKind, location: &Location, query: Option<&str>) -> String {
    let name = match location {
        Location::Path(path) => path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "root".to_string()),
        Location::Server(dsn) => format!("{}/{}", dsn.place(), dsn.database()),
        Location::Service(service) => return service.source_name(kind),
        Location::Mongo(target) => return target.source_name(),
    };
    let is_sql = matches!(
        kind,
        SourceKind::Sqlite | SourceKind::Postgres | SourceKind::Mysql
    );
    let kind_id = kind.id();
    match query {
        Some(q) if kind == SourceKind::Redis => format!("redis:{name}/{q}"),
        Some(q)
            if is_sql
                && q.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.') =>
        {
            format!("{kind_id}:{name}/{q}")
        }
        Some(q) if is_sql => {
            let digest = sha2::Sha256::digest(q.as_bytes());
            let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
            format!("{kind_id}:{name}#{hex}")
        }
        _ => format!("{kind_id}:{name}"),
    }
}

/// The URI of a `mongodb` source read over the wire protocol: `uri` when it is
/// `mongodb://` or `mongodb+srv://` (an `https://` one is the Data API), else `dsn`.
fn mongo_wire_uri<'a>(
    kind: SourceKind,
    uri: Option<&'a str>,
    dsn: Option<&'a str>,
) -> Option<&'a str> {
    if kind != SourceKind::Mongodb {
        return None;
    }
    uri.filter(|u| quire_import::mongo::is_wire_uri(u))
        .or_else(|| dsn.map(str::trim).filter(|d| !d.is_empty()))
}

/// The web service an import's connection names (`uri`, `api_key` and the source's fields).
fn web_service(
    kind: SourceKind,
    connection: &quire_api::ImportConnection,
) -> std::result::Result<quire_import::web::Service, ImportError> {
    let field = |v: &Option<String>| {
        v.as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    quire_import::web::Service::new(
        kind,
        connection.uri.as_deref(),
        quire_import::web::Service {
            api_key: connection.api_key.clone(),
            credentials: credentials_text(connection.credentials.as_ref())?,
            database_id: field(&connection.database_id),
            base_id: field(&connection.base_id),
            table_id: field(&connection.table_id),
            table: field(&connection.table),
            collection: field(&connection.collection),
            database: field(&connection.database),
            project: field(&connection.project),
            ..Default::default()
        },
    )
}

/// The fields a browse of a web service cannot do without, each a 400 naming it (as browse
/// names it: `database_id`, not `connection.database_id`) before anything is sent.
/// (Firestore's `api_key` or `credentials` is checked by `Service::new`, which names both.)
fn browse_needs(kind: SourceKind, request: &ImportBrowseRequest) -> Result<()> {
    let needed: &[(&str, &Option<String>, &str)] = match kind {
        SourceKind::Notion => &[("api_key", &request.api_key, "")],
        SourceKind::Airtable => &[
            ("base_id", &request.base_id, ""),
            ("api_key", &request.api_key, ""),
        ],
        SourceKind::Elasticsearch => &[("uri", &request.uri, " (the server's URL)")],
        SourceKind::Firestore => &[("project", &request.project, "")],
        SourceKind::Gsheets => &[
            (
                "database_id",
                &request.database_id,
                " (the spreadsheet's id)",
            ),
            ("api_key", &request.api_key, " (an OAuth access token)"),
        ],
        SourceKind::Confluence => &[
            (
                "uri",
                &request.uri,
                " (the site's Confluence URL, `https://<site>.atlassian.net/wiki`)",
            ),
            ("api_key", &request.api_key, ""),
        ],
        SourceKind::Dynamodb => &[(
            "api_key",
            &request.api_key,
            " (`ACCESS_KEY_ID:SECRET_ACCESS_KEY`; the server's own AWS credentials are never \
             used)",
        )],
        _ => &[],
    };
    for (name, given, what) in needed {
        required(
            given.as_deref(),
            &format!("a `{}` browse needs `{name}`{what}", kind.id()),
        )?;
    }
    Ok(())
}

/// The web service a browse names: its fields stand in where browse needs none
/// (`browse_needs` has checked the ones it needs; the stand-ins never hide those).
fn browse_service(
    kind: SourceKind,
    request: &ImportBrowseRequest,
) -> std::result::Result<quire_import::web::Service, ImportError> {
    let stand_in = Some("-".to_string());
    quire_import::web::Service::new(
        kind,
        request.uri.as_deref(),
        quire_import::web::Service {
            api_key: request.api_key.clone(),
            credentials: credentials_text(request.credentials.as_ref())?,
            database_id: match kind {
                SourceKind::Gsheets => request.database_id.clone(),
                _ => stand_in.clone(),
            },
            base_id: request.base_id.clone(),
            table_id: stand_in.clone(),
            table: stand_in.clone(),
            collection: stand_in,
            project: request.project.clone(),
            database: request.database.clone(),
            ..Default::default()
        },
    )
}

/// A service account key given as `credentials` (Firestore): a JSON object, or a string
/// holding one, as JSON text.
fn credentials_text(
    given: Option<&serde_json::Value>,
) -> std::result::Result<Option<String>, ImportError> {
    match given {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(text)) => Ok(Some(text.clone())),
        Some(key @ serde_json::Value::Object(_)) => Ok(Some(key.to_string())),
        Some(_) => Err(ImportError::BadRequest(
            "`credentials` is a service account key: a JSON object, or a string holding one"
                .to_string(),
        )),
    }
}

/// `given`, trimmed, or a 400 saying `missing` when it is absent or blank.
fn required<'a>(given: Option<&'a str>, missing: &str) -> Result<&'a str> {
    given
        .map(str::trim)
        .filter(|g| !g.is_empty())
        .ok_or_else(|| Error::bad_request(missing.to_string()))
}

fn row_errors(errors: Vec<quire_import::RowError>) -> Vec<ImportRowError> {
    errors
        .into_iter()
        .map(|e| ImportRowError {
            row: e.row,
            error: e.error,
        })
        .collect()
}

/// An import error as the service's.
fn error(e: ImportError) -> Error {
    match e {
        ImportError::BadRequest(m) => Error::bad_request(m),
        ImportError::NotFound(m) => Error::not_found(m),
        ImportError::TooLarge(m) => Error::new(ErrorCode::TooLarge, m),
        ImportError::NotBuilt(m) => Error::new(ErrorCode::NotImplemented, m),
        ImportError::Io(m) => Error::internal(m),
    }
}
