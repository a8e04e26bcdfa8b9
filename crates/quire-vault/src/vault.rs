//! `Vault`: the snapshot of a root's files, page summaries and the resolution indexes.

use std::collections::BTreeMap;

use quire_syntax::{parse, parse_canvas, slug, BlockId, Heading, Link, LinkKind, ParsedPage};
use serde::Serialize;

use crate::index::Index;
use crate::keys::NameKeys;
use crate::path::PagePath;
use crate::resolve::{self, Resolution, Step};

/// What the vault keeps of one parsed page (or canvas).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PageSummary {
    /// Frontmatter `title`, else the first H1 text, else the stem.
    pub title: String,
    pub headings: Vec<Heading>,
    pub block_ids: Vec<BlockId>,
    pub links: Vec<Link>,
}

impl PageSummary {
    /// Summarises a parsed page stored at `path`.
    pub fn from_parsed(path: &PagePath, parsed: ParsedPage) -> PageSummary {
        PageSummary {
            title: title_of(path, &parsed),
            headings: parsed.headings,
            block_ids: parsed.block_ids,
            links: parsed.links,
        }
    }

    /// Summarises a canvas from its file references.
    pub fn from_canvas(path: &PagePath, links: Vec<Link>) -> PageSummary {
        PageSummary {
            title: fallback_title(path).to_owned(),
            headings: Vec::new(),
            block_ids: Vec::new(),
            links,
        }
    }

    /// Does `fragment` (a link's text after `#`) name something in this page?
    /// `^id` names a block id; anything else a heading, by its text, or by slug so that
    /// `#next-steps` and `#Next Steps` both find `## Next Steps`.
    pub fn has_anchor(&self, fragment: &str) -> bool {
        match fragment.strip_prefix('^') {
            Some(id) => self.block_ids.iter().any(|b| b.id == id),
            None => {
                if self.headings.iter().any(|h| h.text == fragment) {
                    return true;
                }
                let wanted = slug(fragment);
                self.headings.iter().any(|h| h.slug == wanted)
            }
        }
    }
}

fn title_of(path: &PagePath, parsed: &ParsedPage) -> String {
    let frontmatter = parsed
        .frontmatter
        .as_ref()
        .and_then(|fm| fm.value.get("title"))
        .and_then(|value| match value.as_str() {
            Some(text) => Some(text.trim().to_owned()),
            // `title: 2024` is a YAML number but clearly meant as text.
            None if value.is_number() => Some(value.to_string()),
            None => None,
        })
        .filter(|title| !title.is_empty());
    frontmatter
        .or_else(|| {
            parsed
                .headings
                .iter()
                .find(|h| h.level == 1)
                .map(|h| h.text.trim().to_owned())
                .filter(|title| !title.is_empty())
        })
        .unwrap_or_else(|| fallback_title(path).to_owned())
}

/// The title of a file that says nothing about itself: its stem, and for a canvas its
/// name without `.canvas.json` (`plan`, not `plan.canvas`).
fn fallback_title(path: &PagePath) -> &str {
    let name = path.name();
    match name.strip_suffix(".canvas.json") {
        Some(title) if !title.is_empty() => title,
        _ => path.stem(),
    }
}

/// Every file of a root, with a summary for each page and canvas whose text was given,
/// and the indexes link resolution needs. Updated one file at a time.
///
/// Pure data: the caller reads the disk and feeds the vault; the vault never fails on
/// content, it only answers questions.
#[derive(Debug, Clone, Default)]
pub struct Vault {
    /// All files in byte order; `Some` for pages and canvases whose text was given.
    files: BTreeMap<PagePath, Option<PageSummary>>,
    index: Index,
}

impl Vault {
    pub fn new() -> Vault {
        Vault::default()
    }

    /// Records that `path` exists (an asset, or a page whose text comes later).
    /// A summary the file already has is kept. Returns true when the file is new.
    pub fn insert_file(&mut self, path: PagePath) -> bool {
        if self.files.contains_key(&path) {
            return false;
        }
        self.index.insert(&path);
        self.files.insert(path, None);
        true
    }

    /// Adds or replaces the page at `path` (normally a `.md` file), parsing `text`.
    pub fn upsert_page(&mut self, path: PagePath, text: &str) {
        self.upsert_parsed(path, parse(text));
    }

    /// Adds or replaces the canvas at `path`, keeping its file references as links.
    pub fn upsert_canvas(&mut self, path: PagePath, text: &str) {
        let summary = PageSummary::from_canvas(&path, parse_canvas(text));
        self.upsert_summary(path, summary);
    }

    /// Adds or replaces the page at `path` with the summary of an already parsed text
    /// (for callers that parse anyway, e.g. the indexer).
    pub fn upsert_parsed(&mut self, path: PagePath, parsed: ParsedPage) {
        let summary = PageSummary::from_parsed(&path, parsed);
        self.upsert_summary(path, summary);
    }

