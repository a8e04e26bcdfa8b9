//! The page tables: what the service feeds ([`PageRecord`]s) and how they are stored —
//! `pages`, typed `frontmatter` rows, `links`, `tags`, `headings`, the FTS5 table `fts` (its
//! columns made by [`crate::search::document`]) — plus the lookups on them (backlinks, tag
//! counts) and the content stamp in `meta`.
//!
//! `pages.id` is the FTS5 rowid of the page, so a search joins the two without a lookup by
//! path. Writes replace whole pages in one transaction, so a reader never sees half a page;
//! rows a replacement would write back unchanged stay (see `replace_page`).

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};
use serde_json::Value;

use crate::search::document::{labels_and_properties, SearchRow};
use crate::{Index, IndexError};

/// The tables derived from pages. [`Index::rebuild`] drops and recreates them.
pub(crate) const CONTENT_SCHEMA: &str = "
    CREATE TABLE pages (
        id          INTEGER PRIMARY KEY,
        path        TEXT NOT NULL UNIQUE,
        title       TEXT NOT NULL,
        size        INTEGER NOT NULL,
        mtime_ms    INTEGER NOT NULL,
        word_count  INTEGER NOT NULL,
        frontmatter TEXT NOT NULL,
        trusted     INTEGER NOT NULL,
        -- What a replacement compares (see `replace_page`): hashes of the searchable text
        -- (title, headings, body), of the searchable words of tags, aliases and properties,
        -- of the links and of the tags, and the line the body starts on.
        text_hash   INTEGER NOT NULL,
        meta_hash   INTEGER NOT NULL,
        links_hash  INTEGER NOT NULL,
        tags_hash   INTEGER NOT NULL,
        body_line   INTEGER NOT NULL
    );
    CREATE TABLE frontmatter (
        path       TEXT NOT NULL,
        key        TEXT NOT NULL,
        value_text TEXT,
        value_num  REAL,
        value_date TEXT
    );
    CREATE TABLE links (
        source        TEXT NOT NULL,
        target_text   TEXT NOT NULL,
        resolved_path TEXT,
        kind          TEXT NOT NULL,
        line          INTEGER NOT NULL
    );
    CREATE TABLE tags (
        path TEXT NOT NULL,
        tag  TEXT NOT NULL,
        PRIMARY KEY (path, tag)
    ) WITHOUT ROWID;
    CREATE TABLE headings (
        path  TEXT NOT NULL,
        level INTEGER NOT NULL,
        text  TEXT NOT NULL,
        slug  TEXT NOT NULL,
        line  INTEGER NOT NULL
    );
    CREATE VIRTUAL TABLE fts USING fts5 (
        path UNINDEXED, title, headings, body, labels, properties, place, file, tagged,
        tokenize = 'unicode61 remove_diacritics 2'
    );
";

/// Lookup indexes, created after the rows on a rebuild (cheaper than maintaining them).
pub(crate) const CONTENT_INDEXES: &str = "
    CREATE INDEX frontmatter_path ON frontmatter (path);
    CREATE INDEX frontmatter_key ON frontmatter (key, value_text);
    CREATE INDEX links_source ON links (source);
    CREATE INDEX links_target ON links (resolved_path);
    CREATE INDEX links_target_text ON links (target_text);
    CREATE INDEX tags_tag ON tags (tag);
    CREATE INDEX headings_path ON headings (path);
";

const DROP_CONTENT: &str = "
    DROP TABLE IF EXISTS fts;
    DROP TABLE IF EXISTS headings;
    DROP TABLE IF EXISTS tags;
    DROP TABLE IF EXISTS links;
    DROP TABLE IF EXISTS frontmatter;
    DROP TABLE IF EXISTS pages;
";

/// The key of the content stamp in `meta`.
const STAMP_KEY: &str = "stamp";

/// One page as the index stores it; the service builds it from a parsed page.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PageRecord {
    /// Root-relative path with `/` separators.
    pub path: String,
    pub title: String,
    /// The text without its frontmatter.
    pub body: String,
    pub headings: Vec<HeadingRecord>,
    /// Tags without `#`; nested tags as `parent/child`.
    pub tags: Vec<String>,
    /// The frontmatter as JSON (an object; anything else is stored as is and yields no rows).
    pub frontmatter: Value,
    pub links: Vec<LinkRecord>,
    pub size: u64,
    pub mtime_ms: i64,
    pub word_count: u32,
    /// Lines before the body (the frontmatter's, 0 without one).
    pub body_line: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HeadingRecord {
    pub level: u8,
    pub text: String,
    pub slug: String,
    /// 1-based line in the file.
    pub line: u32,
}

/// One link occurrence of a page.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LinkRecord {
    /// The target as written (`notes/a`, `a#Heading`).
    pub target_text: String,
    /// The page the link resolves to; `None` when unresolved.
    pub resolved: Option<String>,
    /// The link's kind as the service names it (`wiki`, `markdown`, `embed`…).
    pub kind: String,
    /// 1-based line in the file.
    pub line: u32,
}

/// Whether a page's frontmatter asks for trust-ranked search: `status: verified` or
/// `source-of-truth: true` (see [`crate::search`]).
fn is_trusted(frontmatter: &Value) -> bool {
    let status = frontmatter.get("status").and_then(Value::as_str);
    let truth = frontmatter.get("source-of-truth");
    status.is_some_and(|s| s.eq_ignore_ascii_case("verified"))
        || truth == Some(&Value::Bool(true))
        || truth
            .and_then(Value::as_str)
            .is_some_and(|s| s.eq_ignore_ascii_case("true"))
}

