//! The `searches` table: every full-text query the service answered (its text, how many pages
//! it found, when), for search analytics: recent and top queries, failed queries, daily
//! counts, and content gaps (failed queries nobody has dismissed yet).
//!
//! Like everything in the index this can be lost; it is a log, not the truth. Queries are
//! grouped by a key (trimmed, lowercased, runs of whitespace as one space), so `Rust` and
//! ` rust ` count as one query. The table keeps the newest [`KEEP`] searches.
//!
//! Nothing here reads a clock: callers pass `at`.

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{params, OptionalExtension};

use crate::{Index, IndexError};

/// How many searches the table keeps; older ones are dropped as new ones come.
pub const KEEP: i64 = 10_000;

/// Created (if missing) on every open, so an index of the current schema version gains it
/// without a rebuild.
pub(crate) const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS searches (
        id      INTEGER PRIMARY KEY AUTOINCREMENT,
        query   TEXT NOT NULL,
        key     TEXT NOT NULL,
        results INTEGER NOT NULL,
        at      INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS searches_key ON searches (key);
    CREATE TABLE IF NOT EXISTS search_gaps_dismissed (
        key          TEXT PRIMARY KEY NOT NULL,
        dismissed_at INTEGER NOT NULL
    );
";

/// A search to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchLogged {
    pub query: String,
    /// How many pages it found.
    pub results: u64,
    pub at: DateTime<Utc>,
}

/// One recorded search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchRecord {
    pub query: String,
    pub results: u64,
    /// RFC 3339, UTC.
    pub timestamp: String,
}

/// A query (as last written) and how often it was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryCount {
    pub query: String,
    pub count: u64,
    /// When it was last asked, RFC 3339, UTC.
    pub last_seen: String,
}

/// Searches of one UTC day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayCount {
    /// `YYYY-MM-DD`.
    pub date: String,
    pub searches: u64,
    /// Of those, the searches that found nothing.
    pub failed: u64,
}

/// The searches of one index; see [`Index::searches`].
#[derive(Debug, Clone, Copy)]
pub struct Searches<'a> {
    index: &'a Index,
}

