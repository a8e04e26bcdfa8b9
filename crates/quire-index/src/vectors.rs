//! The local file of vector search, `.quire/state/vectors.db` beside the index: the cache of
//! every vector computed ([`VectorCache`], whatever the store) and the sqlite-vec store
//! ([`VectorStore`], `[search.vector.store] provider = "sqlite-vec"`, the default): the chunks
//! of each page and their embeddings, searched with the sqlite-vec extension's `vec0` table
//! (cosine distance). Other stores (pgvector, Qdrant) keep the chunks elsewhere and the cache
//! here, so a move or a revert never embeds again whatever the store.
//!
//! * `pages`: each page embedded, with the ETag of the content its chunks were cut from, so a
//!   start embeds only the pages that changed while no server ran.
//! * `chunks`: a page's windows in order, each with the hash of its text; its vector is the
//!   row of `chunk_vectors` with the same id.
//! * `cache`: every vector computed, by the hash of its text. A chunk whose text was embedded
//!   before — the page was moved, merged, split or reverted, or only another part of it
//!   changed — takes its vector from here instead of the embedder. Vectors no chunk uses are
//!   pruned when they outnumber the chunks.
//! * `meta`: the model and its dimensions. Another model (or size) empties the file: the
//!   next pass embeds every page again with the new one.
//!
//! Like the index it is derived: deleting the file loses nothing but the time to embed again.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{params, Connection, OptionalExtension};

use crate::IndexError;

/// Where the vectors are kept, under the root.
pub const VECTORS_FILE: &str = ".quire/state/vectors.db";

/// sqlite-vec's `k` may not exceed this.
const MAX_K: usize = 4096;

/// A chunk as stored, with its vector.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredChunk {
    pub idx: usize,
    pub hash: String,
    pub text: String,
    pub vector: Vec<f32>,
}

/// A chunk to store: its text, the hash of that text, its vector.
#[derive(Debug, Clone, PartialEq)]
pub struct NewChunk {
    pub hash: String,
    pub text: String,
    pub vector: Vec<f32>,
}

/// A chunk near a query, with its cosine similarity (1 = the same direction).
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbor {
    pub path: String,
    pub idx: usize,
    pub text: String,
    pub similarity: f32,
}

/// The vectors computed before, by the hash of their text, in the root's local file: every
/// store reuses them (a moved, merged or reverted page costs no embedding).
pub struct VectorCache {
    path: PathBuf,
    dimensions: usize,
    connection: Arc<Mutex<Connection>>,
}

impl std::fmt::Debug for VectorCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorCache")
            .field("path", &self.path)
            .field("dimensions", &self.dimensions)
            .finish()
    }
}

impl VectorCache {
    /// Opens (or creates) the local file of `root` for vectors of `model` with `dimensions`
    /// numbers; a file made for another model or size is emptied first (its sqlite-vec
    /// tables too).
    pub fn open(root: &Path, model: &str, dimensions: usize) -> Result<VectorCache, IndexError> {
        VectorCache::open_file(&root.join(VECTORS_FILE), model, dimensions)
    }