/// A frontmatter value as one typed row: (text, number, ISO date).
fn typed(value: &Value) -> (Option<String>, Option<f64>, Option<String>) {
    match value {
        Value::Null => (None, None, None),
        Value::Bool(b) => (Some(b.to_string()), None, None),
        Value::Number(n) => (Some(n.to_string()), n.as_f64(), None),
        Value::String(s) => (Some(s.clone()), None, iso_date(s)),
        other => (Some(other.to_string()), None, None),
    }
}

/// `s` as a normalised ISO date or date-time (UTC for one with an offset), if it is one.
fn iso_date(s: &str) -> Option<String> {
    use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat, Utc};
    let s = s.trim();
    if s.len() < 10 || !s.as_bytes()[0].is_ascii_digit() {
        return None;
    }
    if let Ok(date) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return Some(date.format("%Y-%m-%d").to_string());
    }
    if let Ok(instant) = DateTime::parse_from_rfc3339(s) {
        let utc = instant.with_timezone(&Utc);
        return Some(utc.to_rfc3339_opts(SecondsFormat::AutoSi, true));
    }
    for format in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(local) = NaiveDateTime::parse_from_str(s, format) {
            return Some(local.format("%Y-%m-%dT%H:%M:%S").to_string());
        }
    }
    None
}

/// The full-text writes of one transaction, made after all its other writes, in rowid order
/// ([`SearchWrites::apply`]). FTS5 keeps the entries a transaction adds in memory and writes
/// them out as a new segment whenever another statement opens a savepoint: written between
/// the other rows of each page, a key set on 10,000 pages made 10,000 one-page segments and
/// as many merges (10 s where 1 s was spent before the full-text row held properties).
#[derive(Default)]
struct SearchWrites<'p> {
    deleted: BTreeSet<i64>,
    inserted: BTreeMap<i64, &'p PageRecord>,
}

impl<'p> SearchWrites<'p> {
    /// The row `id` goes (with any row queued for it).
    fn delete(&mut self, id: i64) {
        self.deleted.insert(id);
        self.inserted.remove(&id);
    }

    /// The row of `page` goes in as `id` (after the old row `id`, if that goes).
    fn insert(&mut self, id: i64, page: &'p PageRecord) {
        self.inserted.insert(id, page);
    }

    fn apply(self, tx: &Transaction<'_>) -> rusqlite::Result<()> {
        let mut ids: Vec<i64> = self.deleted.iter().copied().collect();
        ids.extend(self.inserted.keys().copied());
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            if self.deleted.contains(&id) {
                tx.prepare_cached("DELETE FROM fts WHERE rowid = ?1")?
                    .execute([id])?;
            }
            if let Some(page) = self.inserted.get(&id) {
                insert_search_row(tx, id, page)?;
            }
        }
        Ok(())
    }
}

/// Deletes every row of `path` (its full-text row through `search`).
fn delete_page(
    tx: &Transaction<'_>,
    path: &str,
    search: &mut SearchWrites<'_>,
) -> rusqlite::Result<()> {
    let id: Option<i64> = tx
        .prepare_cached("SELECT id FROM pages WHERE path = ?1")?
        .query_row([path], |row| row.get(0))
        .optional()?;
    if let Some(id) = id {
        search.delete(id);
        tx.prepare_cached("DELETE FROM pages WHERE id = ?1")?
            .execute([id])?;
    }
    for sql in [
        "DELETE FROM frontmatter WHERE path = ?1",
        "DELETE FROM links WHERE source = ?1",
        "DELETE FROM tags WHERE path = ?1",
        "DELETE FROM headings WHERE path = ?1",
    ] {
        tx.prepare_cached(sql)?.execute([path])?;
    }
    Ok(())
}

/// What `pages` keeps of a page to tell what a replacement changes.
struct Kept {
    id: i64,
    hashes: Hashes,
    frontmatter: String,
}

/// The hashes of a page's rows, the lines of the body counted from its start, so that a page
/// whose frontmatter grew by a line has the same hashes (its body's rows only move down).
#[derive(PartialEq, Eq)]
struct Hashes {
    text: i64,
    /// The words of tags, aliases and property values (the other columns of the `fts` row
    /// derive from the path, which is the row's own).
    meta: i64,
    links: i64,
    tags: i64,
    body_line: i64,
}

impl Hashes {
    /// SipHash with fixed keys: the same rows give the same values in every run.
    fn of(page: &PageRecord) -> Hashes {
        use std::hash::{Hash, Hasher};
        let hash = |feed: &dyn Fn(&mut std::collections::hash_map::DefaultHasher)| {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            feed(&mut hasher);
            hasher.finish() as i64
        };
        let body_line = i64::from(page.body_line);
        Hashes {
            text: hash(&|h| {
                page.title.hash(h);
                for heading in &page.headings {
                    heading.text.hash(h);
                }
                page.body.hash(h);
            }),
            meta: hash(&|h| labels_and_properties(page).hash(h)),
            links: hash(&|h| {
                for link in &page.links {
                    link.target_text.hash(h);
                    link.resolved.hash(h);
                    link.kind.hash(h);
                    // A link in the frontmatter stays where it is when a key is added
                    // after it; a link in the body moves with the body.
                    let line = i64::from(link.line);
                    if line > body_line {
                        (true, line - body_line).hash(h);
                    } else {
                        (false, line).hash(h);
                    }
                }
            }),
            tags: hash(&|h| page.tags.hash(h)),
            body_line,
        }
    }
}

