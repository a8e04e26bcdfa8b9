//! Full-text search: the request and result types, the BM25 tier over the FTS5 table
//! ([`Index::search`]), the query language ([`query`]) and the grep tier ([`grep`]) that
//! evaluates the same queries over raw text when `[search] engine = "grep"`.
//!
//! *Ranking*: BM25 with field weights title 10, headings 5, body 1, so a page that has the
//! words in its title outranks one that only mentions them. [`SearchHit::score`] is the BM25
//! value negated (higher is better).
//!
//! *Trust boost* (`/search/verified`): with [`SearchRequest::trust_boost`], pages whose
//! frontmatter has `status: verified` or `source-of-truth: true` (stored as `pages.trusted`
//! when the page is written) come first; BM25 orders the trusted pages among themselves and the
//! others after them. A strict tier rather than a score factor: a verified page is what the
//! caller asked for, however weakly it matches.
//!
//! *Snippets* are HTML: the page text escaped, matches in `<mark>`…`</mark>`, cut text marked
//! by `…`. They come from the body; a page that matches only in its title shows its first words.
//!
//! *Filters*: `path_prefix` is a folder (`notes` and `notes/` both mean "under `notes/`");
//! `tag` matches the tag and its nested tags (`project` matches `project/alpha`), ignoring case.

pub mod grep;
pub mod query;
pub(crate) mod text;

use rusqlite::params;

use crate::{Index, IndexError};
pub use query::{Prefix, Query, SearchSyntaxError, Term};

/// One search, as the service receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchRequest {
    pub query: String,
    pub limit: usize,
    pub offset: usize,
    /// Only pages under this folder.
    pub path_prefix: Option<String>,
    /// Only pages with this tag or one nested under it.
    pub tag: Option<String>,
    /// Trusted pages first (see the module documentation).
    pub trust_boost: bool,
}

