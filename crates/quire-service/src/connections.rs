//! Saved import connections: a source and its import settings kept to run again, by hand
//! (`POST /import/connections/{id}/run`, with the run's secrets) or on a schedule.
//!
//! Secrets are never written: a `dsn` or `uri` is stored with its password taken out (the
//! authority's `user:password@` and a `password=` parameter), and a run that needs it must
//! give `credentials.password`, which goes into the URL for that run only (a `mongodb://` or
//! `mongodb+srv://` URI too). A scheduled sync
//! of such a connection cannot run (nothing holds its password) and says so in
//! `/import/sync/status`. The connections of a space live in
//! `.quire/state/import-connections.json` (owner-only, not versioned).

use std::sync::Mutex;
use std::time::Duration;

use chrono::{DateTime, Utc};
use quire_api::{
    ConnectionRun, ConnectionRunRequest, ConnectionSpec, ConnectionSyncRequest, ImportConnection,
    ImportRequest, ImportResult, SavedConnection, SavedConnections, SyncSchedule, SyncState,
    SyncStatus,
};
use quire_vault::PagePath;

use crate::change::WriteOptions;
use crate::core::SpaceCore;
use crate::error::{Error, Result};
use crate::events::now_rfc3339;
use crate::import::Import;

/// Where a space's connections are kept.
pub const CONNECTIONS_PATH: &str = ".quire/state/import-connections.json";
/// The author of scheduled syncs.
pub const SYNC_ACTOR: &str = "import-sync";
/// The shortest schedule.
const MIN_INTERVAL: Duration = Duration::from_secs(10);

/// One writer of the connection files at a time (they are small and rarely written).
static LOCK: Mutex<()> = Mutex::new(());

/// The saved connections of a space.
pub struct Connections<'a>(pub(crate) &'a SpaceCore);

