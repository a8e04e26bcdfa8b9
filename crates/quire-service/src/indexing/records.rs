//! What the index and the query catalog hold of one page, made from its text and the link
//! model: the one place a page is summarised for finding.

use chrono::{DateTime, FixedOffset, Utc};
use quire_query::dql::PageData;
use quire_syntax::ParsedPage;
use quire_vault::{PagePath, Vault};

/// One page read for indexing: the parse, the text and what the disk says about it.
pub(crate) struct PageText<'a> {
    pub path: &'a PagePath,
    pub text: &'a str,
    pub parsed: &'a ParsedPage,
    pub size: u64,
    /// Last modification on disk, milliseconds since the epoch.
    pub mtime_ms: i64,
}

impl PageText<'_> {
    /// The body without the frontmatter block.
    pub fn body(&self) -> &str {
        self.text.get(self.parsed.body_start..).unwrap_or("")
    }

    /// Tags from the frontmatter and the body, without `#`, each once, in order of first use.
    pub fn tags(&self) -> Vec<String> {
        let mut tags: Vec<String> = Vec::new();
        for tag in &self.parsed.tags {
            if !tags.iter().any(|t| t == &tag.name) {
                tags.push(tag.name.clone());
            }
        }
        tags
    }

    pub fn frontmatter(&self) -> serde_json::Value {
        self.parsed
            .frontmatter
            .as_ref()
            .map(|f| f.value.clone())
            .unwrap_or(serde_json::Value::Null)
    }

    pub fn word_count(&self) -> u32 {
        self.body().split_whitespace().count() as u32
    }

    /// The page as the index stores it; links are resolved in `vault`.
    pub fn record(&self, vault: &Vault) -> quire_index::PageRecord {
        quire_index::PageRecord {
            path: self.path.to_string(),
            title: vault
                .title(self.path)
                .map(str::to_string)
                .unwrap_or_else(|| self.path.stem().to_string()),
            body: self.body().to_string(),
            headings: self
                .parsed
                .headings
                .iter()
                .map(|h| quire_index::HeadingRecord {
                    level: h.level,
                    text: h.text.clone(),
                    slug: h.slug.clone(),
                    line: h.line,
                })
                .collect(),
            tags: self.tags(),
            frontmatter: self.frontmatter(),
            links: self
                .parsed
                .links
                .iter()
                .map(|link| quire_index::LinkRecord {
                    target_text: link.target.clone(),
                    resolved: vault.resolve(self.path, link).path().map(|p| p.to_string()),
                    kind: link_kind(link),
                    line: link.line,
                })
                .collect(),
            size: self.size,
            mtime_ms: self.mtime_ms,
            word_count: self.word_count(),
            body_line: self
                .text
                .get(..self.parsed.body_start)
                .unwrap_or("")
                .matches('\n')
                .count() as u32,
        }
    }

    /// The page as DQL sees it (links filled in by the catalog).
    pub fn data(&self, vault: &Vault) -> PageData {
        let mtime = timestamp(self.mtime_ms);
        PageData {
            path: self.path.to_string(),
            title: vault
                .title(self.path)
                .map(str::to_string)
                .unwrap_or_else(|| self.path.stem().to_string()),
            tags: self.tags(),
            frontmatter: self.frontmatter(),
            outlinks: Vec::new(),
            inlinks: Vec::new(),
            size: self.size,
            ctime: mtime,
            mtime,
            word_count: self.word_count(),
        }
    }
}

fn link_kind(link: &quire_syntax::Link) -> String {
    let kind = format!("{:?}", link.kind).to_lowercase();
    if link.embed {
        format!("{kind}-embed")
    } else {
        kind
    }
}

/// Milliseconds since the epoch as a UTC timestamp.
pub(crate) fn timestamp(ms: i64) -> Option<DateTime<FixedOffset>> {
    DateTime::<Utc>::from_timestamp_millis(ms).map(|t| t.fixed_offset())
}
