//! Ingestion and clipping of a space: a document (docx, odt, pptx, epub, html, pdf) becomes
//! pages in ONE pipeline pass (one commit by the caller, `ingest` by default), and a web
//! article becomes one page (by `clipper` by default).
//!
//! Converting, splitting and fetching are `quire-ingest`'s; here: the file is found inside
//! the root like an import's (`quire_import::locate`: the root or an upload, never outside,
//! never `.git/` or `.quire/` but uploads), every page gets its frontmatter (`title`,
//! `source`, `keywords`), pages already holding exactly these bytes are left alone, and
//! everything is checked before anything is written: an unsupported format, a corrupt file
//! or a limit refuses the whole request.

use quire_api::{ClipRequest, ClipResult, IngestRequest, IngestResult, SplitMode};
use quire_ingest::{Format, IngestError, Limits, PageOptions};
use quire_store::StoreError;
use quire_vault::PagePath;
use serde_json::Value;

use crate::change::{Announce, Change, CommitMode, Expect, FileOp, WriteOptions};
use crate::core::SpaceCore;
use crate::error::{Error, ErrorCode, Result};
use crate::events::now_rfc3339;

/// The author of an ingestion that names none.
pub const INGEST_ACTOR: &str = "ingest";
/// The author of a clip that names none (the spec's default).
pub const CLIP_ACTOR: &str = "clipper";
/// Keywords per page when the request names no `max_keywords`, and the most it may ask for.
pub const KEYWORDS_DEFAULT: usize = 5;
pub const KEYWORDS_MAX: usize = 20;
/// The folder of clips when the request names no `path` or `prefix`.
pub const CLIPS_DIR: &str = "clips";

/// Ingestion and clipping of one space.
pub struct Ingest<'a>(pub(crate) &'a SpaceCore);

fn error(e: IngestError) -> Error {
    match e {
        IngestError::Unsupported(m) => Error::new(ErrorCode::UnsupportedMediaType, m),
        IngestError::Corrupt(m) | IngestError::BadRequest(m) => Error::bad_request(m),
        IngestError::TooLarge(m) => Error::new(ErrorCode::TooLarge, m),
        IngestError::Fetch(m) => Error::new(ErrorCode::BadGateway, m),
    }
}

fn import_error(e: quire_import::ImportError) -> Error {
    use quire_import::ImportError as E;
    match e {
        E::BadRequest(m) => Error::bad_request(m),
        E::NotFound(m) => Error::not_found(m),
        E::TooLarge(m) => Error::new(ErrorCode::TooLarge, m),
        E::NotBuilt(m) => Error::new(ErrorCode::NotImplemented, m),
        E::Io(m) => Error::internal(m),
    }
}

/// A folder given by the caller: `\` as `/`, no leading or trailing `/`.
fn folder(prefix: Option<&str>) -> String {
    prefix
        .unwrap_or("")
        .replace('\\', "/")
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/")
}