impl Connections<'_> {
    /// Every saved connection, oldest first.
    pub fn list(&self) -> Result<SavedConnections> {
        Ok(SavedConnections(load(self.0)?))
    }

    /// Saves a connection: its secrets taken out, an id given.
    pub fn save(&self, mut spec: ConnectionSpec) -> Result<SavedConnection> {
        let from = spec.from.trim().to_owned();
        if !quire_import::SOURCES.contains(&from.as_str()) {
            return Err(Error::bad_request(format!(
                "unknown import source {from:?}; GET /import/sources lists them"
            )));
        }
        spec.from = from;
        let mut needs_secret = false;
        for url in [&mut spec.dsn, &mut spec.uri].into_iter().flatten() {
            let (kept, had) = without_password(url);
            *url = kept;
            needs_secret |= had;
        }
        // A web service's key is never part of the spec (an `api_key` field is not kept).
        needs_secret |= needs_api_key(&spec);
        if spec.name.trim().is_empty() {
            let place = spec
                .file
                .clone()
                .or_else(|| spec.path.clone())
                .or_else(|| spec.dsn.as_deref().map(quire_api::redacted_dsn))
                .or_else(|| spec.uri.clone())
                .unwrap_or_default();
            spec.name = format!("{} {place}", spec.from).trim().to_owned();
        }
        let saved = SavedConnection {
            id: new_id()?,
            spec,
            created_at: now_rfc3339(),
            last_run: None,
            sync: SyncSchedule::default(),
            needs_secret,
        };
        let _guard = LOCK.lock().unwrap_or_else(|p| p.into_inner());
        let mut all = load(self.0)?;
        all.push(saved.clone());
        store(self.0, &all)?;
        Ok(saved)
    }

    /// Removes a connection.
    pub fn delete(&self, id: &str) -> Result<()> {
        let _guard = LOCK.lock().unwrap_or_else(|p| p.into_inner());
        let mut all = load(self.0)?;
        let before = all.len();
        all.retain(|c| c.id != id);
        if all.len() == before {
            return Err(not_found(id));
        }
        store(self.0, &all)
    }

    /// Imports from a connection now, with this run's secrets, and records the run.
    pub fn run(&self, request: &ConnectionRunRequest, opts: &WriteOptions) -> Result<ImportResult> {
        let saved = find(self.0, &request.id)?;
        let password = request
            .credentials
            .as_ref()
            .and_then(|c| c.password.clone())
            .or_else(|| request.api_key.clone())
            .filter(|p| !p.is_empty());
        if saved.needs_secret && password.is_none() && reads_over_http(&saved.spec) {
            return Err(Error::bad_request(format!(
                "connection {} needs its API key for each run (`api_key`): secrets are never \
                 stored",
                saved.id
            )));
        }
        if saved.needs_secret && password.is_none() {
            return Err(Error::bad_request(format!(
                "connection {} needs its password for each run (`credentials.password`): \
                 secrets are never stored",
                saved.id
            )));
        }
        let import = import_request(&saved.spec, password.as_deref());
        let outcome = Import(self.0).run(&import, opts);
        record(self.0, &saved.id, &outcome)?;
        outcome
    }

    /// Turns a connection's scheduled sync on (with an interval) or off.
    pub fn schedule(&self, request: &ConnectionSyncRequest) -> Result<SavedConnection> {
        let interval = match (&request.interval, request.enabled) {
            (Some(text), _) => {
                let every = parse_interval(text).ok_or_else(|| {
                    Error::bad_request(format!(
                        "interval {text:?} is no duration (`30s`, `15m`, `1h`, `1d`)"
                    ))
                })?;
                if every < MIN_INTERVAL {
                    return Err(Error::bad_request(format!(
                        "interval {text:?} is shorter than {} s",
                        MIN_INTERVAL.as_secs()
                    )));
                }
                Some(text.trim().to_owned())
            }
            (None, true) => {
                return Err(Error::bad_request(
                    "a scheduled sync needs an `interval` (`30s`, `15m`, `1h`, `1d`)",
                ))
            }
            (None, false) => None,
        };
        let _guard = LOCK.lock().unwrap_or_else(|p| p.into_inner());
        let mut all = load(self.0)?;
        let saved = all
            .iter_mut()
            .find(|c| c.id == request.id)
            .ok_or_else(|| not_found(&request.id))?;
        saved.sync = SyncSchedule {
            enabled: request.enabled,
            interval: interval.or_else(|| saved.sync.interval.clone()),
        };
        let answer = saved.clone();
        store(self.0, &all)?;
        Ok(answer)
    }

    /// The scheduled syncs: each with its last run, when the next is due, or why it cannot run.
    pub fn status(&self) -> Result<SyncStatus> {
        let now = Utc::now();
        let syncs = load(self.0)?
            .into_iter()
            .filter(|c| c.sync.enabled || c.sync.interval.is_some())
            .map(|c| {
                let next = c
                    .sync
                    .enabled
                    .then(|| next_run(&c, now))
                    .flatten()
                    .map(|t| t.to_rfc3339());
                SyncState {
                    blocked: (c.sync.enabled && c.needs_secret).then(|| {
                        "the source needs a password, which is never stored: run it by hand \
                         with credentials"
                            .to_owned()
                    }),
                    next_run: if c.needs_secret { None } else { next },
                    id: c.id,
                    name: c.spec.name,
                    enabled: c.sync.enabled,
                    interval: c.sync.interval,
                    last_run: c.last_run,
                }
            })
            .collect();
        Ok(SyncStatus { syncs })
    }
}

