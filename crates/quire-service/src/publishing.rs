//! Publishing pages to readers without an account: `published: true` and `published_at` in
//! the page's frontmatter (as the spec's state table says), written with the line-preserving
//! frontmatter editor, so the state is visible in the file, versioned, and follows the page
//! through moves. Published pages are rendered to HTML (`quire-render`) at `/p/{path}`.
//!
//! What a reader may reach: a published page; an asset (a file that is no page, outside
//! `.quire/`) that a published page links or embeds. Wiki and markdown links resolve exactly
//! as everywhere (DECISIONS §3) and become links only when they reach something a reader may
//! reach; anything else is plain text. The ETag of a rendered page digests the template
//! version, the page's ETag and every answer the resolver gave (which links are live, the
//! ETags of embedded pages), so publishing a linked page or editing an embedded one changes
//! it too.

use std::collections::HashMap;

use quire_api::{Publication, Publications};
use quire_render::{Embed, LinkKind, LinkRef, Resolver};
use quire_store::{etag, StoreError};
use quire_vault::{PagePath, Resolution, Vault};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::change::WriteOptions;
use crate::change::{Announce, Change, CommitMode, Expect, FileOp};
use crate::core::SpaceCore;
use crate::error::{Error, Result};

/// Where published pages are served, relative to the host.
pub const PUBLISHED_PREFIX: &str = "/p/";

/// The one answer for anything `/p/` does not serve: missing, unpublished, private asset,
/// bad path.
pub const NOT_PUBLISHED: &str = "no such published page";

/// What `/p/{path}` serves.
#[derive(Debug, Clone)]
pub enum Served {
    /// A rendered page (`path`: the page's file): a whole HTML document.
    Page {
        path: String,
        html: String,
        etag: String,
    },
    /// An asset a published page links or embeds, as stored.
    Asset {
        bytes: Vec<u8>,
        media_type: &'static str,
        etag: String,
    },
}

/// Publishing of one space.
#[derive(Clone, Copy)]
pub struct Publishing<'a>(pub(crate) &'a SpaceCore);

