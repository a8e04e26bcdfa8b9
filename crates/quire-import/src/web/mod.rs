//! Web services → rows: Notion, Airtable, Elasticsearch, the MongoDB Atlas Data API (MongoDB's
//! wire protocol is `crate::mongo`),
//! Firestore, Google Sheets, Confluence and DynamoDB, each read over its public HTTP API (blocking `ureq`, TLS by rustls, 30 s
//! timeouts) and paged until the last page or the [`Cap`].
//!
//! **Where.** `connection.uri` overrides the service's base URL (the real one by default,
//! e.g. `https://api.notion.com`); it must be `http://` or `https://` and may not hold a user
//! or password (the secret goes in `connection.api_key`). Tests point it at a loopback fake.
//!
//! **Secrets.** The API key is sent in a header only (never in a URL), is left out of
//! `Debug`, and every message of a failed request is scrubbed of it before it is kept: an
//! unreachable service, a refusal (401, 403, 404, …) or an answer that is not the JSON the API
//! documents is an [`ImportError::BadRequest`] naming the service, its host and the HTTP
//! status, never the key.

mod airtable;
mod confluence;
mod dynamodb;
mod elasticsearch;
mod firestore;
mod gsheets;
mod mongodb;
mod notion;

use std::io::Read;
use std::time::Duration;

use serde_json::Value;

use crate::kind::SourceKind;
use crate::rows::Cap;
use crate::{ImportError, Row};

/// Seconds a request to a web service may take (connecting, sending and reading).
pub const TIMEOUT_SECS: u64 = 30;
/// Bytes of one answer read at most.
const MAX_ANSWER: u64 = 64 * 1024 * 1024;

/// A web service to read: its base URL, the key, and what to read there.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Service {
    /// Base URL without a trailing `/`.
    pub base: String,
    /// The secret: bearer token, API key (see each source).
    pub api_key: Option<String>,
    /// `notion`: the database; `gsheets`: the spreadsheet.
    pub database_id: Option<String>,
    /// `airtable`: the base and the table (id or name).
    pub base_id: Option<String>,
    pub table_id: Option<String>,
    /// `elasticsearch`: the index; `gsheets`: the sheet or an A1 range; `confluence`: the
    /// space key; `dynamodb`: the table.
    pub table: Option<String>,
    /// `mongodb`, `firestore`: the collection.
    pub collection: Option<String>,
    /// `mongodb`: the database.
    pub database: Option<String>,
    /// `firestore`: the Google Cloud project.
    pub project: Option<String>,
    /// `firestore` without `api_key`: a service account key's JSON text, exchanged for an
    /// access token before the first request (`quire-gauth`); never shown.
    pub credentials: Option<String>,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("base", &self.base)
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("database_id", &self.database_id)
            .field("base_id", &self.base_id)
            .field("table_id", &self.table_id)
            .field("table", &self.table)
            .field("collection", &self.collection)
            .field("database", &self.database)
            .field("project", &self.project)
            .field("credentials", &self.credentials.as_ref().map(|_| "***"))
            .finish()
    }
}

/// The real base URL of a service (none for a service every user hosts at their own URL).
pub fn default_base(kind: SourceKind) -> Option<&'static str> {
    match kind {
        SourceKind::Notion => Some("https://api.notion.com"),
        SourceKind::Airtable => Some("https://api.airtable.com"),
        SourceKind::Firestore => Some("https://firestore.googleapis.com"),
        SourceKind::Gsheets => Some("https://sheets.googleapis.com"),
        _ => None,
    }
}

/// The display name of a service.
pub fn service_name(kind: SourceKind) -> &'static str {
    match kind {
        SourceKind::Notion => "Notion",
        SourceKind::Airtable => "Airtable",
        SourceKind::Elasticsearch => "Elasticsearch",
        SourceKind::Mongodb => "the MongoDB Data API",
        SourceKind::Firestore => "Firestore",
        SourceKind::Gsheets => "Google Sheets",
        SourceKind::Confluence => "Confluence",
        SourceKind::Dynamodb => "DynamoDB",
        _ => "the service",
    }
}

