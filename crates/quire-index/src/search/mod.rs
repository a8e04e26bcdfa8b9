//! Full-text search: the request and result types, the BM25 tier over the FTS5 table
//! ([`Index::search`]), the query language ([`query`]) and the grep tier ([`grep`]) that
//! evaluates the same queries over raw text when `[search] engine = "grep"`.
//!
//! *What is searched*: a page's title, headings and text, its tags and aliases, its property
//! values (every scalar and list item of the frontmatter) and the folder and file names of
//! its path ([`document`]); `tag:`, `path:` and `file:` match in one of them ([`query`]).
//!
//! *Ranking*: BM25 with field weights title 10, tags and aliases 10, headings 5, file name 5
//! (3 of its own, 2 as part of the path), folder names 2, property values 2, text 1, so a page
//! that has the words in its title or tags outranks one that only mentions them.
//! [`SearchHit::score`] is the BM25 value negated (higher is better).
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

pub(crate) mod document;
pub mod grep;
pub mod query;
pub(crate) mod text;

use rusqlite::params;

use crate::{Index, IndexError};
pub use query::{Field, Prefix, Query, SearchSyntaxError, Term};

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

/// The score of a match: BM25 negated, with the weights of the `fts` columns in their
/// order (`path` and `tagged` hold no words anyone searches for).
const SCORE: &str = "-bm25(fts, 0.0, 10.0, 5.0, 1.0, 10.0, 2.0, 2.0, 3.0, 0.0)";

const FILTERS: &str = "
      AND (?2 IS NULL OR substr(p.path, 1, length(?2)) = ?2)
      AND (?3 IS NULL OR EXISTS (
            SELECT 1 FROM tags t WHERE t.path = p.path
              AND (lower(t.tag) = ?3 OR substr(lower(t.tag), 1, length(?3) + 1) = ?3 || '/')))";

/// One match of the first pass: its page id, its score, and what orders it besides the
/// score.
struct Ranked {
    id: i64,
    score: f64,
    trusted: bool,
    /// The tie-break: the page's path when filters or the trust tier joined `pages`, else
    /// empty (ties then go by id, which follows the path within a rebuild).
    path: String,
}

impl Index {
    /// Runs `request` against the FTS5 table; see the module documentation for ranking,
    /// boosting, snippets and filters.
    ///
    /// Three short statements instead of one: (1) every match with its BM25 score (joined to
    /// `pages` only when a filter or the trust tier needs it), ranked here, which also gives
    /// the total; (2) the title and path of the hits on the page asked for; (3) one more pass
    /// over the matches that makes snippets for those hits only. A snippet asked for by rowid
    /// (`WHERE fts MATCH ? AND rowid = ?`) would set up the whole full-text query again for
    /// every hit, which cost more than ranking all matches.
    pub fn search(&self, request: &SearchRequest) -> Result<SearchResults, SearchError> {
        self.search_parsed(&Query::parse(&request.query)?, request)
    }

    /// [`Index::search`] for a query parsed already (`request.query` is not read).
    pub fn search_parsed(
        &self,
        query: &Query,
        request: &SearchRequest,
    ) -> Result<SearchResults, SearchError> {
        let matching = query.to_fts5();
        let folder = folder(request.path_prefix.as_deref());
        let tag = tag_filter(request.tag.as_deref());
        let reader = self.reader();
        let sql = |e| SearchError::Index(self.sqlite_error(e));
        // Its statements read one snapshot: the index thread may replace pages between them.
        let connection = reader.unchecked_transaction().map_err(sql)?;

        let joined = folder.is_some() || tag.is_some() || request.trust_boost;
        let mut ranked: Vec<Ranked> = if joined {
            let mut stmt = connection
                .prepare_cached(&format!(
                    "SELECT p.id, {SCORE}, p.trusted, p.path
                     FROM fts JOIN pages p ON p.id = fts.rowid
                     WHERE fts MATCH ?1 {FILTERS}"
                ))
                .map_err(sql)?;
            let rows = stmt
                .query_map(params![matching, folder, tag], |row| {
                    Ok(Ranked {
                        id: row.get(0)?,
                        score: row.get(1)?,
                        trusted: row.get(2)?,
                        path: row.get(3)?,
                    })
                })
                .map_err(sql)?;
            rows.collect::<Result<_, _>>().map_err(sql)?
        } else {
            let mut stmt = connection
                .prepare_cached(&format!(
                    "SELECT rowid, {SCORE} FROM fts WHERE fts MATCH ?1"
                ))
                .map_err(sql)?;
            let rows = stmt
                .query_map(params![matching], |row| {
                    Ok(Ranked {
                        id: row.get(0)?,
                        score: row.get(1)?,
                        trusted: false,
                        path: String::new(),
                    })
                })
                .map_err(sql)?;
            rows.collect::<Result<_, _>>().map_err(sql)?
        };
        let total = ranked.len();
        let end = request.offset.saturating_add(request.limit).min(total);
        if request.limit == 0 || request.offset >= total {
            return Ok(SearchResults {
                total,
                hits: Vec::new(),
            });
        }
        let boost = request.trust_boost;
        let order = |a: &Ranked, b: &Ranked| {
            let tier = if boost {
                b.trusted.cmp(&a.trusted)
            } else {
                std::cmp::Ordering::Equal
            };
            tier.then_with(|| b.score.total_cmp(&a.score))
                .then_with(|| a.path.cmp(&b.path))
                .then_with(|| a.id.cmp(&b.id))
        };
        // Only the first `end` need a full order.
        if end < total {
            ranked.select_nth_unstable_by(end - 1, order);
            ranked.truncate(end);
        }
        ranked.sort_unstable_by(order);
        let page = &ranked[request.offset..];

        let mut titles = connection
            .prepare_cached("SELECT path, title FROM pages WHERE id = ?1")
            .map_err(sql)?;
        let mut hits = Vec::with_capacity(page.len());
        for hit in page {
            let (path, title): (String, String) = titles
                .query_row([hit.id], |row| Ok((row.get(0)?, row.get(1)?)))
                .map_err(sql)?;
            hits.push(SearchHit {
                path,
                title,
                score: hit.score,
                snippet: String::new(),
            });
        }
        drop(titles);

        let ids = page.iter().map(|h| h.id.to_string()).collect::<Vec<_>>();
        let (low, high) = page.iter().fold((i64::MAX, i64::MIN), |(lo, hi), h| {
            (lo.min(h.id), hi.max(h.id))
        });
        let mut stmt = connection
            .prepare_cached(&format!(
                "SELECT rowid,
                        CASE WHEN rowid IN (SELECT value FROM json_each(?2))
                             THEN snippet(fts, 3, '{OPEN}', '{CLOSE}', '{ELLIPSIS}',
                                          {SNIPPET_TOKENS}) END
                 FROM fts WHERE fts MATCH ?1 AND rowid BETWEEN ?3 AND ?4"
            ))
            .map_err(sql)?;
        let rows = stmt
            .query_map(
                params![matching, format!("[{}]", ids.join(",")), low, high],
                |row| Ok((row.get::<_, i64>(0)?, row.get::<_, Option<String>>(1)?)),
            )
            .map_err(sql)?;
        for row in rows {
            let (id, snippet) = row.map_err(sql)?;
            if let Some(snippet) = snippet {
                if let Some(i) = page.iter().position(|h| h.id == id) {
                    hits[i].snippet = html_snippet(&snippet);
                }
            }
        }
        Ok(SearchResults { total, hits })
    }
}
#[cfg(test)]
mod tests;
