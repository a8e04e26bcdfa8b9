//! The pgvector store (`[search.vector.store] provider = "pgvector"`): chunks and their
//! vectors in a PostgreSQL database with the `vector` extension, searched by cosine distance
//! (`<=>`) over an HNSW index.
//!
//! Three tables named after `collection` (default `quire_vectors`): `<c>_meta` (model and
//! dimensions: another model or size empties the other two), `<c>_pages` (each page's ETag)
//! and `<c>_chunks` (path, order, text hash, text, `vector(n)`). They, the extension and the
//! index are made when missing, under an advisory lock (two servers starting at once).
//!
//! The connection is made at the first call and again after one failed: a server down at
//! start delays embeddings, never the start or a write. The DSN is checked at start like an
//! import's (`quire_import::Dsn`: no TLS asked, the password never in a message).

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;

use quire_import::Dsn;
use quire_index::{Neighbor, StoredChunk};

use super::backend::{checked_name, BackendError, BackendResult, PageChunks, VectorBackend};

/// The table prefix when `collection` names none.
pub(crate) const DEFAULT_PREFIX: &str = "quire_vectors";

/// How long a connection attempt waits.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// pgvector indexes vectors of at most this many dimensions; above, searches scan the table.
const HNSW_MAX_DIMENSIONS: usize = 2000;

/// The largest `hnsw.ef_search` pgvector accepts: an HNSW search answers at most this many.
const MAX_EF_SEARCH: usize = 1000;

/// The pgvector store of one space.
pub(crate) struct Pgvector {
    dsn: Dsn,
    prefix: String,
    model: String,
    dimensions: usize,
    /// Made at the first call; dropped when a call fails for want of the server.
    client: Mutex<Option<postgres::Client>>,
}

impl Pgvector {
    /// Checks the DSN and the table prefix; connects at the first call.
    pub(crate) fn new(
        dsn: &str,
        collection: Option<&str>,
        model: &str,
        dimensions: usize,
    ) -> Result<Pgvector, String> {
        let dsn = Dsn::parse(dsn, &["postgres", "postgresql"]).map_err(|e| {
            e.to_string()
                .replace("`connection.dsn`", "[search.vector.store] dsn")
        })?;
        if dsn.database().is_empty() {
            return Err(format!(
                "[search.vector.store] dsn {} names no database",
                dsn.redacted()
            ));
        }
        let prefix = checked_name(collection.unwrap_or(DEFAULT_PREFIX), false)?.to_lowercase();
        Ok(Pgvector {
            dsn,
            prefix,
            model: model.to_string(),
            dimensions,
            client: Mutex::new(None),
        })
    }

    fn table(&self, name: &str) -> String {
        format!("{}_{name}", self.prefix)
    }

    /// Runs `work` on the connection, made (and the tables with it) when there is none; a
    /// failure that is not the database's answer drops it, so the next call connects again.
    fn with<T>(
        &self,
        work: impl FnOnce(&mut postgres::Client) -> Result<T, postgres::Error>,
    ) -> BackendResult<T> {
        let mut slot = self.client.lock().unwrap_or_else(|p| p.into_inner());
        if slot.as_ref().is_some_and(|c| c.is_closed()) {
            *slot = None;
        }
        if slot.is_none() {
            *slot = Some(self.connect()?);
        }
        let client = slot.as_mut().expect("connected above");
        let done = work(client);
        if let Err(e) = &done {
            if e.as_db_error().is_none() || client.is_closed() {
                *slot = None;
            }
        }
        done.map_err(|e| self.failed(&e))
    }

    fn connect(&self) -> BackendResult<postgres::Client> {
        let mut config: postgres::Config = self
            .dsn
            .secret()
            .parse()
            .map_err(|e: postgres::Error| self.failed(&e))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let mut client = config
            .connect(postgres::NoTls)
            .map_err(|e| self.failed(&e))?;
        self.prepare(&mut client).map_err(|e| self.failed(&e))?;
        Ok(client)
    }

