//! `[audit] enabled`: an append-only log of every authenticated request that changes
//! something and of every refused request, as JSON lines in `.quire/state/audit.jsonl` of the
//! first space. Entries carry a hash of the Bearer token, never the token.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use chrono::{DateTime, Utc};
use quire_api::AuditEntry;

/// Default and largest `limit` of `GET /audit`.
pub const DEFAULT_LIMIT: usize = 100;
pub const MAX_LIMIT: usize = 10_000;

pub struct AuditLog {
    path: PathBuf,
    file: Mutex<File>,
}

impl AuditLog {
    /// Opens (creating) the log at `path`, for appending.
    pub fn open(path: &Path) -> std::io::Result<AuditLog> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(AuditLog {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        })
    }

    /// The log of a knowledge root: `.quire/state/audit.jsonl`.
    pub fn open_in_root(root: &Path) -> std::io::Result<AuditLog> {
        AuditLog::open(&root.join(".quire/state/audit.jsonl"))
    }

    /// Appends one entry (one `write` of one line, so concurrent appends never interleave).
    pub fn record(&self, entry: &AuditEntry) {
        let mut line = match serde_json::to_vec(entry) {
            Ok(line) => line,
            Err(_) => return,
        };
        line.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = file.write_all(&line) {
            tracing::error!(
                "cannot append to the audit log {}: {e}",
                self.path.display()
            );
        }
    }

    /// Entries at or after `since`, oldest first, at most `limit`; only those of `space` when
    /// given. Lines that do not parse (a torn last line after a crash) are skipped.
    pub fn read(
        &self,
        since: DateTime<Utc>,
        limit: usize,
        space: Option<&str>,
    ) -> std::io::Result<Vec<AuditEntry>> {
        let file = File::open(&self.path)?;
        let mut out = Vec::new();
        for line in BufReader::new(file).lines() {
            let Ok(entry) = serde_json::from_str::<AuditEntry>(&line?) else {
                continue;
            };
            let at = DateTime::parse_from_rfc3339(&entry.ts)
                .map(|t| t.with_timezone(&Utc))
                .ok();
            if at.is_none_or(|t| t < since) {
                continue;
            }
            if space.is_some_and(|s| entry.space.as_deref() != Some(s)) {
                continue;
            }
            out.push(entry);
            if out.len() >= limit {
                break;
            }
        }
        Ok(out)
    }
}

/// Now, as audit entries write it.
pub fn now() -> String {
    Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Query of `GET /audit`.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    /// ISO 8601 / RFC 3339 time; default the last 24 hours.
    #[param(format = DateTime)]
    pub since: Option<String>,
    /// Default 100, at most 10000 (a value outside 1–10000 is a 400).
    #[param(minimum = 1, maximum = 10000)]
    pub limit: Option<usize>,
}

/// The audit log: changes made with credentials and refused requests, oldest first. Needs an
/// admin credential; a key bound to one space sees that space's entries only.
#[utoipa::path(get, path = "/audit", tag = "admin", operation_id = "audit_list",
    params(AuditQuery),
    responses((status = 200, body = [quire_api::AuditEntry], description = "oldest first"),
        (status = 400, body = crate::ErrorBody, description = "`since` is not a time or `limit` is out of range"),
        (status = 501, body = crate::ErrorBody, description = "audit logging is not enabled")))]
pub async fn list(
    axum::extract::State(state): axum::extract::State<crate::AppState>,
    grant: Option<axum::Extension<quire_api::Grant>>,
    crate::error::QueryParams(query): crate::error::QueryParams<AuditQuery>,
) -> crate::error::ApiResult<axum::Json<Vec<AuditEntry>>> {
    use quire_service::{Error, ErrorCode};
    let Some(log) = state.audit.clone() else {
        return Err(crate::ApiError(Error::new(
            ErrorCode::NotImplemented,
            "audit logging is not enabled ([audit] enabled = true)",
        )));
    };
    let since = match &query.since {
        None => Utc::now() - chrono::Duration::hours(24),
        Some(text) => DateTime::parse_from_rfc3339(text.trim())
            .map(|t| t.with_timezone(&Utc))
            .map_err(|_| {
                crate::error::bad_request(format!(
                    "`since` {text:?} is not an ISO 8601 time such as 2026-01-31T12:00:00Z"
                ))
            })?,
    };
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(crate::error::bad_request(format!(
            "`limit` must be between 1 and {MAX_LIMIT}"
        )));
    }
    let space = grant.and_then(|g| g.0.space);
    let entries = tokio::task::spawn_blocking(move || log.read(since, limit, space.as_deref()))
        .await
        .map_err(|e| crate::ApiError(Error::internal(e)))?
        .map_err(|e| crate::ApiError(Error::internal(e)))?;
    Ok(axum::Json(entries))
}
