//! What manifest expressions (`select.query`, `when`, `compute`, `move_to`) see of one page:
//! the spec's variables `path`, `dir`, `name`, `stem`, `title`, `tags`, `fm`, `links`, `date`,
//! `modified`, `now`, and everything else the way a DQL `WHERE` sees the page (`file.*`, bare
//! frontmatter keys), so `select.query` means what the same expression means in a query.

use std::cell::OnceCell;

use chrono::{DateTime, FixedOffset};
use quire_query::dql::{page_lookup, PageData};
use quire_query::{Scope, Value};
use quire_syntax::{LinkKind, ParsedPage};
use quire_vault::{PagePath, Vault};

use crate::{PageTimes, Source};

/// One page's variables; cheap to build, parts computed when first read.
pub(crate) struct PageScope<'s> {
    pub(crate) path: &'s PagePath,
    pub(crate) vault: &'s Vault,
    pub(crate) source: &'s dyn Source,
    /// The page's frontmatter as it is at this step (an object, or null).
    pub(crate) fm: &'s serde_json::Value,
    pub(crate) parsed: &'s ParsedPage,
    pub(crate) size: usize,
    pub(crate) now: DateTime<FixedOffset>,
    pub(crate) times: &'s OnceCell<PageTimes>,
    pub(crate) data: OnceCell<PageData>,
}

impl PageScope<'_> {
    fn times(&self) -> &PageTimes {
        self.times.get_or_init(|| self.source.times(self.path))
    }

    fn title(&self) -> String {
        if let Some(title) = self.fm.get("title").and_then(|t| t.as_str()) {
            if !title.trim().is_empty() {
                return title.to_owned();
            }
        }
        self.parsed
            .headings
            .iter()
            .find(|h| h.level == 1)
            .map(|h| h.text.clone())
            .unwrap_or_else(|| self.path.stem().to_owned())
    }

    fn tags(&self) -> Vec<String> {
        let mut tags: Vec<String> = Vec::new();
        for tag in &self.parsed.tags {
            if !tags.contains(&tag.name) {
                tags.push(tag.name.clone());
            }
        }
        tags
    }

    fn links(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for link in &self.parsed.links {
            if let Some(path) = self.vault.resolve(self.path, link).path() {
                let path = path.to_string();
                if !out.contains(&path) {
                    out.push(path);
                }
            }
        }
        out
    }

    fn date(&self) -> Option<DateTime<FixedOffset>> {
        if let Some(Value::Date(date)) = self.fm.get("date").map(Value::from_json) {
            return Some(date);
        }
        self.times().created
    }

    fn data(&self) -> &PageData {
        self.data.get_or_init(|| PageData {
            path: self.path.to_string(),
            title: self.title(),
            tags: self.tags(),
            frontmatter: self.fm.clone(),
            outlinks: self.links(),
            inlinks: Vec::new(),
            size: self.size as u64,
            ctime: self.times().created,
            mtime: self.times().modified,
            word_count: 0,
        })
    }
}

fn date_value(date: Option<DateTime<FixedOffset>>) -> Value {
    date.map_or(Value::Null, Value::Date)
}

impl Scope for PageScope<'_> {
    fn get(&self, name: &str) -> Option<Value> {
        let value = match name {
            "path" => Value::String(self.path.to_string()),
            "dir" => Value::String(self.path.folder().to_owned()),
            "name" => Value::String(self.path.name().to_owned()),
            "stem" => Value::String(self.path.stem().to_owned()),
            "title" => Value::String(self.title()),
            "tags" => Value::List(self.tags().into_iter().map(Value::String).collect()),
            "links" => Value::List(self.links().into_iter().map(Value::Link).collect()),
            "date" => date_value(self.date()),
            "modified" => date_value(self.times().modified),
            "now" => Value::Date(self.now),
            _ => return page_lookup(self.data(), &[name.to_owned()]),
        };
        Some(value)
    }

    fn lookup(&self, path: &[String]) -> Option<Value> {
        let (first, rest) = path.split_first()?;
        match first.as_str() {
            "path" | "dir" | "name" | "stem" | "title" | "tags" | "links" | "date" | "modified"
            | "now" => {
                let mut value = self.get(first)?;
                for field in rest {
                    value = quire_query::expr::member(&value, field);
                }
                Some(value)
            }
            _ => page_lookup(self.data(), path),
        }
    }

    fn resolve_link(&self, text: &str) -> Option<String> {
        self.vault
            .resolve_target(self.path, LinkKind::Wiki, text)
            .path()
            .map(|p| p.to_string())
    }
}
