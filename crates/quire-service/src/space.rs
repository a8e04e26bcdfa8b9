//! A space: one knowledge root with its history, in-memory link model, write lock and events.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock};

use quire_store::{etag, History, HistoryOptions, Root, TreeNode};
use quire_vault::{PagePath, Vault};

use crate::error::{Error, Result};
use crate::events::EventBus;
use crate::pipeline::{Announce, Applied, Change, CommitMode, Expect, FileOp};

/// Everything needed to open one space.
#[derive(Debug, Clone)]
pub struct SpaceSettings {
    pub name: String,
    pub root: PathBuf,
    pub history: HistoryOptions,
    pub assets: AssetRules,
    /// `[refactor]`: protect, scope and approval limits.
    pub refactor: quire_config::RefactorConfig,
    /// `[claims]`: whether path claims are available.
    pub claims: quire_config::ClaimsConfig,
}

/// Limits for `POST /assets`.
#[derive(Debug, Clone)]
pub struct AssetRules {
    pub max_file_size: u64,
    /// Media types (`image/png`) or families (`image/*`); empty allows everything.
    pub allowed_types: Vec<String>,
}

impl Default for AssetRules {
    fn default() -> Self {
        AssetRules {
            max_file_size: 10 * 1024 * 1024,
            allowed_types: vec!["image/*".into(), "application/pdf".into()],
        }
    }
}

/// Who writes and how: the headers common to writes.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// `X-Actor`; `None` means the entry point's default actor.
    pub actor: Option<String>,
    /// `X-Provenance`: recorded as `derived-from` in the page's frontmatter.
    pub provenance: Option<String>,
    /// `If-Match`: the ETag the caller read.
    pub if_match: Option<String>,
}

impl WriteOptions {
    pub fn by(actor: &str) -> WriteOptions {
        WriteOptions {
            actor: Some(actor.to_string()),
            ..WriteOptions::default()
        }
    }

    fn actor(&self) -> String {
        self.actor
            .clone()
            .filter(|a| !a.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_ACTOR.to_string())
    }
}

/// The author of writes that name no actor.
pub const DEFAULT_ACTOR: &str = "api";

/// A file's bytes with its ETag (git blob id).
#[derive(Debug, Clone)]
pub struct FileContent {
    pub bytes: Vec<u8>,
    pub etag: String,
}

pub struct Space {
    pub(crate) name: String,
    pub(crate) root: Root,
    pub(crate) history: History,
    pub(crate) vault: RwLock<Vault>,
    /// ETags of the pages and canvases in `vault`, kept by the same index hook, so planning
    /// needs no disk read for pages it does not rewrite.
    pub(crate) etags: RwLock<std::collections::HashMap<PagePath, String>>,
    pub(crate) write_lock: Mutex<()>,
    pub(crate) events: EventBus,
    pub(crate) assets: AssetRules,
    pub(crate) refactor: quire_config::RefactorConfig,
    /// The claim store (index database); `None` = claims not enabled (503).
    pub(crate) claims: Option<std::sync::Arc<quire_index::Index>>,
    /// Serialises read-modify-write of `.quire/state/approvals.json`.
    pub(crate) approvals_lock: Mutex<()>,
}