    /// [`VectorCache::open`] at an explicit file.
    pub fn open_file(
        path: &Path,
        model: &str,
        dimensions: usize,
    ) -> Result<VectorCache, IndexError> {
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(|source| IndexError::CreateFolder {
                path: folder.to_path_buf(),
                source,
            })?;
        }
        let sqlite = |source| IndexError::Sqlite {
            path: path.to_path_buf(),
            source,
        };
        let connection = Connection::open(path).map_err(sqlite)?;
        load_extension(&connection).map_err(sqlite)?;
        connection
            .execute_batch(
                "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;",
            )
            .map_err(sqlite)?;
        let cache = VectorCache {
            path: path.to_path_buf(),
            dimensions,
            connection: Arc::new(Mutex::new(connection)),
        };
        cache.prepare(model).map_err(sqlite)?;
        Ok(cache)
    }

    fn prepare(&self, model: &str) -> rusqlite::Result<()> {
        let connection = lock(&self.connection);
        connection.execute_batch(
            "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
        )?;
        let stored = |key: &str| -> rusqlite::Result<Option<String>> {
            connection
                .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
                .optional()
        };
        let same = stored("model")?.as_deref() == Some(model)
            && stored("dimensions")?.as_deref() == Some(&self.dimensions.to_string());
        if !same {
            connection.execute_batch(
                "DROP TABLE IF EXISTS chunk_vectors; DROP TABLE IF EXISTS chunks;
                 DROP TABLE IF EXISTS pages; DROP TABLE IF EXISTS cache;",
            )?;
        }
        connection.execute_batch(
            "CREATE TABLE IF NOT EXISTS cache (hash TEXT PRIMARY KEY, vector BLOB NOT NULL);",
        )?;
        connection.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('model', ?1), ('dimensions', ?2)",
            params![model, self.dimensions.to_string()],
        )?;
        Ok(())
    }

    fn sqlite(&self, source: rusqlite::Error) -> IndexError {
        IndexError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// The length of every vector kept here.
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// The vectors computed before for these text hashes (those known).
    pub fn cached(&self, hashes: &[&str]) -> Result<HashMap<String, Vec<f32>>, IndexError> {
        let connection = lock(&self.connection);
        let run = || -> rusqlite::Result<HashMap<String, Vec<f32>>> {
            let mut statement =
                connection.prepare_cached("SELECT vector FROM cache WHERE hash = ?1")?;
            let mut out = HashMap::new();
            for hash in hashes {
                let found: Option<Vec<u8>> =
                    statement.query_row([hash], |r| r.get(0)).optional()?;
                if let Some(bytes) = found {
                    out.insert((*hash).to_string(), from_blob(&bytes));
                }
            }
            Ok(out)
        };
        run().map_err(|e| self.sqlite(e))
    }

    /// Keeps vectors just computed, by the hash of their text, in one transaction.
    pub fn remember(&self, vectors: &[(&str, &[f32])]) -> Result<(), IndexError> {
        let mut connection = lock(&self.connection);
        let run = |connection: &mut Connection| -> rusqlite::Result<()> {
            let tx = connection.transaction()?;
            {
                let mut insert = tx
                    .prepare_cached("INSERT OR IGNORE INTO cache (hash, vector) VALUES (?1, ?2)")?;
                for (hash, vector) in vectors {
                    insert.execute(params![hash, to_blob(vector)])?;
                }
            }
            tx.commit()
        };
        run(&mut connection).map_err(|e| self.sqlite(e))
    }

    /// Vectors kept.
    pub fn len(&self) -> Result<usize, IndexError> {
        lock(&self.connection)
            .query_row("SELECT count(*) FROM cache", [], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .map_err(|e| self.sqlite(e))
    }

    /// Whether no vector is kept.
    pub fn is_empty(&self) -> Result<bool, IndexError> {
        self.len().map(|n| n == 0)
    }

    /// Whether the cache outgrew `chunks`, the chunks the store keeps: more vectors than
    /// twice as many, with room for a thousand (what a revert or a move back would reuse
    /// stays a while).
    pub fn outgrew(&self, chunks: usize) -> Result<bool, IndexError> {
        Ok(self.len()? > 2 * chunks + 1000)
    }

    /// Drops the vectors whose hash is not in `in_use` (the hashes of the chunks the store
    /// keeps); answers how many went.
    pub fn keep_only(&self, in_use: &HashSet<String>) -> Result<usize, IndexError> {
        let mut connection = lock(&self.connection);
        let run = |connection: &mut Connection| -> rusqlite::Result<usize> {
            let tx = connection.transaction()?;
            tx.execute_batch("CREATE TEMP TABLE IF NOT EXISTS in_use (hash TEXT PRIMARY KEY); DELETE FROM in_use;")?;
            {
                let mut insert =
                    tx.prepare_cached("INSERT OR IGNORE INTO in_use (hash) VALUES (?1)")?;
                for hash in in_use {
                    insert.execute([hash])?;
                }
            }
            let gone = tx.execute(
                "DELETE FROM cache WHERE hash NOT IN (SELECT hash FROM in_use)",
                [],
            )?;
            tx.execute("DELETE FROM in_use", [])?;
            tx.commit()?;
            Ok(gone)
        };
        run(&mut connection).map_err(|e| self.sqlite(e))
    }
}

fn lock(connection: &Mutex<Connection>) -> std::sync::MutexGuard<'_, Connection> {
    connection.lock().unwrap_or_else(|p| p.into_inner())
}