/// Replaces the rows of `page`. A page indexed before with the same searchable text (title,
/// headings, body) keeps its id, its headings and, when they are the same, its links and
/// tags — rows moved down by as many lines as the frontmatter grew — and its FTS5 row while
/// the words of its tags, aliases and property values are the same too (removing an FTS5 row
/// costs a tokenization of its old text, the dearest part of a replacement; when they
/// changed, only that row is written again). Any other page is deleted and inserted.
fn replace_page<'p>(
    tx: &Transaction<'_>,
    page: &'p PageRecord,
    search: &mut SearchWrites<'p>,
) -> rusqlite::Result<()> {
    let hashes = Hashes::of(page);
    let kept: Option<Kept> = tx
        .prepare_cached(
            "SELECT id, text_hash, meta_hash, links_hash, tags_hash, body_line, frontmatter
             FROM pages WHERE path = ?1",
        )?
        .query_row([&page.path], |row| {
            Ok(Kept {
                id: row.get(0)?,
                hashes: Hashes {
                    text: row.get(1)?,
                    meta: row.get(2)?,
                    links: row.get(3)?,
                    tags: row.get(4)?,
                    body_line: row.get(5)?,
                },
                frontmatter: row.get(6)?,
            })
        })
        .optional()?;
    let kept = match kept {
        Some(kept) if kept.hashes.text == hashes.text => kept,
        _ => {
            delete_page(tx, &page.path, search)?;
            let id = insert_page(tx, page)?;
            search.insert(id, page);
            return Ok(());
        }
    };
    let frontmatter = page.frontmatter.to_string();
    tx.prepare_cached(
        "UPDATE pages SET size = ?2, mtime_ms = ?3, word_count = ?4, frontmatter = ?5,
         trusted = ?6, links_hash = ?7, tags_hash = ?8, body_line = ?9, meta_hash = ?10
         WHERE id = ?1",
    )?
    .execute(params![
        kept.id,
        i64::try_from(page.size).unwrap_or(i64::MAX),
        page.mtime_ms,
        page.word_count,
        frontmatter,
        is_trusted(&page.frontmatter),
        hashes.links,
        hashes.tags,
        hashes.body_line,
        hashes.meta,
    ])?;
    if kept.hashes.meta != hashes.meta {
        search.delete(kept.id);
        search.insert(kept.id, page);
    }
    let moved = hashes.body_line - kept.hashes.body_line;
    if moved != 0 {
        tx.prepare_cached("UPDATE headings SET line = line + ?2 WHERE path = ?1")?
            .execute(params![page.path, moved])?;
    }
    if kept.hashes.links != hashes.links {
        tx.prepare_cached("DELETE FROM links WHERE source = ?1")?
            .execute([&page.path])?;
        insert_links(tx, page)?;
    } else if moved != 0 {
        tx.prepare_cached("UPDATE links SET line = line + ?2 WHERE source = ?1 AND line > ?3")?
            .execute(params![page.path, moved, kept.hashes.body_line])?;
    }
    if kept.hashes.tags != hashes.tags {
        tx.prepare_cached("DELETE FROM tags WHERE path = ?1")?
            .execute([&page.path])?;
        insert_tags(tx, page)?;
    }
    if kept.frontmatter != frontmatter {
        replace_frontmatter(tx, page, &kept.frontmatter)?;
    }
    Ok(())
}

/// Inserts every row of `page`, whose path has no rows yet, but its full-text row (the
/// caller's, see [`SearchWrites`]); answers the page's id.
fn insert_page(connection: &Connection, page: &PageRecord) -> rusqlite::Result<i64> {
    let hashes = Hashes::of(page);
    connection
        .prepare_cached(
            "INSERT INTO pages (path, title, size, mtime_ms, word_count, frontmatter, trusted,
             text_hash, meta_hash, links_hash, tags_hash, body_line)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        )?
        .execute(params![
            page.path,
            page.title,
            i64::try_from(page.size).unwrap_or(i64::MAX),
            page.mtime_ms,
            page.word_count,
            page.frontmatter.to_string(),
            is_trusted(&page.frontmatter),
            hashes.text,
            hashes.meta,
            hashes.links,
            hashes.tags,
            hashes.body_line,
        ])?;
    let id = connection.last_insert_rowid();
    let mut insert = connection.prepare_cached(
        "INSERT INTO headings (path, level, text, slug, line) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for heading in &page.headings {
        insert.execute(params![
            page.path,
            heading.level,
            heading.text,
            heading.slug,
            heading.line
        ])?;
    }
    insert_frontmatter(connection, page)?;
    insert_links(connection, page)?;
    insert_tags(connection, page)?;
    Ok(id)
}

/// The FTS5 row of `page`, whose `pages` row has the id `id`.
fn insert_search_row(connection: &Connection, id: i64, page: &PageRecord) -> rusqlite::Result<()> {
    let row = SearchRow::of(page);
    connection
        .prepare_cached(
            "INSERT INTO fts (rowid, path, title, headings, body, labels, properties, place,
             file, tagged) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?
        .execute(params![
            id,
            page.path,
            row.title,
            row.headings,
            row.body,
            row.labels,
            row.properties,
            row.place,
            row.file,
            row.tagged,
        ])?;
    Ok(())
}

/// The typed rows of the frontmatter: one per key, or per item of a list.
fn insert_frontmatter(connection: &Connection, page: &PageRecord) -> rusqlite::Result<()> {
    let Value::Object(map) = &page.frontmatter else {
        return Ok(());
    };
    for (key, value) in map {
        insert_frontmatter_key(connection, &page.path, key, value)?;
    }
    Ok(())
}

