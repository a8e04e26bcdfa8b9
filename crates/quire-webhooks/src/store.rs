//! `.quire/state/webhooks.db` of a space (SQLite, WAL, file mode 0600): the registrations with
//! their secrets, and the delivery queue. A delivery is a row from the event that made it until
//! its receiver accepts it; rows that ran out of retries stay, marked `failed`. Never committed
//! to git (`.quire/state/` is excluded) and never written through the knowledge root.

use std::path::{Path, PathBuf};

use quire_api::DeliveryState;
use rusqlite::{params, Connection, OptionalExtension};

/// A registration as stored.
#[derive(Debug, Clone)]
pub(crate) struct HookRow {
    pub id: String,
    pub url: String,
    pub path_glob: String,
    pub secret: String,
    pub created_at: String,
    pub enabled: bool,
}

/// A message to put in the queue.
pub(crate) struct NewDelivery {
    pub id: String,
    pub webhook: String,
    pub body: String,
}

/// A delivery taken from the queue by a worker.
#[derive(Debug, Clone)]
pub(crate) struct Job {
    pub seq: i64,
    pub id: String,
    pub webhook: String,
    pub url: String,
    pub secret: String,
    pub body: String,
    /// Attempts made before this one.
    pub attempts: u32,
}

/// A queued or failed delivery, for `GET /webhooks/{id}/deliveries`.
pub(crate) struct DeliveryRow {
    pub id: String,
    pub webhook: String,
    pub state: DeliveryState,
    pub attempts: u32,
    pub due_at: i64,
    pub last_error: Option<String>,
    pub body: String,
}

pub(crate) struct Store {
    conn: Connection,
    path: PathBuf,
}

const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS webhooks (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    url TEXT NOT NULL,
    path_glob TEXT NOT NULL,
    secret TEXT NOT NULL,
    created_at TEXT NOT NULL,
    enabled INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS deliveries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    webhook TEXT NOT NULL,
    body TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    due_at INTEGER NOT NULL,
    last_error TEXT
);
CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (state, due_at);
CREATE INDEX IF NOT EXISTS deliveries_webhook ON deliveries (webhook);
";

fn state_of(text: &str) -> DeliveryState {
    match text {
        "sending" => DeliveryState::Sending,
        "failed" => DeliveryState::Failed,
        _ => DeliveryState::Pending,
    }
}

