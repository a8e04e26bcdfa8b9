//! Page views (`[analytics] track_views`): how often each page was read, by day, by client
//! and by viewer, in `.quire/state/page_views.db`. Unlike the index this is not derived from
//! the files: it is never recreated from them, and a file that is not a usable database is
//! an error at start, not replaced.
//!
//! One row per page, day, client and viewer with its count and first and last time, so the
//! table grows with the pages read and the people reading them, not with every read.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};

use crate::IndexError;

/// Where the views are kept, under the root.
pub const PAGE_VIEWS_FILE: &str = ".quire/state/page_views.db";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS page_views (
    path TEXT NOT NULL,
    day TEXT NOT NULL,
    client TEXT NOT NULL,
    viewer TEXT NOT NULL,
    count INTEGER NOT NULL,
    first TEXT NOT NULL,
    last TEXT NOT NULL,
    PRIMARY KEY (path, day, client, viewer)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS page_views_by_day ON page_views (day);
";

/// One view to record.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    pub path: &'a str,
    /// `YYYY-MM-DD` (UTC).
    pub day: &'a str,
    /// RFC 3339.
    pub at: &'a str,
    /// Which program read it (`ui`, `mcp`, `public`, …).
    pub client: &'a str,
    /// Who read it (`anonymous` when nobody is named).
    pub viewer: &'a str,
}

/// A page's views over a period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageCount {
    pub path: String,
    pub views: u64,
}

/// A page's engagement over a period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Engagement {
    pub path: String,
    pub views: u64,
    /// Distinct viewers.
    pub viewers: u64,
    pub first: String,
    pub last: String,
    /// `(day, views)`, oldest first.
    pub by_day: Vec<(String, u64)>,
    /// `(client, views)`, by client name.
    pub by_client: Vec<(String, u64)>,
}

/// The page-view store of one root.
pub struct PageViews {
    path: PathBuf,
    connection: Mutex<Connection>,
}

impl std::fmt::Debug for PageViews {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageViews")
            .field("path", &self.path)
            .finish()
    }
}