impl Service {
    /// Checks `uri` (or takes the service's real URL) and keeps the fields; a missing field
    /// the source needs is a [`ImportError::BadRequest`] naming it.
    pub fn new(
        kind: SourceKind,
        uri: Option<&str>,
        mut fields: Service,
    ) -> Result<Service, ImportError> {
        let uri = uri.map(str::trim).filter(|u| !u.is_empty());
        let aws;
        let base = match (uri, default_base(kind)) {
            (Some(uri), _) => uri,
            (None, Some(real)) => real,
            (None, None) if kind == SourceKind::Dynamodb => {
                aws = format!("https://dynamodb.{}.amazonaws.com", dynamodb::env_region());
                aws.as_str()
            }
            (None, None) => {
                return Err(ImportError::BadRequest(format!(
                    "a `{}` import needs `connection.uri`: {}",
                    kind.id(),
                    match kind {
                        SourceKind::Elasticsearch => "the server's URL (`https://host:9200`)",
                        SourceKind::Confluence => {
                            "the site's Confluence URL (`https://<site>.atlassian.net/wiki`)"
                        }
                        _ => "the server's URI (`mongodb://user:password@host:27017/db`) or the Data API's URL (`https://data.mongodb-api.com/app/<app-id>/endpoint/data/v1`)",
                    }
                )))
            }
        };
        let Some((scheme, rest)) = base.split_once("://") else {
            return Err(ImportError::BadRequest(format!(
                "`connection.uri` {base:?} is no http:// or https:// URL"
            )));
        };
        if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") {
            return Err(ImportError::BadRequest(format!(
                "`connection.uri` is a {scheme}:// URL; a `{}` import reads over http:// or https://",
                kind.id()
            )));
        }
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        if authority.contains('@') {
            return Err(ImportError::BadRequest(
                "`connection.uri` may not hold a user or password: give the secret as \
                 `connection.api_key`"
                    .to_string(),
            ));
        }
        if authority.is_empty() {
            return Err(ImportError::BadRequest(format!(
                "`connection.uri` {base:?} names no host"
            )));
        }
        fields.base = base.trim_end_matches('/').to_string();
        fields.api_key = fields.api_key.filter(|k| !k.trim().is_empty());
        fields.credentials = fields.credentials.filter(|c| !c.trim().is_empty());
        let needed: &[(&str, &Option<String>)] = match kind {
            SourceKind::Notion | SourceKind::Gsheets => &[("database_id", &fields.database_id)],
            SourceKind::Airtable => &[("base_id", &fields.base_id), ("table_id", &fields.table_id)],
            SourceKind::Elasticsearch | SourceKind::Confluence | SourceKind::Dynamodb => {
                &[("table", &fields.table)]
            }
            SourceKind::Mongodb => &[
                ("database", &fields.database),
                ("collection", &fields.collection),
            ],
            SourceKind::Firestore => &[
                ("project", &fields.project),
                ("collection", &fields.collection),
            ],
            _ => &[],
        };
        for (name, value) in needed {
            if value.as_deref().is_none_or(|v| v.trim().is_empty()) {
                return Err(ImportError::BadRequest(format!(
                    "a `{}` import needs `connection.{name}`",
                    kind.id()
                )));
            }
        }
        if matches!(
            kind,
            SourceKind::Notion
                | SourceKind::Airtable
                | SourceKind::Mongodb
                | SourceKind::Firestore
                | SourceKind::Gsheets
                | SourceKind::Confluence
        ) && fields.api_key.is_none()
            && !(kind == SourceKind::Firestore && fields.credentials.is_some())
        {
            return Err(ImportError::BadRequest(format!(
                "a `{}` import needs `connection.api_key`{}",
                kind.id(),
                if kind == SourceKind::Firestore {
                    " (an access token) or `connection.credentials` (a service account key)"
                } else {
                    ""
                }
            )));
        }
        Ok(fields)
    }

    /// `host[:port]` of the base URL.
    pub fn host(&self) -> &str {
        let rest = self.base.split_once("://").map_or(&*self.base, |(_, r)| r);
        rest.split(['/', '?', '#']).next().unwrap_or("")
    }

    /// What `_source` names after `<source>:<host>/`: the database, base/table, index, ….
    pub fn what(&self, kind: SourceKind) -> String {
        let f = |v: &Option<String>| v.as_deref().unwrap_or("").trim().to_string();
        match kind {
            SourceKind::Notion => f(&self.database_id),
            SourceKind::Airtable => format!("{}/{}", f(&self.base_id), f(&self.table_id)),
            SourceKind::Elasticsearch | SourceKind::Confluence | SourceKind::Dynamodb => {
                f(&self.table)
            }
            SourceKind::Mongodb => format!("{}/{}", f(&self.database), f(&self.collection)),
            SourceKind::Firestore => format!("{}/{}", f(&self.project), f(&self.collection)),
            SourceKind::Gsheets => match f(&self.table) {
                sheet if sheet.is_empty() => f(&self.database_id),
                sheet => format!("{}/{sheet}", f(&self.database_id)),
            },
            _ => String::new(),
        }
    }

    /// `_source` of its pages: `<source>:<host>/<what>`.
    pub fn source_name(&self, kind: SourceKind) -> String {
        format!("{}:{}/{}", kind.id(), self.host(), self.what(kind))
    }
}