impl Publishing<'_> {
    /// Where readers find a published page: [`url_of`] on `[server] public_url` when the
    /// server has one (the answer is then a link to hand out), else relative to this server.
    fn public_url_of(&self, path: &PagePath) -> String {
        format!(
            "{}{}",
            self.0.public_url.as_deref().unwrap_or(""),
            url_of(path)
        )
    }

    /// Publishes a page: `published: true`, and `published_at` unless it was published
    /// already (publishing again changes nothing).
    pub fn publish(&self, path: &str, opts: &WriteOptions) -> Result<Publication> {
        let mut out = self.set_published(&[path], opts)?;
        Ok(out.pages.remove(0))
    }

    /// Publishes several pages in one commit: all of them, or none (a missing page is not
    /// found and nothing is written).
    pub fn publish_bulk(&self, paths: &[String], opts: &WriteOptions) -> Result<Publications> {
        if paths.is_empty() {
            return Err(Error::bad_request("paths must name at least one page"));
        }
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        self.set_published(&paths, opts)
    }

    /// Takes a page off `/p/`: `published: false`, `published_at` removed.
    pub fn unpublish(&self, path: &str, opts: &WriteOptions) -> Result<Publication> {
        let page = self.page(path)?;
        let (text, tag) = self.read_page(&page)?;
        let mut editor = quire_syntax::FrontmatterEditor::new(&text);
        editor.set("published", &Value::Bool(false));
        editor.unset("published_at");
        let after = editor.finish();
        let applied = self.0.apply(Change::one(
            FileOp {
                path: page.clone(),
                content: Some(after.into_bytes()),
                expect: Expect::Etag(tag),
            },
            opts,
            || format!("Unpublish {page}"),
        ))?;
        Ok(Publication {
            path: page.to_string(),
            published: false,
            published_at: None,
            url: None,
            title: None,
            etag: applied.files[0].etag.clone(),
        })
    }

    /// Every published page, by path.
    pub fn list(&self) -> Result<Publications> {
        let pages: Vec<(PagePath, String)> = {
            let vault = self.0.links.vault();
            vault
                .pages()
                .filter(|(path, _)| path.is_page() && !path.as_str().starts_with(".quire/"))
                .map(|(path, summary)| (path.clone(), summary.title.clone()))
                .collect()
        };
        let mut out = Vec::new();
        for (path, title) in pages {
            let Ok(bytes) = self.0.root.read(&path) else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            let state = state_of(&text);
            if state.published {
                out.push(Publication {
                    url: Some(self.public_url_of(&path)),
                    path: path.to_string(),
                    published: true,
                    published_at: state.published_at,
                    title: Some(title),
                    etag: None,
                });
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Publications {
            count: out.len(),
            pages: out,
            commit: None,
        })
    }

    /// What `/p/{path}` shows: a published page (`path` with or without `.md`) rendered, or an
    /// asset a published page links or embeds. Everything else is the same not-found
    /// ([`NOT_PUBLISHED`]).
    pub fn serve(&self, path: &str) -> Result<Served> {
        let hidden = || Error::not_found(NOT_PUBLISHED);
        let path = path.trim_end_matches('/');
        let requested = PagePath::new(path).map_err(|_| hidden())?;
        if requested.as_str().starts_with(".quire/") {
            return Err(hidden());
        }
        let page = if requested.is_page() {
            Some(requested.clone())
        } else {
            PagePath::new(&format!("{requested}.md"))
                .ok()
                .filter(|p| matches!(self.0.root.kind(p), Ok(Some(_))))
        };
        if let Some(page) = page {
            let bytes = read_file(self.0, &page)?.ok_or_else(hidden)?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let state = state_of(&text);
            if !state.published {
                return Err(hidden());
            }
            let (html, etag) = self.render(&page, &text, state.published_at.as_deref());
            return Ok(Served::Page {
                path: page.to_string(),
                html,
                etag,
            });
        }
        if !self.asset_is_public(&requested) {
            return Err(hidden());
        }
        let bytes = read_file(self.0, &requested)?.ok_or_else(hidden)?;
        Ok(Served::Asset {
            etag: etag(&bytes),
            media_type: crate::assets::media_type_of(requested.as_str()),
            bytes,
        })
    }

    /// The page a share link opened, as a whole HTML document: its links reach published
    /// pages only, like a published page's.
    pub fn render_shared(&self, shared: &crate::shares::SharedPage) -> Result<String> {
        let page = PagePath::new(&shared.path)?;
        Ok(self.render(&page, &shared.text, None).0)
    }

    /// A page's text rendered as a whole HTML document, links resolved to published pages
    /// only, with its ETag (see the module's notes).
    fn render(&self, page: &PagePath, text: &str, published_at: Option<&str>) -> (String, String) {
        let vault = self.0.links.vault();
        let title = vault
            .title(page)
            .map(str::to_string)
            .unwrap_or_else(|| page.stem().to_string());
        let mut links = PublishedLinks {
            core: self.0,
            vault: &vault,
            answers: Vec::new(),
            published: HashMap::new(),
        };
        let body = quire_render::render(page.as_str(), text, &mut links);
        let html = quire_render::page(
            &quire_render::PageMeta {
                title: &title,
                published_at,
            },
            &body,
        );
        let mut hash = Sha256::new();
        hash.update(quire_render::TEMPLATE_VERSION.as_bytes());
        hash.update([0]);
        hash.update(etag(text.as_bytes()).as_bytes());
        for answer in &links.answers {
            hash.update([0]);
            hash.update(answer.as_bytes());
        }
        let tag = hash
            .finalize()
            .iter()
            .take(20)
            .map(|b| format!("{b:02x}"))
            .collect();
        (html, tag)
    }

    /// An asset is public when a published page links or embeds it.
    fn asset_is_public(&self, asset: &PagePath) -> bool {
        if asset.is_page() || asset.as_str().ends_with(".canvas.json") {
            return false;
        }
        let sources: Vec<PagePath> = {
            let vault = self.0.links.vault();
            if !vault.contains(asset) {
                return false;
            }
            let mut sources: Vec<PagePath> = vault
                .backlinks(asset)
                .into_iter()
                .map(|(source, _)| source)
                .collect();
            sources.dedup();
            sources
        };
        sources.iter().any(|source| {
            read_file(self.0, source)
                .ok()
                .flatten()
                .is_some_and(|bytes| state_of(&String::from_utf8_lossy(&bytes)).published)
        })
    }

    /// Sets `published` on every page of `paths` in one change (`published_at` set when
    /// publishing a page that was not published). Every page is checked before anything is
    /// written; each write expects the ETag read here.
    fn set_published(&self, paths: &[&str], opts: &WriteOptions) -> Result<Publications> {
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let mut ops = Vec::with_capacity(paths.len());
        let mut pages = Vec::with_capacity(paths.len());
        for path in paths {
            let page = self.page(path)?;
            if ops.iter().any(|op: &FileOp| op.path == page) {
                continue;
            }
            let (text, tag) = self.read_page(&page)?;
            let state = state_of(&text);
            let published_at = match (state.published, state.published_at) {
                (true, Some(at)) => at,
                _ => now.clone(),
            };
            let mut editor = quire_syntax::FrontmatterEditor::new(&text);
            editor.set("published", &Value::Bool(true));
            editor.set("published_at", &Value::String(published_at.clone()));
            ops.push(FileOp {
                path: page.clone(),
                content: Some(editor.finish().into_bytes()),
                expect: Expect::Etag(tag),
            });
            pages.push(Publication {
                url: Some(self.public_url_of(&page)),
                path: page.to_string(),
                published: true,
                published_at: Some(published_at),
                title: None,
                etag: None,
            });
        }
        let message = opts.message_or(|| match pages.as_slice() {
            [one] => format!("Publish {}", one.path),
            many => format!("Publish {} pages", many.len()),
        });
        let applied = self.0.apply(Change {
            ops,
            actor: opts.actor(),
            message,
            announce: if pages.len() > 1 {
                Announce::Bulk
            } else {
                Announce::PerFile
            },
            commit: CommitMode::AsConfigured,
        })?;
        for (page, file) in pages.iter_mut().zip(&applied.files) {
            page.etag = file.etag.clone();
        }
        Ok(Publications {
            count: pages.len(),
            pages,
            commit: applied.commit,
        })
    }

    /// A page that can be published: a valid `.md` path outside `.quire/` that exists.
    fn page(&self, path: &str) -> Result<PagePath> {
        let page = PagePath::new(path)?;
        if !page.is_page() || page.as_str().starts_with(".quire/") {
            return Err(Error::bad_request(format!(
                "{page} is not a page: only markdown pages are published"
            )));
        }
        Ok(page)
    }

    fn read_page(&self, page: &PagePath) -> Result<(String, String)> {
        let bytes = read_file(self.0, page)?
            .ok_or_else(|| Error::not_found(format!("{page} does not exist")))?;
        let tag = etag(&bytes);
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::bad_request(format!("{page} is not UTF-8 text")))?;
        Ok((text, tag))
    }
}