impl Space {
    /// Opens a space: the root folder must exist. Versioning is set up (a folder that is no git
    /// repository yet becomes one, changes left by a crash are committed) and the in-memory
    /// link model is loaded from the files.
    pub fn open(settings: SpaceSettings) -> Result<Space> {
        let root = Root::open(&settings.root)?;
        let history = History::open(&root, settings.history.clone())?;
        let claims = if settings.claims.enabled {
            crate::claims::open_store(root.dir())
        } else {
            None
        };
        let space = Space {
            name: settings.name,
            root,
            history,
            vault: RwLock::new(Vault::new()),
            etags: RwLock::new(Default::default()),
            write_lock: Mutex::new(()),
            events: EventBus::new(),
            assets: settings.assets,
            refactor: settings.refactor,
            claims,
            approvals_lock: Mutex::new(()),
        };
        space.load_vault()?;
        Ok(space)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn root_dir(&self) -> &Path {
        self.root.dir()
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    pub fn events(&self) -> &EventBus {
        &self.events
    }

    /// Read access to the in-memory link model.
    pub fn vault(&self) -> std::sync::RwLockReadGuard<'_, Vault> {
        self.vault.read().unwrap_or_else(|p| p.into_inner())
    }

    /// `true` when the root folder is reachable (readiness).
    pub fn is_ready(&self) -> bool {
        self.root.dir().is_dir()
    }

    /// Builds the link model from the files: reading and parsing run on every core, the
    /// (cheap) index inserts on one.
    fn load_vault(&self) -> Result<()> {
        let files = self.root.files()?;
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(8);
        let chunk = files.len().div_ceil(threads).max(1);
        let loaded: Vec<Result<Vec<Loaded>>> = std::thread::scope(|scope| {
            let workers: Vec<_> = files
                .chunks(chunk)
                .map(|part| scope.spawn(move || part.iter().map(|p| self.load_file(p)).collect()))
                .collect();
            workers
                .into_iter()
                .map(|w| {
                    w.join()
                        .unwrap_or_else(|_| Err(Error::internal("loader thread panicked")))
                })
                .collect()
        });
        let mut vault = Vault::new();
        let mut etags = std::collections::HashMap::new();
        for part in loaded {
            for item in part? {
                match item {
                    Loaded::Page(path, parsed, etag) => {
                        etags.insert(path.clone(), etag);
                        vault.upsert_parsed(path, parsed)
                    }
                    Loaded::Canvas(path, links, etag) => {
                        etags.insert(path.clone(), etag);
                        let summary = quire_vault::PageSummary::from_canvas(&path, links);
                        vault.upsert_summary(path, summary)
                    }
                    Loaded::Other(path) => {
                        vault.insert_file(path);
                    }
                }
            }
        }
        *self.vault.write().unwrap_or_else(|p| p.into_inner()) = vault;
        *self.etags.write().unwrap_or_else(|p| p.into_inner()) = etags;
        Ok(())
    }

    /// The ETag of an indexed page or canvas, from memory.
    pub(crate) fn cached_etag(&self, path: &PagePath) -> Option<String> {
        self.etags
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(path)
            .cloned()
    }

    fn load_file(&self, path: &PagePath) -> Result<Loaded> {
        if !(path.is_page() || path.is_canvas()) {
            return Ok(Loaded::Other(path.clone()));
        }
        let bytes = self.root.read(path)?;
        let tag = etag(&bytes);
        Ok(match std::str::from_utf8(&bytes) {
            Ok(text) if path.is_page() => {
                Loaded::Page(path.clone(), quire_syntax::parse(text), tag)
            }
            Ok(text) => Loaded::Canvas(path.clone(), quire_syntax::parse_canvas(text), tag),
            Err(_) => Loaded::Other(path.clone()),
        })
    }

    /// The index hook of the pipeline: brings the link model up to date for written files.
    pub(crate) fn index_changes<'a>(
        &self,
        changes: impl Iterator<Item = (&'a PagePath, Option<&'a [u8]>)>,
    ) {
        let mut vault = self.vault.write().unwrap_or_else(|p| p.into_inner());
        let mut etags = self.etags.write().unwrap_or_else(|p| p.into_inner());
        for (path, content) in changes {
            if is_indexed(path) {
                index_file(&mut vault, path, content);
                match content {
                    Some(bytes) if path.is_page() || path.is_canvas() => {
                        etags.insert(path.clone(), etag(bytes));
                    }
                    _ => {
                        etags.remove(path);
                    }
                }
            }
        }
    }

    // ---- reads -------------------------------------------------------------------------

    pub fn read(&self, path: &str) -> Result<FileContent> {
        let path = PagePath::new(path)?;
        let bytes = self.root.read(&path)?;
        let etag = etag(&bytes);
        Ok(FileContent { bytes, etag })
    }

    pub fn tree(&self, under: Option<&str>) -> Result<Vec<TreeNode>> {
        let under = match under.map(str::trim).filter(|s| !s.is_empty() && *s != "/") {
            Some(p) => Some(PagePath::new(p.trim_end_matches('/'))?),
            None => None,
        };
        Ok(self.root.tree(under.as_ref())?)
    }

    pub fn readlink(&self, path: &str) -> Result<String> {
        let path = PagePath::new(path)?;
        Ok(self.root.readlink(&path)?)
    }

    // ---- writes: thin shapes over the one pipeline ---------------------------------------

    /// `PUT /file`: creates or replaces one file.
    pub fn put(&self, path: &str, content: Vec<u8>, opts: &WriteOptions) -> Result<Applied> {
        let path = PagePath::new(path)?;
        let content = with_provenance(&path, content, opts.provenance.as_deref());
        self.apply(Change {
            message: String::new(),
            ops: vec![FileOp {
                path,
                content: Some(content),
                expect: Expect::if_match(opts.if_match.as_deref()),
            }],
            actor: opts.actor(),
            announce: Announce::PerFile,
            commit: CommitMode::AsConfigured,
        })
    }