/// The rows of a web service source. `query`: for `elasticsearch` and `mongodb` a JSON
/// filter (an Elasticsearch query, a MongoDB filter document), for `notion` a JSON filter
/// object of the database query.
pub fn rows(
    kind: SourceKind,
    service: &Service,
    query: Option<&str>,
    cap: Cap,
) -> Result<Vec<Row>, ImportError> {
    let service = &authorized(kind, service)?;
    let client = Client::new(kind, service);
    match kind {
        SourceKind::Notion => notion::rows(&client, service, query, cap),
        SourceKind::Airtable => airtable::rows(&client, service, cap),
        SourceKind::Elasticsearch => elasticsearch::rows(&client, service, query, cap),
        SourceKind::Mongodb => mongodb::rows(&client, service, query, cap),
        SourceKind::Firestore => firestore::rows(&client, service, cap),
        SourceKind::Gsheets => gsheets::rows(&client, service, cap),
        SourceKind::Confluence => confluence::rows(&client, service, cap),
        SourceKind::Dynamodb => dynamodb::rows(&client, service, cap),
        other => Err(ImportError::BadRequest(format!(
            "source `{}` is not a web service",
            other.id()
        ))),
    }
}

/// The listing of `/import/browse` for a web service, sorted: the Notion databases shared
/// with the key, the tables of an Airtable base, Elasticsearch's indices, the top-level
/// collections of a Firestore database, the sheets of a Google spreadsheet (`database_id`),
/// the Confluence spaces the key sees (their keys), the DynamoDB tables of the region. Each
/// name is what the source's import takes (`table`, `table_id`, `collection`, …). The Data
/// API of MongoDB has no listing (its wire protocol lists, in `crate::mongo`).
pub fn tables(kind: SourceKind, service: &Service) -> Result<Vec<String>, ImportError> {
    let service = &authorized(kind, service)?;
    let client = Client::new(kind, service);
    let mut names = match kind {
        SourceKind::Notion => notion::databases(&client, service)?,
        SourceKind::Airtable => airtable::tables(&client, service)?,
        SourceKind::Elasticsearch => elasticsearch::indices(&client, service)?,
        SourceKind::Firestore => firestore::collections(&client, service)?,
        SourceKind::Gsheets => gsheets::sheets(&client, service)?,
        SourceKind::Confluence => confluence::spaces(&client, service)?,
        SourceKind::Dynamodb => dynamodb::tables(&client, service)?,
        other => {
            return Err(ImportError::BadRequest(format!(
                "browse does not list `{}`",
                other.id()
            )))
        }
    };
    names.sort();
    Ok(names)
}

/// `service` with an access token as its key: a Firestore service account (`credentials`,
/// when there is no `api_key`) is exchanged for one first, which the client then scrubs from
/// its messages like a key.
fn authorized(kind: SourceKind, service: &Service) -> Result<Service, ImportError> {
    match &service.credentials {
        Some(credentials) if kind == SourceKind::Firestore && service.api_key.is_none() => {
            Ok(Service {
                api_key: Some(firestore::token(credentials)?),
                credentials: None,
                ..service.clone()
            })
        }
        _ => Ok(service.clone()),
    }
}

/// How many records to ask for per page: the service's most, fewer for a preview.
pub(crate) fn page_size(cap: &Cap, most: usize) -> usize {
    cap.first.map_or(most, |n| n.clamp(1, most))
}

/// Requests to one service, its key scrubbed from every message.
pub(crate) struct Client {
    agent: ureq::Agent,
    kind: SourceKind,
    host: String,
    secret: Option<String>,
}

impl Client {
    fn new(kind: SourceKind, service: &Service) -> Client {
        Client {
            agent: ureq::AgentBuilder::new()
                .timeout(Duration::from_secs(TIMEOUT_SECS))
                .redirects(0)
                .build(),
            kind,
            host: service.host().to_string(),
            secret: service.api_key.clone(),
        }
    }