impl SearchRequest {
    /// A request for `query` with the first 20 hits and no filters.
    pub fn new(query: impl Into<String>) -> SearchRequest {
        SearchRequest {
            query: query.into(),
            limit: 20,
            offset: 0,
            path_prefix: None,
            tag: None,
            trust_boost: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct SearchResults {
    /// How many pages match in all, beyond `limit` and `offset`.
    pub total: usize,
    pub hits: Vec<SearchHit>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    pub path: String,
    pub title: String,
    /// Higher is better. BM25 (negated) for the FTS tier, the number of matches for grep.
    pub score: f64,
    /// HTML: escaped text with `<mark>` around matches.
    pub snippet: String,
}

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("invalid search query: {0}")]
    Syntax(#[from] SearchSyntaxError),
    #[error(transparent)]
    Index(#[from] IndexError),
}

/// Markers FTS5 puts around matches: private-use characters, so the text can be escaped
/// before they become `<mark>` tags.
const OPEN: char = '\u{E000}';
const CLOSE: char = '\u{E001}';
const ELLIPSIS: &str = "…";
/// Tokens around the match in a snippet.
const SNIPPET_TOKENS: i64 = 24;

/// `path_prefix` as a folder with a trailing `/`; `None` for no filter (empty or `/`).
pub(crate) fn folder(prefix: Option<&str>) -> Option<String> {
    let trimmed = prefix?.trim_matches('/');
    (!trimmed.is_empty()).then(|| format!("{trimmed}/"))
}

/// The tag filter without `#`, lowercased; `None` for no filter.
fn tag_filter(tag: Option<&str>) -> Option<String> {
    let tag = tag?.trim().trim_start_matches('#').trim_end_matches('/');
    (!tag.is_empty()).then(|| tag.to_lowercase())
}

/// The FTS5 snippet with its markers turned into HTML.
fn html_snippet(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len() + 16);
    let mut rest = raw;
    while let Some(i) = rest.find([OPEN, CLOSE]) {
        text::escape_html(&rest[..i], &mut out);
        let marker = rest[i..].chars().next().expect("a marker");
        out.push_str(if marker == OPEN { "<mark>" } else { "</mark>" });
        rest = &rest[i + marker.len_utf8()..];
    }
    text::escape_html(rest, &mut out);
    out
}

const FILTERS: &str = "
      AND (?2 IS NULL OR substr(p.path, 1, length(?2)) = ?2)
      AND (?3 IS NULL OR EXISTS (
            SELECT 1 FROM tags t WHERE t.path = p.path
              AND (lower(t.tag) = ?3 OR substr(lower(t.tag), 1, length(?3) + 1) = ?3 || '/')))";

impl Index {
    /// Runs `request` against the FTS5 table; see the module documentation for ranking,
    /// boosting, snippets and filters.
    pub fn search(&self, request: &SearchRequest) -> Result<SearchResults, SearchError> {
        let query = Query::parse(&request.query)?;
        let matching = query.to_fts5();
        let folder = folder(request.path_prefix.as_deref());
        let tag = tag_filter(request.tag.as_deref());
        let connection = self.connection();
        let sql = |e| SearchError::Index(self.sqlite_error(e));

        let (inner, outer) = if request.trust_boost {
            (
                "p.trusted DESC, score DESC, p.path",
                "r.trusted DESC, r.score DESC, r.path",
            )
        } else {
            ("score DESC, p.path", "r.score DESC, r.path")
        };
        let filtered = folder.is_some() || tag.is_some();
        if !filtered && !request.trust_boost && request.limit > 0 {
            if let Some(found) = self.search_plain(&connection, &matching, request)? {
                return Ok(found);
            }
        }
        // Without filters the FTS table alone knows the count: no lookup of each match.
        let total: i64 = if filtered {
            connection
                .prepare_cached(&format!(
                    "SELECT count(*) FROM fts JOIN pages p ON p.id = fts.rowid
                     WHERE fts MATCH ?1 {FILTERS}"
                ))
                .and_then(|mut stmt| {
                    stmt.query_row(params![matching, folder, tag], |row| row.get(0))
                })
                .map_err(sql)?
        } else {
            connection
                .prepare_cached("SELECT count(*) FROM fts WHERE fts MATCH ?1")
                .and_then(|mut stmt| stmt.query_row(params![matching], |row| row.get(0)))
                .map_err(sql)?
        };
        let total = usize::try_from(total).unwrap_or(0);
        if request.limit == 0 || request.offset >= total {
            return Ok(SearchResults {
                total,
                hits: Vec::new(),
            });
        }
        // The inner query ranks every match but makes no snippet (SQLite would make one for
        // each row it sorts); the outer one makes snippets for the hits returned only.
        let mut stmt = connection
            .prepare_cached(&format!(
                "WITH ranked AS (
                     SELECT p.id, p.path, p.title, p.trusted,
                            -bm25(fts, 0.0, 10.0, 5.0, 1.0) AS score
                     FROM fts JOIN pages p ON p.id = fts.rowid
                     WHERE fts MATCH ?1 {FILTERS}
                     ORDER BY {inner}
                     LIMIT ?4 OFFSET ?5)
                 SELECT r.path, r.title, r.score,
                        snippet(fts, 3, '{OPEN}', '{CLOSE}', '{ELLIPSIS}', {SNIPPET_TOKENS})
                 FROM ranked r JOIN fts ON fts.rowid = r.id
                 WHERE fts MATCH ?1
                 ORDER BY {outer}"
            ))
            .map_err(sql)?;
        let limit = i64::try_from(request.limit).unwrap_or(i64::MAX);
        let offset = i64::try_from(request.offset).unwrap_or(i64::MAX);
        let rows = stmt
            .query_map(params![matching, folder, tag, limit, offset], |row| {
                Ok(SearchHit {
                    path: row.get(0)?,
                    title: row.get(1)?,
                    score: row.get(2)?,
                    snippet: html_snippet(&row.get::<_, String>(3)?),
                })
            })
            .map_err(sql)?;
        let hits = rows.collect::<Result<_, _>>().map_err(sql)?;
        Ok(SearchResults { total, hits })
    }

    /// The common case — no filter, no trust tier — in one pass over the matches: the FTS5
    /// table ranks them and counts them (a window function) without a lookup per match; only
    /// the hits returned are joined to `pages` and get a snippet. Ties go by rowid, which
    /// follows the path within a rebuild. `None` when the page asked for is past the end
    /// (the count then needs its own query).
    fn search_plain(
        &self,
        connection: &rusqlite::Connection,
        matching: &str,
        request: &SearchRequest,
    ) -> Result<Option<SearchResults>, SearchError> {
        let sql = |e| SearchError::Index(self.sqlite_error(e));
        let mut stmt = connection
            .prepare_cached(&format!(
                "WITH matches AS MATERIALIZED (
                     SELECT rowid AS id, -bm25(fts, 0.0, 10.0, 5.0, 1.0) AS score
                     FROM fts WHERE fts MATCH ?1),
                 ranked AS (
                     SELECT id, score, count(*) OVER () AS total FROM matches
                     ORDER BY score DESC, id
                     LIMIT ?2 OFFSET ?3)
                 SELECT p.path, p.title, r.score,
                        snippet(fts, 3, '{OPEN}', '{CLOSE}', '{ELLIPSIS}', {SNIPPET_TOKENS}),
                        r.total
                 FROM ranked r JOIN pages p ON p.id = r.id JOIN fts ON fts.rowid = r.id
                 WHERE fts MATCH ?1
                 ORDER BY r.score DESC, r.id"
            ))
            .map_err(sql)?;
        let limit = i64::try_from(request.limit).unwrap_or(i64::MAX);
        let offset = i64::try_from(request.offset).unwrap_or(i64::MAX);
        let mut total = 0usize;
        let rows = stmt
            .query_map(params![matching, limit, offset], |row| {
                Ok((
                    SearchHit {
                        path: row.get(0)?,
                        title: row.get(1)?,
                        score: row.get(2)?,
                        snippet: html_snippet(&row.get::<_, String>(3)?),
                    },
                    row.get::<_, i64>(4)?,
                ))
            })
            .map_err(sql)?;
        let mut hits = Vec::new();
        for row in rows {
            let (hit, count) = row.map_err(sql)?;
            total = usize::try_from(count).unwrap_or(0);
            hits.push(hit);
        }
        if hits.is_empty() {
            return Ok(None);
        }
        Ok(Some(SearchResults { total, hits }))
    }
}
#[cfg(test)]
mod tests;