    /// Adds or replaces the file at `path` with a ready-made summary.
    pub fn upsert_summary(&mut self, path: PagePath, summary: PageSummary) {
        match self.files.get_mut(&path) {
            Some(slot) => *slot = Some(summary),
            None => {
                self.index.insert(&path);
                self.files.insert(path, Some(summary));
            }
        }
    }

    /// Forgets `path`. Returns true when it was there.
    pub fn remove(&mut self, path: &PagePath) -> bool {
        match self.files.remove_entry(path) {
            Some((stored, _)) => {
                self.index.remove(&stored);
                true
            }
            None => false,
        }
    }

    pub fn contains(&self, path: &PagePath) -> bool {
        self.files.contains_key(path)
    }

    /// Every file, in byte order of the path.
    pub fn files(&self) -> impl Iterator<Item = &PagePath> + '_ {
        self.files.keys()
    }

    /// Every file that has a summary, in byte order of the path.
    pub fn pages(&self) -> impl Iterator<Item = (&PagePath, &PageSummary)> + '_ {
        self.files
            .iter()
            .filter_map(|(path, summary)| summary.as_ref().map(|s| (path, s)))
    }

    pub fn page(&self, path: &PagePath) -> Option<&PageSummary> {
        self.files.get(path)?.as_ref()
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The lookup tables, for an overlay that answers by the difference from them.
    pub(crate) fn index(&self) -> &Index {
        &self.index
    }

    /// The page's title; for files without a summary the stem (a canvas's name without
    /// `.canvas.json`); `None` when the file is absent.
    pub fn title<'a>(&'a self, path: &PagePath) -> Option<&'a str> {
        let (stored, summary) = self.files.get_key_value(path)?;
        Some(match summary {
            Some(summary) => &summary.title,
            None => fallback_title(stored),
        })
    }

    /// Resolves a wiki target written in `from` (no `#fragment`, no `|alias`).
    pub fn resolve_wiki(&self, from: &PagePath, target: &str) -> Resolution {
        resolve::wiki(&self.index, from, target)
    }

    /// Resolves a markdown destination written in `from`, already percent-decoded.
    pub fn resolve_markdown(&self, from: &PagePath, dest: &str) -> Resolution {
        resolve::markdown(&self.index, from, dest)
    }

    /// Resolves a canvas file reference: a root-relative path, matched exactly.
    pub fn resolve_canvas(&self, target: &str) -> Resolution {
        resolve::canvas(&self.index, target)
    }

    /// Resolves a link occurrence of `from` by the rules of its kind
    /// (frontmatter links are wiki links).
    pub fn resolve(&self, from: &PagePath, link: &Link) -> Resolution {
        self.resolve_target(from, link.kind, &link.target)
    }

    /// Resolves `target` of a link of `kind` written in `from`: [`Vault::resolve`] for a
    /// target other than the link's own (a candidate rewrite, say).
    pub fn resolve_target(&self, from: &PagePath, kind: LinkKind, target: &str) -> Resolution {
        resolve::target(&self.index, from, kind, target)
    }

    /// Every link of every summarised page with its resolution, by source path, then by
    /// position in the source. One pass serves the link graph, broken links and
    /// backlink counts.
    pub fn resolved_links(&self) -> impl Iterator<Item = (&PagePath, &Link, Resolution)> + '_ {
        self.pages().flat_map(move |(source, summary)| {
            summary
                .links
                .iter()
                .map(move |link| (source, link, self.resolve(source, link)))
        })
    }

    /// Every link of a page (or canvas) that resolves to `target`, by source path, then by
    /// position in the source. Same-page links (`[[#Heading]]`) are not backlinks; a page
    /// linking itself by name is.
    ///
    /// Only links whose last segment folds to the target's name or stem can reach it, so only
    /// those are resolved.
    pub fn backlinks(&self, target: &PagePath) -> Vec<(PagePath, Link)> {
        let mut keys = NameKeys::new();
        keys.add(target);
        let mut buffer = String::new();
        self.pages()
            .flat_map(|(source, summary)| summary.links.iter().map(move |link| (source, link)))
            .filter(|(_, link)| keys.may_reach(link, &mut buffer))
            .filter(|(source, link)| match self.resolve(source, link) {
                Resolution::Resolved { path, step, .. } => {
                    step != Step::SamePage && &path == target
                }
                Resolution::Unresolved => false,
            })
            .map(|(source, link)| (source.clone(), link.clone()))
            .collect()
    }
}

impl Extend<PagePath> for Vault {
    fn extend<I: IntoIterator<Item = PagePath>>(&mut self, files: I) {
        for path in files {
            self.insert_file(path);
        }
    }
}

impl FromIterator<PagePath> for Vault {
    fn from_iter<I: IntoIterator<Item = PagePath>>(files: I) -> Vault {
        let mut vault = Vault::new();
        vault.extend(files);
        vault
    }
}