    fn name(&self) -> &'static str {
        service_name(self.kind)
    }

    pub(crate) fn get(&self, url: &str) -> ureq::Request {
        self.agent.get(url).set("Accept", "application/json")
    }

    pub(crate) fn post(&self, url: &str) -> ureq::Request {
        self.agent.post(url).set("Accept", "application/json")
    }

    pub(crate) fn delete(&self, url: &str) -> ureq::Request {
        self.agent.delete(url).set("Accept", "application/json")
    }

    /// Sends `request` (with `body` as JSON when given) and reads the JSON answer.
    pub(crate) fn send(
        &self,
        request: ureq::Request,
        body: Option<&Value>,
    ) -> Result<Value, ImportError> {
        match body {
            Some(body) => self.send_text(
                request.set("Content-Type", "application/json"),
                Some(&body.to_string()),
            ),
            None => self.send_text(request, None),
        }
    }

    /// Sends `request` with `body` as it is (its headers already set) and reads the JSON
    /// answer.
    pub(crate) fn send_text(
        &self,
        request: ureq::Request,
        body: Option<&str>,
    ) -> Result<Value, ImportError> {
        self.answer(request, body, "check the names in `connection`")
    }

    /// Sends a GET-like `request` without a body; a 404 is explained by `not_found` (what to
    /// check) instead of the names in `connection`.
    pub(crate) fn send_explained(
        &self,
        request: ureq::Request,
        not_found: &str,
    ) -> Result<Value, ImportError> {
        self.answer(request, None, not_found)
    }

    fn answer(
        &self,
        request: ureq::Request,
        body: Option<&str>,
        not_found: &str,
    ) -> Result<Value, ImportError> {
        let answer = match body {
            Some(body) => request.send_string(body),
            None => request.call(),
        };
        match answer {
            Ok(answer) => {
                let mut bytes = Vec::new();
                answer
                    .into_reader()
                    .take(MAX_ANSWER)
                    .read_to_end(&mut bytes)
                    .map_err(|e| self.unreachable(&e.to_string()))?;
                serde_json::from_slice(&bytes).map_err(|e| {
                    ImportError::BadRequest(format!(
                        "{} at {} answered something that is not JSON: {}",
                        self.name(),
                        self.host,
                        self.scrub(&e.to_string())
                    ))
                })
            }
            Err(ureq::Error::Status(status, answer)) => {
                let text = answer.status_text().to_string();
                let mut body = String::new();
                let _ = answer
                    .into_reader()
                    .take(64 * 1024)
                    .read_to_string(&mut body);
                let said = message_of(&body);
                let mut message = format!(
                    "{} at {} answered HTTP {status} {text}",
                    self.name(),
                    self.host
                );
                if let Some(said) = said {
                    message.push_str(": ");
                    message.push_str(&said.chars().take(300).collect::<String>());
                }
                match status {
                    401 | 403 => message.push_str(" (check `connection.api_key`)"),
                    404 => message.push_str(&format!(" ({not_found})")),
                    _ => {}
                }
                Err(ImportError::BadRequest(self.scrub(&message)))
            }
            Err(ureq::Error::Transport(t)) => {
                let what = match t.message() {
                    Some(m) => format!("{}: {m}", t.kind()),
                    None => t.kind().to_string(),
                };
                Err(self.unreachable(&what))
            }
        }
    }

    fn unreachable(&self, what: &str) -> ImportError {
        ImportError::BadRequest(self.scrub(&format!(
            "cannot reach {} at {}: {what}",
            self.name(),
            self.host
        )))
    }

    /// `message` without the key (as given, and as it may appear base64-encoded).
    pub(crate) fn scrub(&self, message: &str) -> String {
        let Some(secret) = self.secret.as_deref().filter(|s| !s.is_empty()) else {
            return message.to_string();
        };
        let mut out = message.replace(secret, "***");
        for part in secret.split(':').filter(|p| p.len() >= 4) {
            out = out.replace(part, "***");
        }
        out
    }
}

/// The service's own words in an error answer: `message`, `error` (text), `error.message`,
/// `error.reason` (Elasticsearch).
fn message_of(body: &str) -> Option<String> {
    let value: Value = serde_json::from_str(body).ok()?;
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    text(value.get("message"))
        .or_else(|| text(value.get("error")))
        .or_else(|| {
            let error = value.get("error")?;
            text(error.get("message")).or_else(|| text(error.get("reason")))
        })
}

/// A service's answer was not in the shape its API documents.
pub(crate) fn malformed(kind: SourceKind, what: &str) -> ImportError {
    ImportError::BadRequest(format!(
        "{} answered JSON that is not {what}",
        service_name(kind)
    ))
}

/// Percent-encoding of a path segment or query value (everything but unreserved).
pub(crate) fn encode(s: &str) -> String {
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

/// A JSON `query` of the request, which must be an object.
pub(crate) fn json_query(query: Option<&str>, what: &str) -> Result<Option<Value>, ImportError> {
    let Some(query) = query.map(str::trim).filter(|q| !q.is_empty()) else {
        return Ok(None);
    };
    match serde_json::from_str::<Value>(query) {
        Ok(value @ Value::Object(_)) => Ok(Some(value)),
        _ => Err(ImportError::BadRequest(format!(
            "`query` is {what} as a JSON object"
        ))),
    }
}
