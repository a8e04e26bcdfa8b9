//! The derived SQLite index of a knowledge root at `.quire/state/index.db`: opening it in WAL
//! mode, its schema version, recreating it when it is damaged, and the tables kept in it:
//! pages with their frontmatter, links, tags and headings ([`pages`]), an FTS5 full-text table
//! and the search language over it ([`search`]), `claims`, and the log of searches answered
//! ([`searches`]).
//!
//! *API Boundary*: the crate knows nothing of markdown, links or frontmatter syntax. The service
//! parses pages and feeds plain [`PageRecord`]s; the index stores and searches them.
//!
//! *Architecture Invariant*: everything in the database can be lost. Files and git are the
//! truth; claims are leases. So a database that cannot be read, or that was written by an
//! unknown schema version, is deleted and created afresh instead of being repaired.

mod checkpointer;
mod claims;
mod contents;
mod error;
pub mod page_views;
pub mod pages;
pub mod search;
pub mod searches;
pub mod vectors;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension};

pub use claims::{Claim, ClaimError, Claims, ReleaseError};
pub use error::IndexError;
pub use page_views::PageViews;
pub use pages::{HeadingRecord, LinkRecord, PageRecord};
pub use search::{SearchError, SearchHit, SearchRequest, SearchResults, SearchSyntaxError};
pub use searches::{DayCount, QueryCount, SearchLogged, SearchRecord, Searches};
pub use vectors::{Neighbor, NewChunk, StoredChunk, VectorCache, VectorStore};

/// Where the index lives inside a knowledge root (DECISIONS §2).
pub const INDEX_FILE: &str = ".quire/state/index.db";

/// The schema this build writes; any other value in `schema_version` means "recreate".
/// 4: the full-text row holds tags, aliases, property values and path words.
pub const SCHEMA_VERSION: i64 = 4;

/// How long a statement waits for another connection (another process on the same root, such
/// as `quire refactor apply --root`) to finish writing before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// WAL pages (4 KiB) after which a commit checkpoints by itself: a backstop for the
/// checkpoints the service makes when idle ([`Index::truncate_wal`]).
const WAL_AUTOCHECKPOINT_PAGES: i64 = 10_000;

const SCHEMA: &str = "
    CREATE TABLE schema_version (version INTEGER NOT NULL);
    CREATE TABLE claims (
        path       TEXT PRIMARY KEY NOT NULL,
        actor      TEXT NOT NULL,
        claimed_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        lease_ms   INTEGER NOT NULL
    );
    CREATE INDEX claims_expiry ON claims (expires_at);
    CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
";

/// What [`Index::truncate_wal`] did, as SQLite reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpointed {
    /// Another connection kept the checkpoint from finishing.
    pub busy: bool,
    /// Frames in the WAL before (after a truncation SQLite reports 0).
    pub wal_frames: i64,
    /// Frames copied into the database.
    pub copied: i64,
}

/// An open index database. One connection behind a mutex writes (and answers the short
/// lookups); searches read through connections of their own ([`Index::reader`]), so a search
/// never waits for the index thread's write transaction (WAL lets readers run beside it).
pub struct Index {
    path: PathBuf,
    connection: Mutex<Connection>,
    /// Idle read connections (`None`: an immutable read-only open, which reads through the
    /// one connection).
    readers: Option<Mutex<Vec<Connection>>>,
    /// Checkpoints during spells of writes (`None` for a read-only open).
    checkpointer: Option<checkpointer::Checkpointer>,
}

/// Read connections kept open for searches (more are opened when needed and closed after).
const IDLE_READERS: usize = 4;

/// A connection to read from: a pooled reader, or the one connection.
pub(crate) enum Reader<'a> {
    Pooled(&'a Mutex<Vec<Connection>>, Option<Connection>),
    Shared(MutexGuard<'a, Connection>),
}

impl std::ops::Deref for Reader<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        match self {
            Reader::Pooled(_, connection) => connection.as_ref().expect("a reader until dropped"),
            Reader::Shared(guard) => guard,
        }
    }
}

impl Drop for Reader<'_> {
    fn drop(&mut self) {
        if let Reader::Pooled(pool, connection) = self {
            let mut idle = pool.lock().unwrap_or_else(|p| p.into_inner());
            if idle.len() < IDLE_READERS {
                if let Some(connection) = connection.take() {
                    idle.push(connection);
                }
            }
        }
    }
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index").field("path", &self.path).finish()
    }
}