impl Store {
    /// Opens (creating) the store of the root `root`. Deliveries a stopped server was sending
    /// go back to pending: they are sent again (receivers deduplicate by `webhook-id`).
    pub fn open(root: &Path) -> Result<Store, String> {
        let dir = root.join(".quire/state");
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let path = dir.join("webhooks.db");
        private_file(&path)?;
        let conn =
            Connection::open(&path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let store = Store { conn, path };
        store.init().map_err(|e| store.failure(e))?;
        Ok(store)
    }

    fn failure(&self, e: rusqlite::Error) -> String {
        format!("{}: {e}", self.path.display())
    }

    fn init(&self) -> rusqlite::Result<()> {
        self.conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // WAL with NORMAL sync: a committed row survives the process dying at any point.
        self.conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(()))?;
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        let version: i64 = self
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))?;
        if version > SCHEMA_VERSION {
            return Err(rusqlite::Error::InvalidParameterName(format!(
                "written by a newer quire (schema {version}); this one reads schema {SCHEMA_VERSION}"
            )));
        }
        self.conn.execute_batch(SCHEMA)?;
        self.conn
            .pragma_update(None, "user_version", SCHEMA_VERSION)?;
        self.conn.execute(
            "UPDATE deliveries SET state = 'pending' WHERE state = 'sending'",
            [],
        )?;
        Ok(())
    }

    pub fn hooks(&self) -> Result<Vec<HookRow>, String> {
        let run = || -> rusqlite::Result<Vec<HookRow>> {
            let mut stmt = self.conn.prepare(
                "SELECT id, url, path_glob, secret, created_at, enabled FROM webhooks ORDER BY seq",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok(HookRow {
                    id: r.get(0)?,
                    url: r.get(1)?,
                    path_glob: r.get(2)?,
                    secret: r.get(3)?,
                    created_at: r.get(4)?,
                    enabled: r.get::<_, i64>(5)? != 0,
                })
            })?;
            rows.collect()
        };
        run().map_err(|e| self.failure(e))
    }

    pub fn insert_hook(&self, hook: &HookRow) -> Result<(), String> {
        self.conn
            .execute(
                "INSERT INTO webhooks (id, url, path_glob, secret, created_at, enabled) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    hook.id,
                    hook.url,
                    hook.path_glob,
                    hook.secret,
                    hook.created_at,
                    hook.enabled as i64
                ],
            )
            .map(|_| ())
            .map_err(|e| self.failure(e))
    }

    /// Removes a registration and every delivery queued for it; false when there was none.
    pub fn delete_hook(&mut self, id: &str) -> Result<bool, String> {
        let run = |conn: &mut Connection| -> rusqlite::Result<bool> {
            let tx = conn.transaction()?;
            let removed = tx.execute("DELETE FROM webhooks WHERE id = ?1", [id])?;
            tx.execute("DELETE FROM deliveries WHERE webhook = ?1", [id])?;
            tx.commit()?;
            Ok(removed > 0)
        };
        let result = run(&mut self.conn);
        result.map_err(|e| self.failure(e))
    }

    /// Queues messages, all due at `now_ms`, in one transaction.
    pub fn enqueue(&mut self, items: &[NewDelivery], now_ms: i64) -> Result<(), String> {
        let run = |conn: &mut Connection| -> rusqlite::Result<()> {
            let tx = conn.transaction()?;
            {
                let mut stmt = tx.prepare(
                    "INSERT INTO deliveries (id, webhook, body, state, attempts, due_at) \
                     VALUES (?1, ?2, ?3, 'pending', 0, ?4)",
                )?;
                for item in items {
                    stmt.execute(params![item.id, item.webhook, item.body, now_ms])?;
                }
            }
            tx.commit()
        };
        let result = run(&mut self.conn);
        result.map_err(|e| self.failure(e))
    }

    /// The oldest delivery due at `now_ms`, marked as being sent.
    pub fn take_due(&mut self, now_ms: i64) -> Result<Option<Job>, String> {
        let run = |conn: &mut Connection| -> rusqlite::Result<Option<Job>> {
            let tx = conn.transaction()?;
            let job = tx
                .query_row(
                    "SELECT d.seq, d.id, d.webhook, w.url, w.secret, d.body, d.attempts \
                     FROM deliveries d JOIN webhooks w ON w.id = d.webhook \
                     WHERE d.state = 'pending' AND d.due_at <= ?1 AND w.enabled != 0 \
                     ORDER BY d.due_at, d.seq LIMIT 1",
                    [now_ms],
                    |r| {
                        Ok(Job {
                            seq: r.get(0)?,
                            id: r.get(1)?,
                            webhook: r.get(2)?,
                            url: r.get(3)?,
                            secret: r.get(4)?,
                            body: r.get(5)?,
                            attempts: r.get(6)?,
                        })
                    },
                )
                .optional()?;
            if let Some(job) = &job {
                tx.execute(
                    "UPDATE deliveries SET state = 'sending' WHERE seq = ?1",
                    [job.seq],
                )?;
            }
            tx.commit()?;
            Ok(job)
        };
        let result = run(&mut self.conn);
        result.map_err(|e| self.failure(e))
    }

    /// When the next pending delivery is due (unix ms), if any.
    pub fn next_due(&self) -> Result<Option<i64>, String> {
        self.conn
            .query_row(
                "SELECT MIN(d.due_at) FROM deliveries d JOIN webhooks w ON w.id = d.webhook \
                 WHERE d.state = 'pending' AND w.enabled != 0",
                [],
                |r| r.get(0),
            )
            .map_err(|e| self.failure(e))
    }

    /// The receiver accepted the delivery: it leaves the queue.
    pub fn delivered(&self, seq: i64) -> Result<(), String> {
        self.conn
            .execute("DELETE FROM deliveries WHERE seq = ?1", [seq])
            .map(|_| ())
            .map_err(|e| self.failure(e))
    }

    /// An attempt failed: the delivery is due again at `retry_at`, or failed for good when
    /// `retry_at` is `None`.
    pub fn attempt_failed(
        &self,
        seq: i64,
        attempts: u32,
        error: &str,
        retry_at: Option<i64>,
    ) -> Result<(), String> {
        let result = match retry_at {
            Some(at) => self.conn.execute(
                "UPDATE deliveries SET state = 'pending', attempts = ?2, last_error = ?3, \
                 due_at = ?4 WHERE seq = ?1",
                params![seq, attempts, error, at],
            ),
            None => self.conn.execute(
                "UPDATE deliveries SET state = 'failed', attempts = ?2, last_error = ?3 \
                 WHERE seq = ?1",
                params![seq, attempts, error],
            ),
        };
        result.map(|_| ()).map_err(|e| self.failure(e))
    }

    /// The deliveries of one webhook still queued or failed, oldest first.
    pub fn deliveries(&self, webhook: &str) -> Result<Vec<DeliveryRow>, String> {
        let run = || -> rusqlite::Result<Vec<DeliveryRow>> {
            let mut stmt = self.conn.prepare(
                "SELECT id, webhook, state, attempts, due_at, last_error, body FROM deliveries \
                 WHERE webhook = ?1 ORDER BY seq",
            )?;
            let rows = stmt.query_map([webhook], |r| {
                Ok(DeliveryRow {
                    id: r.get(0)?,
                    webhook: r.get(1)?,
                    state: state_of(&r.get::<_, String>(2)?),
                    attempts: r.get(3)?,
                    due_at: r.get(4)?,
                    last_error: r.get(5)?,
                    body: r.get(6)?,
                })
            })?;
            rows.collect()
        };
        run().map_err(|e| self.failure(e))
    }

    /// Deliveries waiting (pending or being sent) and failed for good.
    pub fn counts(&self) -> Result<(u64, u64), String> {
        self.conn
            .query_row(
                "SELECT COALESCE(SUM(state != 'failed'), 0), COALESCE(SUM(state = 'failed'), 0) \
                 FROM deliveries",
                [],
                |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64)),
            )
            .map_err(|e| self.failure(e))
    }
}

/// Creates `path` readable by its owner only (it holds the signing secrets), or narrows an
/// existing file to that. SQLite gives its `-wal` and `-shm` files the same mode.
fn private_file(path: &Path) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| format!("cannot restrict {}: {e}", path.display()))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}