/// Runs every scheduled sync of the space that is due (and needs no secret).
pub(crate) fn run_due(core: &SpaceCore) {
    let now = Utc::now();
    let due: Vec<SavedConnection> = match load(core) {
        Ok(all) => all
            .into_iter()
            .filter(|c| c.sync.enabled && !c.needs_secret)
            .filter(|c| next_run(c, now).is_some_and(|at| at <= now))
            .collect(),
        Err(e) => {
            tracing::error!(space = %core.name, "reading the import connections failed: {e}");
            return;
        }
    };
    for saved in due {
        let import = import_request(&saved.spec, None);
        let outcome = Import(core).run(&import, &WriteOptions::by(SYNC_ACTOR));
        if let Err(e) = &outcome {
            tracing::warn!(space = %core.name, connection = %saved.id, "scheduled import failed: {e}");
        }
        if let Err(e) = record(core, &saved.id, &outcome) {
            tracing::error!(space = %core.name, "recording a scheduled import failed: {e}");
        }
    }
}

/// When a scheduled connection runs next: at once if it never ran, else an interval after
/// its last run.
fn next_run(saved: &SavedConnection, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let every = parse_interval(saved.sync.interval.as_deref()?)?;
    let Some(last) = &saved.last_run else {
        return Some(now);
    };
    let last = DateTime::parse_from_rfc3339(&last.at)
        .ok()?
        .with_timezone(&Utc);
    Some(last + chrono::Duration::from_std(every).ok()?)
}

/// Whether `from` is a web service source (`notion`, `airtable`, …), whose secret is an API
/// key given as `connection.api_key`, not a password in a URL.
fn is_web_service(from: &str) -> bool {
    quire_import::SourceKind::parse(from).is_ok_and(|k| k.place() == quire_import::Place::Service)
}

/// Whether a connection is `mongodb` over the wire protocol (`mongodb://`,
/// `mongodb+srv://`): a server whose password is in its URI, like the database sources,
/// rather than the Data API's key.
fn is_mongo_wire(spec: &ConnectionSpec) -> bool {
    spec.from.trim() == "mongodb"
        && [&spec.uri, &spec.dsn]
            .into_iter()
            .flatten()
            .any(|u| quire_import::mongo::is_wire_uri(u))
}

/// Whether a connection reads a web service over HTTP, its secret an API key.
fn reads_over_http(spec: &ConnectionSpec) -> bool {
    is_web_service(&spec.from) && !is_mongo_wire(spec)
}

/// Whether a web service source cannot be read without a key (Elasticsearch can, on a
/// server without security; MongoDB over the wire protocol needs a password only when its
/// URI had one).
fn needs_api_key(spec: &ConnectionSpec) -> bool {
    reads_over_http(spec) && spec.from.trim() != "elasticsearch"
}

/// The `POST /import` body a connection stands for, with `password` put back into its URL
/// (a web service: given as `connection.api_key`; MongoDB over the wire protocol: into its
/// URI, given as `connection.dsn`).
fn import_request(spec: &ConnectionSpec, password: Option<&str>) -> ImportRequest {
    let web = reads_over_http(spec);
    let with = |url: &Option<String>| {
        url.as_deref()
            .map(|u| password.map_or_else(|| u.to_owned(), |p| with_password(u, p)))
    };
    ImportRequest {
        source: spec.from.clone(),
        connection: ImportConnection {
            file: spec.file.clone(),
            path: spec.path.clone(),
            dsn: if web {
                None
            } else {
                with(&spec.dsn).or_else(|| with(&spec.uri))
            },
            name: None,
            uri: if web { spec.uri.clone() } else { None },
            api_key: if web {
                password.map(str::to_owned)
            } else {
                None
            },
            // A service account key is never stored: a Firestore run gives `api_key`.
            credentials: None,
            database_id: spec.database_id.clone(),
            base_id: spec.base_id.clone(),
            table_id: spec.table_id.clone(),
            table: if web { spec.table.clone() } else { None },
            collection: spec.collection.clone(),
            database: spec.database.clone(),
            project: spec.project.clone(),
        },
        query: if web || is_mongo_wire(spec) {
            spec.query.clone()
        } else {
            spec.query.clone().or_else(|| spec.table.clone())
        },
        sheet: spec.sheet.clone(),
        mapping: spec.mapping.clone(),
        id_column: spec.id_column.clone(),
        prefix: spec.prefix.clone(),
        full_sync: spec.full_sync,
        message: None,
    }
}