impl Index {
    /// Opens (or creates) the index of the knowledge root `root`. A damaged file or one from
    /// another schema version is replaced by an empty index, with a warning in the log.
    pub fn open(root: &Path) -> Result<Index, IndexError> {
        Index::open_file(&root.join(INDEX_FILE))
    }

    /// Opens (or creates) the index database at `path`; [`Index::open`] names the usual place.
    pub fn open_file(path: &Path) -> Result<Index, IndexError> {
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(|source| IndexError::CreateFolder {
                path: folder.to_path_buf(),
                source,
            })?;
        }
        let connection = match connect(path) {
            Ok(connection) => connection,
            Err(Unusable(reason)) => {
                tracing::warn!(
                    "index {} is unusable ({reason}); recreating it (active claims are lost)",
                    path.display()
                );
                remove_database(path)?;
                connect(path).map_err(|Unusable(reason)| IndexError::Unusable {
                    path: path.to_path_buf(),
                    reason,
                })?
            }
        };
        Ok(Index {
            path: path.to_path_buf(),
            connection: Mutex::new(connection),
            readers: Some(Mutex::new(Vec::new())),
            checkpointer: checkpointer::Checkpointer::start(path, BUSY_TIMEOUT),
        })
    }

    /// Opens the index of `root` for reading only, creating and changing nothing (not even the
    /// WAL's shared-memory file): `None` when there is no usable index. Meant for a process that
    /// reads a root nobody writes (no writer holds the root's lock), so the file is opened as
    /// immutable, without locks.
    pub fn open_read_only(root: &Path) -> Result<Option<Index>, IndexError> {
        let path = root.join(INDEX_FILE);
        if !path.is_file() {
            return Ok(None);
        }
        let uri = format!("file:{}?immutable=1", uri_path(&path));
        let flags =
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI;
        let connection = match Connection::open_with_flags(&uri, flags) {
            Ok(connection) => connection,
            Err(e) => {
                tracing::warn!("index {} cannot be read ({e}); ignoring it", path.display());
                return Ok(None);
            }
        };
        let version: Option<i64> = connection
            .query_row("SELECT version FROM schema_version", [], |row| row.get(0))
            .optional()
            .unwrap_or(None);
        if version != Some(SCHEMA_VERSION) {
            return Ok(None);
        }
        Ok(Some(Index {
            path,
            connection: Mutex::new(connection),
            readers: None,
            checkpointer: None,
        }))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Copies the WAL into the database file, without waiting for readers; the next write
    /// then starts the WAL over instead of growing it. Writes do not do this (a
    /// checkpoint costs milliseconds and an fsync); the service empties the WAL with
    /// [`Index::truncate_wal`] when idle, and past 40 MB of WAL SQLite checkpoints by itself.
    pub fn checkpoint(&self) -> Result<(), IndexError> {
        self.connection()
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
            .map_err(|e| self.sqlite_error(e))
    }

    /// Copies the whole WAL into the database file and truncates the WAL to nothing: what the
    /// service does once it has been idle for a while. Waits (up to the busy timeout) for
    /// readers of other processes; the WAL pages they still read are not copied away.
    pub fn truncate_wal(&self) -> Result<Checkpointed, IndexError> {
        self.connection()
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| {
                Ok(Checkpointed {
                    busy: row.get::<_, i64>(0)? != 0,
                    wal_frames: row.get(1)?,
                    copied: row.get(2)?,
                })
            })
            .map_err(|e| self.sqlite_error(e))
    }

    /// A write transaction committed: the checkpoint thread copies the WAL into the database
    /// soon, beside the writer (see [`checkpointer`]).
    pub(crate) fn wrote(&self) {
        if let Some(checkpointer) = &self.checkpointer {
            checkpointer.nudge();
        }
    }

    /// The claims table: advisory leases on paths.
    pub fn claims(&self) -> Claims<'_> {
        Claims::new(self)
    }

    /// The searches table: the full-text queries answered, for search analytics.
    pub fn searches(&self) -> Searches<'_> {
        Searches::new(self)
    }

    /// The one connection. A thread that panicked while holding it cannot have left a
    /// transaction half-done (rusqlite rolls back on drop), so a poisoned lock is still usable.
    pub(crate) fn connection(&self) -> MutexGuard<'_, Connection> {
        self.connection.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A connection for reading only: an idle pooled reader, a new one, or (for an immutable
    /// open, or when a reader cannot be opened) the one connection.
    pub(crate) fn reader(&self) -> Reader<'_> {
        let Some(pool) = &self.readers else {
            return Reader::Shared(self.connection());
        };
        let idle = pool.lock().unwrap_or_else(|p| p.into_inner()).pop();
        match idle.map(Ok).unwrap_or_else(|| open_reader(&self.path)) {
            Ok(connection) => Reader::Pooled(pool, Some(connection)),
            Err(e) => {
                tracing::warn!(
                    "cannot open a read connection to the index ({e}); sharing the writer's"
                );
                Reader::Shared(self.connection())
            }
        }
    }

    pub(crate) fn sqlite_error(&self, source: rusqlite::Error) -> IndexError {
        IndexError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }
}