/// The sqlite-vec store of one root, in the file of its [`VectorCache`].
pub struct VectorStore {
    path: PathBuf,
    dimensions: usize,
    connection: Arc<Mutex<Connection>>,
}

impl std::fmt::Debug for VectorStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorStore")
            .field("path", &self.path)
            .field("dimensions", &self.dimensions)
            .finish()
    }
}

impl VectorStore {
    /// Opens (or creates) the sqlite-vec tables in the file of `cache` (its model and size).
    pub fn open(cache: &VectorCache) -> Result<VectorStore, IndexError> {
        let store = VectorStore {
            path: cache.path.clone(),
            dimensions: cache.dimensions,
            connection: cache.connection.clone(),
        };
        let created = lock(&store.connection).execute_batch(&format!(
            "CREATE TABLE IF NOT EXISTS pages (path TEXT PRIMARY KEY, etag TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS chunks (
                 id INTEGER PRIMARY KEY,
                 path TEXT NOT NULL,
                 idx INTEGER NOT NULL,
                 hash TEXT NOT NULL,
                 text TEXT NOT NULL,
                 UNIQUE (path, idx)
             );
             CREATE INDEX IF NOT EXISTS chunks_by_hash ON chunks (hash);
             CREATE VIRTUAL TABLE IF NOT EXISTS chunk_vectors
                 USING vec0(embedding float[{}] distance_metric=cosine);",
            store.dimensions
        ));
        created.map_err(|e| store.sqlite(e))?;
        Ok(store)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        lock(&self.connection)
    }

    fn sqlite(&self, source: rusqlite::Error) -> IndexError {
        IndexError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// The length of every vector kept here.
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// Each page embedded, with the ETag its chunks were cut from.
    pub fn page_etags(&self) -> Result<HashMap<String, String>, IndexError> {
        let connection = self.lock();
        let run = || -> rusqlite::Result<HashMap<String, String>> {
            let mut statement = connection.prepare("SELECT path, etag FROM pages")?;
            let rows = statement.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect()
        };
        run().map_err(|e| self.sqlite(e))
    }

    /// The ETag `path`'s chunks were cut from, if it is embedded.
    pub fn page_etag(&self, path: &str) -> Result<Option<String>, IndexError> {
        self.lock()
            .query_row("SELECT etag FROM pages WHERE path = ?1", [path], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.sqlite(e))
    }

    /// Replaces the chunks of `path` with `chunks` (cut from the content of `etag`), in one
    /// transaction.
    pub fn replace_page(
        &self,
        path: &str,
        etag: &str,
        chunks: &[NewChunk],
    ) -> Result<(), IndexError> {
        self.replace_pages(&[(path, etag, chunks)])
    }

    /// [`VectorStore::replace_page`] for several pages in one transaction.
    pub fn replace_pages(&self, pages: &[(&str, &str, &[NewChunk])]) -> Result<(), IndexError> {
        let wrong = pages
            .iter()
            .flat_map(|(_, _, chunks)| chunks.iter())
            .find(|c| c.vector.len() != self.dimensions);
        if let Some(wrong) = wrong {
            return Err(IndexError::Unusable {
                path: self.path.clone(),
                reason: format!(
                    "a vector of {} numbers for a store of {}",
                    wrong.vector.len(),
                    self.dimensions
                ),
            });
        }
        let mut connection = self.lock();
        let run = |connection: &mut Connection| -> rusqlite::Result<()> {
            let tx = connection.transaction()?;
            {
                let mut chunk = tx.prepare_cached(
                    "INSERT INTO chunks (path, idx, hash, text) VALUES (?1, ?2, ?3, ?4)",
                )?;
                let mut vector = tx.prepare_cached(
                    "INSERT INTO chunk_vectors (rowid, embedding) VALUES (?1, ?2)",
                )?;
                let mut page =
                    tx.prepare_cached("INSERT OR REPLACE INTO pages (path, etag) VALUES (?1, ?2)")?;
                for (path, etag, chunks) in pages {
                    delete_chunks(&tx, path)?;
                    for (idx, c) in chunks.iter().enumerate() {
                        chunk.execute(params![path, idx as i64, c.hash, c.text])?;
                        let id = tx.last_insert_rowid();
                        vector.execute(params![id, to_blob(&c.vector)])?;
                    }
                    page.execute(params![path, etag])?;
                }
            }
            tx.commit()
        };
        run(&mut connection).map_err(|e| self.sqlite(e))
    }

    /// Forgets `paths` in one transaction (their vectors stay in the cache until pruned).
    pub fn remove_pages(&self, paths: &[&str]) -> Result<(), IndexError> {
        let mut connection = self.lock();
        let run = |connection: &mut Connection| -> rusqlite::Result<()> {
            let tx = connection.transaction()?;
            for path in paths {
                delete_chunks(&tx, path)?;
                tx.execute("DELETE FROM pages WHERE path = ?1", [path])?;
            }
            tx.commit()
        };
        run(&mut connection).map_err(|e| self.sqlite(e))
    }

    /// Forgets `path`.
    pub fn remove_page(&self, path: &str) -> Result<(), IndexError> {
        self.remove_pages(&[path])
    }

    /// The text hashes of every chunk kept (what the cache must keep).
    pub fn hashes(&self) -> Result<HashSet<String>, IndexError> {
        let connection = self.lock();
        let run = || -> rusqlite::Result<HashSet<String>> {
            let mut statement = connection.prepare("SELECT DISTINCT hash FROM chunks")?;
            let rows = statement.query_map([], |r| r.get(0))?;
            rows.collect()
        };
        run().map_err(|e| self.sqlite(e))
    }

    /// The `k` chunks nearest to `query`, nearest first.
    pub fn nearest(&self, query: &[f32], k: usize) -> Result<Vec<Neighbor>, IndexError> {
        if query.len() != self.dimensions || k == 0 {
            return Ok(Vec::new());
        }
        let connection = self.lock();
        let run = || -> rusqlite::Result<Vec<Neighbor>> {
            let mut statement = connection.prepare_cached(
                "SELECT c.path, c.idx, c.text, v.distance
                 FROM (SELECT rowid, distance FROM chunk_vectors
                       WHERE embedding MATCH ?1 AND k = ?2) v
                 JOIN chunks c ON c.id = v.rowid
                 ORDER BY v.distance",
            )?;
            let rows = statement.query_map(params![to_blob(query), k.min(MAX_K) as i64], |r| {
                let distance: f64 = r.get(3)?;
                Ok(Neighbor {
                    path: r.get(0)?,
                    idx: r.get::<_, i64>(1)? as usize,
                    text: r.get(2)?,
                    similarity: (1.0 - distance) as f32,
                })
            })?;
            rows.collect()
        };
        run().map_err(|e| self.sqlite(e))
    }

    /// The chunks of `path` in order, with their vectors (empty when it is not embedded).
    pub fn chunks_of(&self, path: &str) -> Result<Vec<StoredChunk>, IndexError> {
        let connection = self.lock();
        let run = || -> rusqlite::Result<Vec<StoredChunk>> {
            let mut statement = connection.prepare_cached(
                "SELECT c.idx, c.hash, c.text, v.embedding
                 FROM chunks c JOIN chunk_vectors v ON v.rowid = c.id
                 WHERE c.path = ?1 ORDER BY c.idx",
            )?;
            let rows = statement.query_map([path], |r| {
                let blob: Vec<u8> = r.get(3)?;
                Ok(StoredChunk {
                    idx: r.get::<_, i64>(0)? as usize,
                    hash: r.get(1)?,
                    text: r.get(2)?,
                    vector: from_blob(&blob),
                })
            })?;
            rows.collect()
        };
        run().map_err(|e| self.sqlite(e))
    }

    /// Pages and chunks kept.
    pub fn counts(&self) -> Result<(usize, usize), IndexError> {
        self.lock()
            .query_row(
                "SELECT (SELECT count(*) FROM pages), (SELECT count(*) FROM chunks)",
                [],
                |r| Ok((r.get::<_, i64>(0)? as usize, r.get::<_, i64>(1)? as usize)),
            )
            .map_err(|e| self.sqlite(e))
    }
}