    /// The extension, the tables and the index, made when missing; emptied when they hold
    /// another model's vectors.
    fn prepare(&self, client: &mut postgres::Client) -> Result<(), postgres::Error> {
        let (meta, pages, chunks) = (
            self.table("meta"),
            self.table("pages"),
            self.table("chunks"),
        );
        let mut tx = client.transaction()?;
        tx.execute("SELECT pg_advisory_xact_lock(hashtext($1))", &[&meta])?;
        tx.batch_execute(&format!(
            "CREATE EXTENSION IF NOT EXISTS vector;
             CREATE TABLE IF NOT EXISTS {meta} (key text PRIMARY KEY, value text NOT NULL);"
        ))?;
        let stored = |tx: &mut postgres::Transaction<'_>, key: &str| {
            tx.query_opt(&format!("SELECT value FROM {meta} WHERE key = $1"), &[&key])
                .map(|row| row.map(|r| r.get::<_, String>(0)))
        };
        let same = stored(&mut tx, "model")?.as_deref() == Some(self.model.as_str())
            && stored(&mut tx, "dimensions")?.as_deref() == Some(&self.dimensions.to_string());
        if !same {
            tx.batch_execute(&format!(
                "DROP TABLE IF EXISTS {chunks}; DROP TABLE IF EXISTS {pages};"
            ))?;
        }
        tx.batch_execute(&format!(
            "CREATE TABLE IF NOT EXISTS {pages} (path text PRIMARY KEY, etag text NOT NULL);
             CREATE TABLE IF NOT EXISTS {chunks} (
                 path text NOT NULL,
                 idx integer NOT NULL,
                 hash text NOT NULL,
                 text text NOT NULL,
                 embedding vector({}) NOT NULL,
                 PRIMARY KEY (path, idx)
             );",
            self.dimensions
        ))?;
        if self.dimensions <= HNSW_MAX_DIMENSIONS {
            tx.batch_execute(&format!(
                "CREATE INDEX IF NOT EXISTS {chunks}_embedding ON {chunks}
                 USING hnsw (embedding vector_cosine_ops);"
            ))?;
        }
        let upsert = format!(
            "INSERT INTO {meta} (key, value) VALUES ($1, $2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value"
        );
        tx.execute(&upsert, &[&"model", &self.model])?;
        tx.execute(&upsert, &[&"dimensions", &self.dimensions.to_string()])?;
        tx.commit()
    }

    /// The server's own message when there is one, else the driver's with its causes; the
    /// password and the full DSN taken out.
    fn failed(&self, e: &postgres::Error) -> BackendError {
        let message = match e.as_db_error() {
            Some(db) => db.message().to_string(),
            None => {
                let mut message = e.to_string();
                let mut source = std::error::Error::source(e);
                while let Some(cause) = source {
                    let text = cause.to_string();
                    if !message.contains(&text) {
                        message.push_str(&format!(": {text}"));
                    }
                    source = cause.source();
                }
                message
            }
        };
        BackendError::Remote(format!(
            "pgvector at {}: {}",
            self.dsn.redacted(),
            self.dsn.scrub(&message)
        ))
    }
}

impl VectorBackend for Pgvector {
    fn describe(&self) -> String {
        format!("pgvector at {} ({}_*)", self.dsn.redacted(), self.prefix)
    }

    fn page_etags(&self) -> BackendResult<HashMap<String, String>> {
        let sql = format!("SELECT path, etag FROM {}", self.table("pages"));
        self.with(|c| {
            let rows = c.query(&sql, &[])?;
            Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        })
    }

    fn page_etag(&self, path: &str) -> BackendResult<Option<String>> {
        let sql = format!("SELECT etag FROM {} WHERE path = $1", self.table("pages"));
        self.with(|c| Ok(c.query_opt(&sql, &[&path])?.map(|r| r.get(0))))
    }