/// A path for an SQLite `file:` URI: `%`, `?` and `#` escaped.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
}

/// Why an existing database file cannot be used as it is.
struct Unusable(String);

impl From<rusqlite::Error> for Unusable {
    fn from(e: rusqlite::Error) -> Unusable {
        Unusable(e.to_string())
    }
}

/// The page cache of the connection (negative: KiB), and how much of the file is mapped.
pub(crate) const READ_CACHE_KIB: i64 = -32_000;
const MMAP_BYTES: i64 = 256 * 1024 * 1024;

/// Opens the file, switches it to WAL and checks (or creates) the schema.
/// A read-only connection with the read settings of [`connect`].
fn open_reader(path: &Path) -> Result<Connection, rusqlite::Error> {
    let flags =
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = Connection::open_with_flags(path, flags)?;
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.pragma_update(None, "cache_size", READ_CACHE_KIB)?;
    connection.pragma_update(None, "mmap_size", MMAP_BYTES)?;
    Ok(connection)
}

fn connect(path: &Path) -> Result<Connection, Unusable> {
    let mut connection = Connection::open(path)?;
    connection.busy_timeout(BUSY_TIMEOUT)?;
    // The first read of a file that is no SQLite database fails here (SQLITE_NOTADB).
    let mode: String = connection.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(Unusable(format!("journal mode stays {mode:?}, not WAL")));
    }
    // WAL makes NORMAL durable enough for derived data and much faster than FULL.
    connection.pragma_update(None, "synchronous", "NORMAL")?;
    // Checkpoints stay off the write path: a thread of the index checkpoints during spells of
    // writes (`checkpointer`), the service calls `Index::truncate_wal` when idle, and SQLite
    // checkpoints by itself only past 40 MB of WAL (a backstop).
    connection.pragma_update(None, "wal_autocheckpoint", WAL_AUTOCHECKPOINT_PAGES)?;
    // Searches walk FTS5 doclists page by page: a larger page cache and reading the file
    // through a memory map spare a `pread` and a copy per page.
    connection.pragma_update(None, "cache_size", READ_CACHE_KIB)?;
    connection.pragma_update(None, "mmap_size", MMAP_BYTES)?;
    let tx = connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let tables: i64 = tx.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
        [],
        |row| row.get(0),
    )?;
    if tables == 0 {
        tx.execute_batch(SCHEMA)?;
        tx.execute_batch(pages::CONTENT_SCHEMA)?;
        tx.execute_batch(pages::CONTENT_INDEXES)?;
        tx.execute(
            "INSERT INTO schema_version (version) VALUES (?1)",
            [SCHEMA_VERSION],
        )?;
    } else {
        let version: Option<i64> = tx
            .query_row("SELECT max(version) FROM schema_version", [], |row| {
                row.get(0)
            })
            .optional()
            .map_err(|e| Unusable(format!("no readable schema version: {e}")))?
            .flatten();
        if version != Some(SCHEMA_VERSION) {
            return Err(Unusable(format!(
                "schema version {} where {SCHEMA_VERSION} is expected",
                version.map_or_else(|| "missing".to_string(), |v| v.to_string())
            )));
        }
    }
    // Tables added within a schema version are created where missing.
    tx.execute_batch(searches::SCHEMA)?;
    tx.commit()?;
    Ok(connection)
}