fn delete_chunks(tx: &rusqlite::Transaction<'_>, path: &str) -> rusqlite::Result<()> {
    tx.execute(
        "DELETE FROM chunk_vectors WHERE rowid IN (SELECT id FROM chunks WHERE path = ?1)",
        [path],
    )?;
    tx.execute("DELETE FROM chunks WHERE path = ?1", [path])?;
    Ok(())
}

/// Registers sqlite-vec's functions and `vec0` on this connection only.
fn load_extension(connection: &Connection) -> rusqlite::Result<()> {
    type Init = unsafe extern "C" fn(
        *mut rusqlite::ffi::sqlite3,
        *mut *mut std::os::raw::c_char,
        *const rusqlite::ffi::sqlite3_api_routines,
    ) -> std::os::raw::c_int;
    // SAFETY: sqlite-vec declares its entry point without arguments; it is SQLite's standard
    // extension entry point, compiled with SQLITE_CORE so it calls the linked SQLite directly.
    let code = unsafe {
        let init: Init = std::mem::transmute(sqlite_vec::sqlite3_vec_init as *const ());
        init(connection.handle(), std::ptr::null_mut(), std::ptr::null())
    };
    if code == rusqlite::ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(code),
            Some("sqlite-vec could not be loaded".into()),
        ))
    }
}