/// Records a run's outcome as the connection's last run.
fn record(core: &SpaceCore, id: &str, outcome: &Result<ImportResult>) -> Result<()> {
    let run = match outcome {
        Ok(r) => ConnectionRun {
            at: now_rfc3339(),
            imported: r.imported,
            skipped: r.skipped,
            archived: r.archived,
            errors: r.errors.len(),
            error: None,
        },
        Err(e) => ConnectionRun {
            at: now_rfc3339(),
            imported: 0,
            skipped: 0,
            archived: 0,
            errors: 0,
            error: Some(e.to_string()),
        },
    };
    let _guard = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    let mut all = load(core)?;
    if let Some(saved) = all.iter_mut().find(|c| c.id == id) {
        saved.last_run = Some(run);
        store(core, &all)?;
    }
    Ok(())
}

fn find(core: &SpaceCore, id: &str) -> Result<SavedConnection> {
    load(core)?
        .into_iter()
        .find(|c| c.id == id)
        .ok_or_else(|| not_found(id))
}

fn not_found(id: &str) -> Error {
    Error::not_found(format!("no import connection {id:?}"))
}

fn file() -> PagePath {
    PagePath::new(CONNECTIONS_PATH).expect("constant path is valid")
}

fn load(core: &SpaceCore) -> Result<Vec<SavedConnection>> {
    match core.root.read(&file()) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            Error::internal(format!(
                "{CONNECTIONS_PATH} is unreadable ({e}); fix or remove it"
            ))
        }),
        Err(quire_store::StoreError::NotFound { .. }) => Ok(Vec::new()),
        Err(e) => Err(e.into()),
    }
}

fn store(core: &SpaceCore, all: &[SavedConnection]) -> Result<()> {
    let bytes = serde_json::to_vec_pretty(all).map_err(Error::internal)?;
    core.root.write_private(&file(), &bytes)?;
    Ok(())
}

fn new_id() -> Result<String> {
    let mut bytes = [0u8; 6];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::internal(format!("no randomness from the system: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// `30s`, `15m`, `1h`, `1d` (a whole number and one unit).
pub(crate) fn parse_interval(text: &str) -> Option<Duration> {
    let text = text.trim();
    let unit = text.chars().last()?;
    let number: u64 = text[..text.len() - unit.len_utf8()].trim().parse().ok()?;
    let seconds = match unit {
        's' => number,
        'm' => number.checked_mul(60)?,
        'h' => number.checked_mul(3600)?,
        'd' => number.checked_mul(86_400)?,
        _ => return None,
    };
    Some(Duration::from_secs(seconds))
}

/// The URL without its password (`user:password@` → `user@`, no `password=` parameter), and
/// whether it had one.
pub(crate) fn without_password(url: &str) -> (String, bool) {
    let Some((scheme, rest)) = url.split_once("://") else {
        return (url.to_owned(), false);
    };
    let (before_query, query) = match rest.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (rest, None),
    };
    let (authority, path) = match before_query.find('/') {
        Some(i) => (&before_query[..i], &before_query[i..]),
        None => (before_query, ""),
    };
    let mut had = false;
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, password)) => {
                had = !password.is_empty();
                if user.is_empty() {
                    host.to_owned()
                } else {
                    format!("{user}@{host}")
                }
            }
            None => authority.to_owned(),
        },
        None => authority.to_owned(),
    };
    let query = query.map(|q| {
        q.split('&')
            .filter(|pair| {
                let key = pair.split_once('=').map_or(*pair, |(k, _)| k);
                let secret = key.eq_ignore_ascii_case("password");
                had |= secret;
                !secret
            })
            .collect::<Vec<_>>()
            .join("&")
    });
    let mut out = format!("{scheme}://{authority}{path}");
    if let Some(q) = query.filter(|q| !q.is_empty()) {
        out.push('?');
        out.push_str(&q);
    }
    (out, had)
}