impl PageViews {
    /// Opens (or creates) the store of the knowledge root `root`.
    pub fn open(root: &Path) -> Result<PageViews, IndexError> {
        let path = root.join(PAGE_VIEWS_FILE);
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(|source| IndexError::CreateFolder {
                path: folder.to_path_buf(),
                source,
            })?;
        }
        let sqlite = |source| IndexError::Sqlite {
            path: path.clone(),
            source,
        };
        let connection = Connection::open(&path).map_err(sqlite)?;
        connection
            .busy_timeout(std::time::Duration::from_secs(5))
            .map_err(sqlite)?;
        connection
            .query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .map_err(sqlite)?;
        connection
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(sqlite)?;
        connection.execute_batch(SCHEMA).map_err(sqlite)?;
        Ok(PageViews {
            path,
            connection: Mutex::new(connection),
        })
    }

    fn sqlite(&self, source: rusqlite::Error) -> IndexError {
        IndexError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    fn connection(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.connection.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts one view.
    pub fn record(&self, view: View<'_>) -> Result<(), IndexError> {
        self.connection()
            .prepare_cached(
                "INSERT INTO page_views (path, day, client, viewer, count, first, last)
                 VALUES (?1, ?2, ?3, ?4, 1, ?5, ?5)
                 ON CONFLICT (path, day, client, viewer)
                 DO UPDATE SET count = count + 1, last = excluded.last",
            )
            .and_then(|mut statement| {
                statement.execute(params![
                    view.path,
                    view.day,
                    view.client,
                    view.viewer,
                    view.at
                ])
            })
            .map(drop)
            .map_err(|e| self.sqlite(e))
    }

    /// Views per page since `since_day` (inclusive), most viewed first (ties by path), of
    /// one page when `path` is given; at most `limit`, and the total of every page.
    pub fn counts(
        &self,
        since_day: &str,
        path: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<PageCount>, u64), IndexError> {
        let connection = self.connection();
        let run = || -> rusqlite::Result<(Vec<PageCount>, u64)> {
            let mut statement = connection.prepare_cached(
                "SELECT path, sum(count) AS views FROM page_views
                 WHERE day >= ?1 AND (?2 IS NULL OR path = ?2)
                 GROUP BY path ORDER BY views DESC, path LIMIT ?3",
            )?;
            let pages = statement
                .query_map(params![since_day, path, limit as i64], |row| {
                    Ok(PageCount {
                        path: row.get(0)?,
                        views: row.get::<_, i64>(1)? as u64,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let total: Option<i64> = connection
                .query_row(
                    "SELECT sum(count) FROM page_views
                     WHERE day >= ?1 AND (?2 IS NULL OR path = ?2)",
                    params![since_day, path],
                    |row| row.get(0),
                )
                .optional()?
                .flatten();
            Ok((pages, total.unwrap_or(0) as u64))
        };
        run().map_err(|e| self.sqlite(e))
    }

    /// Engagement of the most viewed pages since `since_day` (of one page when `path` is
    /// given), at most `limit`.
    pub fn engagement(
        &self,
        since_day: &str,
        path: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Engagement>, IndexError> {
        let (pages, _) = self.counts(since_day, path, limit)?;
        let connection = self.connection();
        let run = || -> rusqlite::Result<Vec<Engagement>> {
            let mut summary = connection.prepare_cached(
                "SELECT count(DISTINCT viewer), min(first), max(last) FROM page_views
                 WHERE day >= ?1 AND path = ?2",
            )?;
            let mut days = connection.prepare_cached(
                "SELECT day, sum(count) FROM page_views WHERE day >= ?1 AND path = ?2
                 GROUP BY day ORDER BY day",
            )?;
            let mut clients = connection.prepare_cached(
                "SELECT client, sum(count) FROM page_views WHERE day >= ?1 AND path = ?2
                 GROUP BY client ORDER BY client",
            )?;
            let pairs = |statement: &mut rusqlite::CachedStatement<'_>, path: &str| {
                statement
                    .query_map(params![since_day, path], |row| {
                        Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)? as u64))
                    })?
                    .collect::<rusqlite::Result<Vec<_>>>()
            };
            let mut out = Vec::with_capacity(pages.len());
            for page in pages {
                let (viewers, first, last) = summary
                    .query_row(params![since_day, page.path], |row| {
                        Ok((row.get::<_, i64>(0)?, row.get(1)?, row.get(2)?))
                    })?;
                out.push(Engagement {
                    by_day: pairs(&mut days, &page.path)?,
                    by_client: pairs(&mut clients, &page.path)?,
                    path: page.path,
                    views: page.views,
                    viewers: viewers as u64,
                    first,
                    last,
                });
            }
            Ok(out)
        };
        run().map_err(|e| self.sqlite(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view<'a>(path: &'a str, day: &'a str, client: &'a str, viewer: &'a str) -> View<'a> {
        View {
            path,
            day,
            at: "2026-11-20T10:00:00Z",
            client,
            viewer,
        }
    }

    #[test]
    fn views_are_counted_per_page_day_client_and_viewer() {
        let dir = tempfile::tempdir().unwrap();
        let store = PageViews::open(dir.path()).unwrap();
        store
            .record(view("a.md", "2026-11-20", "ui", "ann"))
            .unwrap();
        store
            .record(view("a.md", "2026-11-20", "ui", "ann"))
            .unwrap();
        store
            .record(view("a.md", "2026-11-21", "mcp", "bob"))
            .unwrap();
        store
            .record(view("b.md", "2026-11-21", "ui", "ann"))
            .unwrap();
        store
            .record(view("c.md", "2026-10-01", "ui", "ann"))
            .unwrap();
        let (pages, total) = store.counts("2026-11-01", None, 10).unwrap();
        assert_eq!(
            pages,
            vec![
                PageCount {
                    path: "a.md".into(),
                    views: 3
                },
                PageCount {
                    path: "b.md".into(),
                    views: 1
                },
            ]
        );
        assert_eq!(total, 4);
        let (one, total) = store.counts("2026-11-01", Some("b.md"), 10).unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(total, 1);
        let a = &store.engagement("2026-11-01", Some("a.md"), 10).unwrap()[0];
        assert_eq!(a.viewers, 2);
        assert_eq!(
            a.by_day,
            vec![("2026-11-20".into(), 2), ("2026-11-21".into(), 1)]
        );
        assert_eq!(a.by_client, vec![("mcp".into(), 1), ("ui".into(), 2)]);
        // Kept across a reopen.
        drop(store);
        let again = PageViews::open(dir.path()).unwrap();
        assert_eq!(again.counts("2026-01-01", None, 10).unwrap().1, 5);
    }
}