fn to_blob(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_blob(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    fn chunk(hash: &str, v: &[f32]) -> NewChunk {
        NewChunk {
            hash: hash.into(),
            text: format!("text {hash}"),
            vector: unit(v),
        }
    }

    #[test]
    fn nearest_chunks_come_first_and_pages_can_be_replaced_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let cache = VectorCache::open(dir.path(), "m", 3).unwrap();
        let store = VectorStore::open(&cache).unwrap();
        store
            .replace_page(
                "a.md",
                "e1",
                &[chunk("h1", &[1., 0., 0.]), chunk("h2", &[0., 1., 0.])],
            )
            .unwrap();
        store
            .replace_page("b.md", "e2", &[chunk("h3", &[0.9, 0.1, 0.])])
            .unwrap();
        let near = store.nearest(&unit(&[1., 0., 0.]), 2).unwrap();
        assert_eq!(near[0].path, "a.md");
        assert!((near[0].similarity - 1.0).abs() < 1e-4);
        assert_eq!(near[1].path, "b.md");
        assert_eq!(store.counts().unwrap(), (2, 3));
        assert_eq!(store.chunks_of("a.md").unwrap().len(), 2);
        assert_eq!(store.page_etag("a.md").unwrap().as_deref(), Some("e1"));

        store
            .replace_page("a.md", "e3", &[chunk("h4", &[0., 0., 1.])])
            .unwrap();
        assert_eq!(store.chunks_of("a.md").unwrap().len(), 1);
        store.remove_page("b.md").unwrap();
        assert_eq!(store.counts().unwrap(), (1, 1));
        assert_eq!(store.hashes().unwrap(), HashSet::from(["h4".to_string()]));
    }

    #[test]
    fn the_cache_keeps_vectors_by_text_hash_until_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let cache = VectorCache::open(dir.path(), "m", 3).unwrap();
        let (h1, h3) = (unit(&[1., 0., 0.]), unit(&[0.9, 0.1, 0.]));
        cache.remember(&[("h1", &h1), ("h3", &h3)]).unwrap();
        let cached = cache.cached(&["h1", "h3", "nope"]).unwrap();
        assert_eq!(cached.len(), 2);
        assert_eq!(cached["h3"], h3);
        assert!(!cache.outgrew(0).unwrap());
        assert_eq!(
            cache.keep_only(&HashSet::from(["h1".to_string()])).unwrap(),
            1
        );
        assert_eq!(cache.len().unwrap(), 1);
    }

    #[test]
    fn another_model_empties_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let open = |model: &str, dimensions: usize| {
            let cache = VectorCache::open(dir.path(), model, dimensions).unwrap();
            (VectorStore::open(&cache).unwrap(), cache)
        };
        {
            let (store, cache) = open("m", 3);
            store
                .replace_page("a.md", "e", &[chunk("h", &[1., 0., 0.])])
                .unwrap();
            cache.remember(&[("h", &unit(&[1., 0., 0.]))]).unwrap();
        }
        let (same, cache) = open("m", 3);
        assert_eq!(same.counts().unwrap(), (1, 1));
        assert_eq!(cache.len().unwrap(), 1);
        drop((same, cache));
        let (other, cache) = open("m2", 2);
        assert_eq!(other.counts().unwrap(), (0, 0));
        assert!(cache.is_empty().unwrap());
        assert!(other
            .replace_page("a.md", "e", &[chunk("h", &[1., 0., 0.])])
            .is_err());
    }
}