fn read_file(core: &SpaceCore, path: &PagePath) -> Result<Option<Vec<u8>>> {
    match core.root.read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(StoreError::NotFound { .. }) | Err(StoreError::IsFolder { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Where a reader finds a page or asset: `/p/` and the path, pages without `.md`.
pub fn url_of(path: &PagePath) -> String {
    let shown = path.as_str();
    let shown = if path.is_page() {
        shown.strip_suffix(".md").unwrap_or(shown)
    } else {
        shown
    };
    format!(
        "{PUBLISHED_PREFIX}{}",
        quire_api::workspace_edit::encode_uri_path(shown)
    )
}

/// A page's publication as its frontmatter says.
struct State {
    published: bool,
    published_at: Option<String>,
}

fn state_of(text: &str) -> State {
    let front = quire_syntax::parse_frontmatter(text);
    let value = front.as_ref().map(|f| &f.value);
    let published = match value.and_then(|v| v.get("published")) {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s.trim().eq_ignore_ascii_case("true"),
        _ => false,
    };
    let published_at = value
        .and_then(|v| v.get("published_at"))
        .and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            other if !other.is_null() => Some(other.to_string()),
            _ => None,
        });
    State {
        published,
        published_at,
    }
}

/// The resolver of published pages: links reach published pages and the assets they use.
/// Remembers each answer for the ETag.
struct PublishedLinks<'a> {
    core: &'a SpaceCore,
    vault: &'a Vault,
    answers: Vec<String>,
    /// Page → its text when published (`None`: not published or unreadable).
    published: HashMap<PagePath, Option<String>>,
}

impl PublishedLinks<'_> {
    fn resolve(&self, from: &str, link: LinkRef<'_>) -> Option<PagePath> {
        let from = PagePath::new(from).ok()?;
        let resolution = match link.kind {
            LinkKind::Wiki => self.vault.resolve_wiki(&from, link.target),
            LinkKind::Markdown => self.vault.resolve_markdown(&from, link.target),
        };
        match resolution {
            Resolution::Resolved { path, .. } if !path.as_str().starts_with(".quire/") => {
                Some(path)
            }
            _ => None,
        }
    }

    fn published_text(&mut self, page: &PagePath) -> Option<String> {
        if let Some(known) = self.published.get(page) {
            return known.clone();
        }
        let text = read_file(self.core, page)
            .ok()
            .flatten()
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .filter(|text| state_of(text).published);
        self.published.insert(page.clone(), text.clone());
        text
    }
}

impl Resolver for PublishedLinks<'_> {
    fn href(&mut self, from: &str, link: LinkRef<'_>) -> Option<String> {
        let answer = self.resolve(from, link).and_then(|path| {
            if path.is_page() {
                self.published_text(&path).map(|_| url_of(&path))
            } else if path.as_str().ends_with(".canvas.json") {
                None
            } else {
                Some(url_of(&path))
            }
        });
        self.answers
            .push(format!("href {from} {} {answer:?}", link.target));
        answer
    }

    fn embed(&mut self, from: &str, link: LinkRef<'_>) -> Option<Embed> {
        let answer = self.resolve(from, link).and_then(|path| {
            if path.is_page() {
                self.published_text(&path).map(|text| Embed::Page {
                    path: path.to_string(),
                    text,
                })
            } else if path.as_str().ends_with(".canvas.json") {
                None
            } else {
                Some(Embed::Image { src: url_of(&path) })
            }
        });
        let seen = match &answer {
            Some(Embed::Page { path, text }) => format!("page {path} {}", etag(text.as_bytes())),
            Some(Embed::Image { src }) => format!("image {src}"),
            None => "none".to_string(),
        };
        self.answers
            .push(format!("embed {from} {} {seen}", link.target));
        answer
    }
}