/// The grouping key of a query: trimmed, lowercased, whitespace runs as one space.
pub fn query_key(query: &str) -> String {
    query
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn rfc3339(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(SecondsFormat::Secs, true)
}

impl<'a> Searches<'a> {
    pub(crate) fn new(index: &'a Index) -> Searches<'a> {
        Searches { index }
    }

    /// Records one search that found `results` pages.
    pub fn record(&self, query: &str, results: u64, at: DateTime<Utc>) -> Result<(), IndexError> {
        self.record_all(&[SearchLogged {
            query: query.to_string(),
            results,
            at,
        }])
    }

    /// Records searches in one transaction (the service gathers them and writes them when
    /// idle: one small write instead of one per search).
    pub fn record_all(&self, searches: &[SearchLogged]) -> Result<(), IndexError> {
        let mut connection = self.index.connection();
        let sql = |e| self.index.sqlite_error(e);
        let tx = connection.transaction().map_err(sql)?;
        {
            let mut insert = tx
                .prepare_cached(
                    "INSERT INTO searches (query, key, results, at) VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(sql)?;
            for search in searches {
                let key = query_key(&search.query);
                if key.is_empty() {
                    continue;
                }
                insert
                    .execute(params![
                        search.query.trim(),
                        key,
                        search.results as i64,
                        search.at.timestamp_millis()
                    ])
                    .map_err(sql)?;
            }
            tx.prepare_cached(
                "DELETE FROM searches WHERE id <= (SELECT max(id) FROM searches) - ?1",
            )
            .and_then(|mut stmt| stmt.execute([KEEP]))
            .map_err(sql)?;
        }
        tx.commit().map_err(sql)
    }

    /// How many searches the table holds.
    pub fn total(&self) -> Result<u64, IndexError> {
        self.index
            .connection()
            .query_row("SELECT count(*) FROM searches", [], |row| {
                row.get::<_, i64>(0)
            })
            .map(|n| n as u64)
            .map_err(|e| self.index.sqlite_error(e))
    }

    /// The newest `limit` searches, newest first.
    pub fn recent(&self, limit: usize) -> Result<Vec<SearchRecord>, IndexError> {
        let connection = self.index.connection();
        let sql = |e| self.index.sqlite_error(e);
        let mut stmt = connection
            .prepare("SELECT query, results, at FROM searches ORDER BY id DESC LIMIT ?1")
            .map_err(sql)?;
        let rows = stmt
            .query_map([limit as i64], |row| {
                Ok(SearchRecord {
                    query: row.get(0)?,
                    results: row.get::<_, i64>(1)? as u64,
                    timestamp: rfc3339(row.get(2)?),
                })
            })
            .map_err(sql)?;
        rows.collect::<Result<_, _>>().map_err(sql)
    }

    /// The most asked queries, most first (ties: newest first, then by key).
    pub fn top(&self, limit: usize) -> Result<Vec<QueryCount>, IndexError> {
        self.counts("1 = 1", limit)
    }

    /// Queries that found nothing, with how often they did, most first.
    pub fn failed(&self, limit: usize) -> Result<Vec<QueryCount>, IndexError> {
        self.counts("s.results = 0", limit)
    }

    /// Failed queries that were not dismissed, or failed again after their dismissal.
    pub fn gaps(&self, limit: usize) -> Result<Vec<QueryCount>, IndexError> {
        self.counts(
            "s.results = 0 AND s.at > coalesce(
                (SELECT d.dismissed_at FROM search_gaps_dismissed d WHERE d.key = s.key), -1)",
            limit,
        )
    }

    fn counts(&self, filter: &str, limit: usize) -> Result<Vec<QueryCount>, IndexError> {
        let connection = self.index.connection();
        let sql = |e| self.index.sqlite_error(e);
        // The query text shown is the one of the newest search of the group.
        let statement = format!(
            "SELECT (SELECT q.query FROM searches q WHERE q.key = s.key ORDER BY q.id DESC LIMIT 1),
                    count(*), max(s.at)
             FROM searches s WHERE {filter}
             GROUP BY s.key ORDER BY count(*) DESC, max(s.at) DESC, s.key LIMIT ?1"
        );
        let mut stmt = connection.prepare(&statement).map_err(sql)?;
        let rows = stmt
            .query_map([limit as i64], |row| {
                Ok(QueryCount {
                    query: row.get(0)?,
                    count: row.get::<_, i64>(1)? as u64,
                    last_seen: rfc3339(row.get(2)?),
                })
            })
            .map_err(sql)?;
        rows.collect::<Result<_, _>>().map_err(sql)
    }

    /// Searches per UTC day, oldest first, for the days since `since` that saw any.
    pub fn per_day(&self, since: DateTime<Utc>) -> Result<Vec<DayCount>, IndexError> {
        let connection = self.index.connection();
        let sql = |e| self.index.sqlite_error(e);
        let mut stmt = connection
            .prepare(
                "SELECT date(at / 1000, 'unixepoch') AS day, count(*),
                        sum(CASE WHEN results = 0 THEN 1 ELSE 0 END)
                 FROM searches WHERE at >= ?1 GROUP BY day ORDER BY day",
            )
            .map_err(sql)?;
        let rows = stmt
            .query_map([since.timestamp_millis()], |row| {
                Ok(DayCount {
                    date: row.get(0)?,
                    searches: row.get::<_, i64>(1)? as u64,
                    failed: row.get::<_, i64>(2)? as u64,
                })
            })
            .map_err(sql)?;
        rows.collect::<Result<_, _>>().map_err(sql)
    }

    /// Dismisses the content gap of `query` as of `at`: it is listed again only when it fails
    /// again later. `false` when no search of that query ever failed (nothing to dismiss).
    pub fn dismiss(&self, query: &str, at: DateTime<Utc>) -> Result<bool, IndexError> {
        let key = query_key(query);
        let connection = self.index.connection();
        let sql = |e| self.index.sqlite_error(e);
        let failed: Option<i64> = connection
            .query_row(
                "SELECT 1 FROM searches WHERE key = ?1 AND results = 0 LIMIT 1",
                [&key],
                |row| row.get(0),
            )
            .optional()
            .map_err(sql)?;
        if failed.is_none() {
            return Ok(false);
        }
        connection
            .execute(
                "INSERT INTO search_gaps_dismissed (key, dismissed_at) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET dismissed_at = excluded.dismissed_at",
                params![key, at.timestamp_millis()],
            )
            .map_err(sql)?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(day: u32, hour: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, day, hour, 0, 0).unwrap()
    }

    #[test]
    fn searches_group_by_key_and_gaps_come_back_after_a_new_failure() {
        let root = tempfile::tempdir().unwrap();
        let index = Index::open(root.path()).unwrap();
        let s = index.searches();
        s.record("Rust", 3, at(1, 9)).unwrap();
        s.record(" rust  ", 2, at(1, 10)).unwrap();
        s.record("zebra", 0, at(1, 11)).unwrap();
        s.record("Zebra", 0, at(2, 11)).unwrap();
        s.record("quokka", 0, at(2, 12)).unwrap();
        assert_eq!(s.total().unwrap(), 5);
        let top = s.top(10).unwrap();
        assert_eq!(top[0].query, "Zebra");
        assert_eq!(top[0].count, 2);
        assert_eq!(top[1].query, "rust");
        assert_eq!(s.recent(1).unwrap()[0].query, "quokka");
        let failed = s.failed(10).unwrap();
        assert_eq!(
            failed
                .iter()
                .map(|f| (f.query.as_str(), f.count))
                .collect::<Vec<_>>(),
            [("Zebra", 2), ("quokka", 1)]
        );
        let days = s.per_day(at(1, 0)).unwrap();
        assert_eq!(days.len(), 2);
        assert_eq!(
            (days[0].date.as_str(), days[0].searches, days[0].failed),
            ("2026-03-01", 3, 1)
        );

        assert!(s.dismiss("ZEBRA", at(3, 0)).unwrap());
        assert!(!s.dismiss("rust", at(3, 0)).unwrap(), "never failed");
        let gaps: Vec<_> = s.gaps(10).unwrap().into_iter().map(|g| g.query).collect();
        assert_eq!(gaps, ["quokka"]);
        s.record("zebra", 0, at(4, 0)).unwrap();
        let gaps: Vec<_> = s.gaps(10).unwrap().into_iter().map(|g| g.count).collect();
        assert_eq!(gaps, [1, 1], "only the failure after the dismissal counts");
    }

    #[test]
    fn a_batch_is_recorded_at_once_and_blank_queries_are_skipped() {
        let root = tempfile::tempdir().unwrap();
        let index = Index::open(root.path()).unwrap();
        let logged = |query: &str, results| SearchLogged {
            query: query.into(),
            results,
            at: at(5, 8),
        };
        index
            .searches()
            .record_all(&[logged("alpha", 2), logged("  ", 1), logged("beta", 0)])
            .unwrap();
        let s = index.searches();
        assert_eq!(s.total().unwrap(), 2);
        assert_eq!(s.recent(1).unwrap()[0].query, "beta");
    }
}