/// The rows of one frontmatter key: one per item of a list, else one.
fn insert_frontmatter_key(
    connection: &Connection,
    path: &str,
    key: &str,
    value: &Value,
) -> rusqlite::Result<()> {
    let mut insert = connection.prepare_cached(
        "INSERT INTO frontmatter (path, key, value_text, value_num, value_date)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    let values: &[Value] = match value {
        Value::Array(items) => items,
        one => std::slice::from_ref(one),
    };
    for value in values {
        let (text, num, date) = typed(value);
        insert.execute(params![path, key, text, num, date])?;
    }
    Ok(())
}

/// Replaces the frontmatter rows of `page`, whose frontmatter was `before` (as stored in
/// `pages`): only the keys that changed, so a bulk edit that sets one key writes one row
/// per page instead of all of them.
fn replace_frontmatter(
    tx: &Transaction<'_>,
    page: &PageRecord,
    before: &str,
) -> rusqlite::Result<()> {
    let (Ok(Value::Object(old)), Value::Object(new)) =
        (serde_json::from_str::<Value>(before), &page.frontmatter)
    else {
        tx.prepare_cached("DELETE FROM frontmatter WHERE path = ?1")?
            .execute([&page.path])?;
        return insert_frontmatter(tx, page);
    };
    for (key, value) in &old {
        if new.get(key) != Some(value) {
            // `+key`: look the rows up by path (a handful), never by key (every page).
            tx.prepare_cached("DELETE FROM frontmatter WHERE path = ?1 AND +key = ?2")?
                .execute(params![page.path, key])?;
        }
    }
    for (key, value) in new {
        if old.get(key) != Some(value) {
            insert_frontmatter_key(tx, &page.path, key, value)?;
        }
    }
    Ok(())
}

fn insert_links(connection: &Connection, page: &PageRecord) -> rusqlite::Result<()> {
    let mut insert = connection.prepare_cached(
        "INSERT INTO links (source, target_text, resolved_path, kind, line)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for link in &page.links {
        insert.execute(params![
            page.path,
            link.target_text,
            link.resolved,
            link.kind,
            link.line
        ])?;
    }
    Ok(())
}

fn insert_tags(connection: &Connection, page: &PageRecord) -> rusqlite::Result<()> {
    let mut insert =
        connection.prepare_cached("INSERT OR IGNORE INTO tags (path, tag) VALUES (?1, ?2)")?;
    for tag in &page.tags {
        insert.execute(params![page.path, tag.trim_start_matches('#')])?;
    }
    Ok(())
}

fn write_stamp(connection: &Connection, stamp: &str) -> rusqlite::Result<()> {
    connection
        .prepare_cached(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )?
        .execute([STAMP_KEY, stamp])
        .map(drop)
}

impl Index {
    /// Replaces the rows of each page's path with the page, in one transaction.
    pub fn replace_pages(&self, pages: &[PageRecord]) -> Result<(), IndexError> {
        self.update_pages(pages, &[], None)
    }

    /// Removes every row of each path, in one transaction. Unknown paths are no error.
    pub fn remove_pages(&self, paths: &[&str]) -> Result<(), IndexError> {
        self.update_pages(&[], paths, None)
    }

    /// One batch of changes in one transaction: the rows of `removed` go, each of `written`
    /// replaces its path's rows, and the content stamp becomes `stamp` (when given), so the
    /// stamp never says more or less than the rows hold.
    pub fn update_pages(
        &self,
        written: &[PageRecord],
        removed: &[&str],
        stamp: Option<&str>,
    ) -> Result<(), IndexError> {
        let mut connection = self.connection();
        let sql = |e| self.sqlite_error(e);
        let tx = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        let mut search = SearchWrites::default();
        for path in removed {
            delete_page(&tx, path, &mut search).map_err(sql)?;
        }
        for page in written {
            replace_page(&tx, page, &mut search).map_err(sql)?;
        }
        search.apply(&tx).map_err(sql)?;
        if let Some(stamp) = stamp {
            write_stamp(&tx, stamp).map_err(sql)?;
        }
        tx.commit().map_err(sql)?;
        self.wrote();
        Ok(())
    }

    /// Replaces all page rows with `pages`, in one transaction: the tables are dropped and
    /// recreated, rows inserted through cached statements, lookup indexes built at the end,
    /// and the FTS5 segments merged afterwards. `progress` hears the number of pages done
    /// after every page. Claims and the stamp stay; callers set a new stamp afterwards.
    pub fn rebuild(
        &self,
        pages: impl Iterator<Item = PageRecord>,
        mut progress: impl FnMut(usize),
    ) -> Result<(), IndexError> {
        let mut connection = self.connection();
        let sql = |e| self.sqlite_error(e);
        // A bigger page cache keeps the FTS5 b-tree and the pages table in memory while
        // they grow; it is the connection's, and reset below.
        connection
            .pragma_update(None, "cache_size", -64_000)
            .map_err(sql)?;
        let tx = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        tx.execute_batch(DROP_CONTENT).map_err(sql)?;
        tx.execute_batch(CONTENT_SCHEMA).map_err(sql)?;
        // Larger FTS5 in-memory buffers before a flush to disk: fewer, larger segments.
        tx.execute("INSERT INTO fts (fts, rank) VALUES ('automerge', 16)", [])
            .map_err(sql)?;
        let mut done = 0;
        for page in pages {
            // Ids only grow here, and nothing is deleted: each row may go in with its page.
            let id = insert_page(&tx, &page).map_err(sql)?;
            insert_search_row(&tx, id, &page).map_err(sql)?;
            done += 1;
            progress(done);
        }
        tx.execute_batch(CONTENT_INDEXES).map_err(sql)?;
        tx.execute("INSERT INTO fts (fts) VALUES ('optimize')", [])
            .map_err(sql)?;
        tx.execute_batch(
            "INSERT INTO fts (fts, rank) VALUES ('automerge', 4);
             INSERT INTO fts (fts, rank) VALUES ('hashsize', 1048576);",
        )
        .map_err(sql)?;
        tx.commit().map_err(sql)?;
        // Move the rebuilt pages from the WAL into the database now, so the next small write
        // does not pay for a checkpoint of the whole index.
        connection
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .map_err(sql)?;
        connection
            .pragma_update(None, "cache_size", crate::READ_CACHE_KIB)
            .map_err(sql)?;
        Ok(())
    }