    /// `DELETE /file`.
    pub fn delete(&self, path: &str, opts: &WriteOptions) -> Result<Applied> {
        let path = PagePath::new(path)?;
        self.apply(Change {
            message: format!("Delete {path}"),
            ops: vec![FileOp {
                path,
                content: None,
                expect: Expect::if_match(opts.if_match.as_deref()),
            }],
            actor: opts.actor(),
            announce: Announce::PerFile,
            commit: CommitMode::AsConfigured,
        })
    }

    /// `POST /bulk`: every file in one atomic commit.
    pub fn bulk(&self, files: Vec<(String, Vec<u8>)>, opts: &WriteOptions) -> Result<Applied> {
        let mut ops = Vec::with_capacity(files.len());
        for (path, content) in files {
            let path = PagePath::new(&path)?;
            let content = with_provenance(&path, content, opts.provenance.as_deref());
            ops.push(FileOp {
                path,
                content: Some(content),
                expect: Expect::Anything,
            });
        }
        let message = match ops.len() {
            1 => format!("Bulk write of {}", ops[0].path),
            n => format!("Bulk write of {n} files"),
        };
        self.apply(Change {
            ops,
            actor: opts.actor(),
            message,
            announce: Announce::Bulk,
            commit: CommitMode::AsConfigured,
        })
    }

    /// `POST /file/append`: adds text at the end of a page (creating it when missing), with
    /// `separator` between the old content and the new text.
    pub fn append(
        &self,
        path: &str,
        text: &[u8],
        separator: &str,
        opts: &WriteOptions,
    ) -> Result<Applied> {
        let page = PagePath::new(path)?;
        // Read and write under one lock would need a read-modify-write primitive; the ETag
        // check makes a concurrent writer in between fail loudly instead of being lost.
        let (mut content, expect) = match self.root.read(&page) {
            Ok(bytes) => {
                let tag = etag(&bytes);
                (bytes, Some(tag))
            }
            Err(quire_store::StoreError::NotFound { .. }) => (Vec::new(), None),
            Err(e) => return Err(e.into()),
        };
        if let (Some(expected), Some(current)) = (&opts.if_match, &expect) {
            if expected.trim().trim_matches('"') != current {
                return Err(Error::conflict(format!(
                    "{page} was modified since the last read (If-Match does not match)"
                )));
            }
        }
        if !content.is_empty() {
            content.extend_from_slice(separator.as_bytes());
        }
        content.extend_from_slice(text);
        self.apply(Change {
            message: format!("Append to {page}"),
            ops: vec![FileOp {
                path: page,
                content: Some(content),
                expect: match expect {
                    Some(tag) => Expect::Etag(tag),
                    None => Expect::Absent,
                },
            }],
            actor: opts.actor(),
            announce: Announce::PerFile,
            commit: CommitMode::AsConfigured,
        })
    }
}

/// One file read and parsed for the link model.
enum Loaded {
    Page(PagePath, quire_syntax::ParsedPage, String),
    Canvas(PagePath, Vec<quire_syntax::Link>, String),
    Other(PagePath),
}

/// Which files the link model holds: everything outside `.quire/`.
fn is_indexed(path: &PagePath) -> bool {
    !path.as_str().starts_with(".quire/")
}

fn index_file(vault: &mut Vault, path: &PagePath, content: Option<&[u8]>) {
    match content {
        None => {
            vault.remove(path);
        }
        Some(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) if path.is_page() => vault.upsert_page(path.clone(), text),
            Ok(text) if path.is_canvas() => vault.upsert_canvas(path.clone(), text),
            _ => {
                vault.insert_file(path.clone());
            }
        },
    }
}

/// `X-Provenance`: a page records where it came from in its `derived-from` frontmatter key.
fn with_provenance(path: &PagePath, content: Vec<u8>, provenance: Option<&str>) -> Vec<u8> {
    let Some(provenance) = provenance.map(str::trim).filter(|p| !p.is_empty()) else {
        return content;
    };
    if !path.is_page() {
        return content;
    }
    let text = match String::from_utf8(content) {
        Ok(text) => text,
        // Not text: there is no frontmatter to annotate, keep the bytes as they are.
        Err(e) => return e.into_bytes(),
    };
    let mut editor = quire_syntax::FrontmatterEditor::new(&text);
    editor.set(
        "derived-from",
        &serde_json::Value::String(provenance.into()),
    );
    editor.finish().into_bytes()
}