impl Ingest<'_> {
    /// Converts `request.file` and writes its pages in one commit.
    pub fn run(&self, request: &IngestRequest, opts: &WriteOptions) -> Result<IngestResult> {
        let file = request.file.trim();
        if file.is_empty() {
            return Err(Error::bad_request("`file` names no document"));
        }
        let format = Format::of_name(file).map_err(error)?;
        let max_keywords = request.max_keywords.unwrap_or(KEYWORDS_DEFAULT);
        if !(1..=KEYWORDS_MAX).contains(&max_keywords) {
            return Err(Error::bad_request(format!(
                "`max_keywords` is between 1 and {KEYWORDS_MAX}, not {max_keywords}"
            )));
        }
        let location = quire_import::locate(self.0.root.dir(), file).map_err(import_error)?;
        let limits = Limits::default();
        let bytes = quire_ingest::read_file(&location, &limits).map_err(error)?;
        let doc = quire_ingest::convert(format, &bytes, &limits).map_err(|e| match e {
            IngestError::Corrupt(m) => {
                Error::bad_request(format!("{file:?} is not a readable {}: {m}", format.name()))
            }
            e => error(e),
        })?;
        drop(bytes);
        let name = file.rsplit('/').next().unwrap_or(file);
        let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
        let options = PageOptions {
            split: match request.split_mode {
                SplitMode::Single => quire_ingest::SplitMode::Single,
                SplitMode::Heading => quire_ingest::SplitMode::Heading,
            },
            prefix: folder(request.prefix.as_deref()),
            stem: stem.to_string(),
            keywords: if request.extract_keywords.unwrap_or(true) {
                max_keywords
            } else {
                0
            },
            crossrefs: request.convert_crossrefs.unwrap_or(true),
            max_pages: limits.max_pages,
        };
        let pages = quire_ingest::paginate(&doc, &options).map_err(error)?;
        let mut ops = Vec::new();
        let mut result = IngestResult {
            pages: Vec::new(),
            title: doc.title().unwrap_or_else(|| stem.to_string()),
            format: format.name().to_string(),
            unchanged: 0,
            commit: None,
        };
        for page in pages {
            let path = PagePath::new(&page.path)?;
            let mut editor = quire_syntax::FrontmatterEditor::new(&page.body);
            editor.set("title", &Value::String(page.title.clone()));
            editor.set("source", &Value::String(name.to_string()));
            if !page.keywords.is_empty() {
                editor.set(
                    "keywords",
                    &Value::Array(page.keywords.iter().cloned().map(Value::String).collect()),
                );
            }
            let text = editor.finish().into_bytes();
            result.pages.push(path.to_string());
            if self.holds(&path, &text)? {
                result.unchanged += 1;
                continue;
            }
            ops.push(FileOp {
                path,
                content: Some(text),
                expect: Expect::Anything,
            });
        }
        if ops.is_empty() {
            return Ok(result);
        }
        let actor = opts
            .actor
            .clone()
            .filter(|a| !a.trim().is_empty())
            .unwrap_or_else(|| INGEST_ACTOR.to_string());
        let count = result.pages.len();
        let message = opts.message_or(|| {
            format!(
                "Ingest {name} ({count} page{})",
                if count == 1 { "" } else { "s" }
            )
        });
        let announce = if ops.len() == 1 {
            Announce::PerFile
        } else {
            Announce::Bulk
        };
        let applied = self.0.apply(Change {
            ops,
            actor,
            message,
            announce,
            commit: CommitMode::Now,
        })?;
        result.commit = applied.commit;
        Ok(result)
    }

    /// Whether the file at `path` holds exactly `bytes`.
    fn holds(&self, path: &PagePath, bytes: &[u8]) -> Result<bool> {
        match self.0.root.read(path) {
            Ok(current) => Ok(current == bytes),
            Err(StoreError::NotFound { .. }) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// Fetches a web page, keeps its article and writes it as a page.
    pub fn clip(&self, request: &ClipRequest, opts: &WriteOptions) -> Result<ClipResult> {
        let url = quire_ingest::clip::parse_url(&request.url).map_err(error)?;
        let explicit = match request.path.as_deref().map(str::trim) {
            Some(p) if !p.is_empty() => {
                let p = if p.ends_with(".md") {
                    p.to_string()
                } else {
                    format!("{p}.md")
                };
                Some(PagePath::new(&p)?)
            }
            _ => None,
        };
        let fetched = quire_ingest::clip::fetch(&url).map_err(error)?;
        let article = quire_ingest::article::extract(&fetched.html, &fetched.url);
        if article.blocks.iter().all(|b| b.plain().trim().is_empty()) {
            return Err(Error::new(
                ErrorCode::Unprocessable,
                format!("{} holds no article text to clip", fetched.url),
            ));
        }
        let source = fetched.url.to_string();
        let mut body = quire_ingest::to_markdown(&article.blocks);
        if !body.starts_with("# ") {
            body = format!(
                "# {}\n\n{body}",
                quire_ingest::markdown::escape(&article.title)
            );
        }
        let mut editor = quire_syntax::FrontmatterEditor::new(&body);
        editor.set("title", &Value::String(article.title.clone()));
        editor.set("source", &Value::String(source.clone()));
        editor.set("clipped_at", &Value::String(now_rfc3339()));
        if !article.excerpt.is_empty() {
            editor.set("excerpt", &Value::String(article.excerpt.clone()));
        }
        let text = editor.finish().into_bytes();
        let path = match explicit {
            Some(p) => p,
            None => self.clip_path(request.prefix.as_deref(), &article.title, &source)?,
        };
        let actor = opts
            .actor
            .clone()
            .filter(|a| !a.trim().is_empty())
            .unwrap_or_else(|| CLIP_ACTOR.to_string());
        let message = opts.message_or(|| format!("Clip {source}"));
        let applied = self.0.apply(Change {
            ops: vec![FileOp {
                path: path.clone(),
                content: Some(text),
                expect: Expect::Anything,
            }],
            actor,
            message,
            announce: Announce::PerFile,
            commit: CommitMode::AsConfigured,
        })?;
        Ok(ClipResult {
            path: path.to_string(),
            title: article.title,
            excerpt: article.excerpt,
            source,
            commit: applied.commit,
        })
    }

    /// `<prefix>/<slug of the title>.md`; a page already there from another source gets a
    /// number (`-2`, `-3` …), the same source's page is clipped again in place.
    fn clip_path(&self, prefix: Option<&str>, title: &str, source: &str) -> Result<PagePath> {
        let dir = match prefix {
            Some(p) => folder(Some(p)),
            None => CLIPS_DIR.to_string(),
        };
        let stem = match quire_ingest::slug(title) {
            s if s.is_empty() => "clip".to_string(),
            s => s,
        };
        for n in 1..1000 {
            let name = if n == 1 {
                format!("{stem}.md")
            } else {
                format!("{stem}-{n}.md")
            };
            let path = PagePath::new(&if dir.is_empty() {
                name
            } else {
                format!("{dir}/{name}")
            })?;
            match self.0.root.read(&path) {
                Err(StoreError::NotFound { .. }) => return Ok(path),
                Ok(bytes) => {
                    let text = String::from_utf8_lossy(&bytes);
                    let same = quire_syntax::parse(&text)
                        .frontmatter
                        .as_ref()
                        .and_then(|f| f.value.get("source"))
                        .and_then(Value::as_str)
                        == Some(source);
                    if same {
                        return Ok(path);
                    }
                }
                Err(e) => return Err(e.into()),
            }
        }
        Err(Error::new(
            ErrorCode::Conflict,
            format!("too many clips named {stem:?} in {dir:?}"),
        ))
    }
}