/// The URL with `password` put into its authority (`user@host` → `user:password@host`,
/// `host` → `:password@host`).
pub(crate) fn with_password(url: &str, password: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let encoded = encode(password);
    let authority = match authority.rsplit_once('@') {
        Some((user, host)) => format!("{user}:{encoded}@{host}"),
        None => format!(":{encoded}@{authority}"),
    };
    format!("{scheme}://{authority}{tail}")
}

/// Percent-encoding of everything but the unreserved characters.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_come_out_of_urls_and_go_back_in_for_one_run() {
        let (kept, had) =
            without_password("postgres://ann:s3cr%40t@127.0.0.1:5432/db?sslmode=disable");
        assert_eq!(kept, "postgres://ann@127.0.0.1:5432/db?sslmode=disable");
        assert!(had);
        let (kept, had) = without_password("redis://:pw@localhost:6379/0");
        assert_eq!(kept, "redis://localhost:6379/0");
        assert!(had);
        let (kept, had) = without_password("mysql://u@h/db?password=x&charset=utf8");
        assert_eq!(kept, "mysql://u@h/db?charset=utf8");
        assert!(had);
        assert_eq!(
            without_password("postgres://u@h/db"),
            ("postgres://u@h/db".to_owned(), false)
        );
        assert_eq!(
            with_password(
                "postgres://ann@127.0.0.1:5432/db?sslmode=disable",
                "p@ss word"
            ),
            "postgres://ann:p%40ss%20word@127.0.0.1:5432/db?sslmode=disable"
        );
        assert_eq!(
            with_password("redis://localhost:6379/0", "pw"),
            "redis://:pw@localhost:6379/0"
        );
    }

    #[test]
    fn a_mongodb_uri_keeps_its_password_like_a_dsn_and_a_data_api_url_takes_a_key() {
        let spec = |uri: &str| ConnectionSpec {
            from: "mongodb".to_owned(),
            name: String::new(),
            dsn: None,
            uri: Some(uri.to_owned()),
            file: None,
            path: None,
            table: None,
            collection: Some("notes".to_owned()),
            database: Some("shop".to_owned()),
            database_id: None,
            base_id: None,
            table_id: None,
            project: None,
            query: Some(r#"{"tags": "rust"}"#.to_owned()),
            sheet: None,
            prefix: None,
            id_column: None,
            columns: None,
            mapping: None,
            full_sync: false,
        };
        let wire = spec("mongodb+srv://ann@cluster0.example.net/");
        assert!(is_mongo_wire(&wire) && !needs_api_key(&wire));
        let run = import_request(&wire, Some("pw 1"));
        assert_eq!(
            run.connection.dsn.as_deref(),
            Some("mongodb+srv://ann:pw%201@cluster0.example.net/")
        );
        assert_eq!(run.connection.api_key, None);
        assert_eq!(run.query.as_deref(), Some(r#"{"tags": "rust"}"#));
        let data_api = spec("https://data.mongodb-api.com/app/x/endpoint/data/v1");
        assert!(!is_mongo_wire(&data_api) && needs_api_key(&data_api));
        let run = import_request(&data_api, Some("key"));
        assert_eq!(run.connection.api_key.as_deref(), Some("key"));
        assert_eq!(run.connection.dsn, None);
    }

    #[test]
    fn intervals_are_a_number_and_a_unit() {
        assert_eq!(parse_interval("30s"), Some(Duration::from_secs(30)));
        assert_eq!(parse_interval(" 15m "), Some(Duration::from_secs(900)));
        assert_eq!(parse_interval("1d"), Some(Duration::from_secs(86_400)));
        assert_eq!(parse_interval("1w"), None);
        assert_eq!(parse_interval("h"), None);
        assert_eq!(parse_interval(""), None);
    }
}