    /// How many pages the index holds.
    pub fn page_count(&self) -> Result<usize, IndexError> {
        let connection = self.connection();
        let count: i64 = connection
            .query_row("SELECT count(*) FROM pages", [], |row| row.get(0))
            .map_err(|e| self.sqlite_error(e))?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    /// The content stamp last set, e.g. a git HEAD plus a file count; `None` before the first.
    pub fn stamp(&self) -> Result<Option<String>, IndexError> {
        let connection = self.connection();
        connection
            .prepare_cached("SELECT value FROM meta WHERE key = ?1")
            .and_then(|mut stmt| stmt.query_row([STAMP_KEY], |row| row.get(0)).optional())
            .map_err(|e| self.sqlite_error(e))
    }

    /// Records the content stamp the rows now reflect.
    pub fn set_stamp(&self, stamp: &str) -> Result<(), IndexError> {
        write_stamp(&self.connection(), stamp).map_err(|e| self.sqlite_error(e))
    }

    /// The resolved links to `path`: (source page, line), ordered by source then line.
    pub fn backlinks(&self, path: &str) -> Result<Vec<(String, u32)>, IndexError> {
        let connection = self.connection();
        let sql = |e| self.sqlite_error(e);
        let mut stmt = connection
            .prepare_cached(
                "SELECT source, line FROM links WHERE resolved_path = ?1 ORDER BY source, line",
            )
            .map_err(sql)?;
        let rows = stmt
            .query_map([path], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(sql)?;
        rows.collect::<Result<_, _>>().map_err(sql)
    }

    /// Every tag with the number of pages that carry it, ordered by tag.
    pub fn tags(&self) -> Result<Vec<(String, usize)>, IndexError> {
        let connection = self.connection();
        let sql = |e| self.sqlite_error(e);
        let mut stmt = connection
            .prepare_cached("SELECT tag, count(*) FROM tags GROUP BY tag ORDER BY tag")
            .map_err(sql)?;
        let rows = stmt
            .query_map([], |row| {
                Ok((
                    row.get(0)?,
                    usize::try_from(row.get::<_, i64>(1)?).unwrap_or(0),
                ))
            })
            .map_err(sql)?;
        rows.collect::<Result<_, _>>().map_err(sql)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;
    use serde_json::json;

    fn index() -> (tempfile::TempDir, Index) {
        let dir = tempfile::tempdir().unwrap();
        let index = Index::open(dir.path()).unwrap();
        (dir, index)
    }

    fn page(path: &str, body: &str) -> PageRecord {
        PageRecord {
            path: path.to_string(),
            title: path.trim_end_matches(".md").to_string(),
            body: body.to_string(),
            size: body.len() as u64,
            word_count: body.split_whitespace().count() as u32,
            frontmatter: json!({}),
            ..PageRecord::default()
        }
    }

    fn link(target: &str, resolved: Option<&str>, line: u32) -> LinkRecord {
        LinkRecord {
            target_text: target.to_string(),
            resolved: resolved.map(str::to_string),
            kind: "wiki".to_string(),
            line,
        }
    }

    fn rows(index: &Index, sql: &str) -> Vec<String> {
        let c = index.connection();
        let mut stmt = c.prepare(sql).unwrap();
        let rows = stmt.query_map([], |row| row.get::<_, String>(0)).unwrap();
        rows.map(Result::unwrap).collect()
    }

    #[test]
    fn writes_reach_the_database_file_during_a_spell_of_writes_without_an_idle_checkpoint() {
        let (dir, index) = index();
        index.rebuild(std::iter::empty(), |_| {}).unwrap();
        index.checkpoint().unwrap();
        // A spell of writes longer than the checkpoint thread's spacing.
        let started = std::time::Instant::now();
        let mut n = 0;
        while started.elapsed() < crate::checkpointer::SPACING * 3 {
            index
                .update_pages(&[page(&format!("p{n}.md"), "heron marsh")], &[], None)
                .unwrap();
            n += 1;
        }
        // Soon the database file itself (read without the WAL: `immutable`) holds them all,
        // copied by the checkpoint thread; nothing here checkpoints or closes the index.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let in_file = Index::open_read_only(dir.path())
                .ok()
                .flatten()
                .and_then(|file| file.page_count().ok());
            if in_file == Some(n) {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{in_file:?} of {n} pages reached the database file"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    #[test]
    fn a_version_1_database_is_recreated_with_the_page_tables() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(crate::INDEX_FILE);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        Connection::open(&file)
            .unwrap()
            .execute_batch(
                "CREATE TABLE schema_version (version INTEGER NOT NULL);
                 INSERT INTO schema_version VALUES (1);
                 CREATE TABLE claims (path TEXT PRIMARY KEY, actor TEXT, claimed_at INTEGER,
                                      expires_at INTEGER, lease_ms INTEGER);",
            )
            .unwrap();
        let index = Index::open(dir.path()).unwrap();
        assert_eq!(index.page_count().unwrap(), 0);
        index.replace_pages(&[page("a.md", "hello")]).unwrap();
        assert_eq!(index.page_count().unwrap(), 1);
    }

    #[test]
    fn an_index_of_schema_3_is_recreated_so_properties_become_searchable() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(crate::INDEX_FILE);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        Connection::open(&file)
            .unwrap()
            .execute_batch(
                "CREATE TABLE schema_version (version INTEGER NOT NULL);
                 INSERT INTO schema_version VALUES (3);
                 CREATE TABLE pages (id INTEGER PRIMARY KEY, path TEXT);
                 INSERT INTO pages VALUES (1, 'old.md');
                 CREATE VIRTUAL TABLE fts USING fts5 (path UNINDEXED, title, headings, body);",
            )
            .unwrap();
        let index = Index::open(dir.path()).unwrap();
        assert_eq!(index.page_count().unwrap(), 0, "the old rows are gone");
        assert_eq!(index.stamp().unwrap(), None, "so the service rebuilds it");
        let mut a = page("a.md", "body");
        a.frontmatter = json!({"derived-from": "run:test-abc12345"});
        index.replace_pages(&[a]).unwrap();
        let found = index
            .search(&crate::SearchRequest::new("abc12345"))
            .unwrap();
        assert_eq!(found.total, 1);
    }

    #[test]
    fn a_frontmatter_edit_replaces_the_search_row_only_when_its_words_change() {
        let (_dir, index) = index();
        let mut a = page("a.md", "same words");
        a.frontmatter = json!({"status": "draft", "n": 1});
        index.replace_pages(&[a.clone()]).unwrap();
        let id = rows(&index, "SELECT CAST(rowid AS TEXT) FROM fts");
        // The same values in another order, and a key with no value: the same words.
        a.frontmatter = json!({"n": 1, "status": "draft", "empty": null});
        index.replace_pages(&[a.clone()]).unwrap();
        assert_eq!(rows(&index, "SELECT CAST(rowid AS TEXT) FROM fts"), id);
        a.frontmatter = json!({"status": "done", "n": 1});
        index.replace_pages(&[a]).unwrap();
        assert_eq!(rows(&index, "SELECT properties FROM fts"), ["1\ndone"]);
        let found = index.search(&crate::SearchRequest::new("done")).unwrap();
        assert_eq!(found.total, 1);
        assert_eq!(
            index
                .search(&crate::SearchRequest::new("draft"))
                .unwrap()
                .total,
            0
        );
    }

    #[test]
    fn replace_pages_swaps_every_row_of_a_path() {
        let (_dir, index) = index();
        let mut a = page("a.md", "first");
        a.tags = vec!["x".into(), "#y".into(), "x".into()];
        a.links = vec![link("b", Some("b.md"), 3)];
        a.headings = vec![HeadingRecord {
            level: 1,
            text: "Top".into(),
            slug: "top".into(),
            line: 1,
        }];
        index
            .replace_pages(&[a.clone(), page("b.md", "other")])
            .unwrap();
        assert_eq!(
            index.tags().unwrap(),
            [("x".to_string(), 1), ("y".to_string(), 1)]
        );
        assert_eq!(index.backlinks("b.md").unwrap(), [("a.md".to_string(), 3)]);

        let mut a2 = page("a.md", "second");
        a2.tags = vec!["z".into()];
        index.replace_pages(&[a2]).unwrap();
        assert_eq!(index.page_count().unwrap(), 2);
        assert_eq!(index.tags().unwrap(), [("z".to_string(), 1)]);
        assert!(index.backlinks("b.md").unwrap().is_empty());
        assert!(rows(&index, "SELECT text FROM headings").is_empty());
        assert_eq!(
            rows(&index, "SELECT body FROM fts ORDER BY path"),
            ["second", "other"]
        );
    }

    #[test]
    fn a_frontmatter_edit_without_new_words_keeps_the_search_row_and_replaces_the_rest() {
        let (_dir, index) = index();
        let mut a = page("a.md", "same words");
        a.frontmatter = json!({"status": "draft"});
        a.tags = vec!["old".into()];
        index.replace_pages(&[a.clone()]).unwrap();
        let fts_rows = "SELECT CAST(rowid AS TEXT) || ' ' || body FROM fts";
        let kept = rows(&index, fts_rows);

        // A key without a value adds no word to search for.
        a.frontmatter = json!({"status": "draft", "reviewed": null});
        a.size += 30;
        index.replace_pages(&[a.clone()]).unwrap();
        assert_eq!(rows(&index, fts_rows), kept);
        assert_eq!(
            rows(
                &index,
                "SELECT key || '=' || coalesce(value_text, 'null') FROM frontmatter ORDER BY key"
            ),
            ["reviewed=null", "status=draft"]
        );
        assert_eq!(
            rows(&index, "SELECT CAST(size AS TEXT) FROM pages"),
            [(a.size).to_string()]
        );

        // New values and tags are words to search for: the search row is written again,
        // under the page's id, which stays.
        let page_id = rows(&index, "SELECT CAST(id AS TEXT) FROM pages");
        a.frontmatter = json!({"status": "done", "reviewed": "2025-01-01"});
        a.tags = vec!["new".into()];
        index.replace_pages(&[a.clone()]).unwrap();
        assert_eq!(rows(&index, "SELECT CAST(id AS TEXT) FROM pages"), page_id);
        assert_eq!(rows(&index, "SELECT CAST(rowid AS TEXT) FROM fts"), page_id);
        assert_eq!(
            index
                .search(&crate::SearchRequest::new("done new"))
                .unwrap()
                .total,
            1
        );
        assert_eq!(
            index
                .search(&crate::SearchRequest::new("draft"))
                .unwrap()
                .total,
            0
        );
        assert_eq!(
            rows(&index, "SELECT labels || ' | ' || properties FROM fts"),
            ["new | 2025-01-01\ndone"]
        );
        assert_eq!(
            rows(
                &index,
                "SELECT key || '=' || value_text FROM frontmatter ORDER BY key"
            ),
            ["reviewed=2025-01-01", "status=done"]
        );
        assert_eq!(index.tags().unwrap(), [("new".to_string(), 1)]);

        // A new title is searchable text: the row is replaced.
        a.title = "Renamed".into();
        index.replace_pages(&[a]).unwrap();
        assert_eq!(rows(&index, "SELECT title FROM fts"), ["Renamed"]);
        assert_eq!(rows(&index, "SELECT count(*) || '' FROM fts"), ["1"]);
    }

    #[test]
    fn a_longer_frontmatter_moves_the_kept_rows_down() {
        let (_dir, index) = index();
        let mut a = page("a.md", "# Top\n\n[[b]]\n");
        a.body_line = 3;
        a.headings = vec![HeadingRecord {
            level: 1,
            text: "Top".into(),
            slug: "top".into(),
            line: 4,
        }];
        a.links = vec![link("b", Some("b.md"), 6)];
        a.tags = vec!["t".into()];
        index.replace_pages(&[a.clone()]).unwrap();

        // One more frontmatter line: everything below it moves down by one.
        a.body_line = 4;
        a.headings[0].line = 5;
        a.links[0].line = 7;
        a.frontmatter = json!({"added": null});
        index.replace_pages(&[a.clone()]).unwrap();
        assert_eq!(index.backlinks("b.md").unwrap(), [("a.md".to_string(), 7)]);
        assert_eq!(
            rows(&index, "SELECT text || ':' || line FROM headings"),
            ["Top:5"]
        );
        assert_eq!(rows(&index, "SELECT key FROM frontmatter"), ["added"]);

        // The same text whose link now resolves elsewhere: the link rows are replaced.
        a.links[0].resolved = Some("elsewhere/b.md".into());
        a.tags = vec!["t".into(), "u".into()];
        index.replace_pages(&[a]).unwrap();
        assert!(index.backlinks("b.md").unwrap().is_empty());
        assert_eq!(
            index.backlinks("elsewhere/b.md").unwrap(),
            [("a.md".to_string(), 7)]
        );
        assert_eq!(
            index.tags().unwrap(),
            [("t".to_string(), 1), ("u".to_string(), 1)]
        );
    }

    #[test]
    fn a_link_in_the_frontmatter_stays_on_its_line_when_the_body_moves() {
        let (_dir, index) = index();
        // ---            (1)
        // up: "[[b]]"    (2)
        // ---            (3)
        // [[c]]          (4)
        let mut a = page("a.md", "[[c]]\n");
        a.body_line = 3;
        a.frontmatter = json!({"up": "[[b]]"});
        a.links = vec![link("b", Some("b.md"), 2), link("c", Some("c.md"), 4)];
        index.replace_pages(&[a.clone()]).unwrap();

        // A key added after `up`: the body moves down, the frontmatter link does not.
        a.body_line = 4;
        a.frontmatter = json!({"up": "[[b]]", "reviewed": null});
        a.links[1].line = 5;
        index.replace_pages(&[a.clone()]).unwrap();
        assert_eq!(index.backlinks("b.md").unwrap(), [("a.md".to_string(), 2)]);
        assert_eq!(index.backlinks("c.md").unwrap(), [("a.md".to_string(), 5)]);

        // A key added before `up`: both move.
        a.body_line = 5;
        a.frontmatter = json!({"first": null, "up": "[[b]]", "reviewed": null});
        a.links[0].line = 3;
        a.links[1].line = 6;
        index.replace_pages(&[a]).unwrap();
        assert_eq!(index.backlinks("b.md").unwrap(), [("a.md".to_string(), 3)]);
        assert_eq!(index.backlinks("c.md").unwrap(), [("a.md".to_string(), 6)]);
    }

    #[test]
    fn a_frontmatter_edit_leaves_the_rows_a_fresh_index_would_hold() {
        let all = |index: &Index| {
            rows(
                index,
                "SELECT path || ' ' || key || '=' || coalesce(value_text, 'null') || ' '
                 || coalesce(value_num, '-') || ' ' || coalesce(value_date, '-')
                 FROM frontmatter ORDER BY 1",
            )
        };
        let shapes = [
            json!({"status": "draft", "tags": ["a", "b"], "n": 1, "due": "2025-01-01"}),
            json!({"status": "done", "tags": ["a", "c"], "n": 1, "new": null}),
            json!({"tags": ["a", "c", "c"], "n": 2.5, "new": {"nested": true}}),
            json!(null),
            json!({"status": "draft"}),
            json!(["not", "an", "object"]),
            json!({}),
            json!({"status": "verified"}),
        ];
        let (_dir, edited) = index();
        let mut b = page("b.md", "other");
        b.frontmatter = json!({"status": "draft", "n": 1});
        edited.replace_pages(&[b]).unwrap();
        for (from, to) in shapes.iter().zip(shapes.iter().skip(1)) {
            let mut a = page("a.md", "same body");
            a.frontmatter = from.clone();
            edited.replace_pages(&[a.clone()]).unwrap();
            a.frontmatter = to.clone();
            edited.replace_pages(&[a.clone()]).unwrap();

            let (_fresh_dir, fresh) = index();
            let mut b = page("b.md", "other");
            b.frontmatter = json!({"status": "draft", "n": 1});
            fresh.replace_pages(&[b, a]).unwrap();
            assert_eq!(all(&edited), all(&fresh), "{from} then {to}");
        }
        // Trust follows the frontmatter too.
        assert_eq!(
            rows(&edited, "SELECT path FROM pages WHERE trusted = 1"),
            ["a.md"]
        );
    }

    #[test]
    fn remove_pages_leaves_no_row_behind() {
        let (_dir, index) = index();
        let mut a = page("a.md", "alpha");
        a.tags = vec!["t".into()];
        a.frontmatter = json!({"k": [1, 2]});
        a.links = vec![link("b", Some("b.md"), 1)];
        index.replace_pages(&[a, page("b.md", "beta")]).unwrap();
        index.remove_pages(&["a.md", "missing.md"]).unwrap();
        assert_eq!(index.page_count().unwrap(), 1);
        for table in ["frontmatter", "links", "tags", "headings"] {
            let n: i64 = index
                .connection()
                .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
                .unwrap();
            assert_eq!(n, 0, "{table}");
        }
        assert_eq!(rows(&index, "SELECT path FROM fts"), ["b.md"]);
    }

    #[test]
    fn rebuild_replaces_everything_and_reports_progress() {
        let (_dir, index) = index();
        index.replace_pages(&[page("old.md", "gone")]).unwrap();
        index.set_stamp("abc:1").unwrap();
        let mut seen = Vec::new();
        index
            .rebuild((0..3).map(|i| page(&format!("p{i}.md"), "text")), |n| {
                seen.push(n)
            })
            .unwrap();
        assert_eq!(seen, [1, 2, 3]);
        assert_eq!(index.page_count().unwrap(), 3);
        assert_eq!(index.stamp().unwrap().as_deref(), Some("abc:1"));
        assert_eq!(
            rows(&index, "SELECT path FROM fts ORDER BY path"),
            ["p0.md", "p1.md", "p2.md"]
        );
        // The lookup indexes come back too.
        let indexes = rows(
            &index,
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'tags_tag'",
        );
        assert_eq!(indexes, ["tags_tag"]);
    }

    #[test]
    fn an_incremental_index_equals_a_rebuilt_one() {
        let (_dir, incremental) = index();
        let (_dir2, rebuilt) = index();
        let pages: Vec<PageRecord> = (0..5)
            .map(|i| page(&format!("p{i}.md"), &format!("body {i}")))
            .collect();
        incremental.replace_pages(&pages[..3]).unwrap();
        incremental
            .replace_pages(&[page("p1.md", "stale")])
            .unwrap();
        incremental.replace_pages(&pages[1..]).unwrap();
        rebuilt.rebuild(pages.into_iter(), |_| {}).unwrap();
        let dump = "SELECT path || '|' || title || '|' || body FROM fts ORDER BY path";
        assert_eq!(rows(&incremental, dump), rows(&rebuilt, dump));
    }

    #[test]
    fn frontmatter_rows_are_typed() {
        let (_dir, index) = index();
        let mut a = page("a.md", "");
        a.frontmatter = json!({
            "n": 4.5, "when": "2024-03-01", "at": "2024-03-01T10:00:00+02:00",
            "list": ["x", 2], "flag": true, "none": null, "obj": {"k": 1}
        });
        index.replace_pages(&[a]).unwrap();
        let c = index.connection();
        let mut stmt = c
            .prepare("SELECT key, value_text, value_num, value_date FROM frontmatter ORDER BY key, rowid")
            .unwrap();
        type Row = (String, Option<String>, Option<f64>, Option<String>);
        let got: Vec<Row> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let s = |v: &str| Some(v.to_string());
        assert_eq!(
            got,
            [
                (
                    "at".into(),
                    s("2024-03-01T10:00:00+02:00"),
                    None,
                    s("2024-03-01T08:00:00Z")
                ),
                ("flag".into(), s("true"), None, None),
                ("list".into(), s("x"), None, None),
                ("list".into(), s("2"), Some(2.0), None),
                ("n".into(), s("4.5"), Some(4.5), None),
                ("none".into(), None, None, None),
                ("obj".into(), s(r#"{"k":1}"#), None, None),
                ("when".into(), s("2024-03-01"), None, s("2024-03-01")),
            ]
        );
    }

    #[test]
    fn backlinks_are_resolved_links_only() {
        let (_dir, index) = index();
        let mut a = page("a.md", "");
        a.links = vec![
            link("c", Some("c.md"), 7),
            link("c", None, 8),
            link("c", Some("c.md"), 2),
        ];
        let mut b = page("b.md", "");
        b.links = vec![link("c", Some("c.md"), 1)];
        index.replace_pages(&[b, a]).unwrap();
        assert_eq!(
            index.backlinks("c.md").unwrap(),
            [
                ("a.md".to_string(), 2),
                ("a.md".to_string(), 7),
                ("b.md".to_string(), 1)
            ]
        );
    }

    #[test]
    fn the_stamp_is_absent_then_set_then_replaced() {
        let (_dir, index) = index();
        assert_eq!(index.stamp().unwrap(), None);
        index.set_stamp("h1:10").unwrap();
        index.set_stamp("h2:11").unwrap();
        assert_eq!(index.stamp().unwrap().as_deref(), Some("h2:11"));
    }
}