/// Deletes the database with its WAL and shared-memory files.
fn remove_database(path: &Path) -> Result<(), IndexError> {
    let mut companions = Vec::with_capacity(3);
    companions.push(path.to_path_buf());
    for suffix in ["-wal", "-shm"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        companions.push(PathBuf::from(name));
    }
    for file in companions {
        match std::fs::remove_file(&file) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(IndexError::Remove { path: file, source }),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_only_open_reads_claims_and_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Index::open_read_only(dir.path()).unwrap().is_none());
        assert!(!dir.path().join(".quire").exists(), "nothing created");
        {
            let index = Index::open(dir.path()).unwrap();
            index
                .claims()
                .claim(
                    "a.md",
                    "alice",
                    Duration::from_secs(600),
                    chrono::Utc::now(),
                )
                .unwrap();
        }
        let before: Vec<_> = std::fs::read_dir(dir.path().join(".quire/state"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        let index = Index::open_read_only(dir.path())
            .unwrap()
            .expect("index exists");
        let active = index.claims().active(chrono::Utc::now()).unwrap();
        assert_eq!(active.len(), 1);
        assert_eq!(active[0].actor, "alice");
        drop(index);
        let after: Vec<_> = std::fs::read_dir(dir.path().join(".quire/state"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(before, after, "no file created or removed");
    }

    #[test]
    fn open_creates_the_database_under_quire_state_in_wal_mode() {
        let root = tempfile::tempdir().unwrap();
        let index = Index::open(root.path()).unwrap();
        assert_eq!(index.path(), root.path().join(".quire/state/index.db"));
        assert!(index.path().is_file());
        let mode: String = index
            .connection()
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }

    #[test]
    fn truncating_the_wal_empties_it_and_keeps_the_data() {
        let root = tempfile::tempdir().unwrap();
        let index = Index::open(root.path()).unwrap();
        for i in 0..20 {
            index
                .searches()
                .record(&format!("q{i}"), 1, chrono::Utc::now())
                .unwrap();
        }
        let wal = root.path().join(".quire/state/index.db-wal");
        assert!(
            std::fs::metadata(&wal).unwrap().len() > 0,
            "writes went to the WAL"
        );
        let done = index.truncate_wal().unwrap();
        assert!(!done.busy, "{done:?}");
        assert_eq!(std::fs::metadata(&wal).unwrap().len(), 0);
        assert_eq!(index.searches().total().unwrap(), 20);
    }

    #[test]
    fn reopening_keeps_the_schema_version() {
        let root = tempfile::tempdir().unwrap();
        drop(Index::open(root.path()).unwrap());
        let index = Index::open(root.path()).unwrap();
        let version: i64 = index
            .connection()
            .query_row("SELECT version FROM schema_version", [], |row| row.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
    }

    #[test]
    fn damaged_or_foreign_databases_are_recreated_empty() {
        type Damage = fn(&Path);
        let cases: [(&str, Damage); 3] = [
            ("garbage bytes", |path| {
                std::fs::write(path, b"this is not a database, just text".repeat(200)).unwrap()
            }),
            ("unknown schema version", |path| {
                let c = Connection::open(path).unwrap();
                c.execute_batch(
                    "CREATE TABLE schema_version (version INTEGER NOT NULL);
                     INSERT INTO schema_version VALUES (999);
                     CREATE TABLE claims (path TEXT, actor TEXT);
                     INSERT INTO claims VALUES ('a.md', 'old');",
                )
                .unwrap();
            }),
            ("tables but no version table", |path| {
                let c = Connection::open(path).unwrap();
                c.execute_batch("CREATE TABLE other (x); INSERT INTO other VALUES (1);")
                    .unwrap();
            }),
        ];
        for (name, damage) in cases {
            let root = tempfile::tempdir().unwrap();
            let file = root.path().join(INDEX_FILE);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            damage(&file);
            let index = Index::open(root.path()).unwrap_or_else(|e| panic!("{name}: {e}"));
            let tables: Vec<String> = {
                let c = index.connection();
                let mut stmt = c
                    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                    .unwrap();
                let rows = stmt.query_map([], |row| row.get(0)).unwrap();
                rows.map(Result::unwrap).collect()
            };
            assert!(tables.iter().any(|t| t == "pages"), "{name}: {tables:?}");
            assert!(tables.iter().any(|t| t == "fts"), "{name}: {tables:?}");
            assert!(!tables.iter().any(|t| t == "other"), "{name}: {tables:?}");
            let claims: i64 = index
                .connection()
                .query_row("SELECT count(*) FROM claims", [], |row| row.get(0))
                .unwrap();
            assert_eq!(claims, 0, "{name}");
        }
    }

    #[test]
    fn an_index_path_that_is_a_folder_is_an_error_not_a_panic() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join(INDEX_FILE).join("occupied")).unwrap();
        let error = Index::open(root.path()).unwrap_err();
        assert!(matches!(error, IndexError::Remove { .. }), "{error:?}");
    }
}