    fn replace_pages(&self, pages: &[PageChunks<'_>]) -> BackendResult<()> {
        let (pages_table, chunks) = (self.table("pages"), self.table("chunks"));
        self.with(|c| {
            let mut tx = c.transaction()?;
            let delete = tx.prepare(&format!("DELETE FROM {chunks} WHERE path = $1"))?;
            let insert = tx.prepare(&format!(
                "INSERT INTO {chunks} (path, idx, hash, text, embedding)
                 VALUES ($1, $2, $3, $4, $5::real[]::vector)"
            ))?;
            let page = tx.prepare(&format!(
                "INSERT INTO {pages_table} (path, etag) VALUES ($1, $2)
                 ON CONFLICT (path) DO UPDATE SET etag = excluded.etag"
            ))?;
            for (path, etag, chunks) in pages {
                tx.execute(&delete, &[path])?;
                for (idx, chunk) in chunks.iter().enumerate() {
                    let idx = idx as i32;
                    tx.execute(
                        &insert,
                        &[path, &idx, &chunk.hash, &chunk.text, &chunk.vector],
                    )?;
                }
                tx.execute(&page, &[path, etag])?;
            }
            tx.commit()
        })
    }

    fn remove_pages(&self, paths: &[&str]) -> BackendResult<()> {
        if paths.is_empty() {
            return Ok(());
        }
        let (pages, chunks) = (self.table("pages"), self.table("chunks"));
        self.with(|c| {
            let mut tx = c.transaction()?;
            tx.execute(
                &format!("DELETE FROM {chunks} WHERE path = ANY($1)"),
                &[&paths],
            )?;
            tx.execute(
                &format!("DELETE FROM {pages} WHERE path = ANY($1)"),
                &[&paths],
            )?;
            tx.commit()
        })
    }

    fn nearest(&self, query: &[f32], k: usize) -> BackendResult<Vec<Neighbor>> {
        if query.len() != self.dimensions || k == 0 {
            return Ok(Vec::new());
        }
        // An HNSW search answers at most `ef_search` rows (40 by default): as many as asked.
        let ef = k.clamp(40, MAX_EF_SEARCH);
        let sql = format!(
            "SELECT path, idx, text, (embedding <=> $1::real[]::vector)::float8 AS distance
             FROM {} ORDER BY embedding <=> $1::real[]::vector LIMIT $2",
            self.table("chunks")
        );
        let query = query.to_vec();
        let limit = k as i64;
        self.with(|c| {
            let mut tx = c.transaction()?;
            tx.batch_execute(&format!("SET LOCAL hnsw.ef_search = {ef}"))?;
            let rows = tx.query(&sql, &[&query, &limit])?;
            tx.commit()?;
            Ok(rows
                .iter()
                .map(|r| Neighbor {
                    path: r.get(0),
                    idx: r.get::<_, i32>(1) as usize,
                    text: r.get(2),
                    similarity: (1.0 - r.get::<_, f64>(3)) as f32,
                })
                .collect())
        })
    }

    fn chunks_of(&self, path: &str) -> BackendResult<Vec<StoredChunk>> {
        let sql = format!(
            "SELECT idx, hash, text, embedding::real[] FROM {} WHERE path = $1 ORDER BY idx",
            self.table("chunks")
        );
        self.with(|c| {
            let rows = c.query(&sql, &[&path])?;
            Ok(rows
                .iter()
                .map(|r| StoredChunk {
                    idx: r.get::<_, i32>(0) as usize,
                    hash: r.get(1),
                    text: r.get(2),
                    vector: r.get(3),
                })
                .collect())
        })
    }

    fn counts(&self) -> BackendResult<(usize, usize)> {
        let sql = format!(
            "SELECT (SELECT count(*) FROM {}), (SELECT count(*) FROM {})",
            self.table("pages"),
            self.table("chunks")
        );
        self.with(|c| {
            let row = c.query_one(&sql, &[])?;
            Ok((row.get::<_, i64>(0) as usize, row.get::<_, i64>(1) as usize))
        })
    }

    fn hashes(&self) -> BackendResult<HashSet<String>> {
        let sql = format!("SELECT DISTINCT hash FROM {}", self.table("chunks"));
        self.with(|c| Ok(c.query(&sql, &[])?.iter().map(|r| r.get(0)).collect()))
    }
}
